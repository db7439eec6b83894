//===- BuildCommands.h - Building applications through incant --*- C++ -*-===//
//
//   eval "$(incant build-env)"      then build as usual (make, cmake, nvcc)
//   incant nvcc ARGS...             nvcc with incant's instrumentation
//   incant ptxas ARGS...            what nvcc runs (--ptxas-prefix)
//   incant instrument FILE.ptx      the rewrite of one module, for a look
//
// nvcc runs `PREFIX ptxas ARGS` for every PTX module when given
// --ptxas-prefix=PREFIX (an option missing from nvcc --help that
// NVCC_PREPEND_FLAGS accepts). With PREFIX = this incant, `incant ptxas`
// rewrites the module in place (Instrument.h) and then runs the real ptxas
// with the same arguments; nvcc embeds the same rewritten file as PTX in the
// fatbinary. build-env also asks for -lineinfo (source lines for the
// manifests) and --no-compress (so units can be found in the binary).
//
// Environment read by `incant ptxas`:
//   INCANT_PASSES     comma-separated passes (default "randomise")
//   INCANT_INSTRUMENT 0: run ptxas on the module as it is
//   INCANT_BUILD_LOG  a file to which one line per rewritten unit is added
//   INCANT_RACE_ALL   1: pass "race" instruments every access (no pruning
//                     by the static checker; incant instrument too)
//
// Exit codes: ptxas's own; 2 if the module cannot be rewritten (with the
// diagnostics) or ptxas cannot be started.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_BUILDCOMMANDS_H
#define INCANT_COMMANDS_BUILDCOMMANDS_H

#include "incant/Intercept/Instrument.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::intercept {

/// `incant ptxas ARGS`: \p Args are the arguments nvcc gives ptxas.
/// \p StaticRaces prunes pass "race" (unless INCANT_RACE_ALL=1).
int runPtxasWrapper(const std::vector<std::string> &Args, std::ostream &Err,
                    const RaceOracle &StaticRaces = {});

/// `incant nvcc ARGS`: runs nvcc with the flags build-env prints.
int runNvccFront(const std::vector<std::string> &Args, std::ostream &Err);

struct BuildEnvCommand {
  std::vector<std::string> Passes; ///< Empty: the default.
};
int runBuildEnv(const BuildEnvCommand &Cmd, std::ostream &Out,
                std::ostream &Err);

struct InstrumentCommand {
  std::string File;
  std::string Output;              ///< "" or "-": stdout.
  std::vector<std::string> Passes; ///< Empty: the default.
  bool Manifest = false;           ///< Print the manifest instead.
};
int runInstrument(const InstrumentCommand &Cmd, std::ostream &Out,
                  std::ostream &Err, const RaceOracle &StaticRaces = {});

/// The nvcc flags that route a build through this incant binary.
std::vector<std::string> nvccFlags(std::string &Error);

/// The passes named in INCANT_PASSES, or the default.
std::vector<std::string> passesFromEnvironment();

} // namespace incant::intercept

#endif // INCANT_COMMANDS_BUILDCOMMANDS_H
