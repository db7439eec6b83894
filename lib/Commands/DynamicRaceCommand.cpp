//===- DynamicRaceCommand.cpp - `incant race --dynamic` -------------------===//
#include "incant/Commands/DynamicRaceCommand.h"
#include "incant/Intercept/Protocol.h"
#include "incant/DynRace/DynamicReport.h"

#include "incant/Commands/BuildCommands.h"
#include "incant/Intercept/ImageScan.h"
#include "incant/Support/CommandContext.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/InputFile.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Process.h"
#include "incant/Support/TempDir.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace incant::dynrace {

namespace {

/// A failure of the command: its kind and message.
struct Failure {
  ErrorKind Kind;
  std::string Message;
};

/// The program a .cu file is built into, through incant with pass race.
std::optional<Failure> buildSource(const DynamicRaceCommand &Cmd,
                                   const std::string &Dir, std::string &Exe,
                                   std::ostream &Err) {
  const std::string &Src = Cmd.Argv[0];
  std::error_code EC;
  if (!fs::is_regular_file(Src, EC))
    return Failure{ErrorKind::Input, fmt::format("{}: no such file", Src)};
  std::string Nvcc = findCudaProgram("nvcc");
  if (Nvcc.empty())
    return Failure{ErrorKind::Device,
                   fmt::format("nvcc is needed to build {} and was not found "
                               "($INCANT_NVCC, PATH, $CUDA_HOME/bin, "
                               "/usr/local/cuda/bin)",
                               Src)};
  std::string Why;
  std::vector<std::string> Flags = intercept::nvccFlags(Why);
  if (Flags.empty())
    return Failure{ErrorKind::Internal, Why};
  Exe = (fs::path(Dir) / fs::path(Src).stem()).string();
  ProcessOptions O;
  O.Argv = {Nvcc};
  O.Argv.insert(O.Argv.end(), Flags.begin(), Flags.end());
  O.Argv.push_back("-arch=" + Cmd.Arch);
  O.Argv.insert(O.Argv.end(), Cmd.CompilerArgs.begin(), Cmd.CompilerArgs.end());
  O.Argv.insert(O.Argv.end(), {Src, "-o", Exe});
  O.SetEnv = {{"INCANT_PASSES", "race"}};
  if (Cmd.AllAccesses)
    O.SetEnv.emplace_back("INCANT_RACE_ALL", "1");
  O.SetEnv.emplace_back("INCANT_RACE_TIMEOUT_MS",
                        std::to_string(Cmd.StaticTimeoutMs));
  O.UnsetEnv = {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"};
  if (!Cmd.AllAccesses)
    O.UnsetEnv.push_back("INCANT_RACE_ALL");
  O.Stdout = OutputMode::Capture;
  O.Stderr = OutputMode::ToStdout;
  ProcessResult P = runProcess(O);
  if (P.St == ProcessResult::Status::NotStarted)
    return Failure{ErrorKind::Device,
                   fmt::format("building {} failed: {}", Src, P.Error)};
  if (P.St != ProcessResult::Status::Exited || P.ExitCode != 0) {
    Err << P.Out; // the compiler's messages
    return Failure{ErrorKind::Input, fmt::format("building {} failed", Src)};
  }
  return std::nullopt;
}

/// The units of the program at \p Path, and whether it was built for the
/// check: with pass race, and (for --all-accesses) without pruning.
std::optional<Failure>
readUnits(const DynamicRaceCommand &Cmd, const std::string &Path, bool Source,
          std::map<std::string, intercept::UnitManifest> &Units) {
  std::string Bytes, Error;
  if (!readInputFile(Path, Bytes, Error))
    return Failure{ErrorKind::Input,
                   fmt::format("cannot read {}: {}", Path, Error)};
  bool Pruned = false, Raced = false;
  for (intercept::FoundUnit &U : intercept::findUnits(Bytes))
    if (U.Manifest) {
      for (const std::string &P : U.Manifest->Passes)
        Raced |= P == "race";
      for (const intercept::Site &S : U.Manifest->Sites)
        Pruned |= S.Kind.find("not instrumented") != std::string::npos;
      Units[U.Id] = std::move(*U.Manifest);
    }
  const std::string &First = Cmd.Argv[0];
  if (!Raced && !Cmd.NoBuildCheck)
    return Failure{
        ErrorKind::Input,
        fmt::format("{} was not built with pass race: build it with "
                    "`eval \"$(incant build-env --passes race)\"` (or "
                    "`incant nvcc` with INCANT_PASSES=race), or give the .cu "
                    "file; --no-build-check runs it anyway",
                    First)};
  if (Pruned && Cmd.AllAccesses && !Source)
    return Failure{ErrorKind::Input,
                   fmt::format("{} was built with pruning (accesses the "
                               "static checker proved safe are not "
                               "instrumented); rebuild it with "
                               "INCANT_RACE_ALL=1 for --all-accesses",
                               First)};
  return std::nullopt;
}

/// How the application's run ended.
struct AppEnd {
  int Status = 0;    ///< Its exit status (128+N for signal N, 124 timed out).
  std::string Ended; ///< A note when it did not exit on its own.
};

/// Runs the application under the injected library; its output passes
/// through.
std::optional<Failure> runApp(const DynamicRaceCommand &Cmd,
                              const std::vector<std::string> &Argv,
                              const std::string &RaceOut, AppEnd &End) {
  ProcessOptions O;
  O.Argv = Argv;
  std::string Preload = Cmd.InjectLibrary;
  if (const char *P = std::getenv("LD_PRELOAD"); P && *P)
    Preload += std::string(":") + P;
  O.SetEnv = {{"LD_PRELOAD", Preload},
              {INCANT_ENV_RACE, Cmd.Scheme},
              {INCANT_ENV_RACE_OUT, RaceOut}};
  if (Cmd.ShadowMB)
    O.SetEnv.emplace_back(INCANT_ENV_RACE_SHADOW_MB, std::to_string(Cmd.ShadowMB));
  if (Cmd.LogMB)
    O.SetEnv.emplace_back(INCANT_ENV_RACE_LOG_MB, std::to_string(Cmd.LogMB));
  // INCANT_TIME and INCANT_REPORT pass through (bench/DynRace times the
  // checked kernels that way).
  O.UnsetEnv = {INCANT_ENV_STRESS, INCANT_ENV_RANDOMISE};
  O.Stdout = OutputMode::Inherit;
  O.Stderr = OutputMode::Inherit;
  O.TimeoutSeconds = Cmd.Timeout;
  O.KillGraceSeconds = 2;
  ProcessResult P = runProcess(O);
  switch (P.St) {
  case ProcessResult::Status::NotStarted:
    return Failure{ErrorKind::Input,
                   fmt::format("{}: {}", Cmd.Argv[0], P.Error)};
  case ProcessResult::Status::Exited:
    End.Status = P.ExitCode;
    break;
  case ProcessResult::Status::Signaled:
    End.Status = 128 + P.Signal;
    End.Ended = fmt::format("the application was ended by signal {}", P.Signal);
    break;
  case ProcessResult::Status::TimedOut:
    End.Status = 124;
    End.Ended = fmt::format(
        "the application was stopped after --time-limit {} s", Cmd.Timeout);
    break;
  }
  return std::nullopt;
}

} // namespace

int runDynamicRace(const DynamicRaceCommand &Cmd, std::ostream &Out,
                   std::ostream &Err) {
  CommandContext Ctx(Out, Err, "incant race: ");
  auto Fail = [&](const Failure &F) { return Ctx.fail(F.Kind, F.Message); };
  if (Cmd.Argv.empty()) {
    Err << "incant race --dynamic: give a program (-- ./app ARGS) or a .cu "
           "file\n";
    return Ctx.failed(ErrorKind::Input);
  }
  if (Cmd.Scheme != "addr" && Cmd.Scheme != "stmt")
    return Ctx.fail(ErrorKind::Input,
                    fmt::format("--scheme '{}' (expected addr or stmt)",
                                Cmd.Scheme));
  const char *PathVar = std::getenv("PATH");
  const std::string OnPath = findOnPath(Cmd.Argv[0], PathVar ? PathVar : "");
  if (int Rc = Ctx.checkOutputs({Cmd.Output}, {Cmd.Argv[0], OnPath}))
    return Rc;
  std::error_code EC;
  if (Cmd.InjectLibrary.empty() || !fs::exists(Cmd.InjectLibrary, EC))
    return Ctx.fail(ErrorKind::Device,
                    fmt::format("the injected library {} is missing (set "
                                "INCANT_INJECT_LIB)",
                                Cmd.InjectLibrary.empty()
                                    ? "libincant-inject.so"
                                    : Cmd.InjectLibrary));
  TempDir Tmp("incant-race");
  if (!Tmp.ok())
    return Ctx.fail(ErrorKind::Internal, "cannot make a temporary folder");

  // The program: given, or built from a .cu file.
  std::vector<std::string> Argv = Cmd.Argv;
  const std::string First = Argv[0];
  bool Source = First.size() > 3 && First.compare(First.size() - 3, 3, ".cu") == 0;
  if (Source) {
    if (auto F = buildSource(Cmd, Tmp.path().string(), Argv[0], Err))
      return Fail(*F);
  } else {
    Argv[0] = OnPath;
    if (Argv[0].empty() || !fs::is_regular_file(Argv[0], EC))
      return Ctx.fail(ErrorKind::Input,
                      fmt::format("{}: no such program", First));
  }
  std::map<std::string, intercept::UnitManifest> Units;
  if (auto F = readUnits(Cmd, Argv[0], Source, Units))
    return Fail(*F);
  // The checker runs on the device beside the kernels.
  if (int Rc = Ctx.requireCudaDevice(First))
    return Rc;

  std::string RaceOut = (Tmp.path() / "races.json").string();
  AppEnd End;
  Out.flush();
  if (auto F = runApp(Cmd, Argv, RaceOut, End))
    return Fail(*F);
  std::string Text, Why, ReadError;
  std::optional<RawRun> Run;
  if (readInputFile(RaceOut, Text, ReadError))
    Run = parseRawRun(Text, Why);
  else
    Why = "the application ended without the checker's report (a crash, a "
          "signal, _exit, or no CUDA launch went through the runtime)";
  // Without the report nothing was checked: no race count, no clean run.
  if (!Run)
    return Ctx.fail(ErrorKind::Device,
                    fmt::format("{}; the application exited with status {}{}",
                                Why, End.Status,
                                End.Ended.empty() ? "" : "; " + End.Ended));
  // A run that checked no launch found nothing either way.
  if (Run->Races.empty() && Run->CheckedLaunches == 0)
    return Ctx.fail(
        ErrorKind::Device,
        fmt::format("no kernel launch was checked ({}; the application "
                    "exited with status {}{}): no race count for a program "
                    "whose kernels did not run under the checker",
                    Run->FailedLaunches ? failedLaunchesNote(*Run)
                    : Run->UncheckedLaunches
                        ? fmt::format("{} launch(es) of kernels not built "
                                      "with pass race",
                                      Run->UncheckedLaunches)
                        : std::string("no launch went through the CUDA "
                                      "runtime"),
                    End.Status, End.Ended.empty() ? "" : "; " + End.Ended));
  Report R = buildReport(*Run, Units, First);
  if (!End.Ended.empty())
    R.Notes.push_back(End.Ended);
  R.Notes.push_back(fmt::format("the application exited with status {}",
                                End.Status));

  std::ostringstream File;
  bool ToFile = !Cmd.Output.empty() && Cmd.Output != "-";
  std::ostream *OS = ToFile ? &File : &Out;
  if (Cmd.Json) {
    nlohmann::json J = reportToJson(R);
    J["exit_status"] = End.Status;
    *OS << dumpJson(J) << "\n";
  } else {
    printReport(R, *OS);
  }
  std::string WriteError;
  if (ToFile && !writeOutputFile(Cmd.Output, File.str(), WriteError))
    return Ctx.fail(ErrorKind::Internal, WriteError);
  if (!R.Races.empty())
    return Ctx.done(Outcome::Found);
  // Tables lost to a failed device: nothing says the run was race-free.
  if (!R.Lost.empty())
    return Ctx.failed(ErrorKind::Device);
  // Launches the driver refused ran nothing that could be checked.
  if (Run->FailedLaunches)
    return Ctx.fail(ErrorKind::Device,
                    "no race seen, but " + failedLaunchesNote(*Run));
  // No race seen, but some of what ran is not followed by the checker.
  if (!R.NotChecked.empty())
    return Ctx.fail(ErrorKind::Device,
                    fmt::format("no race seen, but the kernels were not fully "
                                "checked: {}",
                                fmt::join(R.NotChecked, "; ")));
  // No race seen, but the application did not finish: what it did not run
  // was not checked.
  if (End.Status != 0)
    return Ctx.fail(ErrorKind::Device,
                    fmt::format("no race seen, but {}: kernels it did not "
                                "run were not checked",
                                End.Ended.empty()
                                    ? fmt::format("the application exited "
                                                  "with status {}",
                                                  End.Status)
                                    : End.Ended));
  return Ctx.done(Outcome::Clean);
}

} // namespace incant::dynrace
