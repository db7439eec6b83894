//===- AllCommands.cpp - incant-all: every command of the tool -----------===//
//
// incant finds and fixes concurrency bugs in GPU programs. This file only
// turns the command line into an options struct per command and calls the
// library entry point for it (lib/Commands). It is the binary incant-all; the
// binary incant runs `incant check` itself and hands every other command
// line to this one (ToolMain.h).
//
// Exit codes, for every command:
//   0  done; nothing was found or violated
//   1  a property was found or violated (a manifest mismatch, a forbidden
//      outcome observed, ...), as each command documents
//   2  usage or input error (a malformed test, model or option, or one the
//      backend cannot run faithfully)
//   3  the command needs a device or driver that this machine does not have,
//      or the device (or incant itself) failed to do it; the library says
//      which kind each failure is (ErrorKind, Support/Error.h)
//
//===----------------------------------------------------------------------===//
#include "CheckOptions.h"
#include "OptionKinds.h"
#include "Options.h"
#include "RunOptions.h"
#include "Subcommand.h"
#include "ToolMain.h"
#ifdef INCANT_HAVE_RUN
#include "incant/Commands/DevicesCommand.h"
#include "incant/Commands/RunCommand.h"
#endif

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

using namespace incant;

#ifdef INCANT_HAVE_RUN
static void addRun(CLI::App &App, driver::RunCommand &Cmd, int &Rc) {
  CLI::App *Sub = App.add_subcommand(
      "run", "Run litmus tests many times on a device under incantations "
             "(litmus7's histogram, with the model's verdict)");
  Sub->add_option("files", Cmd.Files, "Litmus tests (.litmus)");
  tool::addBackendOptions(Sub, Cmd.Backend, Cmd.Device);
  tool::addRunParams(Sub, Cmd.Params, Cmd.StressSeq);
  Sub->add_flag("--json", Cmd.Json, "One JSON object per test, one per line");
  Sub->add_option("--emit", Cmd.EmitDir,
                  "Write the generated kernel source here and do not run");
  Sub->add_option("-m,--model", Cmd.Model,
                  "Model whose verdict is printed beside the histogram "
                  "('none' for no verdict)")
      ->capture_default_str();
  tool::addList(Sub, "--models", Cmd.ModelDirs,
                  "Folder searched first for models given by name");
  Sub->add_option("--profile", Cmd.Profile,
                  "Chip profile from `incant tune`; options given here "
                  "override it (default: the shipped profile of the chip, "
                  "if any; 'none': the built-in defaults)");
  Sub->add_option("--compile-cache", Cmd.CompileCache,
                  "CUDA: keep compiled tests in this folder and reuse them "
                  "when a test comes again ('none': do not; default: "
                  "$XDG_CACHE_HOME/incant/cuda or ~/.cache/incant/cuda)");
  Sub->add_flag("--timings", Cmd.Timings,
                "Where the command's time went (starting the device, "
                "compiling, launches, the model's verdict), on standard "
                "error last");
  Sub->callback([&Cmd, &Rc, Sub] {
    Cmd.Explicit = tool::givenOptions(Sub);
    Rc = driver::runRun(Cmd, std::cout, std::cerr);
  });
}

static void addDevices(CLI::App &App, driver::DevicesCommand &Cmd, int &Rc) {
  CLI::App *Sub = App.add_subcommand(
      "devices", "List the devices `incant run` can use");
  Sub->add_flag("--json", Cmd.Json, "A JSON array of devices");
  Sub->callback([&] { Rc = driver::runDevices(Cmd, std::cout, std::cerr); });
}
#endif

int main(int Argc, char **Argv) {
  CLI::App App{"incant: find and fix concurrency bugs in GPU programs"};
  tool::setUpTool(App, Argc, Argv);
  int Rc = 0;
  driver::CheckCommand Check;
  tool::addCheck(App, Check, Rc);
#ifdef INCANT_HAVE_RUN
  driver::RunCommand Run;
  addRun(App, Run, Rc);
  driver::DevicesCommand Devices;
  addDevices(App, Devices, Rc);
#endif
  auto &More = tool::Subcommand::registry();
  std::stable_sort(More.begin(), More.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  for (const auto &[Order, Add] : More)
    Add(App, Rc);
  return tool::runTool(App, Argc, Argv, Rc);
}
