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
//   2  usage or input error (a malformed test, model or option)
//   3  the command needs a device or driver that this machine does not have
//
//===----------------------------------------------------------------------===//
#include "incant/Driver/CheckCommand.h"

#include <CLI/CLI.hpp>
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
  Sub->add_option("--models", Cmd.ModelDirs,
                  "Folder searched first for models given by name");
  Sub->add_flag("--json", Cmd.Json, "One JSON object per test, one per line");
  Sub->add_option("--manifest", Cmd.Manifest,
                  "Check every test of a manifest (path, then Ok/No per model) "
                  "and report mismatches; exit 1 if any");
  Sub->add_option("--unroll", Cmd.Unroll,
                  "Times a backward branch may be taken per thread")
      ->capture_default_str();
  Sub->callback([&] { Rc = driver::runCheck(Cmd, std::cout, std::cerr); });
}

int main(int Argc, char **Argv) {
  CLI::App App{"incant: find and fix concurrency bugs in GPU programs"};
  App.set_version_flag("--version", "incant " INCANT_VERSION);
  App.require_subcommand(1);
  int Rc = 0;
  driver::CheckCommand Check;
  addCheck(App, Check, Rc);
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::ParseError &E) {
    int Code = App.exit(E);
    // CLI11 uses 0 for --help/--version and 1..N for usage errors; incant
    // reports every usage error as 2.
    return Code == 0 ? 0 : 2;
  }
  return Rc;
}
