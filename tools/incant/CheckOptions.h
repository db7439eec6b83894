//===- CheckOptions.h - `incant check`'s command line -----------*- C++ -*-===//
//
// Both binaries of the tool parse `incant check` (ToolMain.h says why there
// are two): this is its one command line.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_CHECKOPTIONS_H
#define INCANT_TOOL_CHECKOPTIONS_H

#include "OptionKinds.h"
#include "Options.h"
#include "incant/Commands/CheckCommand.h"

#include <CLI/CLI.hpp>
#include <iostream>

namespace incant::tool {

inline void addCheck(CLI::App &App, driver::CheckCommand &Cmd, int &Rc) {
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

} // namespace incant::tool

#endif // INCANT_TOOL_CHECKOPTIONS_H
