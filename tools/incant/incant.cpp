//===- incant.cpp - The incant command-line tool --------------------------===//
//
// incant finds and fixes concurrency bugs in GPU programs. This file only
// turns the command line into an options struct per command and calls the
// library entry point for it (lib/Driver).
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
#include "OptionKinds.h"
#include "Options.h"
#include "RunOptions.h"
#include "Subcommand.h"
#include "UsageError.h"
#include "incant/Driver/CheckCommand.h"
#ifdef INCANT_HAVE_RUN
#include "incant/Driver/RunCommand.h"
#endif

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

using namespace incant;

static void addCheck(CLI::App &App, driver::CheckCommand &Cmd, int &Rc) {
  CLI::App *Sub = App.add_subcommand(
      "check", "Say which outcomes of litmus tests a memory model allows "
               "(herd7's output)");
  Sub->add_option("files", Cmd.Files, "Litmus tests (.litmus)");
  Sub->add_option("-m,--model", Cmd.Model,
                  "Model: a shipped name (sc, ptx-rmo, ptx) or a .cat file")
      ->capture_default_str();
  tool::addList(Sub, "--models", Cmd.ModelDirs,
                  "Folder searched first for models given by name");
  Sub->add_flag("--json", Cmd.Json, "One JSON object per test, one per line");
  Sub->add_option("--manifest", Cmd.Manifest,
                  "Check every test of a manifest (path, then Ok/No per model) "
                  "and report mismatches; exit 1 if any");
  tool::addNumber(Sub, "--unroll", Cmd.Unroll, driver::UnrollRange,
                  "Times a backward branch may be taken per thread")
      ->capture_default_str();
  tool::addNumber(Sub, "--max-steps", Cmd.MaxSteps, driver::MaxStepsRange,
                  "Most steps (trace combinations and candidate executions) "
                  "per test and model; then the result is incomplete "
                  "(0: no limit)")
      ->capture_default_str();
  tool::addNumber(Sub, "--timeout", Cmd.Timeout, driver::TimeoutRange,
                  "Most seconds per test and model; then the result is "
                  "incomplete (0: no limit)")
      ->capture_default_str();
  Sub->callback([&] { Rc = driver::runCheck(Cmd, std::cout, std::cerr); });
}

#ifdef INCANT_HAVE_RUN
static void addRun(CLI::App &App, driver::RunCommand &Cmd, int &Rc) {
  CLI::App *Sub = App.add_subcommand(
      "run", "Run litmus tests many times on a device under incantations "
             "(litmus7's histogram, with the model's verdict)");
  Sub->add_option("files", Cmd.Files, "Litmus tests (.litmus)");
  Sub->add_option("--backend", Cmd.Backend,
                  "auto (NVIDIA GPU, else OpenCL GPU, else OpenCL CPU), "
                  "opencl or cuda")
      ->capture_default_str();
  tool::addNumber(Sub, "--device", Cmd.Device, tool::DeviceIndexRange,
                  "Device index within the backend (see `incant devices`)");
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
  App.set_version_flag("--version", "incant " INCANT_VERSION);
  App.require_subcommand(1);
  tool::commandLine().assign(Argv, Argv + Argc);
  // Usage errors in the one diagnostic format, never echoing a whole 5 MB
  // argument back.
  App.failure_message([](const CLI::App *, const CLI::Error &E) {
    Diagnostic D;
    D.Message = E.what();
    return DiagnosticEngine::format(D) +
           "Run with --help for more information.\n";
  });
  int Rc = 0;
  driver::CheckCommand Check;
  addCheck(App, Check, Rc);
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
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::ParseError &E) {
    // CLI11 uses 0 for --help/--version and 1..N for usage errors; incant
    // reports every usage error as 2, in the one diagnostic format.
    if (E.get_exit_code() == 0)
      return App.exit(E);
    std::string Message = E.what();
    const std::vector<std::string> &Args = tool::commandLine();
    if (App.get_subcommands().empty() && Args.size() > 1 &&
        Args[1].rfind("-", 0) != 0) {
      Message = "unknown command '" + Args[1] + "'; the commands are";
      for (const CLI::App *S : App.get_subcommands({}))
        Message += " " + S->get_name();
    }
    tool::reportUsageError(Args, Message, std::cerr);
    DiagnosticEngine(&std::cerr)
        .report(Severity::Note, nullptr, {},
                "`incant --help` and `incant COMMAND --help` list the options");
    return 2;
  }
  return Rc;
}
