//===- CommandContext.h - One command's streams, messages and exit code -*- C++ -*-===//
//
// Every command runs in one CommandContext: its standard output and error,
// one DiagnosticEngine, the output paths it will write checked before the
// work starts, and the one place its exit code is decided, from what it
// found (Outcome) or the kind of failure that stopped it (ErrorKind):
//
//   0  done, nothing found
//   1  a property found or violated (a race, a failing run, an unstable set)
//   2  usage or input error (ErrorKind::Input)
//   3  a needed device, driver or tool is missing or failed, or incant
//      itself failed (ErrorKind::Device, ErrorKind::Internal)
//
// (`incant race` alone has a fifth outcome, 4: nothing found but some
// pair left undecided.)
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_COMMANDCONTEXT_H
#define INCANT_SUPPORT_COMMANDCONTEXT_H

#include "incant/Support/Diagnostic.h"
#include "incant/Support/Error.h"

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace incant {

/// What a command that ran to its end found.
enum class Outcome { Clean, Found };

constexpr int exitCodeOf(Outcome O) { return O == Outcome::Found ? 1 : 0; }

class CommandContext {
public:
  /// Messages of fail() start with \p Prefix ("incant: error: " for most
  /// commands, "incant race: " for race's).
  CommandContext(std::ostream &Out, std::ostream &Err,
                 std::string Prefix = "incant: error: ")
      : Out(Out), Err(Err), Diags(&Err), Prefix(std::move(Prefix)) {}

  std::ostream &out() { return Out; }
  std::ostream &err() { return Err; }
  /// Diagnostics with source locations; they print to err().
  DiagnosticEngine &diags() { return Diags; }

  /// Prints \p Message (after the prefix) on the error stream; the exit
  /// code of a failure of kind \p K.
  int fail(ErrorKind K, std::string_view Message);
  /// The exit code of a failure of kind \p K whose messages were reported
  /// already (to diags(), or by the step that failed).
  static int failed(ErrorKind K) { return exitCodeOf(K); }
  /// The exit code of a command that ran to its end.
  static int done(Outcome O) { return exitCodeOf(O); }

  /// Checks each path of \p Outputs ("" and "-" are skipped: no file, or
  /// standard output) before the work: 0 if all can be written and none
  /// is the same file as one of \p Inputs or another output (through any
  /// link: checkOutputs of OutputFile.h), else the exit code of an input
  /// error, with the message naming both paths printed.
  int checkOutputs(const std::vector<std::string> &Outputs,
                   const std::vector<std::string> &Inputs = {});

  /// Where a GPU is needed: 0 if a CUDA device can run kernels here
  /// (missingCudaDevice()), else the exit code of a device error after
  /// "\p What needs a CUDA device: REASON".
  int requireCudaDevice(std::string_view What);

private:
  std::ostream &Out;
  std::ostream &Err;
  DiagnosticEngine Diags;
  std::string Prefix;
};

} // namespace incant

#endif // INCANT_SUPPORT_COMMANDCONTEXT_H
