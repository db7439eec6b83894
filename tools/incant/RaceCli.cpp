//===- RaceCli.cpp - `incant race` ----------------------------------------===//
//
// One command, two modes:
//   incant race FILE.cu|.cl|.ptx... [...]   static (incant/Race/RaceCommand.h;
//                                           only in a build with Z3)
//   incant race --dynamic [...] FILE.cu | -- ./app ARGS
//                                           while the kernels run
//                                           (incant/DynRace/DynamicRaceCommand.h)
//
// Exit codes, static: 0 no race or divergent barrier found (unknown pairs do
// not fail unless --strict); 1 a race or divergent barrier found; 2 usage or
// input error; 3 nvcc or clang is needed and was not found. Dynamic: 0 no
// race and the application exited with 0; 1 a race was seen; 2 usage or
// input error; 3 no device, driver, nvcc or injected library, or a check
// that is not complete (DynamicRaceCommand.h).
//
//===----------------------------------------------------------------------===//
// Tool part: incantDynRace
#include "InjectLibrary.h"
#include "KernelOptions.h"
#include "OptionKinds.h"
#include "Options.h"
#include "Subcommand.h"
#include "incant/Commands/DynamicRaceCommand.h"
#ifdef INCANT_HAVE_STATIC_RACE
#include "incant/Commands/RaceCommand.h"
#endif

#include <iostream>

#include <unistd.h>

using namespace incant;

