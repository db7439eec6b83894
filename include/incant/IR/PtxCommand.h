//===- PtxCommand.h - `incant ptx`: summarise the kernels of PTX -*- C++ -*-===//
//
//   incant ptx FILE.ptx|FILE.cu [-v] [--json] [--arch sm_90]
//
// Reads a PTX module (for a .cu file, runs `nvcc -arch=ARCH -ptx -lineinfo`
// first) and prints, per kernel and device function, its global, shared
// and generic loads and stores, atomics, fences, barriers and loops with
// their source lines (Summary.h).
//
// Exit codes: 0 printed; 2 usage or input error (unreadable file, malformed
// PTX, nvcc rejected the source); 3 nvcc is needed and not found.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_PTXCOMMAND_H
#define INCANT_IR_PTXCOMMAND_H

#include <iosfwd>
#include <string>

namespace incant::ir {

struct PtxCommand {
  std::string File;
  bool Verbose = false;
  bool Json = false;
  std::string Arch = "sm_90"; ///< For nvcc, when File is CUDA source.
};

int runPtx(const PtxCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::ir

#endif // INCANT_IR_PTXCOMMAND_H
