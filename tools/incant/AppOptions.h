//===- AppOptions.h - How commands that run applications take them -*- C++ -*-===//
//
// `incant stress`, `incant fences` and `incant fences cost` run an
// application built through incant with the injected library, judged by a
// post-condition; they find the library and the chip profile the same way
// and spell the application's options the same way.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_APPOPTIONS_H
#define INCANT_TOOL_APPOPTIONS_H

#include "InjectLibrary.h"
#include "OptionKinds.h"
#include "Options.h"
#include "incant/AppTest/AppUnderTest.h"
#include "incant/Harness/Profile.h"
#ifdef INCANT_STRESS_HAVE_CUDA
#include "incant/CUDA/CudaApi.h"
#endif

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace incant::tool {

/// The name of CUDA device 0, or "" (no driver or device).
inline std::string cudaDeviceName() {
#ifdef INCANT_STRESS_HAVE_CUDA
  cuda::CudaLibraries L;
  std::string Why;
  cuda::CUdevice D = 0;
  char Name[256] = {};
  if (L.loadDriver(Why) && L.Drv.cuDeviceGet(&D, 0) == 0 &&
      L.Drv.cuDeviceGetName(Name, sizeof Name, D) == 0)
    return Name;
#endif
  return {};
}

/// Fills the sys environment's parameters from --profile (a path, or
/// "none"), or from the shipped profile of device 0.
inline bool applyProfile(apptest::AppSetup &Cmd, const std::string &Profile,
                  bool NeedSys) {
  harness::RunParams P;
  std::string From = "built-in defaults";
  std::string Path = Profile;
  if (Path.empty() && NeedSys)
    if (std::string Chip = cudaDeviceName(); !Chip.empty())
      if (auto S = harness::findShippedProfile(Chip, "cuda"))
        Path = S->Path;
  if (!Path.empty() && Path != "none") {
    DiagnosticEngine Diags(&std::cerr);
    std::optional<harness::Profile> Prof = harness::readProfile(Path, Diags);
    if (!Prof)
      return false;
    harness::applyProfile(*Prof, P);
    From = Path;
  }
  Cmd.Knobs.Sys = apptest::sysStressFrom(P.Inc);
  Cmd.ProfileNote = From;
  return true;
}

/// The options of the application run and its post-condition; the
/// returned option is --expect-exit (its value goes to \p ExpectExit: set
/// Cmd.ExpectExit from it when it was given).
inline CLI::Option *addAppOptions(CLI::App *Sub, apptest::AppSetup &Cmd,
                                  int &ExpectExit) {
  addNumber(Sub, "--timeout", Cmd.Timeout, RealRange{0.01, 1e6},
            "Seconds per run; a run still going then is a hang")
      ->capture_default_str();
  auto *Check = Sub->add_option(
      "--check", Cmd.Check,
      "Post-condition: a shell command run after each run, with the run's "
      "output in the files $INCANT_APP_STDOUT and $INCANT_APP_STDERR and "
      "its exit status in $INCANT_APP_EXIT; exit 0 means correct, 1 wrong");
  auto *Exit = addNumber(Sub, "--expect-exit", ExpectExit, IntRange{0, 255},
                         "Post-condition: this exit status (default 0)");
  auto *Stdout = Sub->add_option(
      "--expect-stdout", Cmd.ExpectStdout,
      "Post-condition: stdout matches this regular expression (POSIX ERE)");
  Check->excludes(Exit)->excludes(Stdout);
  Exit->excludes(Stdout);
  Sub->add_option("--label", Cmd.Label, "The application's name in output");
  Sub->add_flag("--no-build-check", Cmd.NoBuildCheck,
                "Run even if the program carries no module built through "
                "incant (a script that starts it; randomisation then does "
                "nothing)");
  Sub->add_flag_callback(
      "--no-progress", [&Cmd] { Cmd.Progress = false; },
      "No progress lines on stderr");
  Sub->add_option("app", Cmd.Argv, "-- ./app ARGS")->required();
  return Exit;
}

/// The testing environment's options (environments, stressing blocks,
/// thread randomisation, chip profile, seed).
inline void addEnvironmentOptions(CLI::App *Sub, apptest::AppSetup &Cmd,
                                  std::string &Profile) {
  Sub->add_option("--env", Cmd.Envs,
                  "Environments, comma-separated: none, sys, rand, cache, "
                  "each with + (thread randomisation) or -, optionally "
                  ":spreadK (at most K of the app's blocks per SM); 'all' "
                  "is the paper's eight")
      ->capture_default_str();
  Sub->add_flag("--randomise", Cmd.Randomise,
                "Thread randomisation for environments named without + or -");
  Sub->add_option("--profile", Profile,
                  "Chip profile for the sys environment (default: the "
                  "shipped profile of this GPU; 'none': built-in defaults)");
  // The injected library reads these percentages within 0 to 1000.
  addNumber(Sub, "--stress-blocks", Cmd.Knobs.MinPercent, IntRange{0, 1000},
            "Stressing blocks, least share of the app's blocks, %")
      ->capture_default_str();
  addNumber(Sub, "--stress-blocks-max", Cmd.Knobs.MaxPercent,
            IntRange{0, 1000},
            "Stressing blocks, greatest share of the app's blocks, %")
      ->capture_default_str();
  addList(Sub, "--keep-ids", Cmd.Knobs.KeepIds,
          "Kernels whose thread ids randomisation leaves alone (e.g. ones "
          "that assume lower blocks run first), one per --keep-ids or "
          "comma-separated",
          /*Commas=*/true);
  addNumber(Sub, "--seed", Cmd.Seed, IntRange{}, "Seed of every random choice")
      ->capture_default_str();
}

/// Fills the sys parameters (from --profile) when an environment needs
/// them; false after an error (reported).
inline bool applyEnvironmentProfile(apptest::AppSetup &Cmd,
                                    const std::string &Profile) {
  bool NeedSys = Cmd.Envs.find("sys") != std::string::npos ||
                 Cmd.Envs.find("all") != std::string::npos;
  return applyProfile(Cmd, Profile, NeedSys);
}

} // namespace incant::tool

#endif // INCANT_TOOL_APPOPTIONS_H
