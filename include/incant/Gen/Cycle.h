//===- Cycle.h - Cycles of relaxations, diy's vocabulary for GPUs -*- C++ -*-===//
//
// A litmus test is generated from a cycle of edges between memory events, as
// diy does (Alglave et al.): the cycle names the relations that the test's
// interesting execution must contain, and the test asks whether that
// execution can happen. This header holds the vocabulary, extended for GPUs
// as in Alglave et al., ASPLOS'15 (Sec. 4.1):
//
//   program order   PodWW PodWR PodRW PodRR (different locations)
//                   PosWW PosWR PosRW PosRR (same location)
//   dependencies    DpAddrdR DpAddrdW DpDatadW DpCtrldR DpCtrldW
//   fences          Fenced<XY>.<fence>, Fences<XY>.<fence>, e.g.
//                   FencedWR.membar.gl; FencedWR alone stands for each
//                   fence of the --fences list
//   communication   Rfe Rfi Fre Fri Coe Coi (Wse, Wsi: aliases of Coe, Coi)
//   scope relation  Rfe@warp (same warp), @cta (same CTA, other warps),
//                   @cluster (same cluster, other CTAs), @gpu (other CTAs,
//                   no common cluster); external edges only
//   event kinds     tokens between two edges of a cycle: weak, volatile,
//                   relaxed.S, acquire.S, release.S, atomic.S with S one of
//                   cta cluster gpu sys (`MP` with release/acquire:
//                   "PodWW release.gpu Rfe acquire.gpu PodRR Fre"); bulk
//                   (the access is a bulk copy, cp.async.bulk, in the async
//                   proxy, waited for before the thread goes on)
//   synchronisation external edges through Hopper's primitives (levels as
//                   for Rfe; s/d: same or different location):
//                   Mbar<s|d>XY.<rel|rlx>.<acq|rlx>.<cta|cluster>[.test]
//                   [.loop]: the first thread arrives on an mbarrier of the
//                   second's CTA after X, the second waits for the phase
//                   (try_wait, or test_wait; once, or retried) before Y;
//                   Tx<s|d>WY.<st|red>.<acq|rlx>.<cta|cluster>[.test][.loop]:
//                   the write is an st.async (red.async) into the second
//                   thread's CTA, completing on its mbarrier (complete_tx);
//                   Cbar<s|d>XY.<rel|rlx>: barrier.cluster arrive (release or
//                   relaxed) and wait between X and Y, every thread taking
//                   part
//
// Fences: membar.{cta,gl,sys}, fence.sc.{cta,cluster,gpu,sys},
// fence.acq_rel.{cta,cluster,gpu,sys}, fence.proxy.async.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_GEN_CYCLE_H
#define INCANT_GEN_CYCLE_H

#include "incant/Litmus/Program.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::gen {

enum class Dir : uint8_t { R, W };

/// How close the two threads of an external edge sit. Ordered: a larger
/// level shares less of the hierarchy.
enum class Level : uint8_t {
  Warp,    ///< same warp (different lanes)
  CTA,     ///< same CTA, different warps
  Cluster, ///< same cluster, different CTAs
  GPU,     ///< different CTAs in no common cluster
};
constexpr unsigned NumLevels = 4;

/// A fence instruction: membar.gl is {Membar, GPU}; fence.proxy.async is
/// {Proxy, None}.
struct Fence {
  litmus::FenceKind Kind = litmus::FenceKind::Membar;
  litmus::Scope Sc = litmus::Scope::GPU;
  friend bool operator==(const Fence &, const Fence &) = default;
  friend auto operator<=>(const Fence &, const Fence &) = default;
};

/// The access kind of one event.
struct Access {
  enum Kind : uint8_t {
    Weak,
    Volatile,
    Relaxed,
    Acquire,
    Release,
    Atomic,
    Bulk, ///< A bulk copy (async proxy) of the location, waited for.
  } K = Weak;
  litmus::Scope Sc = litmus::Scope::None; ///< None for Weak, Volatile, Bulk.
  friend bool operator==(const Access &, const Access &) = default;
  friend auto operator<=>(const Access &, const Access &) = default;
};

