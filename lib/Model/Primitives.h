//===- Primitives.h - The primitive sets and relations of an execution ----===//
//
// Fills a cat::Execution with every primitive the cat dialect names
// (cat::primitiveNames()): the parts fixed by the trace combination once per
// combination, the rf/co-derived ones per candidate, in place.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_MODEL_PRIMITIVES_H
#define INCANT_LIB_MODEL_PRIMITIVES_H

#include "incant/Cat/Model.h"
#include "incant/Model/Executions.h"

#include <optional>
#include <string_view>
#include <vector>

namespace incant::model {

/// The primitive names the execution gives: the set of a scope ("CTA",
/// "GPU"; "" for none), of a proxy ("GEN", "ASYNC"), and the relation of a
/// fence of kind \p K at scope \p S ("membar.gl", "fence.sc.cta"; "" for a
/// proxy fence).
std::string_view scopeSetName(litmus::Scope S);
std::string_view proxySetName(litmus::Proxy Px);
std::string_view fenceRelationName(litmus::FenceKind K, litmus::Scope S);

/// The events of one trace combination: the initial writes (one per
/// physical location) first, then each thread's events in program order.
struct CombinationLayout {
  std::vector<EventRef> Events;
  /// Per event: its thread, or -1 for an initial write.
  std::vector<int32_t> ThreadOf;
  /// Per initial write (events 0..NumInits-1): its physical location.
  std::vector<int32_t> InitLoc;
  /// Per location (P.Locs index): the initial write of its physical
  /// location.
  std::vector<int32_t> InitOf;
  std::vector<int32_t> Base; ///< First event of each thread.
  unsigned NumInits = 0;
  /// The location an event accesses (physical), -1 if none.
  int32_t locOf(unsigned E) const {
    return E < NumInits ? InitLoc[E]
           : Events[E].E->K == EventKind::Read ||
                   Events[E].E->K == EventKind::Write
               ? Events[E].E->Loc
               : -1;
  }
};

class Primitives {
public:
  /// Takes what depends on the test alone (which threads share each level
  /// of the thread hierarchy); call before its first combination.
  void setUpTest(const litmus::Program &P);
  /// Builds the rf/co-independent primitives of one trace combination,
  /// with the barrier synchronization and Fence-SC order chosen for it.
  /// False when it kept the last combination's (the same but for values).
  bool setUpCombination(const litmus::Program &P, const CombinationLayout &L,
                        const std::vector<const Trace *> &Chosen,
                        const cat::Relation &SyncBar,
                        const cat::Relation &SyncFence);
  /// Sets sync_fence, the Fence-SC order (level 3: chosen after co).
  void setSyncFence(const cat::Relation &SyncFence);
  /// Sets rf and its internal/external parts (level 1). \p Rf gives each
  /// read's write (-1 for non-reads).
  void setRf(const std::vector<int32_t> &Rf);
  /// Sets rf to \p Rf itself, a relation from writes to reads (a read may
  /// have several: an upper bound while rf is being chosen).
  void setRfRelation(const cat::Relation &Rf);
  /// Sets co, fr and their parts (level 2) from \p Co: the coherence order
  /// (the initial writes before the others), or a bound on it while it is
  /// being chosen.
  /// fr is rf^-1 ; co with rf as set, or \p FrRf if given (an upper bound
  /// on rf, for fr's upper bound beside rf's lower one).
  void setCo(const cat::Relation &Co, const cat::Relation *FrRf = nullptr);
  const cat::Execution &execution() const { return *X; }

  /// The relations refilled per candidate.
  static constexpr unsigned NumDynamic = 9;
  static constexpr const char *DynamicNames[NumDynamic] = {
      "rf", "co", "fr", "rfe", "rfi", "coe", "coi", "fre", "fri"};
  /// Their levels: rf 1, co 2, fr 2, ...
  static constexpr uint8_t DynamicLevel[NumDynamic] = {1, 2, 2, 1, 1,
                                                       2, 2, 2, 2};

private:
  // The steps of setUpCombination, in order.
  void fillSets(const litmus::Program &P, const CombinationLayout &L);
  void placeEvents(const CombinationLayout &L);
  void buildRowMasks(const litmus::Program &P, const CombinationLayout &L);
  void buildThreadRelations(const litmus::Program &P,
                            const CombinationLayout &L);
  void buildInstructionRelations(const litmus::Program &P,
                                 const CombinationLayout &L,
                                 const std::vector<const Trace *> &Chosen);
  void buildFenceRelations(const CombinationLayout &L);
  void handOver(const cat::Relation &SyncBar, const cat::Relation &SyncFence);
  /// rf's slots (and its parts') from Rf.
  void copyRf();
  std::optional<cat::Execution> X;
  unsigned N = 0;
  /// Where the dynamic relations sit in X.relations().
  int32_t DynamicSlot[NumDynamic] = {};
  int32_t SyncFenceSlot = -1;
  cat::Relation Rf, Fr; ///< Scratch, per candidate.
  cat::Relation ExtRel, IntRel;
  // Per combination, reused (cleared in place) to spare allocations.
  std::vector<cat::EventSet> SetBuf;
  cat::Relation Id, Po, Loc, VLoc, Ext, Int, Rmw, Addr, Data, Ctrl, PoLoc, Sr,
      AsyncInst;
  cat::Relation Scopes[5];
  cat::Relation FenceRelations[11];
  std::vector<int32_t> LocOf, VLocOf;
  std::vector<uint64_t> ThreadMask, LocMask, VLocMask, IncludedBy, LevelMask;
  /// Per level (warp, CTA, cluster, GPU, system) and thread, of the test
  /// set up: the first thread that shares that level with it.
  std::vector<uint32_t> GroupOf;
  std::vector<std::optional<uint8_t>> ScopeOf;

  /// The combination last set up, less its values: nothing above depends
  /// on the values read and written, so a combination of the same shape
  /// (a 2-thread test's combinations often differ only in the values read)
  /// keeps what was built. Cleared by setUpTest.
  struct Shape {
    std::vector<Event> Events; ///< With V cleared.
    std::vector<int32_t> ThreadOf, InitLoc, Base;
    std::vector<std::vector<int32_t>> Reads; ///< Per thread.
    /// The traces of the last call (of Last's shape, whether or not that
    /// call found it the same).
    std::vector<const Trace *> Chosen;
    cat::Relation SyncBar, SyncFence;
    bool Valid = false;
  } Last;
  /// Whether \p L, \p Chosen and the two relations have Last's shape;
  /// else makes it Last's.
  bool sameShapeAsLast(const CombinationLayout &L,
                       const std::vector<const Trace *> &Chosen,
                       const cat::Relation &SyncBar,
                       const cat::Relation &SyncFence);
};

} // namespace incant::model

#endif // INCANT_LIB_MODEL_PRIMITIVES_H
