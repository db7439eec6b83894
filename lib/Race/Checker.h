//===- Checker.h - One kernel's race check (private to lib/Race) ----------===//
//
// The pieces of checkKernel: collecting accesses and barriers
// (Check.cpp), the pair queries and their contexts (Pairs.cpp), barrier
// divergence (Divergence.cpp), witnesses (Witness.cpp), synchronisation
// through memory (MemorySync.cpp), named barriers (NamedBarriers.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_RACE_CHECKER_H
#define INCANT_LIB_RACE_CHECKER_H

#include "Encoder.h"
#include "incant/IR/AsyncCopies.h"
#include "incant/IR/MemoryEvents.h"
#include "incant/Race/Race.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace incant::race {

using ir::ExprId;
using ir::NoExpr;
using ir::NoNode;
using ir::PairScope;
using ptx::AddrSpace;
using smt::Expr;

inline std::string spaceName(AddrSpace S) {
  const char *N = ptx::addrSpaceName(S);
  return *N ? std::string(N + 1) : std::string("generic");
}

inline bool racySpace(AddrSpace S) {
  return S == AddrSpace::Global || S == AddrSpace::Shared ||
         S == AddrSpace::SharedCluster || S == AddrSpace::Generic;
}

inline bool sharedSpace(AddrSpace S) {
  return S == AddrSpace::Shared || S == AddrSpace::SharedCluster;
}

/// Whether an operation of scope \p S includes two threads related by R.
inline bool scopeIncludes(ptx::Scope S, Relation R) {
  if (S == ptx::Scope::None)
    return false;
  if (R == Relation::OtherBlocks)
    return S == ptx::Scope::GPU || S == ptx::Scope::Sys;
  return true;
}

inline const char *scopeText(ptx::Scope S) {
  switch (S) {
  case ptx::Scope::CTA: return "cta";
  case ptx::Scope::Cluster: return "cluster";
  case ptx::Scope::GPU: return "gpu";
  case ptx::Scope::Sys: return "sys";
  default: return "";
  }
}

/// Whether \p Mangled (a PTX function name) is one of OpenCL C's built-in
/// functions of values only (Options::OpenCLBuiltins).
bool pureOpenCLBuiltin(const std::string &Mangled);

/// One kernel's check.

class Checker {
public:
  Checker(const ptx::Module &M, const ir::FunctionIR &F, const Options &Opts)
      : M(M), F(F), O(Opts), TV(M, F, Pool), U(F),
        Start(std::chrono::steady_clock::now()) {
    collectBarriers();
    collectNamed();
    collectAccesses();
    launchBounds();
    findClusters();
    assumeDimensions();
    Main = std::make_unique<Solving>(TV, O.Launch, O.TimeoutMs);
  }

  KernelReport run();

private:
  /// An encoder and the solver its formulas go to.
  struct Solving {
    Encoder Enc;
    smt::Solver S;
    unsigned LimitMs; ///< The time limit S checks with.
    Solving(ir::ThreadValues &TV, const LaunchConfig &L, unsigned Ms)
        : Enc(TV, L), S(smt::Limits{Ms, 0}), LimitMs(Ms) {
      for (const Expr &E : Enc.launchFacts())
        S.add(E);
    }
  };
  /// A query's answer; with Sat, a model that is exact, and the encoder it
  /// belongs to.
  struct Solved {
    smt::Result Res;
    Solving *By = nullptr;
    std::unique_ptr<Solving> Own;
  };
  using Builder = std::function<std::vector<Expr>(Encoder &)>;
  Solved solve(const Builder &Build);
  /// Why a query was left undecided, naming the limit that decided it.
  std::string gaveUp(const smt::Result &Res) const;
  LaunchConfig launchOf(const smt::Model &Mo, Encoder &E);
  struct Item {
    ir::MemoryAccess A;
    bool Call = false;
    /// Part of a recognised grid.sync(): its own synchronisation.
    bool GridSync = false;
  };
  struct Outcome {
    Verdict V = Verdict::Safe;
    std::string Reason;
    std::optional<Witness> W;
    Relation Rel = Relation::SameBlock;
    std::vector<unsigned> Sources;
    /// Threads of two CTAs of one cluster (clusterQuery).
    bool SameCluster = false;
  };

