//===- FuzzPtx.h - A fuzzer's input as a PTX module -------------*- C++ -*-===//
//
// The front of the race and repair fuzzers: inputs up to 4 KiB are parsed
// as a PTX module; one that does not parse must have had an error
// reported (a silent refusal is a bug, and aborts).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_FUZZ_FUZZPTX_H
#define INCANT_FUZZ_FUZZPTX_H

#include "incant/PTX/Module.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace incant::fuzz {

inline std::optional<ptx::Module> fuzzModule(const uint8_t *Data, size_t Size) {
  if (Size > 1 << 12)
    return std::nullopt;
  auto F = std::make_shared<SourceFile>(
      "fuzz.ptx", std::string(reinterpret_cast<const char *>(Data), Size));
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M = ptx::parseModule(F, Diags);
  if (!M && !Diags.hasErrors()) {
    std::fprintf(stderr, "parse failed without a diagnostic\n");
    std::abort();
  }
  return M;
}

} // namespace incant::fuzz

#endif // INCANT_FUZZ_FUZZPTX_H
