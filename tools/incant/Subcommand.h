//===- Subcommand.h - Registering a subcommand of the incant tool -*- C++ -*-===//
//
// Each command other than check/run/devices lives in its own
// tools/incant/<Name>Cli.cpp, which turns the command line into the options
// of its library entry point. The file registers itself with one static
// object; CMake compiles every *Cli.cpp into the tool, so adding a command
// touches no other file:
//
//   static void addGen(CLI::App &App, int &Rc) { ... }
//   static incant::tool::Subcommand Gen(40, addGen);
//
// Order sorts the subcommands in --help.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_SUBCOMMAND_H
#define INCANT_TOOL_SUBCOMMAND_H

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace incant::tool {

/// Adds one subcommand to \p App; its callback stores the exit code in \p Rc.
/// Options live in storage the adder owns (a function-local static).
using SubcommandAdder = void (*)(CLI::App &App, int &Rc);

/// The command line main() was given (argv), for commands that repeat it
/// (campaign --slurm).
inline std::vector<std::string> &commandLine() {
  static std::vector<std::string> Args;
  return Args;
}

struct Subcommand {
  Subcommand(int Order, SubcommandAdder Add) {
    registry().emplace_back(Order, Add);
  }
  static std::vector<std::pair<int, SubcommandAdder>> &registry() {
    static std::vector<std::pair<int, SubcommandAdder>> R;
    return R;
  }
};

} // namespace incant::tool

#endif // INCANT_TOOL_SUBCOMMAND_H
