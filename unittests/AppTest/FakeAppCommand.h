//===- FakeAppCommand.h - incant-fakeapp as the application under test ---===//
#ifndef INCANT_UNITTESTS_APPTEST_FAKEAPPCOMMAND_H
#define INCANT_UNITTESTS_APPTEST_FAKEAPPCOMMAND_H

#include "incant/Commands/StressCommand.h"

#include <string>
#include <vector>

namespace incant::apptest {

/// A command running incant-fakeapp with \p Args (no build check, no
/// progress, JSON output, a 10 s timeout).
inline StressCommand fakeAppCommand(std::vector<std::string> Args) {
  StressCommand Cmd;
  Cmd.Argv = {INCANT_FAKEAPP};
  Cmd.Argv.insert(Cmd.Argv.end(), Args.begin(), Args.end());
  Cmd.InjectLibrary = INCANT_INJECT_LIB;
  Cmd.NoBuildCheck = true;
  Cmd.Progress = false;
  Cmd.Json = true;
  Cmd.Timeout = 10;
  return Cmd;
}

} // namespace incant::apptest

#endif // INCANT_UNITTESTS_APPTEST_FAKEAPPCOMMAND_H
