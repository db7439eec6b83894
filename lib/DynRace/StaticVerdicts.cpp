//===- StaticVerdicts.cpp - The static checker as pass race's pruning -----===//
#include "incant/DynRace/StaticVerdicts.h"
#include "incant/Support/Range.h"

#ifdef INCANT_DYNRACE_HAVE_STATIC
#include "incant/Race/Race.h"
#endif

#include <fmt/format.h>

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
staticVerdicts(const ptx::Module &M, unsigned TimeoutMs, unsigned MaxAccesses,
               std::string &Error) {
#ifdef INCANT_DYNRACE_HAVE_STATIC
  // Pairs grow with the square of the accesses: a large module (a library
  // such as CUB) would keep the build waiting on the solver for minutes.
  unsigned Accesses = 0;
  for (const ptx::ModuleItem &MI : M.Items)
    if (const auto *F = std::get_if<ptx::Function>(&MI))
      for (const ptx::BodyItem &B : F->Body)
        if (const auto *I = std::get_if<ptx::Instruction>(&B))
          if ((I->Op == ptx::Opcode::Ld || I->Op == ptx::Opcode::St ||
               I->Op == ptx::Opcode::Atom || I->Op == ptx::Opcode::Red) &&
              (I->ASpace == ptx::AddrSpace::Global ||
               I->ASpace == ptx::AddrSpace::Shared ||
               I->ASpace == ptx::AddrSpace::Generic))
            ++Accesses;
  if (Accesses > MaxAccesses) {
    Error = fmt::format("{} memory accesses, more than the {} the static "
                        "checker takes for pruning",
                        Accesses, MaxAccesses);
    return std::nullopt;
  }
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
  (void)MaxAccesses;
  Error = "this incant was built without Z3, so without the static checker";
  return std::nullopt;
#endif
}

intercept::RaceOracle staticRaceOracle() {
  if (!haveStaticVerdicts())
    return {};
  auto Env = [](const char *Name, unsigned Default, IntRange R) {
    std::string Why;
    const char *E = std::getenv(Name);
    if (E && *E)
      if (auto V = parseInRange(E, R, Why))
        return static_cast<unsigned>(*V);
    return Default;
  };
  unsigned TimeoutMs = Env("INCANT_RACE_TIMEOUT_MS", 500, {1, 3'600'000});
  unsigned Max = Env("INCANT_RACE_STATIC_MAX", 400, {0, 1'000'000});
  return [TimeoutMs, Max](const ptx::Module &M, std::string &Error) {
    return staticVerdicts(M, TimeoutMs, Max, Error);
  };
}

} // namespace incant::dynrace
