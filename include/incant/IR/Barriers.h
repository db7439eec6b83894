//===- Barriers.h - Barriers and the intervals between them -----*- C++ -*-===//
//
// The barriers of a function and the barrier intervals they cut it into.
//
// Barrier kinds: a CTA barrier (bar.sync / barrier.sync / bar.red without a
// thread count) makes every thread of the CTA wait for all others; a warp
// barrier (bar.warp.sync with the full mask) does so for the 32 lanes of a
// warp; a grid barrier is the sequence CUDA's cooperative groups compile
// grid.sync() to (bar.sync, one thread's release atomic and acquire spin at
// gpu scope, bar.sync); a cluster barrier is `barrier.cluster.wait` right
// after a `barrier.cluster.arrive` without .relaxed (cluster.sync()): every
// thread of the cluster, so of its CTA, waits for all others. Barriers with
// a thread count, bar.arrive, guarded barriers, split or relaxed cluster
// arrivals and mbarriers order nothing here (a static analysis cannot tell
// which threads they wait for).
//
// Intervals, for one scope (which threads a pair of accesses belongs to:
// lanes of one warp, threads of one CTA, threads of different CTAs): the
// barriers that order such threads are those of that scope or a wider one
// (warp: warp, CTA and grid barriers; CTA: CTA and grid; grid: grid). Two
// accesses can run between the same two barrier instances only if both are
// reachable, without passing a barrier, from one source: the kernel's entry
// or one barrier. Loops matter: in a loop that every iteration passes a
// barrier ("synchronised"), an access reached from a barrier of the loop
// through the back edge runs one iteration after that barrier instance;
// reach() records, per source, which back edges of synchronised loops
// around the source each path crossed, so that the race checker relates
// the two threads' iteration counters. An access in a synchronised loop
// that does not contain the source runs in that loop's first iteration.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_BARRIERS_H
#define INCANT_IR_BARRIERS_H

#include "incant/IR/FunctionIR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace incant::ir {

class ThreadValues;

enum class BarrierKind : uint8_t {
  CTA,     ///< every thread of the CTA
  Warp,    ///< bar.warp.sync with the full mask
  Grid,    ///< the second bar.sync of a recognised grid.sync()
  Cluster, ///< barrier.cluster.wait of cluster.sync(): the CTAs of a cluster
  NoOrder, ///< orders nothing here (see above)
  /// cp.async.wait_all, then a CTA barrier: one that barrier repair
  /// assumes, which also completes the thread's cp.async copies.
  CopyWait,
};
const char *barrierKindName(BarrierKind K);

struct Barrier {
  unsigned Item = NoNode;
  BarrierKind Kind = BarrierKind::CTA;
  /// Why a barrier orders nothing ("has a thread count", "bar.arrive", ...).
  std::string Note;
  /// For Grid: the first bar.sync of the grid.sync() sequence.
  unsigned GridStart = NoNode;
  /// Not in the code: a barrier assumed just before instruction Item (what
  /// barrier repair tries out).
  bool Assumed = false;
};

/// The barriers of \p F in body order (every bar, barrier, bar.warp.sync,
/// barrier.cluster and mbarrier instruction).
std::vector<Barrier> findBarriers(const FunctionIR &F, ThreadValues &TV);

/// Which threads a pair of accesses belongs to, for choosing the barriers
/// that order them.
enum class PairScope : uint8_t { Warp, CTA, Grid, Cluster };

class BarrierIntervals {
public:
  BarrierIntervals(const FunctionIR &F, const std::vector<Barrier> &Barriers,
                   PairScope Scope);

  /// Interval sources: NoNode for the kernel's entry, else the body index
  /// of a barrier of the scope (of the instruction an assumed barrier
  /// precedes).
  const std::vector<unsigned> &sources() const { return Sources; }
  /// One way instruction Item is reached from a source without a barrier:
  /// the source's index in sources() and, per loop of sourceLoops(Source)
  /// (bit i for the i-th), whether the path crossed that loop's back edge.
  struct Reach {
    unsigned Source = 0;
    uint32_t Crossed = 0;
    /// Per loop of enteredLoops() (bit i for the i-th), whether the path
    /// went through that loop (entered its header from outside).
    uint32_t Entered = 0;
    friend bool operator==(const Reach &, const Reach &) = default;
  };
  const std::vector<Reach> &reach(unsigned Item) const;
  /// The synchronised loops that contain source \p Source (innermost last).
  const std::vector<unsigned> &sourceLoops(unsigned Source) const {
    return SrcLoops[Source];
  }
  /// The synchronised loops whose entry Reach::Entered records (at most
  /// 32, in loop order).
  const std::vector<unsigned> &enteredLoops() const { return EnteredLoops; }
  /// Whether every iteration of loop \p Loop passes a barrier of the scope.
  bool synchronised(unsigned Loop) const { return Sync[Loop]; }
  /// Whether the instruction at \p Item is a barrier of the scope, or one
  /// is assumed before it.
  bool isBarrier(unsigned Item) const;
  /// Whether two instructions share an interval source.
  bool mayShareInterval(unsigned A, unsigned B) const;

private:
  void walk(unsigned SourceIdx, unsigned Block, unsigned From,
            std::vector<std::vector<std::pair<uint32_t, uint32_t>>> &Seen);

  const FunctionIR *F;
  std::vector<char> IsBarrier; ///< per body item: 1 at, 2 before it
  std::vector<unsigned> Sources;
  std::vector<unsigned> Starts; ///< Per source, the first item it reaches.
  std::vector<std::vector<unsigned>> SrcLoops;
  std::vector<char> Sync;
  std::vector<unsigned> EnteredLoops;
  std::vector<std::vector<Reach>> Reached; ///< per body item
};

} // namespace incant::ir

#endif // INCANT_IR_BARRIERS_H
