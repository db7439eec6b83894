//===- ParamsJson.cpp - Run parameters as JSON keys -----------------------===//
#include "incant/Harness/ParamsJson.h"

namespace incant::harness {

void addParamsJson(const RunParams &P, nlohmann::json &J) {
  const Incantations &I = P.Inc;
  J["stride"] = P.Stride;
  J["seed"] = P.Seed;
  J["loop_bound"] = P.LoopBound;
  J["loc_distance"] = P.LocDistance;
  J["mem_stress"] = I.MemStress;
  J["stress_groups"] = I.StressGroups;
  J["stress_seq"] = formatStressSeq(I.StressSeq);
  J["stress_locs"] = I.StressLocs;
  J["stress_patch"] = I.StressPatch;
  J["stress_iterations"] = I.StressIterations;
  J["stress_in_test"] = I.StressInTest;
  J["stress_offset"] = I.StressOffset;
  J["bank_conflicts"] = I.BankConflicts;
  J["randomise"] = I.Randomise;
  J["spin_barrier"] = I.SpinBarrier;
  J["barrier_polls"] = I.BarrierPolls;
  J["pre_stress"] = I.PreStress;
  J["pre_stress_iterations"] = I.PreStressIterations;
}

} // namespace incant::harness
