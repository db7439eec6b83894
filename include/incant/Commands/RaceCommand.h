//===- RaceCommand.h - `incant race`: data races and divergence -*- C++ -*-===//
//
//   incant race FILE.cu|FILE.cl|FILE.ptx... [-p BUILD] [--kernel NAME]
//       [--block-dim X[,Y,Z]] [--grid-dim X[,Y,Z]] [--param NAME=VALUE]...
//       [--json] [--strict] [-v] [--arch sm_90] [--optimized] [--any-launch]
//       [--assume-pure-externals]
//       [-X ARG]...
//       [--timeout MS] [--diagnostics auto|always|never] [--sarif FILE]
//       [--suppressions FILE] [--baseline-out FILE]
//
// Reads PTX, or compiles a .cu file with nvcc (-ptx -lineinfo) or a .cl
// file with clang (NVPTX), and checks every kernel (or --kernel) for data
// races and barrier divergence (Race.h), with the launch geometry and
// parameters symbolic unless given. A .cu file is compiled twice unless
// --optimized: nvcc's optimised build is checked (the code that runs,
// compact and precise to analyse), and where it shows no race, the
// unoptimised build (-Xcicc -O0) too, in which every access the source
// makes is still there (the optimiser removes stores to memory nothing
// reads, for example, and with them their races).
//
// A .cu file's host code is read too (source::readHostLaunches, where
// incant has libclang): each kernel it launches is checked once per
// distinct launch, with the values that launch fixes (the command line's
// winning), and the report says which launch each check is about. Kernels
// the host code does not launch, and --any-launch, get any launch.
//
// Several files are checked one after the other (their reports in turn;
// with --json one JSON object a line); -p BUILD takes each file's flags
// from BUILD/compile_commands.json (and, with no file named, checks every
// .cu and .cl file in it). For CI (Findings.h): compiler-style
// `file:line:col: warning:` lines (by default when standard output is a
// terminal), a SARIF 2.1.0 log, suppressions that leave known findings
// out, and a baseline (today's findings as a suppressions file).
//
// Exit codes: 0 every pair and barrier proved (suppressed findings
// aside); 1 a race or a divergent barrier found (with --strict: or
// anything not proved safe); 2 usage or input error (malformed option, bad
// PTX, no such kernel, the compiler rejected the source); 3 nvcc or clang
// is needed and not found, or could not run; 4 no race found, but some
// pair or barrier left undecided. With several files: an error (3, then 2)
// over a race (1) over an undecided pair (4) over 0.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_RACECOMMAND_H
#define INCANT_COMMANDS_RACECOMMAND_H

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::race {

struct RaceCommand {
  std::vector<std::string> Files;
  /// -p: the build folder with compile_commands.json (or the file).
  std::string CompileDatabase;
  std::string Kernel;
  std::string BlockDim, GridDim; ///< "X[,Y,Z]" as given; "" for symbolic.
  std::vector<std::string> Params; ///< "NAME=VALUE" as given.
  bool Json = false;
  bool Strict = false;
  bool Verbose = false;
  std::string Arch = "sm_90";           ///< nvcc's -arch for .cu files.
  /// --arch was given (else a compile command's architecture is taken).
  bool ArchGiven = false;
  /// Check only nvcc's optimised build of a .cu file (by default its
  /// unoptimised build, -Xcicc -O0, is checked too, for races that the
  /// optimiser hides: stores to memory nothing reads, ...).
  bool Optimized = false;
  /// Ignore the host code's launches (Options::HostLaunches).
  bool AnyLaunch = false;
  /// --assume-pure-externals: Options::PureExternals.
  bool PureExternals = false;
  /// --no-benign-tolerance: Options::NoBenign.
  bool NoBenign = false;
  std::vector<std::string> CompilerArgs; ///< More arguments for nvcc/clang.
  unsigned TimeoutMs = 5000;             ///< Per solver query.
  /// Per kernel (0: no limit): what is not decided by then is unknown.
  double KernelSeconds = DefaultKernelSeconds;
  static constexpr double DefaultKernelSeconds = 60;
  /// Whether --kernel-time was given: then the unoptimised build's check
  /// has the same limit (else a shorter one of its own).
  bool KernelTimeGiven = false;
  /// Head races and divergent barriers with `file:line:col: warning:`.
  bool CompilerLines = false;
  std::string SarifPath;        ///< --sarif: write the findings here.
  std::string SuppressionsPath; ///< --suppressions: leave these out.
  std::string BaselinePath;     ///< --baseline-out: today's findings.
  std::string ToolVersion;      ///< For the SARIF log's tool.
};

int runRace(const RaceCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::race

#endif // INCANT_COMMANDS_RACECOMMAND_H
