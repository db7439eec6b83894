//===- RaceCli.cpp - `incant race` ----------------------------------------===//
//
// `incant race --dynamic`: run a program built with pass "race" (or a .cu
// file, built so first) and report the data races its kernels make
// (incant/DynRace/DynamicRaceCommand.h). Exit codes: 1 a race was seen;
// otherwise the application's own status; 2 usage or input error; 3 the
// injected library is missing.
//
//===----------------------------------------------------------------------===//
#include "Subcommand.h"
#include "incant/DynRace/DynamicRaceCommand.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

using namespace incant;

namespace {

/// libincant-inject.so: $INCANT_INJECT_LIB, the installed one beside the
/// binary, or the build tree's.
std::string raceInjectLibrary() {
  if (const char *E = std::getenv("INCANT_INJECT_LIB"); E && *E)
    return E;
  std::error_code EC;
  auto Exe = std::filesystem::read_symlink("/proc/self/exe", EC);
  if (!EC) {
    auto P = Exe.parent_path() / ".." / "lib" / "incant" / "libincant-inject.so";
    if (std::filesystem::exists(P, EC))
      return P.lexically_normal().string();
  }
#ifdef INCANT_INJECT_BUILD_PATH
  if (std::filesystem::exists(INCANT_INJECT_BUILD_PATH, EC))
    return INCANT_INJECT_BUILD_PATH;
#endif
  return {};
}

void addRace(CLI::App &App, int &Rc) {
  static dynrace::DynamicRaceCommand Cmd;
  static bool Dynamic = false;
  static std::vector<std::string> Args;
  CLI::App *Sub = App.add_subcommand(
      "race", "Find data races in the kernels of a program while it runs "
              "(--dynamic)");
  Sub->add_flag("--dynamic", Dynamic,
                "Run the program (built with pass race) or a .cu file and "
                "check its kernels' accesses as they happen");
  Sub->add_option("--scheme", Cmd.Scheme,
                  "addr: per-address shadow, checked at each access (low "
                  "overhead); stmt: every warp access logged and compared "
                  "after each launch (all pairs of racing statements)")
      ->check(CLI::IsMember({"addr", "stmt"}))
      ->capture_default_str();
  Sub->add_flag("--all-accesses", Cmd.AllAccesses,
                "Instrument every access, also those the static checker "
                "proves safe (a .cu file)");
  Sub->add_flag("--json", Cmd.Json, "The report as one JSON line");
  Sub->add_option("-o,--output", Cmd.Output, "Write the report to this file");
  Sub->add_option("--timeout", Cmd.Timeout,
                  "Stop the program after this many seconds (0: never)")
      ->check(CLI::NonNegativeNumber);
  Sub->add_flag("--no-build-check", Cmd.NoBuildCheck,
                "Run the program even if no unit built with pass race is "
                "found in it (a script that starts the real program)");
  Sub->add_option("--arch", Cmd.Arch, "nvcc's -arch for a .cu file")
      ->capture_default_str();
  Sub->add_option("-X,--compiler-arg", Cmd.CompilerArgs,
                  "An argument for nvcc (a .cu file); repeatable");
  Sub->add_option("--shadow-mb", Cmd.ShadowMB,
                  "Device memory for the addr scheme's shadow (MiB)");
  Sub->add_option("--log-mb", Cmd.LogMB,
                  "Device memory for the stmt scheme's log (MiB)");
  Sub->add_option("program", Args,
                  "A .cu file with a host main, or (after --) the program "
                  "and its arguments");
  Sub->callback([&Rc] {
    if (!Dynamic) {
      std::cerr << "incant race: only --dynamic is available in this build\n";
      Rc = 2;
      return;
    }
    Cmd.Argv = Args;
    Cmd.InjectLibrary = raceInjectLibrary();
    Rc = dynrace::runDynamicRace(Cmd, std::cout, std::cerr);
  });
}

} // namespace

static tool::Subcommand Race(70, addRace);
