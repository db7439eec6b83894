//===- LitmusFuzzer.cpp - libFuzzer target for the litmus front end -------===//
//
// Parses the input as a litmus test. If it parses: prints it, parses the
// printed text again, checks that printing is stable, and lowers it. Any
// crash, hang, sanitizer report or unstable print is a bug.
//
//===----------------------------------------------------------------------===//
#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"
#include "incant/Litmus/Printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace incant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size > 1 << 16)
    return 0;
  auto F = std::make_shared<SourceFile>(
      "fuzz.litmus", std::string(reinterpret_cast<const char *>(Data), Size));
  DiagnosticEngine Diags;
  std::optional<litmus::Test> T = litmus::parseTest(F, Diags);
  if (!T) {
    if (!Diags.hasErrors()) {
      std::fprintf(stderr, "parse failed without a diagnostic\n");
      std::abort();
    }
    // Formatting every diagnostic must not crash either.
    for (const Diagnostic &D : Diags.diagnostics())
      (void)DiagnosticEngine::format(D);
    return 0;
  }
  std::string Once = litmus::printTest(*T);
  auto F2 = std::make_shared<SourceFile>("printed.litmus", Once);
  DiagnosticEngine Diags2;
  std::optional<litmus::Test> T2 = litmus::parseTest(F2, Diags2);
  if (!T2) {
    std::fprintf(stderr, "printed test does not parse:\n%s\n%s", Once.c_str(),
                 DiagnosticEngine::format(Diags2.diagnostics()[0]).c_str());
    std::abort();
  }
  std::string Twice = litmus::printTest(*T2);
  if (Twice != Once) {
    std::fprintf(stderr, "unstable print:\n%s---\n%s", Once.c_str(),
                 Twice.c_str());
    std::abort();
  }
  DiagnosticEngine Diags3;
  std::optional<litmus::Program> P = litmus::lower(*T, Diags3);
  if (!P && !Diags3.hasErrors()) {
    std::fprintf(stderr, "lowering failed without a diagnostic\n");
    std::abort();
  }
  // Lowering the re-parsed test must agree.
  DiagnosticEngine Diags4;
  std::optional<litmus::Program> P2 = litmus::lower(*T2, Diags4);
  if (P.has_value() != P2.has_value()) {
    std::fprintf(stderr, "lowering differs after printing:\n%s", Once.c_str());
    std::abort();
  }
  return 0;
}
