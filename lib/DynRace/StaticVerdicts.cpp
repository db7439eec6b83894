//===- StaticVerdicts.cpp - The static checker as pass race's pruning -----===//
#include "incant/DynRace/StaticVerdicts.h"
#include "incant/Support/DataFiles.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Process.h"
#include "incant/Support/Range.h"

#ifdef INCANT_DYNRACE_HAVE_STATIC
#include "incant/Race/Race.h"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <istream>
#include <memory>
#include <sstream>

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
  using intercept::StaticVerdict;
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
      StaticVerdict V = Racy[A]    ? StaticVerdict::Race
                        : X.Proved ? StaticVerdict::Safe
                                   : StaticVerdict::Unknown;
      // Worse verdicts win.
      auto [It, New] = Out.emplace(I->Range.Begin.Offset, V);
      if (!New)
        It->second = std::max(It->second, V);
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

int printStaticVerdicts(std::istream &In, unsigned TimeoutMs,
                        unsigned MaxAccesses, std::ostream &Out) {
  std::ostringstream Text;
  Text << In.rdbuf();
  auto File = std::make_shared<SourceFile>("<stdin>", Text.str());
  DiagnosticEngine Diags;
  std::string Why;
  std::optional<intercept::RaceVerdicts> V;
  if (std::optional<ptx::Module> M = ptx::parseModule(File, Diags))
    V = staticVerdicts(*M, TimeoutMs, MaxAccesses, Why);
  else
    Why = Diags.diagnostics().empty() ? "the module does not parse"
                                      : Diags.diagnostics()[0].Message;
  if (!V) {
    Out << "!" << Why << "\n";
    return 0;
  }
  for (const auto &[Off, Verdict] : *V)
    Out << Off << " " << intercept::staticVerdictName(Verdict) << "\n";
  return 0;
}

namespace {

/// staticVerdicts() in a child process (this incant, `incant
/// race-verdicts`), given \p Seconds in all: Z3 cannot be stopped from
/// outside a query, and a build must not wait on the solver for long
/// (CUB-like modules have thousands of pairs).
std::optional<intercept::RaceVerdicts>
boundedVerdicts(const ptx::Module &M, unsigned TimeoutMs, unsigned Max,
                unsigned Seconds, std::string &Error) {
  if (!M.File) {
    Error = "the module has no PTX text to check";
    return std::nullopt;
  }
  std::string Self = incantCommand();
  if (Self.empty()) {
    Error = "cannot find this incant binary (/proc/self/exe) to run the "
            "static checker";
    return std::nullopt;
  }
  ProcessOptions O;
  O.Argv = {Self,          "race-verdicts",        "--timeout-ms",
            std::to_string(TimeoutMs), "--max-accesses", std::to_string(Max)};
  O.Input = M.File->text();
  O.Stderr = OutputMode::Discard;
  O.TimeoutSeconds = Seconds;
  ProcessResult P = runProcess(O);
  if (P.St == ProcessResult::Status::TimedOut) {
    Error = fmt::format("the static checker took more than {} s "
                        "(INCANT_RACE_STATIC_S)",
                        Seconds);
    return std::nullopt;
  }
  if (!P.succeeded() || P.Out.empty()) {
    Error = "the static checker ended without an answer (" + P.describe() +
            ")";
    return std::nullopt;
  }
  if (P.Out[0] == '!') {
    Error = P.Out.substr(1, P.Out.size() - 2);
    return std::nullopt;
  }
  intercept::RaceVerdicts V;
  std::istringstream In(P.Out);
  uint32_t Off = 0;
  std::string Name;
  while (In >> Off >> Name) {
    std::optional<intercept::StaticVerdict> X =
        intercept::parseStaticVerdict(Name);
    if (!X) {
      Error = "the static checker answered '" + Name + "', not a verdict";
      return std::nullopt;
    }
    V[Off] = *X;
  }
  return V;
}

} // namespace

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
  unsigned Seconds = Env("INCANT_RACE_STATIC_S", 60, {1, 86'400});
  return [TimeoutMs, Max, Seconds](const ptx::Module &M, std::string &Error) {
    return boundedVerdicts(M, TimeoutMs, Max, Seconds, Error);
  };
}

} // namespace incant::dynrace
