//===- ParamRanges.cpp - The range of every run parameter -----------------===//
//
// Why each bound (the backends and docs/limits.md rely on them):
// - iterations: launches of one test; 10^9 is years of GPU time already.
// - instances, group-size, stress-groups: the launch's shape; 2^24
//   instances, 4096 work-items per group (beyond every device's limit),
//   4096 stressing groups. 0 lets the backend choose.
// - stride, loc-distance, stress-offset, stress-patch, stress-locs: words
//   of device memory; they multiply into buffer sizes and into 32-bit
//   offsets in the kernels (stress-patch 10^9 overflowed one in the OpenCL
//   kernel and crashed it), so each stays small enough that every product
//   the harness forms fits.
// - loop-bound, barrier-polls, stress-iterations, pre-stress-iterations:
//   iteration counts inside one launch; a launch must end in seconds.
//
//===----------------------------------------------------------------------===//
#include "incant/Harness/ParamRanges.h"

#include <cassert>

namespace incant::harness {

const std::vector<ParamRange> &paramRanges() {
  constexpr uint64_t K = 1024, M = 1'000'000;
  static const std::vector<ParamRange> R = {
      {"iterations", {1, 1000 * M}, [](const RunParams &P) { return P.Iterations; }},
      {"instances", {0, 16 * K * K}, [](const RunParams &P) -> uint64_t { return P.Instances; }},
      {"group-size", {0, 4 * K}, [](const RunParams &P) -> uint64_t { return P.GroupSize; }},
      {"stride", {1, 4 * K}, [](const RunParams &P) -> uint64_t { return P.Stride; }},
      {"loc-distance", {0, 64 * K}, [](const RunParams &P) -> uint64_t { return P.LocDistance; }},
      {"seed", {0, UINT64_MAX}, [](const RunParams &P) { return P.Seed; }},
      {"loop-bound", {1, M}, [](const RunParams &P) -> uint64_t { return P.LoopBound; }},
      {"stress-groups", {0, 4 * K}, [](const RunParams &P) -> uint64_t { return P.Inc.StressGroups; }},
      {"stress-locs", {1, 64}, [](const RunParams &P) -> uint64_t { return P.Inc.StressLocs; }},
      {"stress-patch", {1, 64 * K}, [](const RunParams &P) -> uint64_t { return P.Inc.StressPatch; }},
      {"stress-iterations", {1, M}, [](const RunParams &P) -> uint64_t { return P.Inc.StressIterations; }},
      {"stress-offset", {0, 64 * K}, [](const RunParams &P) -> uint64_t { return P.Inc.StressOffset; }},
      {"barrier-polls", {1, 10 * M}, [](const RunParams &P) -> uint64_t { return P.Inc.BarrierPolls; }},
      {"pre-stress-iterations", {1, M}, [](const RunParams &P) -> uint64_t { return P.Inc.PreStressIterations; }},
  };
  return R;
}

IntRange paramRange(std::string_view Name) {
  for (const ParamRange &P : paramRanges())
    if (Name == P.Name)
      return P.Range;
  assert(false && "a run parameter without a range");
  return {};
}

bool checkParams(const RunParams &P, std::string &Error) {
  for (const ParamRange &R : paramRanges()) {
    uint64_t V = R.Get(P);
    if (!R.Range.contains(V)) {
      Error = std::string("the run parameter ") + R.Name + " " +
              outOfRange(R.Range, V);
      return false;
    }
  }
  return true;
}

} // namespace incant::harness
