//===- AppRunner.cpp - One run of an application, judged ------------------===//
#include "incant/AppTest/AppRunner.h"
#include "incant/Intercept/Protocol.h"
#include "incant/Intercept/ImageScan.h"

#include "incant/Support/FindProgram.h"
#include "incant/Support/Process.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

extern "C" char **environ;

namespace incant::apptest {

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

namespace fs = std::filesystem;

namespace {

/// The program \p Name as exec would find it: a path, or on PATH.
std::string resolveProgram(const std::string &Name) {
  const char *Path = std::getenv("PATH");
  std::string P = findOnPath(Name, Path ? Path : "");
  return !P.empty() && isExecutableFile(P) ? P : std::string();
}

/// A file name under $TMPDIR unique to this process, runner and \p Tag.
std::string tempPath(const std::string &Tag) {
  static std::atomic<unsigned> Next{0};
  const char *T = std::getenv("TMPDIR");
  return fmt::format("{}/incant-stress-{}-{}-{}", T && *T ? T : "/tmp",
                     getpid(), Next++, Tag);
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
    R.Launches += J.value(INCANT_REPORT_LAUNCHES, uint64_t(0));
    R.Stressed += J.value(INCANT_REPORT_STRESSED, uint64_t(0));
    R.CapHits += J.value(INCANT_REPORT_CAP_HITS, uint64_t(0));
    R.FenceUnits += J.value(INCANT_REPORT_FENCE_UNITS, uint64_t(0));
    R.Replaced += J.value(INCANT_REPORT_REPLACED, uint64_t(0));
    for (const char *Key : {INCANT_REPORT_NOTES, INCANT_REPORT_ERRORS})
      if (J.contains(Key) && J[Key].is_array())
        for (const auto &N : J[Key])
          if (N.is_string())
            R.Notes.push_back(N.get<std::string>());
    if (J.contains(INCANT_REPORT_KERNELS) && J[INCANT_REPORT_KERNELS].is_array())
      for (const auto &K : J[INCANT_REPORT_KERNELS]) {
        if (!K.is_object())
          continue;
        KernelRecord X;
        X.Name = K.value(INCANT_REPORT_KERNEL_NAME, "");
        X.Unit = K.value(INCANT_REPORT_KERNEL_UNIT, "");
        X.Launches = K.value(INCANT_REPORT_KERNEL_LAUNCHES, uint64_t(0));
        X.Ms = K.value(INCANT_REPORT_KERNEL_MS, 0.0);
        X.Instrumented = K.value(INCANT_REPORT_KERNEL_INSTRUMENTED, false);
        R.Kernels.push_back(std::move(X));
      }
    if (J.contains(INCANT_REPORT_ENERGY) && J[INCANT_REPORT_ENERGY].is_object()) {
      const auto &E = J[INCANT_REPORT_ENERGY];
      R.EnergyMj += E.value(INCANT_REPORT_ENERGY_MJ, 0.0);
      R.EnergyReads += E.value(INCANT_REPORT_ENERGY_READS, uint64_t(0));
      R.EnergyChanges += E.value(INCANT_REPORT_ENERGY_CHANGES, uint64_t(0));
      R.EnergyOk = E.value(INCANT_REPORT_ENERGY_OK, false);
    }
  }
}

enum class CheckResult { Pass, Fail, Broken };

/// Runs the user's --check command on one run's output.
CheckResult runCheck(const AppUnderTest &Cmd, const ProcessResult &P,
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

Expected<std::unique_ptr<AppRunner>> AppRunner::make(const AppUnderTest &Cmd,
                                                     DiagnosticEngine &Diags) {
  auto Input = [&](std::string Message) {
    Diags.error(std::move(Message));
    return ErrorKind::Input;
  };
  if (Cmd.Argv.empty())
    return Input("no program to run: give it after --: -- ./app ARGS");
  int Oracles = !Cmd.Check.empty() + Cmd.ExpectExit.has_value() +
                !Cmd.ExpectStdout.empty();
  if (Oracles > 1)
    return Input(
        "give at most one of --check, --expect-exit and --expect-stdout");
  std::unique_ptr<AppRunner> R(new AppRunner());
  if (!Cmd.ExpectStdout.empty()) {
    try {
      R->Re = std::regex(Cmd.ExpectStdout, std::regex::extended);
    } catch (const std::regex_error &E) {
      return Input(fmt::format("--expect-stdout '{}' is not a regular "
                               "expression: {}",
                               Cmd.ExpectStdout, E.what()));
    }
  }
  if (!(Cmd.Timeout > 0))
    return Input("--timeout must be positive");
  R->Program = resolveProgram(Cmd.Argv[0]);
  if (R->Program.empty())
    return Input(fmt::format("no such program: {}", Cmd.Argv[0]));
  if (!Cmd.NoBuildCheck) {
    std::ifstream In(R->Program, std::ios::binary);
    std::string Bytes((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
    if (intercept::findUnits(Bytes).empty())
      return Input(fmt::format(
          "{} was not built through incant (no instrumented module in it): "
          "build it with `eval \"$(incant build-env)\"` or `incant nvcc` "
          "(docs/stress.md), or pass --no-build-check",
          Cmd.Argv[0]));
    R->RunsKernels = true;
  }
  if (Cmd.InjectLibrary.empty() || !fs::exists(Cmd.InjectLibrary)) {
    Diags.error(fmt::format("the injected library {} is missing (set "
                            "INCANT_INJECT_LIB)",
                            Cmd.InjectLibrary.empty() ? "libincant-inject.so"
                                                      : Cmd.InjectLibrary));
    return ErrorKind::Device;
  }
  R->Cmd = Cmd;
  R->Report = tempPath("report");
  return R;
}

bool AppRunner::run(const Environment &E, uint64_t Seed, const EnvVars &Extra,
                    RunRecord &R, std::string &Error) {
  // The environment of the run: ours, the injected library first in
  // LD_PRELOAD, the environment's variables, the caller's and the report.
  EnvVars Env;
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
  Env.insert(Env.end(), Extra.begin(), Extra.end());
  if (!GpuLock.empty())
    Env.emplace_back(INCANT_ENV_GPU_LOCK, GpuLock);
  Env.emplace_back(INCANT_ENV_REPORT, Report);

  fs::remove(Report);
  ProcessOptions O;
  O.Argv = Cmd.Argv;
  O.Argv[0] = Program;
  O.InheritEnv = false;
  O.SetEnv = std::move(Env);
  O.TimeoutSeconds = Cmd.Timeout;
  O.MaxOutputBytes = 16u << 20;
  ProcessResult P = runProcess(O);
  if (!P.started()) {
    Error = fmt::format("cannot run {}: {}", Program, P.Error);
    return false;
  }
  R.ExitCode = P.ExitCode;
  R.Signal = P.St == ProcessResult::Status::Signaled ? P.Signal : 0;
  R.Seconds = P.Seconds;
  R.Stdout = P.Out.substr(0, 1000);
  readReport(Report, R);
  fs::remove(Report);
  if (P.St == ProcessResult::Status::TimedOut) {
    R.V = Verdict::Hang;
  } else if (P.St == ProcessResult::Status::Signaled) {
    R.V = Verdict::Crash;
  } else if (!Cmd.Check.empty()) {
    std::string Why;
    CheckResult C = runCheck(Cmd, P, Why);
    if (C == CheckResult::Broken) {
      Error = fmt::format("the check command `{}` failed: {}", Cmd.Check, Why);
      return false;
    }
    R.V = C == CheckResult::Pass ? Verdict::Pass : Verdict::Fail;
  } else if (!Cmd.ExpectStdout.empty()) {
    R.V = std::regex_search(P.Out, Re) ? Verdict::Pass : Verdict::Fail;
  } else {
    R.V = P.ExitCode == Cmd.ExpectExit.value_or(0) ? Verdict::Pass
                                                   : Verdict::Fail;
  }
  return true;
}

} // namespace incant::apptest
