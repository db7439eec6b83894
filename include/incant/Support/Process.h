//===- Process.h - Run a program and capture what it prints -----*- C++ -*-===//
//
// The one way incant runs another program (nvcc, ptxas, cuobjdump, an
// application under test): an argument vector, never a shell; the
// environment inherited, replaced or edited; a working directory; stdin
// from /dev/null or from a given text; stdout and stderr captured (or
// merged, discarded, inherited); a wall-clock timeout after which the whole
// process group is killed; the exit status or the signal that ended it.
//
// The child runs in a process group of its own, so a timeout also ends the
// programs it started (a shell script's children, an MPI launcher's ranks).
// The child is started with posix_spawn (nothing of the caller's memory is
// copied), everything it needs prepared before, so runProcess is safe and
// cheap to call from several threads at once (incant campaign prepares
// tests in threads).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_PROCESS_H
#define INCANT_SUPPORT_PROCESS_H

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace incant {

/// What happens to one of the child's output streams.
enum class OutputMode {
  Capture, ///< Into ProcessResult::Out (stdout) or ::Err (stderr).
  Discard, ///< To /dev/null.
  Inherit, ///< The caller's own stream.
  /// For stderr: wherever stdout goes, interleaved as written (captured:
  /// ProcessResult::Out holds both, as a terminal would show them). For
  /// stdout it means Capture.
  ToStdout,
};

struct ProcessOptions {
  /// The program and its arguments. Argv[0] is a path, or a bare name that
  /// is looked up on PATH (the child's PATH when Env sets one).
  std::vector<std::string> Argv;
  /// The child's working directory; empty: the caller's.
  std::string WorkingDir;
  /// Start from the caller's environment (true) or from an empty one.
  bool InheritEnv = true;
  /// Variables to set (NAME, value), applied after InheritEnv, in order.
  std::vector<std::pair<std::string, std::string>> SetEnv;
  /// Variables to remove, applied after SetEnv.
  std::vector<std::string> UnsetEnv;
  /// stdin's contents; nullopt: /dev/null (the child reads end of file).
  std::optional<std::string> Input;
  OutputMode Stdout = OutputMode::Capture;
  OutputMode Stderr = OutputMode::Capture;
  /// Wall-clock limit in seconds; 0: none. On expiry the process group gets
  /// SIGTERM, then SIGKILL after KillGraceSeconds (at once when 0).
  double TimeoutSeconds = 0;
  double KillGraceSeconds = 0;
  /// Bytes kept per captured stream; beyond it output is read and dropped
  /// (so the child never blocks on a full pipe) and *Truncated is set.
  /// 0: no limit.
  size_t MaxOutputBytes = 0;
};

struct ProcessResult {
  enum class Status {
    NotStarted, ///< The program could not be started (Error says why).
    Exited,     ///< It returned ExitCode.
    Signaled,   ///< A signal (Signal) ended it.
    TimedOut,   ///< TimeoutSeconds passed; its group was killed.
  };
  Status St = Status::NotStarted;
  int ExitCode = -1; ///< With Exited.
  int Signal = 0;    ///< With Signaled; with TimedOut, the signal sent last.
  std::string Out;   ///< Captured stdout (and stderr with ToStdout).
  std::string Err;   ///< Captured stderr.
  bool OutTruncated = false;
  bool ErrTruncated = false;
  double Seconds = 0; ///< Wall time from start to the end of its output.
  std::string Error;  ///< With NotStarted: why (e.g. "nvcc: No such file").

  bool started() const { return St != Status::NotStarted; }
  /// Exited with code 0.
  bool succeeded() const { return St == Status::Exited && ExitCode == 0; }
  /// In words: "exit code 2", "killed by signal 11 (Segmentation fault)",
  /// "timed out after 5 s", or the reason it did not start.
  std::string describe() const;
};

/// Runs a program to completion and returns what happened. It counts as done
/// when the program has exited and both captured streams are closed (a
/// child it left behind that still holds them keeps it running, as in a
/// shell's `$(...)`, until the timeout).
ProcessResult runProcess(const ProcessOptions &Opts);

/// Runs \p Argv with the defaults above (both streams captured apart).
ProcessResult runProcess(const std::vector<std::string> &Argv);

/// Makes SIGINT, SIGTERM and SIGHUP end the programs runProcess is running
/// too: their process groups are their own, so Ctrl-C at a terminal or a
/// scheduler's SIGTERM to incant would leave them running (an nvcc, an
/// application on the GPU). The handler sends the signal to each running
/// child's group, removes the temporary folders that live (TempDir.h),
/// then ends incant as the signal would. A signal the
/// process was started ignoring stays ignored; a StopSignals object (a
/// campaign's clean stop) takes SIGINT and SIGTERM over while it lives.
/// Called once, at the tool's start.
void endChildrenWithIncant();

/// The full path of the executable \p Name on the search path \p PathVar (a
/// colon-separated list, as $PATH; empty entries are skipped); \p Name
/// itself if it contains a '/'; "" if not found.
std::string findOnPath(const std::string &Name, const std::string &PathVar);

/// The command line as a POSIX shell would take it (arguments quoted where
/// needed), for messages and -v output; never run through a shell.
std::string shellQuote(const std::vector<std::string> &Argv);

} // namespace incant

#endif // INCANT_SUPPORT_PROCESS_H
