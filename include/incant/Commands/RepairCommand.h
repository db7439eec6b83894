//===- RepairCommand.h - `incant repair`: barriers added/removed -*- C++ -*-===//
//
//   incant repair FILE.cu|FILE.cl|FILE.ptx [--kernel NAME]
//       [--block-dim X[,Y,Z]] [--grid-dim X[,Y,Z]] [--param NAME=VALUE]...
//       [--grid-level] [--no-remove] [-o OUT.ptx] [--patch OUT.diff]
//       [--json] [-v] [--arch sm_90] [-X ARG]... [--timeout MS]
//
// Repairs every kernel (or --kernel) of a CUDA, OpenCL C or PTX file with
// the cheapest set of barriers that incant race verifies (Repair.h), and
// removes the barriers it does not need. The repaired PTX is checked again
// from its text; -o writes it. For a .cu or .cl file the repair is also a
// source patch (a barrier statement before the line the PTX position maps
// to, removed barrier lines deleted) that is compiled again and checked by
// the race checker before it is offered; --patch writes it as a diff.
//
// The launch: the command line's values; for a .cu file also what the
// host code's launches of a kernel all agree on (race::hostLaunches) and
// the kernel's __requires(param == value) equalities; the report says
// which were used. A .cu file's kernels are checked in both of nvcc's
// builds as `incant race` checks them: where the unoptimised build (-Xcicc
// -O0) has races that the optimised one lost with the accesses nvcc
// deleted, or where it repairs more kernels, that build is repaired.
//
// Exit codes: 0 repaired, or nothing to repair; 1 some kernel cannot be
// repaired (a race no barrier orders, a grid barrier needed without
// --grid-level) or is not proved race-free after the repair (pairs the
// checker cannot decide, listed), or --patch was asked and no verified
// source patch could be made (the reason is printed); 2 usage or input
// error; 3 nvcc or clang is needed and not found.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_REPAIRCOMMAND_H
#define INCANT_COMMANDS_REPAIRCOMMAND_H

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::repair {

struct RepairCommand {
  std::string File;
  std::string Kernel;
  std::string BlockDim, GridDim;   ///< "X[,Y,Z]" as given; "" for symbolic.
  std::vector<std::string> Params; ///< "NAME=VALUE" as given.
  bool GridLevel = false;
  bool AnyLaunch = false; ///< Ignore the host code's launches.
  bool Remove = true; ///< --no-remove clears it.
  std::string Output; ///< -o: the repaired PTX.
  std::string Patch;  ///< --patch: the source patch as a unified diff.
  bool Json = false;
  bool Verbose = false;
  /// Each source edit also as a `file:line:col: note:` line (--diagnostics).
  bool CompilerLines = false;
  std::string Arch = "sm_90";
  std::vector<std::string> CompilerArgs;
  unsigned TimeoutMs = 5000;
  double KernelSeconds = 600; ///< --kernel-time (0: no limit).
  /// As incant race's options: race::Options::PureExternals, NoBenign.
  bool PureExternals = false;
  bool NoBenign = false;
};

int runRepair(const RepairCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::repair

#endif // INCANT_COMMANDS_REPAIRCOMMAND_H
