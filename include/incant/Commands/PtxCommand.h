//===- PtxCommand.h - `incant ptx`: the kernels of PTX ----------*- C++ -*-===//
//
//   incant ptx FILE.ptx|FILE.cu|FILE.cl [-v] [--json] [--arch sm_90]
//
// Reads a PTX module (a .cu file is compiled first with `nvcc -arch=ARCH
// -ptx -lineinfo`, a .cl file with clang's NVPTX target: compileToPtx in
// Support/PtxCompiler.h) and prints, per kernel and device function, its
// global, shared and generic loads and stores, atomics, fences, barriers and
// loops with their source lines (Summary.h).
//
// Exit codes: 0 printed; 2 usage or input error (unreadable file, malformed
// PTX, the compiler rejected the source); 3 nvcc or clang is needed and not
// found, or could not run.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_PTXCOMMAND_H
#define INCANT_COMMANDS_PTXCOMMAND_H

#include <iosfwd>
#include <string>

namespace incant::driver {

struct PtxCommand {
  std::string File;
  bool Verbose = false;
  bool Json = false;
  std::string Arch = "sm_90"; ///< nvcc's -arch, when File is CUDA source.
};

int runPtx(const PtxCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::driver

#endif // INCANT_COMMANDS_PTXCOMMAND_H
