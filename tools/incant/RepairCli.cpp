//===- RepairCli.cpp - `incant repair` ------------------------------------===//
//
// Exit codes: 0 repaired or nothing to repair; 1 a kernel cannot be
// repaired or is not proved race-free after the repair; 2 usage or input
// error; 3 nvcc or clang is needed and was not found.
//
//===----------------------------------------------------------------------===//
// Tool part: incantRepair
#include "KernelOptions.h"
#include "OptionKinds.h"
#include "Options.h"
#include "Subcommand.h"
#include "incant/Commands/RepairCommand.h"

#include <iostream>

#include <unistd.h>

using namespace incant;

static void addRepair(CLI::App &App, int &Rc) {
  static repair::RepairCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "repair", "Add the cheapest barriers that remove data races and barrier "
                "divergence, and remove unneeded ones (GPURepair's method over "
                "incant race)");
  Sub->add_option("file", Cmd.File, "A .cu, .cl or .ptx file")->required();
  tool::addLaunchOptions(Sub, "Repair", Cmd.Kernel, Cmd.BlockDim,
                         Cmd.GridDim, Cmd.Params);
  Sub->add_flag("--any-launch", Cmd.AnyLaunch,
                "Repair every kernel for any launch (default: a .cu file's "
                "kernels for the launches its host code makes)");
  Sub->add_flag("--grid-level", Cmd.GridLevel,
                "Also place grid barriers (need a cooperative launch)");
  tool::addSwitch(Sub, "remove", Cmd.Remove,
                  "Remove the barriers the kernel verifies without (--no-remove "
                  "keeps every barrier already there, unless divergent)");
  Sub->add_flag("--assume-pure-externals", Cmd.PureExternals,
                "As incant race: functions declared without a body touch no "
                "memory and reach no barrier (every report that relies on "
                "it says so)");
  Sub->add_flag("--no-benign-tolerance", Cmd.NoBenign,
                "As incant race: two racing stores of the same value to the "
                "same bytes are a race to repair");
  Sub->add_option("-o,--output", Cmd.Output, "Write the repaired PTX here");
  Sub->add_option("--patch", Cmd.Patch,
                  "Write the verified source patch (unified diff) here");
  Sub->add_flag("--json", Cmd.Json, "One JSON object");
  Sub->add_flag("-v,--verbose", Cmd.Verbose,
                "The compiler's command, counts and existing barriers");
  static std::string Diagnostics = "auto";
  Sub->add_option("--diagnostics", Diagnostics,
                  "file:line:col: note: lines for the source edits: auto "
                  "(when standard output is a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  tool::addCompilerOptions(Sub, Cmd.Arch, Cmd.CompilerArgs);
  tool::addNumber(Sub, "--timeout", Cmd.TimeoutMs, IntRange{1, 3'600'000},
                  "Milliseconds per solver query before a pair is unknown")
      ->capture_default_str();
  tool::addNumber(Sub, "--kernel-time", Cmd.KernelSeconds,
                  RealRange{0, 86400},
                  "Seconds per kernel: once they have passed, the kernel is "
                  "unrepairable (0: no limit)")
      ->capture_default_str();
  Sub->callback([&Rc] {
    Cmd.CompilerLines = Diagnostics == "always" ||
                        (Diagnostics == "auto" && isatty(STDOUT_FILENO));
    Rc = repair::runRepair(Cmd, std::cout, std::cerr);
  });
}

static tool::Subcommand Repair(71, addRepair);
