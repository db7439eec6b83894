//===- StressCommand.cpp - `incant stress`: the run loop ------------------===//
#include "incant/AppTest/StressCommand.h"
#include "incant/AppTest/StressStore.h"
#include "incant/Intercept/ImageScan.h"

#include "incant/Support/FindProgram.h"
#include "incant/Support/Hash.h"
#include "incant/Support/Process.h"
#include "incant/Support/Time.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>
#include <utility>

namespace incant::apptest {

namespace fs = std::filesystem;

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Pass:
    return "pass";
  case Verdict::Fail:
    return "fail";
  case Verdict::Hang:
    return "hang";
  case Verdict::Crash:
    return "crash";
  }
  return "?";
}

harness::Proportion EnvSummary::rate() const {
  return harness::wilson(failures(), Runs);
}

namespace {

/// The program \p Name as exec would find it: a path, or on PATH.
std::string resolveProgram(const std::string &Name) {
  const char *Path = std::getenv("PATH");
  std::string P = findOnPath(Name, Path ? Path : "");
  return !P.empty() && isExecutableFile(P) ? P : std::string();
}

extern "C" char **environ;

/// A file name under $TMPDIR unique to this process and \p Tag.
std::string tempPath(const std::string &Tag) {
  const char *T = std::getenv("TMPDIR");
  return fmt::format("{}/incant-stress-{}-{}", T && *T ? T : "/tmp", getpid(),
                     Tag);
}

/// The environment of one run: ours, the injected library first in
/// LD_PRELOAD, the environment's variables and the report file.
std::vector<std::pair<std::string, std::string>>
runEnvironment(const StressCommand &Cmd, const Environment &E, uint64_t Seed,
               const std::string &Report) {
  std::vector<std::pair<std::string, std::string>> Env;
  std::string Preload = Cmd.InjectLibrary;
  for (char **V = environ; V && *V; ++V) {
    std::string_view S = *V;
    size_t Eq = S.find('=');
    if (Eq == std::string_view::npos)
      continue;
    std::string Name(S.substr(0, Eq)), Value(S.substr(Eq + 1));
    if (Name == "LD_PRELOAD") {
      if (!Value.empty())
        Preload += ":" + Value;
      continue;
    }
    if (Name.rfind("INCANT_", 0) == 0 && Name != "INCANT_INJECT_LIB")
      continue; // ours to set
    Env.emplace_back(std::move(Name), std::move(Value));
  }
  Env.emplace_back("LD_PRELOAD", Preload);
  StressKnobs K = Cmd.Knobs;
  if (!K.MaxStressMs)
    K.MaxStressMs = static_cast<unsigned>(std::max(1.0, Cmd.Timeout * 1000));
  for (const std::string &V : libraryVariables(E, K, Seed)) {
    size_t Eq = V.find('=');
    Env.emplace_back(V.substr(0, Eq), V.substr(Eq + 1));
  }
  Env.emplace_back("INCANT_REPORT", Report);
  return Env;
}

/// Reads the library's report lines (one per process) into \p R.
void readReport(const std::string &Path, RunRecord &R) {
  std::ifstream In(Path);
  std::string Line;
  while (std::getline(In, Line)) {
    nlohmann::json J = nlohmann::json::parse(Line, nullptr, false);
    if (J.is_discarded() || !J.is_object())
      continue;
    R.Reported = true;
    R.Launches += J.value("launches", uint64_t(0));
    R.Stressed += J.value("stressed", uint64_t(0));
    R.CapHits += J.value("stress_cap_hits", uint64_t(0));
    for (const char *Key : {"notes", "errors"})
      if (J.contains(Key) && J[Key].is_array())
        for (const auto &N : J[Key])
          if (N.is_string())
            R.Notes.push_back(N.get<std::string>());
  }
}

enum class CheckResult { Pass, Fail, Broken };

/// Runs the user's --check command on one run's output.
CheckResult runCheck(const StressCommand &Cmd, const ProcessResult &P,
                     std::string &Why) {
  std::string OutFile = tempPath("stdout"), ErrFile = tempPath("stderr");
  {
    std::ofstream(OutFile, std::ios::binary) << P.Out;
    std::ofstream(ErrFile, std::ios::binary) << P.Err;
  }
  ProcessOptions O;
  O.Argv = {"/bin/sh", "-c", Cmd.Check};
  O.SetEnv = {{"INCANT_APP_STDOUT", OutFile},
              {"INCANT_APP_STDERR", ErrFile},
              {"INCANT_APP_EXIT", std::to_string(P.ExitCode)}};
  O.TimeoutSeconds = std::max(Cmd.Timeout, 60.0);
  O.MaxOutputBytes = 1 << 20;
  ProcessResult C = runProcess(O);
  fs::remove(OutFile);
  fs::remove(ErrFile);
  if (C.St != ProcessResult::Status::Exited || C.ExitCode > 1) {
    Why = C.St == ProcessResult::Status::Exited
              ? fmt::format("it exited with {} (0 means correct, 1 wrong){}",
                            C.ExitCode,
                            C.ExitCode == 127 ? ": command not found" : "")
              : C.describe();
    if (!C.Err.empty())
      Why += "; its stderr: " + C.Err.substr(0, 500);
    return CheckResult::Broken;
  }
  return C.ExitCode == 0 ? CheckResult::Pass : CheckResult::Fail;
}

} // namespace

