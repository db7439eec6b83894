//===- Params.h - Incantations and run parameters of the harness -*- C++ -*-===//
//
// Plain structs shared by every backend (OpenCL, CUDA). The tool fills them
// from the command line; a backend turns them into launch sizes and
// preprocessor switches of its harness code. Each incantation is switchable
// on its own (the papers measure them alone and together).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_HARNESS_PARAMS_H
#define INCANT_HARNESS_PARAMS_H

#include <cstdint>
#include <string>
#include <vector>

namespace incant::harness {

/// One access of a stress sequence: a load or a store at one of the
/// scratchpad locations.
struct StressAccess {
  bool IsStore = true;
  uint32_t Loc = 0; ///< Index among Incantations::StressLocs.
  friend bool operator==(const StressAccess &, const StressAccess &) = default;
};

/// The heuristics that make weak behaviours show up (thesis ch. 3, PLDI'16).
struct Incantations {
  /// 1. Memory stress: threads outside the test loop over a scratchpad.
  bool MemStress = false;
  /// Work-groups (CTAs) that only stress; 0 lets the backend choose.
  uint32_t StressGroups = 0;
  /// Access sequence, (ld|st)+, e.g. "st0 ld1".
  std::vector<StressAccess> StressSeq = {{true, 0}, {false, 1}};
  /// How many scratchpad locations the sequence spreads over, and the
  /// distance between them in 4-byte words (a "patch").
  uint32_t StressLocs = 2;
  uint32_t StressPatch = 64;
  uint32_t StressIterations = 64;
  /// Stress the test's own memory instead of a scratchpad: each stressing
  /// thread picks an instance and runs the sequence at StressOffset words
  /// past that instance's first location (then StressPatch apart for each
  /// further location). Runtime parameters of the CUDA harness, so one
  /// compiled kernel serves every offset (`incant tune patch`); the OpenCL
  /// harness ignores them. Offsets that would hit a test location are
  /// refused.
  bool StressInTest = false;
  uint32_t StressOffset = 0;

  /// 2. Bank conflicts: idle warp-mates of testing threads access offset
  /// addresses: parallel, broadcast or conflicting, chosen per launch.
  bool BankConflicts = false;

  /// 3. Thread randomisation: a fresh layout (permutations, row order) per
  /// launch, still honouring the placement of the test.
  bool Randomise = false;

  /// 4. Synchronisation: the threads of an instance meet at a spin barrier
  /// just before the test; it gives up after BarrierPolls polls.
  bool SpinBarrier = true;
  uint32_t BarrierPolls = 2000;

  /// 5. Pre-stress: testing threads stress the scratchpad before the test.
  bool PreStress = false;
  uint32_t PreStressIterations = 8;
};

/// Parses an access sequence "st0 ld1 st2" (also "st0,ld1"); false if
/// malformed (the message says what was expected).
bool parseStressSeq(const std::string &Text, std::vector<StressAccess> &Seq,
                    std::string &Error);
std::string formatStressSeq(const std::vector<StressAccess> &Seq);

/// How a run is shaped, independent of the backend.
struct RunParams {
  /// Launches (kernel runs) of the test.
  uint64_t Iterations = 1000;
  /// Test instances per launch; 0 lets the backend choose.
  uint32_t Instances = 0;
  /// Work-group (CTA) size; 0 lets the backend choose.
  uint32_t GroupSize = 0;
  /// GroupSize is a preference (a chip profile's), not the user's choice:
  /// a test with more warps in a work-group than it holds gets the
  /// smallest size that holds them, and the run says so.
  bool GroupSizeAtLeast = false;
  /// Distance between two locations in 4-byte words.
  uint32_t Stride = 16;
  /// When non-zero, each instance gets a region of its own and location g
  /// of the instance sits g * LocDistance words past its first one: the
  /// distance d of the PLDI'16 micro-benchmarks. 0 keeps the permuted
  /// spread. A runtime parameter of the CUDA harness; ignored by OpenCL.
  uint32_t LocDistance = 0;
  /// Seed of the permutations and of randomisation.
  uint64_t Seed = 1;
  /// Bound on backward branches taken per thread, so spinning tests end.
  uint32_t LoopBound = 1000;
  Incantations Inc;
};

} // namespace incant::harness

#endif // INCANT_HARNESS_PARAMS_H
