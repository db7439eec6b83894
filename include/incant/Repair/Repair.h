//===- Repair.h - Barrier repair: the cheapest set that verifies -*- C++ -*-===//
//
// GPURepair's algorithm (Joshi et al., VMCAI 2021) over incant's static race
// checker (Race.h) instead of GPUVerify:
//
//   1. Candidates: before every instruction of the kernel whose execution
//      does not depend on the thread (a barrier there cannot diverge), a
//      block-level barrier; with GridLevel also a grid-level one where the
//      execution does not depend on the block either. Positions inside code
//      inlined from another function are not candidates (the repair goes
//      into the kernel's own body).
//   2. Clauses: each racing pair asks for a barrier between its two
//      accesses: a candidate on a barrier-free path from one access to the
//      other (a grid barrier for threads of two blocks). A candidate that
//      was chosen and left the pair racing is dropped from its clause, so
//      every round learns something; an empty clause means no barrier can
//      repair the pair (it needs a fence or an atomic, or a grid barrier
//      without GridLevel). A divergent barrier of the programmer's is taken
//      out (the races that follow ask for a barrier outside the divergent
//      code: a hoist); a divergent added one is forbidden.
//      A pair of lanes of one warp may also be ordered by a warp barrier
//      (bar.warp.sync -1) anywhere between them; the race checker decides
//      whether the lanes of a warp all reach it (a divergent one is
//      forbidden), so it is chosen where a block barrier would diverge
//      (warp-synchronous code under `if (tid < 32)`).
//   3. Cheapest set: weighted MaxSAT (smt::MaxSat), barrierCost(): a
//      block barrier 2 * 10^(loop depth), a grid barrier 24 more (as in
//      GPURepair, doubled), a warp barrier 10^(loop depth).
//   4. Re-verify with the barriers assumed (race::Options::Extra, Removed);
//      repeat until no race and no divergent barrier is left.
//   5. Removal: each barrier (the programmer's and the added ones, the
//      costliest first) is taken out if the kernel still verifies without
//      it (no race, no divergence, no more unknown pairs than before). A
//      programmer's grid.sync() goes as a whole sequence, where that
//      sequence is self-contained code.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_REPAIR_REPAIR_H
#define INCANT_REPAIR_REPAIR_H

#include "incant/IR/Barriers.h"
#include "incant/IR/FunctionIR.h"
#include "incant/IR/Inliner.h"
#include "incant/PTX/Module.h"
#include "incant/Race/Race.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace incant::repair {

struct Options {
  /// The launch, the kernel, the solver's time limit; Extra and Removed
  /// are the repair's to fill.
  race::Options Race;
  /// Grid-level barriers as candidates (they need a cooperative launch).
  bool GridLevel = false;
  /// Warp barriers (bar.warp.sync -1, CUDA's __syncwarp()) as candidates
  /// for pairs of lanes of one warp (CUDA and PTX; OpenCL C has none).
  bool WarpLevel = true;
  /// Try removing barriers once the kernel verifies.
  bool Remove = true;
  /// Insert/verify rounds before giving up.
  unsigned MaxRounds = 64;
  /// Wall-clock limit of one kernel's repair, in seconds (0: none). Once it
  /// has passed, the race checks left give unknown and the kernel is
  /// unrepairable ("the kernel's time limit ran out").
  double KernelSeconds = 0;
};

/// The cost of a barrier at loop depth \p Depth: 2 * 10^Depth for a block
/// barrier, 24 more for a grid barrier (GPURepair's default weights, 10^d
/// and +12, doubled), 10^Depth for a warp barrier (__syncwarp: cheaper
/// than a block barrier at the same depth, dearer than one a loop out).
uint64_t barrierCost(ir::BarrierKind Kind, unsigned Depth);

/// A barrier the repair adds or removes.
struct Change {
  /// Added: the instruction it goes before; removed: the barrier. Body
  /// index in the inlined kernel (as race::Access::Item).
  unsigned Item = 0;
  /// The same position in the module as given.
  std::string OriginFunction;
  unsigned OriginItem = 0;
  ir::BarrierKind Kind = ir::BarrierKind::CTA;
  unsigned LoopDepth = 0;
  uint64_t Cost = 0;
  uint32_t PtxLine = 0;
  ir::DebugLoc Loc;
  /// Removed: "divergent" (taken out because threads disagree on reaching
  /// it) or "unnecessary" (the kernel verifies without it).
  std::string Why;
  /// A removed grid barrier (a programmer's grid.sync()): its sequence
  /// runs from the bar.sync at GridStart (body index) to Item. In the
  /// module as given, the items [OriginGridStart, OriginGridStop) go (up
  /// to the block of the last bar.sync) and OriginItem.
  std::optional<unsigned> GridStart;
  unsigned OriginGridStart = 0, OriginGridStop = 0;
};

enum class Outcome : uint8_t {
  Clean,        ///< No race or divergent barrier to begin with.
  Repaired,     ///< Verified after the changes.
  Unrepairable, ///< Some race or divergence no barrier set removes.
};
const char *outcomeName(Outcome O);

struct KernelRepair {
  std::string Name, Demangled;
  /// The launch repaired for (race::KnownLaunch::Description); "" for the
  /// command line's values alone.
  std::string Launch;
  Outcome Result = Outcome::Clean;
  std::vector<Change> Added, Removed;
  /// Why it could not be repaired: one line per pair or barrier.
  std::vector<std::string> Problems;
  /// The programmer's barriers: (body index, loop depth, cost).
  std::vector<Change> Existing;
  uint64_t AddedCost = 0;
  unsigned Rounds = 0, Checks = 0;
  /// The race report before and after (with the changes assumed).
  race::KernelReport Before, After;
};

/// Repairs kernel \p F of module \p M, which has its calls inlined
/// (ir::inlineCalls; \p Origins maps its body indices to the module as
/// given, empty when nothing was inlined).
KernelRepair repairKernel(const ptx::Module &M, const ir::FunctionIR &F,
                          const std::vector<ir::Origin> &Origins,
                          const Options &O);

struct ModuleRepair {
  std::vector<KernelRepair> Kernels;
  std::string Error; ///< No such kernel, or a function defined twice.
};

/// Repairs every kernel of \p M (or Options::Race.Kernel).
ModuleRepair repairModule(const ptx::Module &M, const Options &O);

/// \p M with the repairs made: the removed barriers deleted, the added ones
/// inserted (`bar.sync 0;`, or for a grid barrier a counter in global memory
/// that thread 0 of each block increments with release semantics and polls
/// with acquire loads between two `bar.sync 0`, which needs a cooperative
/// launch). False with errors in \p Diags if a position is not in \p M.
bool applyRepairs(ptx::Module &M, const ModuleRepair &R,
                  DiagnosticEngine &Diags);

} // namespace incant::repair

#endif // INCANT_REPAIR_REPAIR_H