/// How a synchronisation edge (Mbar, Tx, Cbar) synchronises.
struct Sync {
  bool RelArrive = true; ///< Mbar, Cbar: arrive .release (else .relaxed).
  bool AcqWait = true;   ///< Mbar, Tx: wait .acquire (else .relaxed).
  /// Mbar, Tx: the scope of the arrive (expect_tx for Tx) and the wait.
  litmus::Scope Sc = litmus::Scope::CTA;
  bool TestWait = false; ///< Mbar, Tx: test_wait instead of try_wait.
  bool Loop = false;     ///< Mbar, Tx: the wait is retried until it succeeds.
  bool Red = false;      ///< Tx: red.async.add instead of st.async.
  friend bool operator==(const Sync &, const Sync &) = default;
  friend auto operator<=>(const Sync &, const Sync &) = default;
};

struct Edge {
  enum Kind : uint8_t {
    Po,
    Fenced,
    DpAddr,
    DpData,
    DpCtrl,
    Rf,
    Fr,
    Co,
    Mbar, ///< mbarrier arrive -> wait, between threads.
    Tx,   ///< st.async/red.async completing on the reader's mbarrier.
    Cbar, ///< barrier.cluster arrive/wait, between threads.
  } K = Po;
  Dir Src = Dir::W, Dst = Dir::W;
  bool External = false; ///< Rf/Fr/Co and the sync edges: between threads.
  bool SameLoc = false;  ///< Pos, Fences, Rf/Fr/Co, sync edges with `s`.
  /// For Fenced: the fence; nullopt stands for each fence of a list.
  std::optional<Fence> F;
  /// For external edges: the scope relation; nullopt stands for each level
  /// of a list.
  std::optional<Level> Lvl;
  Sync S; ///< For Mbar, Tx and Cbar.

  bool isCom() const { return K == Rf || K == Fr || K == Co; }
  bool isSync() const { return K == Mbar || K == Tx || K == Cbar; }
  friend bool operator==(const Edge &, const Edge &) = default;
  friend auto operator<=>(const Edge &, const Edge &) = default;
};

/// A cycle: Edges[I] goes from event I to event I+1 (mod size). Kinds[I],
/// when set, is the access kind of event I (the source of Edges[I]).
struct Cycle {
  std::vector<Edge> Edges;
  std::vector<std::optional<Access>> Kinds;
  friend bool operator==(const Cycle &, const Cycle &) = default;
};

/// Spellings. Every print* output parses back with the matching parse*.
std::string printFence(const Fence &F);
std::string printLevel(Level L);
std::string printAccess(const Access &A);
std::string printEdge(const Edge &E);
/// Edges and the event kinds other than weak, separated by spaces.
std::string printCycle(const Cycle &C);

std::optional<Fence> parseFence(std::string_view Text);
std::optional<Level> parseLevel(std::string_view Text);
std::optional<Access> parseAccess(std::string_view Text);
std::optional<Edge> parseEdge(std::string_view Text);

/// A list of words separated by commas or blanks, each with its range in
/// \p File (an option's text). Empty words are dropped.
struct Word {
  std::string Text;
  SourceRange Range;
};
std::vector<Word> splitWords(const SourceFile &File);

/// Parses a cycle written as edges and event kinds separated by blanks (or
/// commas). Reports unknown words, two kinds for one event, and edges whose
/// directions do not chain, with the word's range in \p File.
std::optional<Cycle> parseCycle(std::shared_ptr<const SourceFile> File,
                                DiagnosticEngine &Diags);

/// Parses a list of edges (for --relax and --safe).
std::optional<std::vector<Edge>>
parseEdgeList(std::shared_ptr<const SourceFile> File, DiagnosticEngine &Diags);

} // namespace incant::gen

#endif // INCANT_GEN_CYCLE_H