  void launchBounds();
  void assumeDimensions();
  void collectAccesses();
  void collectBarriers();
  void checkPair(unsigned I, unsigned J);
  /// \p Unordered: whatever the barriers between them (an access that
  /// completes asynchronously).
  Outcome query(unsigned I, unsigned J, Relation R, bool AnyWarp,
                bool WithAddress, bool Unordered = false);
  /// What a query without addresses depends on of one access (Placed's
  /// keys).
  std::vector<uint64_t> placeKey(unsigned Item, ExprId Pc,
                                 const ir::BarrierIntervals &BI,
                                 bool Unordered) const;
  /// Outcomes of queries without addresses, by the places of the two
  /// accesses (placeKey), the relation and the intervals.
  std::map<std::vector<uint64_t>, Outcome> Placed;
  /// query(), and for a pair with an asynchronous copy the question again
  /// without barrier intervals (AsyncPairs.cpp).
  Outcome pairQuery(unsigned I, unsigned J, Relation R, bool AnyWarp,
                    bool WithAddress);
  /// The asynchronous copy Items[Index] belongs to, if it is one.
  const ir::AsyncCopy *asyncOf(unsigned Index) const;
  /// Items[Index] as a cp.async copy that a cp.async group completes, if
  /// it is one (it may also complete on an mbarrier).
  const ir::AsyncCopy *groupCopyOf(unsigned Index) const;
  /// For a copy a cp.async group completes, the barriers that some path
  /// from the issue reaches before a wait completing the copy
  /// (cp.async.wait_all, or cp.async.wait_group N with N groups committed
  /// after the copy's; an assumed CopyWait barrier; for an OpenCL C
  /// work-group copy, a wait_group_events naming its event), by (item,
  /// assumed).
  std::set<std::pair<unsigned, bool>> inFlightBarriers(const ir::AsyncCopy &C);
  /// The intervals of the barriers none of \p Cs is in flight across.
  const ir::BarrierIntervals &
  copyIntervals(const std::vector<const ir::AsyncCopy *> &Cs,
                ir::PairScope Scope);
  /// The pair asked with copyIntervals(Cs): safe is safe.
  Outcome groupPairQuery(const std::vector<const ir::AsyncCopy *> &Cs,
                         unsigned I, unsigned J, Relation Rel, bool AnyWarp,
                         bool WithAddress);
  /// A pair with one or two OpenCL C work-group copies (\p CI for I, \p CJ
  /// for J, null for another access): groupPairQuery(); a race only where
  /// the waits' events are known (eventsKnown), else unknown.
  Outcome workGroupPairQuery(const ir::AsyncCopy *CI, const ir::AsyncCopy *CJ,
                             unsigned I, unsigned J, Relation Rel,
                             bool AnyWarp, bool WithAddress);
  /// The event a work-group copy's wait must name (its result, or the
  /// earlier copy's event it joined), or NoExpr when that is not known.
  ExprId copyEvent(const ir::AsyncCopy &C);
  /// The events wait_group_events at \p W names, from the stores into its
  /// list; none when they are not known.
  std::optional<std::vector<ExprId>> waitedEvents(unsigned W);
  /// Whether addresses \p A and \p L are based on different variables or
  /// pointer parameters (so never meet: distinct objects).
  bool elsewhere(const ir::AffineForm &A, const ir::AffineForm &L) const;
  /// Whether wait_group_events at \p W completes \p C (none: not known).
  std::optional<bool> waitCompletes(const ir::AsyncCopy &C, unsigned W);
  /// Whether every wait of \p C is known to complete it or not.
  bool eventsKnown(const ir::AsyncCopy &C);
  /// The work-items of one work-group against each other at one OpenCL C
  /// work-group copy (call \p Item): safe when they all reach it with the
  /// same arguments, else unknown with the reason.
  Outcome groupCopyAgrees(unsigned Item);
  /// How far the value call \p Item passes as argument \p K varies.
  ir::Variance callArgumentVariance(unsigned Item, unsigned K);
  /// Whether every thread of a CTA that reaches the kernel reaches \p
  /// Item alike (its divergence check, as for a barrier).
  bool reachedByAll(unsigned Item);
  /// Whether the kernel runs in clusters (sets ClusterKernel, ClusterBI).
  void findClusters();
  /// Whether an access may touch another CTA's shared memory.
  bool remoteCapable(const ir::MemoryAccess &A) const;
  /// For two accesses of shared memory in a cluster kernel: both threads in
  /// one cluster, and the two accesses in the shared memory of one CTA.
  Expr clusterFacts(Encoder &Enc, const ir::MemoryAccess &X,
                    const ir::MemoryAccess &Y);
  /// query() of a pair that may meet in another CTA's shared memory.
  Outcome clusterQuery(unsigned I, unsigned J, Relation R, bool AnyWarp,
                       bool WithAddress);
  Expr contexts(Encoder &Enc, unsigned I, unsigned J,
                const ir::BarrierIntervals &BI, std::vector<unsigned> &Sources,
                std::set<unsigned> &Loops);
  Expr relationFacts(Encoder &Enc, Relation R, bool AnyWarp);
  Expr sharing(Encoder &Enc, const std::vector<ExprId> &ExprsA,
               const std::vector<ExprId> &ExprsB, Relation R);
  std::vector<unsigned> loopsOf(unsigned Item, const std::vector<ExprId> &Es);
  void flush(Solving &Sv);
  Witness witness(Encoder &Enc, const smt::Model &Mo, unsigned ItemA, unsigned ItemB,
                  ExprId OffA, ExprId OffB, const std::vector<ExprId> &ExprsA,
                  const std::vector<ExprId> &ExprsB);
  void fillThread(Encoder &Enc, const smt::Model &Mo, unsigned T, unsigned Item, ExprId Off,
                  const std::vector<ExprId> &Es, ThreadWitness &W,
                  std::vector<std::pair<std::string, int64_t>> &Params);
  /// A fence or atomic that might order the pair in a way unsynchronised()
  /// does not follow, in words; empty when there is none.
  std::string memorySync(unsigned I, unsigned J, Relation R);
  /// The races of two plain stores that no relation lets store different
  /// values or different bytes (checkPair in BenignMode) become safe as
  /// benign races (Options::NoBenign turns it off).
  /// Whether race \p P is one the benign-race tolerance asks again: two
  /// plain stores of equal size whose values are computed without reading
  /// memory.
  bool benignCandidate(const PairResult &P) const;
  void benignPairs();

