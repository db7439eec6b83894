//===- CostCommand.h - `incant fences cost`: what fences cost ---*- C++ -*-===//
//
//   incant fences cost [--set F.json] [--runs N] [--timeout S]
//                      [post-condition options] [--all-runs] [--results F.jsonl]
//                      [--plot F.svg] [--json] -- ./app ARGS
//
// The PLDI'16 paper's section 6: the application's runtime and energy
// with no fences ("no"), a fence after every access ("cons") and the
// reduced set of `incant fences --save F.json` ("emp"). Each variant is
// built unconditional: the unit's PTX as the binary embeds it, with every
// guard of the pass "fences" removed and the variant's fences plain
// (intercept::fixFences), which the injected library loads in place of
// the module (INCANT_FENCE_IMAGES; the driver compiles it). The variants
// run in turn, N runs each (default 100), without stress; a run counts
// only if it passes its post-condition. Runtime: the kernels' time by
// CUDA events (INCANT_TIME), median over the runs (--all-runs counts
// failing runs too, for applications that fail without fences on every
// run; hangs and crashes never count). Energy: NVML's total
// energy counter around each launch (INCANT_ENERGY), the sum over all
// runs divided by the runs (the counter moves in steps, so enough runs
// must span many of them; the table says how many it saw).
//
// --results appends this application's result as one JSON line; --plot
// draws every line of that file (or this result alone) as the paper's
// Figure 5 (with no application given, it only draws the file): energy and runtime with fences against without, log scales,
// crosses for emp and dots for cons.
//
// Exit codes: 0 measured; 1 no run of some variant counted; 2 usage or
// input error (no embedded PTX of the unit, a set file that does not
// belong to the binary, an output that cannot be written, ...); 3 no CUDA
// driver or device (before any run), the injected library missing or not
// loading a variant's build.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_COSTCOMMAND_H
#define INCANT_COMMANDS_COSTCOMMAND_H

#include "incant/AppTest/AppUnderTest.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::fences {

struct CostCommand {
  /// The application (its environments are not used: every run is plain).
  apptest::AppSetup App;
  std::string Set;     ///< `incant fences --save` output ("" : no emp).
  uint64_t Runs = 100;
  /// Count runs that fail the post-condition too (not hangs or crashes):
  /// for applications that fail without fences on every run.
  bool AllRuns = false;
  /// Runs at once. Their kernels still run one process at a time: each
  /// run holds a lock file (INCANT_GPU_LOCK) from its first launch to its
  /// exit, so what overlaps is the start (CUDA context, loading).
  unsigned Jobs = 1;
  /// With --jobs 1: after the runs, more runs of each variant whose
  /// energy counter moved fewer than this many times over its counted runs
  /// (NVML updates it about every 100 ms, so a sum over few steps says
  /// little), until it has; no such run starts EnergySeconds after the
  /// first run. 0: off.
  uint64_t EnergySteps = 0;
  double EnergySeconds = 600;
  std::string Results; ///< Append the result here (JSON lines).
  std::string Plot;    ///< Draw Figure 5 here.
  bool Json = false;
};

/// How many more runs a variant needs for \p Target energy-counter steps,
/// having seen \p Steps over \p Runs counted runs: the missing steps at
/// the rate seen (one step in two runs if none yet), at least one and at
/// most as many as were made (so each round at most doubles the runs); 0
/// when it has enough.
int runCost(const CostCommand &Cmd, std::ostream &Out, std::ostream &Err);

/// One variant of one application, as measured.
} // namespace incant::fences

#endif // INCANT_COMMANDS_COSTCOMMAND_H
