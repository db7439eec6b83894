//===- Input.h - Reading a kernel file and launch options -------*- C++ -*-===//
//
// What `incant race` and `incant repair` share before the analysis: the
// launch given on the command line (--block-dim, --grid-dim, --param)
// checked against CUDA's limits, and a .cu, .cl or .ptx file turned into a
// parsed PTX module (nvcc -ptx -lineinfo, clang's NVPTX target with its
// line-table quirks fixed, or the file as it is).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_RACE_INPUT_H
#define INCANT_RACE_INPUT_H

#include "incant/PTX/Module.h"
#include "incant/Race/Race.h"
#include "incant/Support/Diagnostic.h"

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::race {

/// Fills \p L from "X[,Y,Z]" texts ("" leaves a dimension symbolic) and
/// "NAME=VALUE" parameters; false after reporting an error.
bool parseLaunch(const std::string &BlockDim, const std::string &GridDim,
                 const std::vector<std::string> &Params, LaunchConfig &L,
                 DiagnosticEngine &Diags);

/// Rejects a compiler argument that starts with '=': CLI11 keeps the '=' of
/// a short option's "-X=ARG" in the value, and no compiler argument starts
/// with one. Reports the first such argument and returns false.
bool checkCompilerArgs(const std::vector<std::string> &Args,
                       DiagnosticEngine &Diags);

/// Whether every parameter \p L names exists in some kernel of \p M
/// (reports an error naming the parameters there are, if not).
bool checkParams(const ptx::Module &M, const LaunchConfig &L,
                 DiagnosticEngine &Diags);

/// clang 14's NVPTX output with -gline-tables-only, made PTX (debug labels
/// inside call operand lists dropped, `.file 1 "dir" "name"` joined).
std::string fixClangLineInfo(const std::string &Ptx);

/// How to compile a kernel source.
struct CompileRequest {
  std::string Arch = "sm_90";
  bool Unoptimised = false; ///< nvcc -Xcicc -O0
  std::vector<std::string> Args;
  bool Verbose = false; ///< Print the compiler's command to Err.
};

/// The PTX of \p File: read (.ptx) or compiled (.cu, .cl), with the exit
/// code to return on failure in \p Failed (2 input, 3 compiler missing)
/// after reporting the error.
std::shared_ptr<SourceFile> kernelPtx(const std::string &File,
                                      const CompileRequest &Req,
                                      DiagnosticEngine &Diags,
                                      std::ostream &Err, int &Failed);

} // namespace incant::race

#endif // INCANT_RACE_INPUT_H
