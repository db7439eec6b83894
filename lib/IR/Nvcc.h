//===- Nvcc.h - Running nvcc to get PTX from CUDA source (private) --------===//
#ifndef INCANT_LIB_IR_NVCC_H
#define INCANT_LIB_IR_NVCC_H

#include <string>
#include <vector>

namespace incant::ir {

/// nvcc's path: $INCANT_NVCC if set (empty if that is not an executable),
/// else the first `nvcc` on PATH, else /usr/local/cuda/bin/nvcc; empty if
/// none exists.
std::string findNvcc();

struct NvccResult {
  bool Started = false; ///< False: nvcc could not be run at all.
  int ExitCode = -1;
  std::string Output; ///< nvcc's stdout and stderr together.
};

/// Runs \p Argv (Argv[0] is the program's path) without a shell.
NvccResult runProgram(const std::vector<std::string> &Argv);

/// The command line as a shell would take it (arguments quoted if needed).
std::string shellQuote(const std::vector<std::string> &Argv);

} // namespace incant::ir

#endif // INCANT_LIB_IR_NVCC_H