namespace {

struct RaceOptions {
  bool Dynamic = false;
  std::vector<std::string> Args;
  dynrace::DynamicRaceCommand Dyn;
#ifdef INCANT_HAVE_STATIC_RACE
  race::RaceCommand Static;
#endif
  std::string Arch = "sm_90";
  std::vector<std::string> CompilerArgs;
  bool Json = false;
  unsigned TimeoutMs = 5000;
  std::string Diagnostics = "auto";
};

void addRace(CLI::App &App, int &Rc) {
  static RaceOptions O;
  CLI::App *Sub = App.add_subcommand(
      "race", "Find data races (and barrier divergence) in the kernels of a "
              "CUDA, OpenCL C or PTX file statically, or while a program "
              "runs (--dynamic)");
  Sub->add_option("program", O.Args,
                  "Static: a .cu file (nvcc -ptx -lineinfo), a .cl file "
                  "(clang -target nvptx64) or a .ptx file. --dynamic: a .cu "
                  "file with a host main, or (after --) the program and its "
                  "arguments");
  Sub->add_flag("--json", O.Json, "The report as JSON");
  tool::addCompilerOptions(Sub, O.Arch, O.CompilerArgs);
  tool::addNumber(Sub, "--timeout", O.TimeoutMs, IntRange{1, 3'600'000},
                  "Milliseconds per solver query before a pair is unknown "
                  "(--dynamic: of the pruning, default 500)")
      ->capture_default_str();
#ifdef INCANT_HAVE_STATIC_RACE
  race::RaceCommand &S = O.Static;
  tool::addLaunchOptions(Sub, "Check", S.Kernel, S.BlockDim, S.GridDim,
                         S.Params);
  Sub->add_flag("--strict", S.Strict,
                "Exit 1 also when a pair or barrier could not be decided");
  Sub->add_flag("-v,--verbose", S.Verbose,
                "Show the compiler's command, safe pairs and every unknown one");
  tool::addNumber(Sub, "--kernel-time", S.KernelSeconds, RealRange{0, 86400},
                  "Seconds per kernel: once they have passed, the pairs and "
                  "barriers not yet decided are unknown (0: no limit)")
      ->capture_default_str();
  Sub->add_flag("--any-launch", S.AnyLaunch,
                "Check every kernel for any launch (default: a .cu file's "
                "kernels with the launches its host code makes)");
  Sub->add_flag("--assume-pure-externals", S.PureExternals,
                "Assume that functions declared without a body touch no "
                "memory and reach no barrier (GPUVerify's convention; every "
                "report that relies on it says so)");
  Sub->add_flag("--no-benign-tolerance", S.NoBenign,
                "Report two racing stores of the same value to the same "
                "bytes as a race (default: a benign race, shown as safe "
                "with that reason)");
  Sub->add_flag("--optimized", S.Optimized,
                "Check only nvcc's optimised build of a .cu file (default: "
                "also its unoptimised build, for races the optimiser hides)");
  Sub->add_option("-p", S.CompileDatabase,
                  "The build folder with compile_commands.json: each file's "
                  "flags from it (no file named: all its .cu and .cl files)");
  Sub->add_option("--diagnostics", O.Diagnostics,
                  "file:line:col: warning: lines for races and divergent "
                  "barriers: auto (when standard output is a terminal), "
                  "always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  Sub->add_option("--sarif", S.SarifPath,
                  "Write the findings as a SARIF 2.1.0 log to this file");
  Sub->add_option("--suppressions", S.SuppressionsPath,
                  "Leave out the findings this file names (docs/race.md)");
  Sub->add_option("--baseline-out", S.BaselinePath,
                  "Write today's findings as a suppressions file");
#endif
  dynrace::DynamicRaceCommand &D = O.Dyn;
  Sub->add_flag("--dynamic", O.Dynamic,
                "Run the program (built with pass race) or a .cu file and "
                "check its kernels' accesses as they happen");
  Sub->add_option("--scheme", D.Scheme,
                  "--dynamic: addr: per-address shadow, checked at each "
                  "access (low overhead); stmt: every warp access logged and "
                  "compared at barriers and after each launch (all pairs of "
                  "racing statements)")
      ->check(CLI::IsMember({"addr", "stmt"}))
      ->capture_default_str();
  Sub->add_flag("--all-accesses", D.AllAccesses,
                "--dynamic: instrument every access, also those the static "
                "checker proves safe (a .cu file)");
  Sub->add_option("-o,--output", D.Output,
                  "--dynamic: write the report to this file");
  tool::addNumber(Sub, "--time-limit", D.Timeout, RealRange{0, 86400},
                  "--dynamic: stop the program after this many seconds (0: "
                  "never)");
  Sub->add_flag("--no-build-check", D.NoBuildCheck,
                "--dynamic: run the program even if no unit built with pass "
                "race is found in it (a script that starts the real program)");
  tool::addNumber(Sub, "--shadow-mb", D.ShadowMB, IntRange{0, 65536},
                  "--dynamic: device memory for the addr scheme's shadow "
                  "(MiB; 0: the default)");
  tool::addNumber(Sub, "--log-mb", D.LogMB, IntRange{0, 65536},
                  "--dynamic: device memory for the stmt scheme's log (MiB; "
                  "0: the default)");
  Sub->callback([&Rc, Sub] {
    auto Given = [Sub](const char *Name) { return Sub->count(Name) > 0; };
    if (O.Dynamic) {
#ifdef INCANT_HAVE_STATIC_RACE
      for (const char *N :
           {"--kernel", "--block-dim", "--grid-dim", "--param", "--strict",
            "--optimized", "--kernel-time", "-p", "--diagnostics", "--sarif",
            "--suppressions", "--baseline-out", "--any-launch",
            "--assume-pure-externals", "--no-benign-tolerance"})
        if (Given(N)) {
          std::cerr << "incant race: " << N << " is for the static check, "
                    << "not --dynamic\n";
          Rc = 2;
          return;
        }
#endif
      D.Argv = O.Args;
      D.Json = O.Json;
      D.Arch = O.Arch;
      D.CompilerArgs = O.CompilerArgs;
      if (Given("--timeout"))
        D.StaticTimeoutMs = O.TimeoutMs;
      D.InjectLibrary = tool::injectLibrary();
      Rc = dynrace::runDynamicRace(D, std::cout, std::cerr);
      return;
    }
    for (const char *N : {"--scheme", "--all-accesses", "--output",
                          "--time-limit", "--no-build-check", "--shadow-mb",
                          "--log-mb"})
      if (Given(N)) {
        std::cerr << "incant race: " << N << " needs --dynamic\n";
        Rc = 2;
        return;
      }
#ifdef INCANT_HAVE_STATIC_RACE
    if (O.Args.empty() && O.Static.CompileDatabase.empty()) {
      std::cerr << "incant race: give .cu, .cl or .ptx files, -p BUILD (or "
                   "--dynamic to run a program)\n";
      Rc = 2;
      return;
    }
    O.Static.Files = O.Args;
    O.Static.Json = O.Json;
    O.Static.Arch = O.Arch;
    O.Static.ArchGiven = Given("--arch");
    O.Static.KernelTimeGiven = Given("--kernel-time");
    O.Static.CompilerLines =
        O.Diagnostics == "always" ||
        (O.Diagnostics == "auto" && isatty(STDOUT_FILENO));
    O.Static.ToolVersion = INCANT_VERSION;
    O.Static.CompilerArgs = O.CompilerArgs;
    O.Static.TimeoutMs = O.TimeoutMs;
    Rc = race::runRace(O.Static, std::cout, std::cerr);
#else
    std::cerr << "incant race: the static check needs Z3, which this build "
                 "lacks; --dynamic is available\n";
    Rc = 2;
#endif
  });
}

} // namespace

static tool::Subcommand Race(70, addRace);
