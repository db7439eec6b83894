//===- ToolMain.h - The tool's top-level command line ----------*- C++ -*-===//
//
// The tool is two binaries built from these sources:
//
//   incant      `incant check` in its own process, linking only what check
//               needs (incant.cpp): no Z3, no SQLite, no other command's
//               options to build, so a batch of small tests is not
//               dominated by the start of the process (docs/checker.md,
//               "Side by side with herd7"). Every other command line is
//               handed, unchanged, to incant-all beside it (exec).
//   incant-all  every command (AllCommands.cpp).
//
// Both set up the top-level command line and report usage errors here, so
// `incant check ...` reads the same from either.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_TOOLMAIN_H
#define INCANT_TOOL_TOOLMAIN_H

#include "Subcommand.h"
#include "UsageError.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Process.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace incant::tool {

/// The name of the binary that holds every command, beside `incant`.
inline const char *AllCommandsBinary = "incant-all";

/// The top-level options of \p App: --version, one command, usage errors in
/// the one diagnostic format.
inline void setUpTool(CLI::App &App, int Argc, char **Argv) {
  App.set_version_flag("--version", "incant " INCANT_VERSION);
  App.require_subcommand(1);
  commandLine().assign(Argv, Argv + Argc);
  // Usage errors in the one diagnostic format, never echoing a whole 5 MB
  // argument back.
  App.failure_message([](const CLI::App *, const CLI::Error &E) {
    Diagnostic D;
    D.Message = E.what();
    return DiagnosticEngine::format(D) +
           "Run with --help for more information.\n";
  });
}

/// herd7 spells its options with one dash (`herd7 -model ptx.cat`): `incant
/// check` takes the ones it shares with herd7 so spelled, which CLI11 would
/// otherwise read as a short option with a joined value (`-model` as
/// `-m odel`). Rewrites them to the two-dash spelling in \p Args.
inline void herdSpellings(std::vector<std::string> &Args) {
  if (Args.size() < 2 || Args[1] != "check")
    return;
  for (size_t I = 2; I < Args.size() && Args[I] != "--"; ++I)
    for (const char *Opt : {"-model", "-unroll", "-timeout"})
      if (Args[I] == Opt)
        Args[I] = std::string("-") + Opt;
}

/// \p Rc once standard output is flushed: a write to it that failed (a
/// full disk, a closed pipe) is an error, exit 3, as every failed write.
inline int finishOutput(int Rc) {
  std::string Error;
  if (finishStandardOutput(Error))
    return Rc;
  DiagnosticEngine(&std::cerr).error(Error);
  return 3;
}

/// Parses the command line into \p App's commands and runs the one given;
/// returns the exit code (\p Rc, which the command's callback sets). A
/// command that runs out of memory ends with "out of memory while running
/// `incant CMD`", exit 3, never an abort.
inline int runTool(CLI::App &App, int Argc, char **Argv, const int &Rc) {
  endChildrenWithIncant();
  std::vector<std::string> Words(Argv, Argv + Argc);
  herdSpellings(Words);
  std::vector<char *> Ptrs;
  for (std::string &W : Words)
    Ptrs.push_back(W.data());
  try {
    App.parse(Argc, Ptrs.data());
  } catch (const std::bad_alloc &) {
    const std::vector<std::string> &Args = commandLine();
    std::cout.flush();
    DiagnosticEngine(&std::cerr)
        .error("out of memory while running `incant" +
               (Args.size() > 1 ? " " + Args[1] : std::string()) +
               "`; give it more memory or a smaller input");
    return 3;
  } catch (const CLI::ParseError &E) {
    // CLI11 uses 0 for --help/--version and 1..N for usage errors; incant
    // reports every usage error as 2, in the one diagnostic format.
    if (E.get_exit_code() == 0)
      return App.exit(E);
    std::string Message = E.what();
    const std::vector<std::string> &Args = commandLine();
    if (App.get_subcommands().empty() && Args.size() > 1 &&
        Args[1].rfind("-", 0) != 0) {
      Message = "unknown command '" + Args[1] + "'; the commands are";
      for (const CLI::App *S : App.get_subcommands({}))
        Message += " " + S->get_name();
    }
    reportUsageError(Args, Message, std::cerr);
    DiagnosticEngine(&std::cerr)
        .report(Severity::Note, nullptr, {},
                "`incant --help` and `incant COMMAND --help` list the options");
    return 2;
  }
  return finishOutput(Rc);
}

} // namespace incant::tool

#endif // INCANT_TOOL_TOOLMAIN_H
