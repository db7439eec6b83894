//===- Traces.h - Per-thread traces of a litmus::Program --------*- C++ -*-===//
//
// The first half of the checker: each thread of a Program is run on its own,
// guessing the value of every read from the set of values its location can
// hold (computed by a fixpoint over all threads' stores). A run is a Trace:
// the thread's memory events in program order, the dependencies between them
// (from register data flow) and the final register values.
//
// model::check (Check.h) combines one trace per thread into candidate
// executions; the traces are public so that tests and tools can look at them.
// docs/checker.md describes the semantics.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_MODEL_TRACES_H
#define INCANT_MODEL_TRACES_H

#include "incant/Litmus/Program.h"

#include <compare>
#include <cstdint>
#include <vector>

namespace incant::model {

enum class EventKind : uint8_t { Read, Write, Fence, Barrier };

/// One event of a trace (or an initial write, in a candidate execution).
struct Event {
  EventKind K = EventKind::Read;
  /// Read/Write: the physical location (Location::Phys of the name the
  /// access used) and the generic address (Location::Generic); else -1.
  int32_t Loc = -1;
  int32_t VLoc = -1;
  litmus::Proxy Px = litmus::Proxy::Generic; ///< Access proxy / proxy fence kind.
  litmus::Value V;       ///< The value read or written (memory value).
  int32_t OpIndex = -1;  ///< The Op it comes from; -1 for initial writes.
  bool Atom = false;     ///< Comes from atom/red.
  /// For the write half of an atom: the trace index of its read half, else -1.
  int32_t RmwRead = -1;
  litmus::Sem S = litmus::Sem::Weak;
  litmus::Scope Sc = litmus::Scope::None;
  litmus::CacheOp Cache = litmus::CacheOp::None;
  litmus::FenceKind Fence = litmus::FenceKind::Membar;
  /// Barrier: its instance and id (the register's value if the id is a
  /// register; -1 none), the occurrence number of that (instance, id) in
  /// the thread, bar.arrive, and the quorum's value (-1: none).
  int32_t BarrierInstance = -1;
  int64_t BarrierId = 0;
  int32_t BarrierCount = 0;
  bool Arrive = false;
  int64_t Quorum = -1;
  /// Dependencies as bit masks over the trace's read ordinals (bit i: the
  /// i-th read of the trace, Trace::Reads[i]).
  uint64_t Addr = 0, Data = 0, Ctrl = 0;

  friend bool operator==(const Event &, const Event &) = default;
  friend auto operator<=>(const Event &, const Event &) = default;
};

/// One run of one thread.
struct Trace {
  std::vector<Event> Events;           ///< In program order.
  std::vector<int32_t> Reads;          ///< Event index of each read ordinal.
  std::vector<litmus::Value> FinalRegs;

  friend bool operator==(const Trace &, const Trace &) = default;
  friend auto operator<=>(const Trace &, const Trace &) = default;
};

struct TraceOptions {
  /// How many times each backward branch may be taken; longer runs are dropped.
  unsigned Unroll = 2;
  /// Most values one location can be guessed to hold.
  unsigned MaxValuesPerLocation = 16;
  /// Most rounds of the value fixpoint.
  unsigned MaxRounds = 16;
  /// Most distinct traces per thread.
  unsigned MaxTracesPerThread = 1u << 16;
  /// Most reads (value choices) tried per thread and round, counting runs
  /// that are later dropped; bounds the work on any input.
  uint64_t MaxReadsPerThread = uint64_t(1) << 22;
};

struct TraceSet {
  /// Threads[t]: the distinct traces of Program::Threads[t], sorted.
  std::vector<std::vector<Trace>> Threads;
  /// Values[l]: the values location l may hold (sorted; includes its init).
  std::vector<std::vector<litmus::Value>> Values;
  /// A limit of TraceOptions was reached: some behaviours may be missing.
  bool Incomplete = false;
};

/// Computes the value sets and every thread's traces.
TraceSet computeTraces(const litmus::Program &P, const TraceOptions &Opts);

/// \p V wrapped to \p Bits bits, sign- or zero-extended (addresses unchanged).
litmus::Value wrapValue(litmus::Value V, unsigned Bits, bool Signed);

} // namespace incant::model

#endif // INCANT_MODEL_TRACES_H
