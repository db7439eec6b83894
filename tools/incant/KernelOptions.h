//===- KernelOptions.h - Which kernel, its launch, its compiler -*- C++ -*-===//
//
// The options that `incant race` and `incant repair` spell alike: the
// kernel to check, the launch configuration it is checked for, and the
// compiler that turns a .cu or .cl file into PTX.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_KERNELOPTIONS_H
#define INCANT_TOOL_KERNELOPTIONS_H

#include "OptionKinds.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace incant::tool {

/// --kernel, --block-dim, --grid-dim and --param; \p Verb says what the
/// command does to the kernel ("Check", "Repair").
inline void addLaunchOptions(CLI::App *Sub, const std::string &Verb,
                             std::string &Kernel, std::string &BlockDim,
                             std::string &GridDim,
                             std::vector<std::string> &Params) {
  Sub->add_option("--kernel", Kernel,
                  Verb + " only this kernel (PTX or demangled name)");
  Sub->add_option("--block-dim", BlockDim,
                  "Threads per block, X[,Y,Z] (default: any)");
  Sub->add_option("--grid-dim", GridDim,
                  "Blocks per grid, X[,Y,Z] (default: any)");
  addList(Sub, "--param", Params,
          "A kernel parameter's value, NAME=VALUE (NAME: the PTX name or the "
          "position, 0 first); repeatable");
}

/// --arch and -X,--compiler-arg: nvcc's or clang's build of the file.
inline void addCompilerOptions(CLI::App *Sub, std::string &Arch,
                               std::vector<std::string> &CompilerArgs) {
  Sub->add_option("--arch", Arch, "nvcc's -arch for .cu files")
      ->capture_default_str();
  addList(Sub, "-X,--compiler-arg", CompilerArgs,
          "An argument for nvcc or clang (-X -DN=64); repeatable");
}

} // namespace incant::tool

#endif // INCANT_TOOL_KERNELOPTIONS_H
