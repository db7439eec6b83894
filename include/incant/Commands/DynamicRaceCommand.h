//===- DynamicRaceCommand.h - `incant race --dynamic` -----------*- C++ -*-===//
//
//   incant race --dynamic [--scheme addr|stmt] [--all-accesses] [--json]
//       [-o FILE] [--time-limit S] [--no-build-check] -- ./app ARGS
//   incant race --dynamic [options] FILE.cu [--arch sm_90] [-X ARG]...
//       [-- ARGS]
//
// Runs an application built through incant with pass "race" (`eval
// "$(incant build-env --passes race)"`, or `incant nvcc` with
// INCANT_PASSES=race) under the injected library with INCANT_RACE set, and
// reports the data races its kernels made (docs/race.md, "Dynamic"). A
// single .cu file with a host main is first built that way into a
// temporary folder (with pruning by the static checker where incant has
// it, unless --all-accesses) and run with the arguments after `--`.
//
// The application's stdout and stderr pass through unchanged; the report
// follows on stdout (or in -o FILE). --json prints it as one JSON line.
//
// Exit codes: 0 no race seen and the application exited with status 0; 1
// a race was seen; 2 usage or input error (no such program, a program not
// built with pass "race", a .cu file nvcc rejects, --all-accesses for a
// program built with pruning, an output that cannot be written); 3 no
// CUDA driver or device, nvcc missing, the injected library missing, no
// report from the checker, tables lost to a device fault, or (no race
// seen) the application failing: a check that is not complete.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_DYNAMICRACECOMMAND_H
#define INCANT_COMMANDS_DYNAMICRACECOMMAND_H

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::dynrace {

struct DynamicRaceCommand {
  /// The application and its arguments; or, for a .cu file, the file
  /// first and then the arguments of the program built from it.
  std::vector<std::string> Argv;
  std::string Scheme = "addr"; ///< "addr" or "stmt".
  bool AllAccesses = false;
  bool Json = false;
  std::string Output;   ///< Where the report goes; "" or "-": stdout.
  double Timeout = 0;   ///< Seconds; 0: none.
  bool NoBuildCheck = false;
  std::string InjectLibrary;
  /// For a .cu file: nvcc's -arch and more arguments.
  std::string Arch = "sm_90";
  std::vector<std::string> CompilerArgs;
  /// Sizes of the checker's tables (0: the library's defaults).
  unsigned ShadowMB = 0, LogMB = 0;
  /// For a .cu file: the static checker's time per solver query when it
  /// prunes the accesses to instrument.
  unsigned StaticTimeoutMs = 500;
};

int runDynamicRace(const DynamicRaceCommand &Cmd, std::ostream &Out,
                   std::ostream &Err);

} // namespace incant::dynrace

#endif // INCANT_COMMANDS_DYNAMICRACECOMMAND_H