  //===-- Named barriers (NamedBarriers.cpp) -------------------------------===//
  /// A barrier operation with an id and a thread count.
  struct NamedOp {
    unsigned Item = NoNode;
    bool Waits = false; ///< bar.sync, bar.red (else bar.arrive)
    ExprId Id = NoExpr, Count = NoExpr;
    unsigned Family = 0; ///< Operations whose ids may be equal share one.
    int Off = 0;         ///< Slot offset (see NamedBarriers.cpp).
  };
  struct NamedModel {
    std::vector<NamedOp> Ops;
    bool Built = false, Ok = false;
    /// The loop that holds every operation, or NoNode.
    unsigned Loop = NoNode;
    /// Why the model does not hold, naming the instruction.
    std::string Why;
    /// A route's formulas used values of other iterations the analysis
    /// does not compute.
    bool Approx = false;
    int MaxOff = 0; ///< The largest offset.
  };
  enum class NamedRegion : uint8_t { Off, Any, Near, Far };
  bool countedBarrier(unsigned Item) const;
  void collectNamed();
  void buildNamed();
  std::string namedText(const NamedOp &N) const;
  bool namedProved(const Builder &B, std::string &Why);
  Expr namedCopy(Encoder &Enc, unsigned K, unsigned Base, const Expr &Iter,
                 const std::vector<ExprId> &Es);
  Expr namedRuns(Encoder &Enc, unsigned T, const NamedOp &N);
  Expr uniformIters(Encoder &Enc, unsigned A, unsigned B,
                    const std::vector<unsigned> &At);
  bool itemAfter(unsigned A, unsigned B);
  bool alignedFamily(const std::vector<unsigned> &Fam, std::string &Why);
  bool namedOffsets(const std::vector<unsigned> &Fam, std::string &Why);
  /// Facts of a witness that no named barrier orders (query() adds them
  /// in NamedMode).
  Expr namedUnordered(Encoder &Enc, unsigned I, unsigned J);
  /// Races between threads of one CTA asked again with the named
  /// barriers' facts.
  void namedRefine(std::vector<Outcome> &Outs,
                   const std::function<std::vector<Outcome>()> &Again);

