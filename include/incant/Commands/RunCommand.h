//===- RunCommand.h - `incant run` ------------------------------*- C++ -*-===//
//
// `incant run`: run litmus tests many times on a device under incantations
// and print litmus7's histogram with the model's verdict beside it.
//
// Exit codes of runRun: 0 every test ran (or was emitted); 1 some observed
// outcome is one the model forbids; 2 a malformed test, option or model, or
// a test with no faithful form on the backend; 3 no usable device or driver
// (no OpenCL runtime, no CUDA backend yet).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_RUNCOMMAND_H
#define INCANT_COMMANDS_RUNCOMMAND_H

#include "incant/Harness/Params.h"

#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace incant::driver {

struct RunCommand {
  std::vector<std::string> Files;
  /// auto (NVIDIA GPU, else OpenCL GPU, else OpenCL CPU), opencl or cuda.
  std::string Backend = "auto";
  /// Device index within the backend (`incant devices`); unset: choose.
  std::optional<uint32_t> Device;
  harness::RunParams Params;
  /// --stress-seq, parsed into Params.Inc.StressSeq when set.
  std::string StressSeq;
  /// --profile: a chip profile (`incant tune`) applied to Params, except
  /// the parameters named in Explicit (options given on the command line).
  std::string Profile;
  std::set<std::string> Explicit;
  bool Json = false;
  /// Write the generated code here and do not run.
  std::string EmitDir;
  /// The model whose verdict is printed beside the histogram ("" or "none":
  /// no verdict).
  std::string Model = "ptx";
  std::vector<std::string> ModelDirs;
  /// --timings: where the command's time went, on standard error last.
  bool Timings = false;
  /// --compile-cache: where compiled tests are kept between commands;
  /// unset: the user's cache folder (userCacheDir()/cuda); "none": nowhere.
  std::optional<std::string> CompileCache;
};

int runRun(const RunCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::driver

#endif // INCANT_COMMANDS_RUNCOMMAND_H
