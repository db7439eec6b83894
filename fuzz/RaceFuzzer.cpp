//===- RaceFuzzer.cpp - libFuzzer target: PTX module -> race report -------===//
//
// Parses the input as a PTX module and, if it parses, checks it for races
// and barrier divergence as `incant race` does (a short solver and kernel
// time limit, with witnesses), then prints the report both ways (text,
// verbose, and JSON). Any crash, sanitizer report, uncaught exception or a
// check that runs past its time limit is a bug; a module that does not
// parse must have an error reported.
//
//===----------------------------------------------------------------------===//
#include "FuzzPtx.h"
#include "incant/PTX/Module.h"
#include "incant/Race/Race.h"
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
  race::Options O;
  O.TimeoutMs = 100;
  O.KernelSeconds = 1;
  race::ModuleReport R = race::checkModule(*M, O);
  std::ostringstream OS;
  race::printReport(R, OS, /*Verbose=*/true);
  (void)dumpJson(race::reportToJson(R));
  return 0;
}
