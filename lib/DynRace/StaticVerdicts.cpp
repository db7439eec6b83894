//===- StaticVerdicts.cpp - The static checker as pass race's pruning -----===//
#include "incant/DynRace/StaticVerdicts.h"
#include "incant/Support/Range.h"

#ifdef INCANT_DYNRACE_HAVE_STATIC
#include "incant/Race/Race.h"
#endif

#include <cstdlib>

namespace incant::dynrace {

bool haveStaticVerdicts() {
#ifdef INCANT_DYNRACE_HAVE_STATIC
  return true;
#else
  return false;
#endif
}

std::optional<intercept::RaceVerdicts>
staticVerdicts(const ptx::Module &M, unsigned TimeoutMs, std::string &Error) {
#ifdef INCANT_DYNRACE_HAVE_STATIC
  race::Options O;
  O.TimeoutMs = TimeoutMs;
  O.Witnesses = false;
  race::ModuleReport R = race::checkModule(M, O);
  if (!R.Error.empty()) {
    Error = R.Error;
    return std::nullopt;
  }
  std::map<std::string, const ptx::Function *> Functions;
  for (const ptx::ModuleItem &I : M.Items)
    if (const auto *F = std::get_if<ptx::Function>(&I))
      Functions[F->Name] = F;
  // Worse verdicts win: safe < unknown < race.
  auto Rank = [](const std::string &V) {
    return V == "race" ? 2 : V == "unknown" ? 1 : 0;
  };
  intercept::RaceVerdicts Out;
  for (const race::KernelReport &K : R.Kernels) {
    std::vector<bool> Racy(K.Accesses.size());
    for (const race::PairResult &P : K.Pairs)
      if (P.V == race::Verdict::Race)
        Racy[P.First] = Racy[P.Second] = true;
    for (unsigned A = 0; A < K.Accesses.size(); ++A) {
      const race::Access &X = K.Accesses[A];
      auto F = Functions.find(X.OriginFunction);
      if (F == Functions.end() || X.OriginItem >= F->second->Body.size())
        continue; // code the inliner made: left unchecked
      const auto *I = std::get_if<ptx::Instruction>(&F->second->Body[X.OriginItem]);
      if (!I || !I->Range.isValid())
        continue;
      std::string V = Racy[A] ? "race" : X.Proved ? "safe" : "unknown";
      auto [It, New] = Out.emplace(I->Range.Begin.Offset, V);
      if (!New && Rank(V) > Rank(It->second))
        It->second = V;
    }
  }
  return Out;
#else
  (void)M;
  (void)TimeoutMs;
  Error = "this incant was built without Z3, so without the static checker";
  return std::nullopt;
#endif
}

intercept::RaceOracle staticRaceOracle() {
  if (!haveStaticVerdicts())
    return {};
  unsigned TimeoutMs = 2000;
  if (const char *E = std::getenv("INCANT_RACE_TIMEOUT_MS"); E && *E) {
    std::string Why;
    if (auto V = parseInRange(E, IntRange{1, 3'600'000}, Why))
      TimeoutMs = static_cast<unsigned>(*V);
  }
  return [TimeoutMs](const ptx::Module &M, std::string &Error) {
    return staticVerdicts(M, TimeoutMs, Error);
  };
}

} // namespace incant::dynrace
