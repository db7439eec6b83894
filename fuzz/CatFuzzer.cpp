//===- CatFuzzer.cpp - libFuzzer target for the cat language --------------===//
//
// Parses arbitrary text as a .cat model; when it loads, evaluates it on a
// small execution whose primitives are filled from the input's hash. The
// model loader and interpreter must never crash or hang, whatever the text.
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Model.h"
#include "incant/Cat/Primitives.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace incant;
using namespace incant::cat;

namespace {

/// A small deterministic generator (splitmix64).
struct Rng {
  uint64_t State;
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
};

Execution randomExecution(Rng &R) {
  // Mostly small executions; now and then one over a word per row.
  unsigned N = R.next() % 16 == 0 ? 60 + R.next() % 20 : R.next() % 9;
  Execution X(N);
  for (const PrimitiveInfo &P : primitiveNames()) {
    if (R.next() % 8 == 0)
      continue; // leave some out: derived or missing
    unsigned Density = 1 + R.next() % 4; // 1/2 .. 1/16 of the bits
    if (P.IsSet) {
      EventSet S(N);
      for (unsigned E = 0; E != N; ++E)
        if (R.next() % (1u << Density) == 0)
          S.insert(E);
      X.setSet(std::string(P.Name), std::move(S));
    } else {
      Relation Rel(N);
      for (unsigned A = 0; A != N; ++A)
        for (unsigned B = 0; B != N; ++B)
          if (R.next() % (2u << Density) == 0)
            Rel.insert(A, B);
      X.setRelation(std::string(P.Name), std::move(Rel));
    }
  }
  return X;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  DiagnosticEngine Diags; // collect only
  // The file name's folder does not exist: relative includes find nothing.
  auto File =
      std::make_shared<SourceFile>("/nonexistent-incant-fuzz/fuzz.cat", Text);
  std::optional<Model> M = Model::parse(File, Diags);
  for (const Diagnostic &D : Diags.diagnostics())
    (void)DiagnosticEngine::format(D); // printing must not crash either
  if (!M)
    return 0;
  uint64_t H = 0xcbf29ce484222325ull;
  for (size_t I = 0; I != Size; ++I)
    H = (H ^ Data[I]) * 0x100000001b3ull;
  Rng R{H};
  for (int K = 0; K != 2; ++K) {
    Execution X = randomExecution(R);
    Verdict V = M->evaluate(X);
    if (V.Allowed && (!V.FailedChecks.empty() || !V.Error.empty()))
      __builtin_trap(); // an allowed execution has no failed check
  }
  return 0;
}
