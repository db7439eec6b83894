//===- Process.h - Running one program with a timeout -----------*- C++ -*-===//
//
// The one place `incant stress` starts a program: argv (no shell), a whole
// environment, a wall-clock timeout after which the program's process
// group is killed, and its stdout and stderr captured.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_APPTEST_PROCESS_H
#define INCANT_APPTEST_PROCESS_H

#include <string>
#include <vector>

namespace incant::apptest {

struct ProcessResult {
  bool Started = false;  ///< False: StartError says why.
  std::string StartError;
  bool TimedOut = false; ///< Killed at the timeout.
  int ExitCode = -1;     ///< When it exited.
  int Signal = 0;        ///< When a signal ended it (not our kill).
  double Seconds = 0;
  std::string Stdout, Stderr; ///< Each cut at 16 MiB.
};

/// Runs \p Argv (Argv[0] a path, or a name looked up on PATH) with exactly
/// the environment \p Env ("NAME=value"), stdin from /dev/null, for at most
/// \p TimeoutSeconds (0: no limit).
ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const std::vector<std::string> &Env,
                         double TimeoutSeconds);

/// The current process's environment as "NAME=value" strings.
std::vector<std::string> currentEnvironment();

} // namespace incant::apptest

#endif // INCANT_APPTEST_PROCESS_H
