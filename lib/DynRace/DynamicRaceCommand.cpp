//===- DynamicRaceCommand.cpp - `incant race --dynamic` -------------------===//
#include "incant/DynRace/DynamicRaceCommand.h"
#include "incant/DynRace/DynamicReport.h"

#include "incant/Intercept/BuildCommands.h"
#include "incant/Intercept/ImageScan.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/Process.h"
#include "incant/Support/TempDir.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace incant::dynrace {

namespace {

bool readFile(const std::string &Path, std::string &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::ostringstream S;
  S << In.rdbuf();
  Out = S.str();
  return true;
}

/// The program a .cu file is built into, through incant with pass race.
bool buildSource(const DynamicRaceCommand &Cmd, const std::string &Dir,
                 std::string &Exe, std::ostream &Err) {
  const std::string &Src = Cmd.Argv[0];
  std::error_code EC;
  if (!fs::is_regular_file(Src, EC)) {
    fmt::print(Err, "incant race: {}: no such file\n", Src);
    return false;
  }
  std::string Nvcc = findCudaProgram("nvcc");
  if (Nvcc.empty()) {
    fmt::print(Err, "incant race: nvcc is needed to build {} and was not "
                    "found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)\n",
               Src);
    return false;
  }
  std::string Why;
  std::vector<std::string> Flags = intercept::nvccFlags(Why);
  if (Flags.empty()) {
    fmt::print(Err, "incant race: {}\n", Why);
    return false;
  }
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
  if (P.St != ProcessResult::Status::Exited || P.ExitCode != 0) {
    fmt::print(Err, "{}incant race: building {} failed{}\n", P.Out, Src,
               P.St == ProcessResult::Status::NotStarted ? ": " + P.Error : "");
    return false;
  }
  return true;
}

/// The program named by \p Name: a path, or found on PATH.
std::string findApp(const std::string &Name) {
  if (Name.find('/') != std::string::npos)
    return Name;
  const char *Path = std::getenv("PATH");
  std::string P = Path ? Path : "";
  size_t B = 0;
  while (B <= P.size()) {
    size_t E = P.find(':', B);
    if (E == std::string::npos)
      E = P.size();
    fs::path C = fs::path(P.substr(B, E - B)) / Name;
    std::error_code EC;
    if (E > B && fs::is_regular_file(C, EC) && access(C.c_str(), X_OK) == 0)
      return C.string();
    B = E + 1;
  }
  return "";
}

} // namespace

