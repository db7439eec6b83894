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
  if (Size > 1 << 12)
    return 0;
  auto F = std::make_shared<SourceFile>(
      "fuzz.ptx", std::string(reinterpret_cast<const char *>(Data), Size));
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M = ptx::parseModule(F, Diags);
  if (!M) {
    if (!Diags.hasErrors()) {
      std::fprintf(stderr, "parse failed without a diagnostic\n");
      std::abort();
    }
    return 0;
  }
  race::Options O;
  O.TimeoutMs = 100;
  O.KernelSeconds = 1;
  race::ModuleReport R = race::checkModule(*M, O);
  std::ostringstream OS;
  race::printReport(R, OS, /*Verbose=*/true);
  (void)dumpJson(race::reportToJson(R));
  return 0;
}
