//===- RepairFuzzer.cpp - libFuzzer target: PTX module -> barrier repair --===//
//
// Parses the input as a PTX module and, if it parses, repairs its barriers
// as `incant repair` does (short solver and kernel time limits, few
// rounds), applies the repair, prints the repaired module and parses it
// again (which must succeed), and prints the report as JSON. Any crash,
// sanitizer report, uncaught exception, a repair that cannot be applied or
// a repaired module that does not parse is a bug.
//
//===----------------------------------------------------------------------===//
#include "../lib/Commands/RepairReport.h"
#include "FuzzPtx.h"
#include "incant/PTX/Module.h"
#include "incant/Repair/Repair.h"
#include "incant/Support/Json.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

using namespace incant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::optional<ptx::Module> M = fuzz::fuzzModule(Data, Size);
  if (!M)
    return 0;
  repair::Options O;
  O.Race.TimeoutMs = 100;
  O.Race.KernelSeconds = 1;
  O.MaxRounds = 8;
  O.KernelSeconds = 3;
  repair::ModuleRepair R = repair::repairModule(*M, O);
  if (!R.Error.empty())
    return 0;
  ptx::Module Fixed = *M;
  std::ostringstream Log;
  DiagnosticEngine ApplyDiags(&Log);
  if (!repair::applyRepairs(Fixed, R, ApplyDiags)) {
    std::fprintf(stderr, "repair not applicable:\n%s", Log.str().c_str());
    std::abort();
  }
  repair::RepairResult Res;
  Res.File = "fuzz.ptx";
  Res.Ptx = ptx::printModule(Fixed);
  auto F2 = std::make_shared<SourceFile>("repaired.ptx", Res.Ptx);
  DiagnosticEngine Diags2(&Log);
  if (!ptx::parseModule(F2, Diags2)) {
    std::fprintf(stderr, "repaired module does not parse:\n%s\n%s",
                 Res.Ptx.c_str(), Log.str().c_str());
    std::abort();
  }
  std::ostringstream OS;
  repair::printRepair(R, Res, OS, /*Verbose=*/true);
  (void)dumpJson(repair::repairToJson(R, Res));
  return 0;
}
