//===- ProfileFuzzer.cpp - libFuzzer target for chip profiles -------------===//
//
// Reads the input as a chip profile (JSON). It must load or give a located
// error, never crash. A profile that loads must give run parameters inside
// every range (harness::checkParams: what the backends are given), and
// must write and read back to the same profile.
//
//===----------------------------------------------------------------------===//
#include "incant/Harness/ParamRanges.h"
#include "incant/Harness/Profile.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace incant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size > 1 << 16)
    return 0;
  auto F = std::make_shared<SourceFile>(
      "fuzz.json", std::string(reinterpret_cast<const char *>(Data), Size));
  DiagnosticEngine Diags;
  std::optional<harness::Profile> P = harness::profileFromJson(F, Diags);
  for (const Diagnostic &D : Diags.diagnostics())
    (void)DiagnosticEngine::format(D); // printing must not crash either
  if (!P) {
    if (!Diags.hasErrors()) {
      std::fprintf(stderr, "rejected without a diagnostic\n");
      std::abort();
    }
    return 0;
  }
  harness::RunParams R;
  harness::applyProfile(*P, R);
  std::string Error;
  if (!harness::checkParams(R, Error)) {
    std::fprintf(stderr, "a profile gave parameters out of range: %s\n",
                 Error.c_str());
    std::abort();
  }
  auto Again = std::make_shared<SourceFile>("again.json",
                                            harness::profileToJson(*P));
  DiagnosticEngine Diags2;
  std::optional<harness::Profile> Q = harness::profileFromJson(Again, Diags2);
  if (!Q || !(*Q == *P)) {
    std::fprintf(stderr, "a written profile reads back differently\n");
    std::abort();
  }
  return 0;
}
