//===- AsyncCopies.h - Asynchronous copies and what completes them -*- C++ -*-===//
//
// The asynchronous copies of a function: cp.async (Ampere's per-thread
// copies into shared memory), cp.async.bulk and cp.async.bulk.tensor (the
// Tensor Memory Accelerator's bulk copies, into shared memory and out of
// it) and cp.reduce.async.bulk. Such a copy reads and writes memory at
// some time between the instruction that issues it and its completion,
// which another instruction observes:
//
//  - a copy that completes on an mbarrier (cp.async followed by
//    cp.async.mbarrier.arrive; .mbarrier::complete_tx::bytes) is complete
//    once a thread's mbarrier.test_wait / try_wait sees the phase it was
//    counted in;
//  - a copy that completes in a group (cp.async.commit_group, .bulk_group)
//    is complete once its thread's cp.async.wait_group / wait_all
//    (cp.async.bulk.wait_group, with .read: its reads are) lets it past;
//  - OpenCL C's async_work_group_copy and async_work_group_strided_copy
//    (calls clang leaves to the library) are copies of the whole
//    work-group, each element by whichever work-item, complete once a
//    work-item's wait_group_events names the copy's event.
//
// A barrier between the issue and the access of another thread orders the
// issue, not the copy: the race checker must not use barrier intervals
// alone to call such a pair safe (lib/Race's async pairs).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_ASYNCCOPIES_H
#define INCANT_IR_ASYNCCOPIES_H

#include "incant/IR/FunctionIR.h"

#include <optional>
#include <string>
#include <vector>

namespace incant::ir {

/// How an asynchronous copy's completion is observed.
enum class AsyncCompletion : uint8_t {
  Mbarrier, ///< an mbarrier phase (complete_tx, cp.async.mbarrier.arrive)
  Group,    ///< cp.async.commit_group / wait_group / wait_all
  BulkGroup, ///< cp.async.bulk.commit_group / wait_group
  WorkGroup  ///< OpenCL C: wait_group_events on the copy's event
};

struct AsyncCopy {
  unsigned Item = NoNode;
  AsyncCompletion How = AsyncCompletion::Group;
  /// The instructions of the function that may observe its completion
  /// (mbarrier waits, or group waits), in body order.
  std::vector<unsigned> Waits;
};

/// Whether \p I is an asynchronous copy that reads or writes memory
/// (not cp.async.commit_group / wait_group / mbarrier.arrive, not the
/// L2 prefetches cp.async.bulk.prefetch).
bool isAsyncCopy(const ptx::Instruction &I);

/// The state spaces of an asynchronous copy's destination (first) and
/// source (second) operands: cp{.reduce}.async{.bulk}{.tensor}.DST.SRC.
std::pair<ptx::AddrSpace, ptx::AddrSpace>
asyncCopySpaces(const ptx::Instruction &I);

/// A call to one of OpenCL C's asynchronous work-group copies, read from
/// its mangled name: async_work_group_copy(dst, src, n, event) and
/// async_work_group_strided_copy(dst, src, n, stride, event).
struct WorkGroupCopyCall {
  unsigned ElemBytes = 0; ///< 0 when the element type is not known
  ptx::AddrSpace Dst = ptx::AddrSpace::Generic, Src = ptx::AddrSpace::Generic;
  bool Strided = false;   ///< the global side steps by the stride argument
  unsigned EventArg = 3;  ///< the event argument's position
};
std::optional<WorkGroupCopyCall> workGroupCopyCall(const std::string &Callee);
/// OpenCL C's wait_group_events(n, list) and prefetch(p, n): neither
/// touches the program's memory.
bool isWaitGroupEvents(const std::string &Callee);
bool isOpenCLPrefetch(const std::string &Callee);
/// The callee of call instruction \p I ("" for an indirect call).
std::string calleeOf(const ptx::Instruction &I);

/// The asynchronous copies of \p F in body order.
std::vector<AsyncCopy> asyncCopies(const FunctionIR &F);

/// "an mbarrier wait (mbarrier.try_wait at line 12)" and the like: how the
/// copy at \p C completes, for reasons and notes.
std::string asyncCompletionText(const FunctionIR &F, const AsyncCopy &C);

} // namespace incant::ir

#endif // INCANT_IR_ASYNCCOPIES_H