  /// Thread K is thread Base at iteration Iter of loop L: the same ids, the
  /// same values of what does not change with L's iterations (Es's
  /// symbols); Approx is set when a value of another iteration is not
  /// computed.
  Expr loopCopy(Encoder &Enc, unsigned K, unsigned Base, const Expr &Iter,
                unsigned L, const std::vector<ExprId> &Es, bool &Approx);
  /// Two threads of one CTA ran the loops before \p L (and before the items
  /// At) that do not depend on the thread equally often.
  Expr uniformItersBefore(Encoder &Enc, unsigned A, unsigned B,
                          const std::vector<unsigned> &At, unsigned L);
  /// Item A runs after item B in one pass (an iteration of the loop whose
  /// header is \p Header, or the code outside it) when both run.
  bool afterInPass(unsigned A, unsigned B, unsigned Header);

  //===-- mbarrier phases and asynchronous copies (Mbarriers.cpp) ---------===//
  struct PhaseOp {
    enum Kind : uint8_t {
      Arrive,      ///< mbarrier.arrive
      TxArrive,    ///< mbarrier.arrive.expect_tx
      AsyncArrive, ///< cp.async.mbarrier.arrive (its thread's cp.async copies)
      TxCopy,      ///< a copy with .mbarrier::complete_tx::bytes
      Wait,        ///< mbarrier.try_wait / test_wait (a site: its copies)
      Commit,      ///< cp.async.commit_group
      GroupWait,   ///< cp.async.wait_group N / wait_all
      BulkCommit,  ///< cp.async.bulk.commit_group
      BulkWait,    ///< cp.async.bulk.wait_group[.read] N
      ProxyFence,  ///< fence.proxy.async (shared memory)
      CtaBarrier,  ///< a barrier of every thread of the CTA
    } K;
    std::vector<unsigned> Items; ///< A wait site's instructions; else one.
    ExprId Obj = NoExpr;         ///< The mbarrier's address.
    ExprId Parity = NoExpr;      ///< A parity wait's parity.
    int Token = -1;              ///< A token wait: its arrival (Ops index).
    bool Release = true, Acquire = true; ///< not .relaxed
    int64_t Bytes = -1; ///< expect_tx's count, a TxCopy's size (-1: unknown)
    int64_t Pending = 0; ///< wait_group's N
    bool Read = false;   ///< wait_group.read
    bool Pro = false;    ///< Before the loop (else in it).
    int Off = 0;         ///< Slot offset.
    /// A wait site: the edges taken only when one of its instructions
    /// succeeded.
    std::vector<std::pair<unsigned, unsigned>> Success;
    /// An arrival that starts or ends a phase (mbarrier.arrive, with
    /// expect_tx or not).
    bool regular() const { return K == Arrive || K == TxArrive; }
    /// cp.async.mbarrier.arrive.noinc: one of the count's arrivals, made
    /// when its thread's copies are done (a completion, not a release of
    /// the thread's other accesses).
    bool NoInc = false;
    /// An arrival the count counts.
    bool counted() const { return regular() || (K == AsyncArrive && NoInc); }
    /// An arrival or what counts in its phase (copies, their arrivals).
    bool arrival() const {
      return regular() || K == AsyncArrive || K == TxCopy;
    }
  };
  /// What an mbarrier.init sets: the barrier and who arrives on it.
  struct PhaseCount {
    unsigned Item = 0; ///< The init.
    ExprId Obj = NoExpr;
    /// Whole: the count is the CTA's size and every thread arrives; else
    /// the N threads of linear ids Lo + k * Stride (k < N) arrive, Rep
    /// (one of them) the first.
    bool Whole = true;
    int64_t Lo = 0, Stride = 1, N = 0;
    int64_t Rep[3] = {0, 0, 0};
    bool sameSet(const PhaseCount &O) const {
      return Whole == O.Whole && (Whole || (Lo == O.Lo && N == O.N &&
                                            (N == 1 || Stride == O.Stride)));
    }
  };
  struct PhaseModel {
    bool Built = false, Ok = false;
    std::string Why;
    unsigned Loop = NoNode;
    /// One record per mbarrier.init; Mapped: they differ in who arrives,
    /// and an operation's barrier is told by its address.
    std::vector<PhaseCount> Counts;
    bool Mapped = false;
    std::vector<PhaseOp> Ops;
    int MaxOff = 0;
    bool Approx = false;
    /// A tensor copy's box is taken to be what expect_tx announces.
    bool AssumedBox = false;
    /// Every op's expressions (what a thread's copy must agree on).
    std::vector<ExprId> Exprs;
    /// The variables the barriers' addresses name, with their sizes: they
    /// do not overlap.
    std::vector<std::pair<unsigned, int64_t>> Layout;
  };
  /// Whether the kernel has mbarrier operations or asynchronous copies.
  bool phased() const;
  void buildPhases();
  bool phaseInits(const std::vector<unsigned> &Inits);
  /// The threads that arrive on the barrier of a constant count (Lo,
  /// Stride, Rep), found by the solver and proved to be exactly N.
  bool phaseArrivers(PhaseCount &C, int64_t N);
  /// The shared variables the barriers' addresses name (Phases.Layout).
  void phaseLayout(const std::vector<unsigned> &Inits);
  /// The waits, grouped in sites, and their success edges.
  bool phaseWaitSites(const std::vector<unsigned> &Waits);
  /// Whether B's facts are unsatisfiable; else Why is What (and why the
  /// solver gave up).
  bool phaseProved(const Builder &B, std::string &Why, const std::string &What);
  bool phaseSearch();
  /// Whether the model's obligations hold for the offsets set; else why.
  bool phaseObligations(std::string &Why);
  /// Every thread of those that arrive on A's barrier arrives at each
  /// slot where A's thread does.
  bool phaseEveryArriver(const PhaseOp &A, std::string &Why);
  /// A parity wait's parity is its phase's (earlier waits looked for in
  /// the last Reach iterations).
  bool phaseParity(const PhaseOp &W, int Reach, std::string &Why);
  std::string phaseText(const PhaseOp &P) const;
  /// Where an item is: 0 before the loop, 1 in it, 2 elsewhere.
  int phaseSegment(unsigned Item);
  /// Every way from item From (NoNode: the start of its pass) to item To
  /// (NoNode: the end of the pass) in one pass takes a success edge of \p W.
  bool waitPassed(const PhaseOp &W, unsigned From, unsigned To);
  /// Facts of a witness that no mbarrier phase, copy group or CTA barrier
  /// orders (query() adds them in PhaseMode).
  Expr phaseUnordered(Encoder &Enc, unsigned I, unsigned J);
  /// \p Before (a pair with an asynchronous copy that barrier intervals
  /// cannot decide, or a race) asked again with the phases' routes: safe,
  /// or unknown with the reason.
  Outcome phaseQuery(unsigned I, unsigned J, Relation R, bool AnyWarp,
                     bool WithAddress, const Outcome &Before);
  /// Races between threads of one CTA in a kernel with mbarrier waits:
  /// still races with the waits taken as barriers, or asked with the
  /// phases' routes.
  void phaseRefine(std::vector<Outcome> &Outs, unsigned I, unsigned J,
                   bool WithAddress);
  /// One query's copies of threads and their facts (Mbarriers.cpp).
  struct PhaseCtx;
  PhaseModel Phases;
  bool PhaseMode = false;
  /// Iterations phaseUnordered() looks at for routes.
  int PhaseSpan = 1;
  /// Why a route was left out for want of a fence.proxy.async.
  std::string PhaseFenceWhy;
  std::unique_ptr<ir::BarrierIntervals> WaitIntervals;