int runStress(const StressCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  auto Usage = [&](const std::string &M) {
    fmt::print(Err, "incant: error: {}\n", M);
    return 2;
  };
  if (Cmd.Argv.empty())
    return Usage("no program to run: incant stress [options] -- ./app ARGS");
  int Oracles = !Cmd.Check.empty() + Cmd.ExpectExit.has_value() +
                !Cmd.ExpectStdout.empty();
  if (Oracles > 1)
    return Usage("give at most one of --check, --expect-exit and "
                 "--expect-stdout");
  std::regex Re;
  if (!Cmd.ExpectStdout.empty()) {
    try {
      Re = std::regex(Cmd.ExpectStdout, std::regex::extended);
    } catch (const std::regex_error &E) {
      return Usage(fmt::format("--expect-stdout '{}' is not a regular "
                               "expression: {}",
                               Cmd.ExpectStdout, E.what()));
    }
  }
  std::string Error;
  auto Envs = parseEnvironments(Cmd.Envs, Cmd.Randomise, Error);
  if (!Envs)
    return Usage(Error);
  double Budget = 0;
  if (!Cmd.Time.empty() && (!parseDuration(Cmd.Time, Budget) || Budget <= 0))
    return Usage(fmt::format("--time '{}' is not a duration (90s, 5m, 1h)",
                             Cmd.Time));
  uint64_t Runs = Cmd.Runs ? Cmd.Runs : Budget > 0 ? UINT64_MAX : 100;
  if (!(Cmd.Timeout > 0))
    return Usage("--timeout must be positive");
  std::string Program = resolveProgram(Cmd.Argv[0]);
  if (Program.empty())
    return Usage(fmt::format("no such program: {}", Cmd.Argv[0]));
  if (!Cmd.NoBuildCheck) {
    std::ifstream In(Program, std::ios::binary);
    std::string Bytes((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
    if (intercept::findUnits(Bytes).empty())
      return Usage(fmt::format(
          "{} was not built through incant (no instrumented module in it): "
          "build it with `eval \"$(incant build-env)\"` or `incant nvcc` "
          "(docs/stress.md), or pass --no-build-check",
          Cmd.Argv[0]));
  }
  if (Cmd.InjectLibrary.empty() || !fs::exists(Cmd.InjectLibrary))
    return Usage(fmt::format("the injected library {} is missing (set "
                             "INCANT_INJECT_LIB)",
                             Cmd.InjectLibrary.empty() ? "libincant-inject.so"
                                                       : Cmd.InjectLibrary));
  std::string Label = Cmd.Label.empty() ? Cmd.Argv[0] : Cmd.Label;
  std::string AppKey;
  for (const std::string &A : Cmd.Argv)
    AppKey += (AppKey.empty() ? "" : " ") + A;

  std::unique_ptr<StressStore> Store;
  if (!Cmd.Db.empty()) {
    Store = StressStore::open(Cmd.Db, Error);
    if (!Store || !Store->begin(utcNowIso(), AppKey, stressJson(Cmd, {}), Error))
      return Usage(fmt::format("{}: {}", Cmd.Db, Error));
  }

  std::vector<EnvSummary> Sum(Envs->size());
  for (size_t I = 0; I < Envs->size(); ++I)
    Sum[I].Env = (*Envs)[I];
  std::vector<uint64_t> Done(Envs->size(), 0);
  auto T0 = std::chrono::steady_clock::now();
  auto LastProgress = T0;
  auto Finished = [&](size_t I) {
    return Sum[I].Runs >= Runs || (Budget > 0 && Sum[I].Seconds >= Budget);
  };
  std::string Report = tempPath("report");
  bool Any = true;
  while (Any) {
    Any = false;
    for (size_t I = 0; I < Envs->size(); ++I) {
      if (Finished(I))
        continue;
      Any = true;
      EnvSummary &S = Sum[I];
      RunRecord R;
      R.Env = S.Env.name();
      R.Index = S.Runs;
      R.Seed = fnv1a64(fmt::format("{}/{}/{}", Cmd.Seed, R.Env, R.Index));
      fs::remove(Report);
      ProcessOptions O;
      O.Argv = Cmd.Argv;
      O.Argv[0] = Program;
      O.InheritEnv = false;
      O.SetEnv = runEnvironment(Cmd, S.Env, R.Seed, Report);
      O.TimeoutSeconds = Cmd.Timeout;
      O.MaxOutputBytes = 16u << 20;
      ProcessResult P = runProcess(O);
      if (!P.started())
        return Usage(fmt::format("cannot run {}: {}", Program, P.Error));
      R.ExitCode = P.ExitCode;
      R.Signal = P.St == ProcessResult::Status::Signaled ? P.Signal : 0;
      R.Seconds = P.Seconds;
      readReport(Report, R);
      fs::remove(Report);
      if (P.St == ProcessResult::Status::TimedOut) {
        R.V = Verdict::Hang;
      } else if (P.St == ProcessResult::Status::Signaled) {
        R.V = Verdict::Crash;
      } else if (!Cmd.Check.empty()) {
        std::string Why;
        CheckResult C = runCheck(Cmd, P, Why);
        if (C == CheckResult::Broken)
          return Usage(fmt::format("the check command `{}` failed: {}",
                                   Cmd.Check, Why));
        R.V = C == CheckResult::Pass ? Verdict::Pass : Verdict::Fail;
      } else if (!Cmd.ExpectStdout.empty()) {
        R.V = std::regex_search(P.Out, Re) ? Verdict::Pass : Verdict::Fail;
      } else {
        R.V = P.ExitCode == Cmd.ExpectExit.value_or(0) ? Verdict::Pass
                                                       : Verdict::Fail;
      }
      ++S.Runs;
      S.Fails += R.V == Verdict::Fail;
      S.Hangs += R.V == Verdict::Hang;
      S.Crashes += R.V == Verdict::Crash;
      S.Seconds += R.Seconds;
      S.Launches += R.Launches;
      S.Stressed += R.Stressed;
      S.CapHits += R.CapHits;
      // A run that ended on its own but left no report ran without the
      // library (a static or setuid program, or one that exits with _exit).
      if (!R.Reported && R.V != Verdict::Hang && R.V != Verdict::Crash)
        ++S.Unreported;
      for (const std::string &N : R.Notes)
        S.Notes.insert(N);
      if (Store && !Store->put(R, Error))
        return Usage(fmt::format("{}: {}", Cmd.Db, Error));
      auto Now = std::chrono::steady_clock::now();
      if (Cmd.Progress &&
          std::chrono::duration<double>(Now - LastProgress).count() >= 5) {
        LastProgress = Now;
        fmt::print(Err, "stress: {} {} runs, {} failed, {:.0f}s\n", R.Env,
                   S.Runs, S.failures(),
                   std::chrono::duration<double>(Now - T0).count());
      }
    }
  }
  if (Cmd.Json)
    Out << stressJson(Cmd, Sum) << "\n";
  else
    printStressTable(Label, Sum, Out);
  for (const EnvSummary &S : Sum)
    if (S.failures())
      return 1;
  return 0;
}

} // namespace incant::apptest
