//===- Codegen.h - CUDA C with inline PTX from a litmus::Program -*- C++ -*-===//
//
// The CUDA backend's code generator. From the lowered litmus::Program it
// emits one CUDA C translation unit: a device function per thread of the
// test whose body is the test's instructions as inline PTX, exactly as the
// lowered ops say (semantics, scope, state space, cache operator, RMW
// operation, fence kind), plus the glue that the harness in
// lib/CUDA/runtime/incant_harness.cuh calls. No text of the input file is
// ever copied into the generated code: names are rebuilt from indices.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_CODEGEN_H
#define INCANT_CUDA_CODEGEN_H

#include "incant/Harness/Layout.h"
#include "incant/Litmus/Program.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::cuda {

/// What the generated code needs beyond the Program.
struct CodegenOptions {
  /// Bound on backward branches taken per role (so no test can hang).
  uint32_t LoopBudget = 1000;
};

/// The generated translation unit and facts the runner needs.
struct GeneratedTest {
  std::string Source;       ///< The test's .cu (includes the harness).
  /// Where each role goes relative to the instance's role 0 (the harness's
  /// one role layout; docs/cuda.md, "Placement"): roles in different CTAs
  /// get different (ClusterGroup, CtaInCluster), roles in one CTA but
  /// different warps different WarpClass, roles in one warp different Lane.
  /// A cluster launch is used only when ClusterSize > 1.
  harness::PlacementShape Shape;
  std::vector<int32_t> GlobalIndex; ///< Location -> index among globals, or -1.
  std::vector<int32_t> SharedIndex; ///< Location -> index among shared, or -1.
  uint32_t NumGlobal = 0;
  uint32_t NumShared = 0;
  uint32_t NumOut = 0;      ///< Observed items plus 64-bit items' high words.
  bool HasBarrier = false;  ///< The test has bar.sync or barrier.cluster.
  /// Hopper's features: a CTA reaches another's shared memory (mapa,
  /// st.async): every CTA of a cluster syncs the cluster after setting up
  /// its shared memory and before it exits, and no lane shadows the test
  /// (a shadow's own region is global memory).
  bool ClusterShared = false;
  /// Words per shared slot: 4 (16 bytes) when the test has an mbarrier or
  /// a bulk copy (8- and 16-byte aligned objects), else 1.
  uint32_t SharedStride = 1;
  /// Bulk copies: global locations on 16-byte boundaries (stride and
  /// location distance multiples of 4 words).
  bool Align16 = false;
  /// mbarrier and asynchronous instructions have no SASS class optcheck
  /// knows (SYNCS, UBLKCP, ...): the check is skipped.
  bool SkipOptCheck = false;
  /// Global locations have 8-byte slots: location j at index 2j, its high
  /// word one word after it.
  bool Wide = false;
  /// For optcheck: per marked region (a role; in tests with bar.sync, a
  /// part of a role between barriers, or a barrier), the expected memory
  /// operations in program order, as SASS classes ("LD", "ST", "ATOM",
  /// "RED", "FENCE", "BAR"). Region m is bracketed by markerBegin(m) and
  /// markerEnd(m).
  std::vector<std::vector<std::string>> ExpectedMemOps;
  /// What each region is, for messages: "thread 1", "thread 0 part 1",
  /// "barrier 0".
  std::vector<std::string> RegionNames;
  /// Per observed item (Program::Observe): the out slot of its high word
  /// when it is 64-bit, else -1. NumOut counts these slots too.
  std::vector<int32_t> HiSlot;
  /// For a test with a loop: the out slot a role sets when it reaches the
  /// loop bound (NumOut counts it). Such an instance did not finish, so
  /// its key is no outcome: the launcher counts it apart. -1 without loops.
  int32_t CutSlot = -1;
};

/// The high word that marks an observed 64-bit value as an address: the
/// value is (offset, AddressTag | location index).
constexpr uint32_t AddressTag = 0xADD00000u;

/// The observed values of one outcome from the words the GPU counted
/// (NumOut of them): 32-bit items as signed 32-bit integers (as the
/// checker's values), 64-bit items whole, addresses as locations.
std::vector<litmus::Value> decodeOutcome(const GeneratedTest &G,
                                         const std::vector<uint32_t> &Words);

/// Generates the CUDA source for \p P. Ops the backend cannot run
/// faithfully (bar.sync in threads with different barrier sequences or
/// with branches, 64-bit locations in shared memory, widths other than 32
/// and 64 bits) are reported as errors at their source range in \p File;
/// returns nullopt then.
std::optional<GeneratedTest>
generateCuda(const litmus::Program &P, const CodegenOptions &Opts,
             std::shared_ptr<const SourceFile> File, DiagnosticEngine &Diags);

/// The harness files, embedded at build time: {file name, contents}.
struct EmbeddedFile {
  const char *Name;
  const char *Text;
};
const std::vector<EmbeddedFile> &harnessFiles();

/// The value of a location or an observed register as the harness stores
/// it (low 32 bits).
inline uint32_t wordOf(int64_t V) { return static_cast<uint32_t>(V); }

/// The marker immediates optcheck looks for: role R's code is bracketed by
/// `pmevent.mask begin(R)` and `pmevent.mask end(R)`.
inline uint32_t markerBegin(uint32_t R) { return 0x100u + 2u * R; }
inline uint32_t markerEnd(uint32_t R) { return 0x101u + 2u * R; }

} // namespace incant::cuda

#endif // INCANT_CUDA_CODEGEN_H