  //===-- Synchronisation through memory (MemorySync.cpp) -----------------===//
  /// Facts that every witness of items I (thread 0) and J (thread 1) in
  /// which no flag hand-off and no lock orders them satisfies; the patterns
  /// used go to SyncWhy.
  Expr unsynchronised(Encoder &Enc, unsigned I, unsigned J, Relation Rel);
  /// A strong read (Items index) that runs before an access in every
  /// execution of it: in its iteration, or in a loop with one exit that the
  /// access follows (Loop, left by one of the edges Exits).
  struct Guard {
    unsigned Read = 0;
    unsigned Loop = NoNode;
    std::vector<std::pair<unsigned, unsigned>> Exits;
    /// barrierGuardsOf(): the CTA barrier that hands the read on.
    unsigned Barrier = NoNode;
  };
  const std::vector<Guard> &guardsOf(unsigned Item);
  /// Thread T left the guard's loop in its current iteration.
  Expr guardFacts(Encoder &Enc, unsigned T, const Guard &G);
  /// What thread T's read \p Read returns.
  Expr readValue(Encoder &Enc, unsigned T, unsigned Read);
  /// Thread T's Read returned a value that no release ordered after body
  /// item X wrote (true when that is not known); Why names the release.
  Expr unorderedRead(Encoder &Enc, unsigned T, unsigned Read, unsigned X,
                     unsigned Depth, std::string &Why);
  /// Every execution of write \p Write (Items index) follows every
  /// execution of body item X in causality order, as a release that \p
  /// Read's thread may observe; Depth: how many flag links may lie between.
  bool orderedAfter(unsigned X, unsigned Write, unsigned Read, unsigned Depth);
  /// Guards that thread 0 of an access's CTA passes before a barrier that
  /// comes before the access.
  std::vector<Guard> barrierGuardsOf(unsigned Item);
  bool ctaBarrier(unsigned Item) const;
  bool barrierThenRelease(unsigned X, unsigned Write, ptx::Scope Need);
  bool linkedThroughFlag(unsigned X, unsigned WI, unsigned Write,
                         ptx::Scope Need, unsigned Depth);
  /// A spin lock's values: the acquiring atomic (atom.cas from Free to
  /// Taken, or atom.exch of Taken) returns Free when it takes the lock.
  struct LockValues {
    int64_t Free = 0, Taken = 0;
  };
  /// The values \p Read (Items index) may be the acquiring atomic of a
  /// lock for: a compare-and-swap's own; for an exchange, each constant
  /// other than Taken that the kernel writes to the lock's memory.
  std::vector<LockValues> lockValues(unsigned Read);
  struct HeldLock {
    Guard G;
    LockValues V;
  };
  std::optional<HeldLock> lockHeldAt(unsigned Item, ptx::Scope Need);
  bool lockDiscipline(unsigned Acq, int64_t Free, int64_t Taken);
  bool heldUntil(const Guard &G, unsigned Item);
  bool acquiredOnExit(const Guard &G, int64_t Free, unsigned At);
  bool acquireOrders(const Guard &G, unsigned Item, ptx::Scope Need);
  bool releaseOrders(unsigned FromItem, unsigned Write, ptx::Scope Need);
  ptx::Scope acquireNeed(unsigned Read);
  std::optional<int64_t> initialValue(const ir::MemoryObject &Obj);
  std::optional<ExprId> writtenValue(unsigned Write, bool &Keeps);
  bool uniformValue(ExprId E);
  std::optional<int64_t> constOperand(unsigned Item, unsigned Idx);
  /// The edges (from, to) that leave a loop.
  std::vector<std::pair<unsigned, unsigned>> exitsOf(unsigned Loop);
  /// Every way from body item From to To (NoNode: the kernel's end) passes
  /// an instruction for which Pass holds.
  bool allPathsPass(unsigned From, unsigned To,
                    const std::function<bool(unsigned)> &Pass,
                    bool Inclusive = false);
  enum class ThreadPair : uint8_t { Same, Distinct, OtherBlocks };
  /// Whether two threads so related may run body items P and Q.
  bool mayRunBoth(unsigned P, unsigned Q, ThreadPair Who);
  /// Whether a model's two threads, computed concretely on the kernel's
  /// values (Witness.cpp), make accesses \p I and \p J and touch a common
  /// byte.
  bool replays(Encoder &Enc, const smt::Model &Mo, unsigned I, unsigned J,
               ExprId PcX, ExprId PcY, bool WithAddress);
  /// Whether a model's block has at most Options::Launch.MaxThreads
  /// threads (replays() asks it first).
  bool launchFits(Encoder &Enc, const smt::Model &Mo);
  /// Loads (index into Items) whose values the expressions mention.
  std::vector<std::pair<unsigned, unsigned>>
  loadsIn(const std::vector<ExprId> &Es);
  /// Which two loads of one location by one thread consistency() takes to
  /// return one value.
  enum class OwnReads : uint8_t {
    Apart, ///< none
    /// those with no write by the thread to that memory between them (a
    /// witness's reads agree)
    Agree,
    /// of those, the plain loads with no synchronisation between them
    /// either (coherentReads): another thread's write between would race
    /// with the second load, a pair that is checked itself
    Coherent,
  };
  /// Two loads of one location return one value: always for memory the
  /// kernel never writes; for two loads by one thread, as \p Own says.
  Expr consistency(Encoder &Enc, const std::vector<ExprId> &EA,
                   const std::vector<ExprId> &EB, OwnReads Own, Relation Rel);
  /// Whether two plain loads of one location by one thread (Items indices)
  /// see no write of another thread between them unless it races with the
  /// second: neither is strong or atomic, and no instruction on a way from
  /// one to the other synchronises (a barrier, a fence, an atomic or strong
  /// access, a call, an asynchronous copy or mbarrier operation, a warp
  /// collective).
  bool coherentReads(unsigned L1, unsigned L2);
  /// The plain stores whose value plain load \p L (Items index) returns to
  /// the thread that made both when it made the store and at the load's
  /// address: the store comes before the load on every way that has both
  /// (neither in a loop), no write of that memory by the thread between,
  /// and between them nothing synchronises but fences and at most one
  /// barrier. Another thread's write between would not be ordered with
  /// the store or with the load, a pair decided on its own.
  const std::vector<unsigned> &forwardedStores(unsigned L);
  std::map<unsigned, std::vector<unsigned>> Forwards;
  /// For two threads in one iteration of \p Loop: in the iteration before,
  /// the loads of its exit condition that all threads read alike agree.
  Expr previousIterationAgrees(Encoder &Enc, unsigned Loop, Relation Rel);
  /// Whether every two threads related by \p Rel read one value at load
  /// \p L (an Items index) for one address: a value broadcast through
  /// memory.
  bool broadcast(unsigned L, Relation Rel);
  /// How far loop-carried value \p Sym may differ between threads in one
  /// iteration of its loop: the variance of its register at the loop's
  /// header.
  ir::Variance carriedVariance(const ir::Symbol &Sym) const;
  /// Whether Items index \p X is an atomic that leaves memory as it was
  /// (an add, sub, or or xor of 0: `atomicAdd(p, 0)` reading a value).
  bool unchangingAtomic(unsigned X);
  /// What the uniformity analysis learns of the load or atomic at body
  /// item \p Item (ir::Uniformity::LoadVariance): Grid or Block where
  /// every thread of the grid or of a block reads one value at one
  /// address (read-only memory, broadcast()), none otherwise.
  std::optional<ir::Variance> loadVariance(unsigned Item);
  /// Whether instruction \p Item hands out tickets: an atomic add of a
  /// constant, whose results differ between threads at one address, or an
  /// atom.inc, whose results differ while it runs at most limit + 1 times
  /// there (incWindow).
  bool ticket(unsigned Item) const;
  /// Whether every write of ticket \p Ticket's memory (an Items index) is
  /// a ticket atomic moving the value the same way, or is that one
  /// atom.inc and incWindow holds.
  /// Whether plain write \p Write of ticket memory \p Obj resets a
  /// block's counter before all its ticket atomics (shared memory, none in
  /// a loop, a barrier between).
  bool resetBefore(unsigned Write, const ir::MemoryObject &Obj);
  /// The values [first, second) ticket atomic Items[\p Ticket] hands out
  /// when its counter is reset that way, or none.
  std::optional<std::pair<int64_t, int64_t>> ticketRange(unsigned Ticket);
  /// Whether thread (0,0,0) of every block reaches \p Item.
  bool threadZeroRuns(unsigned Item);
  bool monotoneTickets(unsigned Ticket);
  /// atom.inc (Items index) returns ((old >= b) ? 0 : old + 1)'s old:
  /// any b + 1 of its results in a row differ. Whether it runs at most b + 1
  /// times at one address: once per thread (in no loop), with one b for
  /// every thread at that address, and the threads there (or, at most one
  /// a block, their blocks) numbered within a range of b + 1.
  bool incWindow(unsigned Inc);
  /// Whether \p K (Items index) is a compare-and-swap from a constant E to
  /// a constant other than E at an address whose every write is such a
  /// compare-and-swap from E (first-writer-wins: `if (atomicCAS(&f, 0, 1)
  /// == 0)`): of all of them at one address, at most one returns E.
  bool onceCas(unsigned K);
  std::map<unsigned, bool> OnceCas;
  std::map<unsigned, bool> IncWindows;
  void checkBarrier(BarrierResult &B, const ir::Barrier &Bar);
  bool reaches(unsigned From, unsigned To);
  /// Block \p To is reachable from block \p From without a back edge.
  bool forwardReaches(unsigned From, unsigned To);
  Expr skipped(Encoder &Enc, unsigned T, unsigned Item, unsigned SourceItem,
               const ir::BarrierIntervals &BI,
               const ir::BarrierIntervals::Reach &RR);
  uint32_t lineOf(unsigned Item) const;
  std::string whereText(unsigned Item) const;
  const ir::BarrierIntervals &intervals(Relation R) const {
    return R == Relation::SameWarp    ? *Warp
           : R == Relation::SameBlock ? *Cta
                                      : *Grid;
  }
  bool multiBlock() const {
    for (const auto &D : O.Launch.Grid)
      if (D != std::optional<int64_t>(1))
        return true;
    return false;
  }
  bool multiThread() const {
    for (const auto &D : O.Launch.Block)
      if (D != std::optional<int64_t>(1))
        return true;
    return false;
  }

