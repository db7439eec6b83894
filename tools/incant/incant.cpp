//===- incant.cpp - The incant command: check here, the rest in incant-all ===//
//
// `incant check` runs in this process, which links only what check needs;
// any other command line (another command, --help, --version, a mistake) is
// handed unchanged to incant-all, the binary beside this one that holds
// every command (ToolMain.h says why). Exit codes are AllCommands.cpp's;
// 3 if incant-all cannot be started.
//
//===----------------------------------------------------------------------===//
#include "CheckOptions.h"
#include "ToolMain.h"
#include "incant/Support/DataFiles.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace incant;

/// Replaces this process with incant-all on the same command line; returns
/// only if that fails.
static int handOver(char **Argv) {
  std::string All = besideExecutable(tool::AllCommandsBinary);
  execv(All.c_str(), Argv);
  DiagnosticEngine(&std::cerr)
      .error("cannot start " + All + " (every command but check): " +
             std::strerror(errno));
  return 3;
}

int main(int Argc, char **Argv) {
  if (Argc < 2 || std::strcmp(Argv[1], "check") != 0)
    return handOver(Argv);
  CLI::App App{"incant: find and fix concurrency bugs in GPU programs"};
  tool::setUpTool(App, Argc, Argv);
  int Rc = 0;
  driver::CheckCommand Check;
  tool::addCheck(App, Check, Rc);
  return tool::runTool(App, Argc, Argv, Rc);
}
