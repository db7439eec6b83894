//===- Primitives.cpp - The table of primitive names ----------------------===//
#include "incant/Cat/Primitives.h"

#include <array>

namespace incant::cat {

namespace {
constexpr bool Set = true, Rel = false;
constexpr bool Derived = true, Given = false;

// Keep docs/cat.md in step with this table.
constexpr std::array Table = std::to_array<PrimitiveInfo>({
    // Sets.
    {"_", Set, Derived},
    {"R", Set, Given},
    {"W", Set, Given},
    {"M", Set, Derived}, // R | W
    {"F", Set, Given},
    {"IW", Set, Given},
    {"B", Set, Given},
    {"ATOM", Set, Given},
    {"WEAK", Set, Given},
    {"VOL", Set, Given},
    {"RLX", Set, Given},
    {"ACQ", Set, Given},
    {"REL", Set, Given},
    {"ACQ_REL", Set, Given},
    {"SC", Set, Given},
    {"CTA", Set, Given},
    {"CLUSTER", Set, Given},
    {"GPU", Set, Given},
    {"SYS", Set, Given},
    {"MEMBAR", Set, Given},
    {"FENCE_SC", Set, Given},
    {"FENCE_ACQ_REL", Set, Given},
    {"SHARED", Set, Given},
    {"GLOBAL", Set, Given},
    {"CA", Set, Given},
    {"CG", Set, Given},
    {"CS", Set, Given},
    {"LU", Set, Given},
    {"CV", Set, Given},
    {"WB", Set, Given},
    {"WT", Set, Given},
    // Proxies (Dat3M's names): the proxy of an access or a proxy fence;
    // ALIAS: fence.proxy.alias.
    {"GEN", Set, Given},
    {"SUR", Set, Given},
    {"TEX", Set, Given},
    {"CON", Set, Given},
    {"ALIAS", Set, Given},
    // Hopper: the async proxy (accesses of cp.async.bulk, fence.proxy.async),
    // barrier.cluster's events, the events of asynchronous instructions
    // (cp.async.bulk, st.async, red.async) and cp.async.bulk.wait_group.
    {"ASYNC", Set, Given},
    {"CBAR", Set, Given},
    {"AOP", Set, Given},
    {"AWAIT", Set, Given},
    {"BULK", Set, Given},
    // Relations.
    {"id", Rel, Derived},
    {"po", Rel, Given},
    {"loc", Rel, Given},
    {"ext", Rel, Given},
    {"int", Rel, Given},
    {"rf", Rel, Given},
    {"co", Rel, Given},
    {"fr", Rel, Derived}, // rf^-1 ; co
    {"rmw", Rel, Given},
    {"addr", Rel, Given},
    {"data", Rel, Given},
    {"ctrl", Rel, Given},
    {"po-loc", Rel, Derived}, // po & loc
    {"rfe", Rel, Derived},    // rf & ext
    {"rfi", Rel, Derived},    // rf & int
    {"coe", Rel, Derived},
    {"coi", Rel, Derived},
    {"fre", Rel, Derived},
    {"fri", Rel, Derived},
    {"warp", Rel, Given},
    {"cta", Rel, Given},
    {"cluster", Rel, Given},
    {"gl", Rel, Given},
    {"gpu", Rel, Given},
    {"sys", Rel, Given},
    // Dat3M's names: same generic address, same scope (both scoped, each
    // scope includes the other's thread), same CTA, barrier
    // synchronization, and the Fence-SC order (guessed per execution).
    {"vloc", Rel, Given},
    {"sr", Rel, Given},
    {"scta", Rel, Given},
    {"syncbar", Rel, Given},
    {"sync_fence", Rel, Given},
    // po between two events of one asynchronous instruction.
    {"async-inst", Rel, Given},
    // po;[fence];po for each fence kind and scope.
    {"membar.cta", Rel, Derived},
    {"membar.gl", Rel, Derived},
    {"membar.sys", Rel, Derived},
    {"fence.sc.cta", Rel, Derived},
    {"fence.sc.cluster", Rel, Derived},
    {"fence.sc.gpu", Rel, Derived},
    {"fence.sc.sys", Rel, Derived},
    {"fence.acq_rel.cta", Rel, Derived},
    {"fence.acq_rel.cluster", Rel, Derived},
    {"fence.acq_rel.gpu", Rel, Derived},
    {"fence.acq_rel.sys", Rel, Derived},
});
} // namespace

std::span<const PrimitiveInfo> primitiveNames() { return Table; }

std::optional<unsigned> lookupPrimitive(std::string_view Name) {
  for (unsigned I = 0; I != Table.size(); ++I)
    if (Table[I].Name == Name)
      return I;
  return std::nullopt;
}

} // namespace incant::cat