  const ptx::Module &M;
  const ir::FunctionIR &F;
  Options O; ///< With the launch assumptions filled in.
  ir::ExprPool Pool;
  ir::ThreadValues TV;
  ir::Uniformity U;
  /// The time limit of the next solver check: Options::TimeoutMs, or what
  /// is left of Options::KernelSeconds if less; 0 once that has run out.
  unsigned queryMs() const;
  /// When the check began (Options::KernelSeconds).
  std::chrono::steady_clock::time_point Start;
  std::unique_ptr<Solving> Main;
  KernelReport R;
  std::vector<Item> Items;
  std::vector<ir::Barrier> Bars;
  std::unique_ptr<ir::BarrierIntervals> Warp, Cta, Grid;
  bool HasWarpBarriers = false;
  std::vector<std::vector<char>> BlockReach, FwdReach;
  /// Per Items index: the memory the kernel never writes.
  std::vector<char> ReadOnly;
  /// Body index of a load -> its index in Items.
  std::map<unsigned, unsigned> LoadAt;
  std::string CallNote;
  /// The read-only image reads seen (for the assumption, once).
  std::set<std::string> ReadOnlyImages;
  /// The kernel's asynchronous copies and what completes them.
  std::vector<ir::AsyncCopy> Asyncs;
  /// The kernel runs in clusters (a cluster shape, mapa, .shared::cluster,
  /// a cluster barrier): shared memory may be another CTA's.
  bool ClusterKernel = false;
  /// query() adds clusterFacts() (ClusterPairs.cpp).
  bool ClusterPair = false;
  /// Intervals of threads of two CTAs of one cluster.
  std::unique_ptr<ir::BarrierIntervals> ClusterBI;
  /// query() uses these intervals instead of the relation's.
  const ir::BarrierIntervals *IntervalsOverride = nullptr;
  /// query() adds unsynchronised().
  bool SyncFacts = false;
  /// query() asks for two writes that meet with different values or
  /// different bytes (Options::NoBenign).
  bool BenignMode = false;
  NamedModel Named;
  /// itemAfter()'s blocks reached in one iteration, per block.
  std::map<std::pair<unsigned, unsigned>, std::vector<char>> PassReach;
  /// query() adds namedUnordered() for this region.
  NamedRegion NamedMode = NamedRegion::Off;
  /// guardsOf(), per body item.
  std::map<unsigned, std::vector<Guard>> Guards;
  std::vector<std::string> SyncWhy;
  std::map<std::tuple<unsigned, unsigned, ThreadPair>, bool> RunBoth;
  std::map<std::tuple<unsigned, unsigned, unsigned, unsigned>, bool> Ordered;
  std::map<std::tuple<unsigned, int64_t, unsigned>, bool> Acquired;
  /// Per asynchronous copy (index in Asyncs) and pair scope: the intervals
  /// with the copy's waits as barriers too.
  std::map<std::pair<unsigned, ir::PairScope>,
           std::unique_ptr<ir::BarrierIntervals>>
      AsyncIntervals;
  /// copyIntervals(), by copy items and scope.
  std::map<std::pair<std::vector<unsigned>, ir::PairScope>,
           std::unique_ptr<ir::BarrierIntervals>>
      CopyIntervals;
  /// copyEvent(), by copy item; the event each copy's result denotes.
  std::map<unsigned, ExprId> CopyEvents;
  std::map<ExprId, ExprId> EventOf;
  bool EventsRead = false;
};

} // namespace incant::race

#endif // INCANT_LIB_RACE_CHECKER_H
