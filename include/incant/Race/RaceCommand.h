//===- RaceCommand.h - `incant race`: data races and divergence -*- C++ -*-===//
//
//   incant race FILE.cu|FILE.cl|FILE.ptx [--kernel NAME]
//       [--block-dim X[,Y,Z]] [--grid-dim X[,Y,Z]] [--param NAME=VALUE]...
//       [--json] [--strict] [-v] [--arch sm_90] [--optimized] [-X ARG]...
//       [--timeout MS]
//
// Compiles a .cu file with nvcc (-ptx -lineinfo, and -Xcicc -O0 unless
// --optimized, so that the accesses are those the source makes: no store
// removed as dead, no loop unrolled) or a .cl file with clang (NVPTX),
// reads the PTX and checks every kernel (or --kernel) for data races and
// barrier divergence (Race.h), with the launch geometry and parameters
// symbolic unless given.
//
// Exit codes: 0 no race and no divergent barrier found (pairs the analysis
// could not decide are listed as unknown but do not fail, unless --strict);
// 1 a race or a divergent barrier found (with --strict: or anything not
// proved safe); 2 usage or input error (malformed option, bad PTX, no such
// kernel, the compiler rejected the source); 3 nvcc or clang is needed and
// not found, or could not run.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_RACE_RACECOMMAND_H
#define INCANT_RACE_RACECOMMAND_H

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::race {

struct RaceCommand {
  std::string File;
  std::string Kernel;
  std::string BlockDim, GridDim; ///< "X[,Y,Z]" as given; "" for symbolic.
  std::vector<std::string> Params; ///< "NAME=VALUE" as given.
  bool Json = false;
  bool Strict = false;
  bool Verbose = false;
  std::string Arch = "sm_90";           ///< nvcc's -arch for .cu files.
  /// Analyse nvcc's optimised PTX instead of its unoptimised one (-Xcicc
  /// -O0), in which every access the source makes is still there.
  bool Optimized = false;
  std::vector<std::string> CompilerArgs; ///< More arguments for nvcc/clang.
  unsigned TimeoutMs = 5000;             ///< Per solver query.
};

int runRace(const RaceCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::race

#endif // INCANT_RACE_RACECOMMAND_H
