//===- PtxFuzzer.cpp - libFuzzer target for the PTX module parser ---------===//
//
// Parses the input as a PTX module. If it parses: prints it, parses the
// printed text again (which must succeed without errors) and checks that
// printing is stable (print -> parse -> print is a fixpoint). If it does
// not parse, an error must have been reported. Any crash, hang, sanitizer
// report or unstable print is a bug.
//
//===----------------------------------------------------------------------===//
#include "incant/PTX/Module.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace incant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size > 1 << 16)
    return 0;
  auto F = std::make_shared<SourceFile>(
      "fuzz.ptx", std::string(reinterpret_cast<const char *>(Data), Size));
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M = ptx::parseModule(F, Diags);
  for (const Diagnostic &D : Diags.diagnostics())
    (void)DiagnosticEngine::format(D);
  if (!M) {
    if (!Diags.hasErrors()) {
      std::fprintf(stderr, "parse failed without a diagnostic\n");
      std::abort();
    }
    return 0;
  }
  std::string Once = ptx::printModule(*M);
  auto F2 = std::make_shared<SourceFile>("printed.ptx", Once);
  DiagnosticEngine Diags2;
  std::optional<ptx::Module> M2 = ptx::parseModule(F2, Diags2);
  if (!M2) {
    std::fprintf(stderr, "printed module does not parse:\n%s\n%s",
                 Once.c_str(),
                 DiagnosticEngine::format(Diags2.diagnostics().back()).c_str());
    std::abort();
  }
  std::string Twice = ptx::printModule(*M2);
  if (Twice != Once) {
    std::fprintf(stderr, "unstable print:\n%s---\n%s", Once.c_str(),
                 Twice.c_str());
    std::abort();
  }
  return 0;
}
