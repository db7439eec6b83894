//===- StaticVerdicts.cpp - The static checker as pass race's pruning -----===//
#include "incant/DynRace/StaticVerdicts.h"
#include "incant/Support/Range.h"

#ifdef INCANT_DYNRACE_HAVE_STATIC
#include "incant/Race/Race.h"
#endif

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

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

namespace {

/// staticVerdicts() in a child process, given \p Seconds in all: Z3 cannot
/// be stopped from outside a query, and a build must not wait on the solver
/// for long (CUB-like modules have thousands of pairs).
std::optional<intercept::RaceVerdicts>
boundedVerdicts(const ptx::Module &M, unsigned TimeoutMs, unsigned Max,
                unsigned Seconds, std::string &Error) {
  int P[2];
  if (pipe(P) != 0) {
    Error = "cannot make a pipe for the static checker";
    return std::nullopt;
  }
  pid_t Pid = fork();
  if (Pid < 0) {
    close(P[0]);
    close(P[1]);
    Error = "cannot start the static checker";
    return std::nullopt;
  }
  if (Pid == 0) { // the child: verdicts as "OFFSET VERDICT" lines, or "!WHY"
    close(P[0]);
    std::string Why, Text;
    if (auto V = staticVerdicts(M, TimeoutMs, Max, Why))
      for (const auto &[Off, Verdict] : *V)
        Text += std::to_string(Off) + " " + Verdict + "\n";
    else
      Text = "!" + Why + "\n";
    for (size_t Done = 0; Done < Text.size();) {
      ssize_t N = write(P[1], Text.data() + Done, Text.size() - Done);
      if (N <= 0)
        break;
      Done += size_t(N);
    }
    _exit(0);
  }
  close(P[1]);
  std::string Text;
  auto End = std::chrono::steady_clock::now() + std::chrono::seconds(Seconds);
  bool Eof = false, Late = false;
  while (!Eof) {
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
        End - std::chrono::steady_clock::now());
    if (Left.count() <= 0) {
      Late = true;
      break;
    }
    pollfd F{P[0], POLLIN, 0};
    int R = poll(&F, 1, int(Left.count()));
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0) {
      Late = R == 0;
      break;
    }
    char Buf[4096];
    ssize_t N = read(P[0], Buf, sizeof Buf);
    if (N <= 0)
      Eof = true;
    else
      Text.append(Buf, size_t(N));
  }
  close(P[0]);
  if (Late)
    kill(Pid, SIGKILL);
  int St = 0;
  waitpid(Pid, &St, 0);
  if (Late) {
    Error = fmt::format("the static checker took more than {} s "
                        "(INCANT_RACE_STATIC_S)",
                        Seconds);
    return std::nullopt;
  }
  if (!WIFEXITED(St) || WEXITSTATUS(St) != 0 || Text.empty()) {
    Error = "the static checker ended without an answer";
    return std::nullopt;
  }
  if (Text[0] == '!') {
    Error = Text.substr(1, Text.size() - 2);
    return std::nullopt;
  }
  intercept::RaceVerdicts V;
  std::istringstream In(Text);
  uint32_t Off = 0;
  std::string Verdict;
  while (In >> Off >> Verdict)
    V[Off] = Verdict;
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