int runDynamicRace(const DynamicRaceCommand &Cmd, std::ostream &Out,
                   std::ostream &Err) {
  if (Cmd.Argv.empty()) {
    fmt::print(Err, "incant race --dynamic: give a program (-- ./app ARGS) "
                    "or a .cu file\n");
    return 2;
  }
  if (Cmd.Scheme != "addr" && Cmd.Scheme != "stmt") {
    fmt::print(Err, "incant race: --scheme '{}' (expected addr or stmt)\n",
               Cmd.Scheme);
    return 2;
  }
  std::error_code EC;
  if (Cmd.InjectLibrary.empty() || !fs::exists(Cmd.InjectLibrary, EC)) {
    fmt::print(Err, "incant race: the injected library {} is missing (set "
                    "INCANT_INJECT_LIB)\n",
               Cmd.InjectLibrary.empty() ? "libincant-inject.so"
                                         : Cmd.InjectLibrary);
    return 3;
  }
  TempDir Tmp("incant-race");
  if (!Tmp.ok()) {
    fmt::print(Err, "incant race: cannot make a temporary folder\n");
    return 2;
  }

  // The program: given, or built from a .cu file.
  std::vector<std::string> Argv = Cmd.Argv;
  const std::string First = Argv[0];
  bool Source = First.size() > 3 && First.compare(First.size() - 3, 3, ".cu") == 0;
  if (Source) {
    std::string Exe;
    if (!buildSource(Cmd, Tmp.path().string(), Exe, Err))
      return 2;
    Argv[0] = Exe;
  } else {
    std::string Exe = findApp(First);
    if (Exe.empty() || !fs::is_regular_file(Exe, EC)) {
      fmt::print(Err, "incant race: {}: no such program\n", First);
      return 2;
    }
    Argv[0] = Exe;
  }

  // Its units, for the check and the report.
  std::map<std::string, intercept::UnitManifest> Units;
  std::string Bytes;
  if (!readFile(Argv[0], Bytes)) {
    fmt::print(Err, "incant race: cannot read {}\n", Argv[0]);
    return 2;
  }
  bool Pruned = false, Raced = false;
  for (intercept::FoundUnit &U : intercept::findUnits(Bytes))
    if (U.Manifest) {
      for (const std::string &P : U.Manifest->Passes)
        Raced |= P == "race";
      for (const intercept::Site &S : U.Manifest->Sites)
        Pruned |= S.Kind.find("not instrumented") != std::string::npos;
      Units[U.Id] = std::move(*U.Manifest);
    }
  if (!Raced && !Cmd.NoBuildCheck) {
    fmt::print(Err,
               "incant race: {} was not built with pass race: build it with "
               "`eval \"$(incant build-env --passes race)\"` (or `incant "
               "nvcc` with INCANT_PASSES=race), or give the .cu file; "
               "--no-build-check runs it anyway\n",
               First);
    return 2;
  }
  if (Pruned && Cmd.AllAccesses && !Source) {
    fmt::print(Err, "incant race: {} was built with pruning (accesses the "
                    "static checker proved safe are not instrumented); "
                    "rebuild it with INCANT_RACE_ALL=1 for --all-accesses\n",
               First);
    return 2;
  }

  // The run: the program's output passes through.
  std::string RaceOut = (Tmp.path() / "races.json").string();
  ProcessOptions O;
  O.Argv = Argv;
  std::string Preload = Cmd.InjectLibrary;
  if (const char *P = std::getenv("LD_PRELOAD"); P && *P)
    Preload += std::string(":") + P;
  O.SetEnv = {{"LD_PRELOAD", Preload},
              {"INCANT_RACE", Cmd.Scheme},
              {"INCANT_RACE_OUT", RaceOut}};
  if (Cmd.ShadowMB)
    O.SetEnv.emplace_back("INCANT_RACE_SHADOW_MB", std::to_string(Cmd.ShadowMB));
  if (Cmd.LogMB)
    O.SetEnv.emplace_back("INCANT_RACE_LOG_MB", std::to_string(Cmd.LogMB));
  // INCANT_TIME and INCANT_REPORT pass through (bench/DynRace times the
  // checked kernels that way).
  O.UnsetEnv = {"INCANT_STRESS", "INCANT_RANDOMISE"};
  O.Stdout = OutputMode::Inherit;
  O.Stderr = OutputMode::Inherit;
  O.TimeoutSeconds = Cmd.Timeout;
  O.KillGraceSeconds = 2;
  Out.flush();
  ProcessResult P = runProcess(O);
  int AppStatus = 0;
  std::string Ended;
  switch (P.St) {
  case ProcessResult::Status::NotStarted:
    fmt::print(Err, "incant race: {}: {}\n", First, P.Error);
    return 2;
  case ProcessResult::Status::Exited:
    AppStatus = P.ExitCode;
    break;
  case ProcessResult::Status::Signaled:
    AppStatus = 128 + P.Signal;
    Ended = fmt::format("the application was ended by signal {}", P.Signal);
    break;
  case ProcessResult::Status::TimedOut:
    AppStatus = 124;
    Ended = fmt::format("the application was stopped after --time-limit {} s",
                        Cmd.Timeout);
    break;
  }

  std::string Text, Why;
  std::optional<RawRun> Run;
  if (readFile(RaceOut, Text))
    Run = parseRawRun(Text, Why);
  else
    Why = "the application ended without the checker's report (a crash, a "
          "signal, _exit, or no CUDA launch went through the runtime)";
  if (!Run) {
    fmt::print(Err, "incant race: {}{}\n", Why,
               Ended.empty() ? "" : "; " + Ended);
    return AppStatus ? AppStatus : 2;
  }
  Report R = buildReport(*Run, Units, First);
  if (!Ended.empty())
    R.Notes.push_back(Ended);
  R.Notes.push_back(fmt::format("the application exited with status {}",
                                AppStatus));

  std::ofstream File;
  std::ostream *OS = &Out;
  if (!Cmd.Output.empty() && Cmd.Output != "-") {
    File.open(Cmd.Output);
    if (!File) {
      fmt::print(Err, "incant race: cannot write {}\n", Cmd.Output);
      return 2;
    }
    OS = &File;
  }
  if (Cmd.Json) {
    nlohmann::json J = reportToJson(R);
    J["exit_status"] = AppStatus;
    *OS << J.dump() << "\n";
  } else {
    printReport(R, *OS);
  }
  OS->flush();
  if (!R.Races.empty())
    return 1;
  // Tables lost to a failed device: nothing says the run was race-free.
  return AppStatus == 0 && !R.Lost.empty() ? 3 : AppStatus;
}

} // namespace incant::dynrace
