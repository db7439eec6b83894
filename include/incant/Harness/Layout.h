//===- Layout.h - Where instances, roles and locations sit in a launch -*- C++ -*-===//
//
// Parallel testing (thesis ch. 3, DESIGN.md): one launch runs many instances
// of a test. Work-groups (CTAs) of a launch are arranged in rows; a row
// holds one work-group per "group class" of the test (threads with equal
// Device/Cluster/CTA in their Placement), so the roles of one instance that
// must sit in different work-groups do, and those that must share one do.
// Inside a work-group, roles with different Warp sit in different warps
// (sub-groups of WarpSize work-items) and roles with equal Warp in one warp.
//
// Two permutations (v * P + O mod N with gcd(P, N) = 1) spread an instance:
// one chooses, per group class, which row and which slot of the row's
// work-group plays the instance's roles, so the partners of one work-group's
// threads come from many other work-groups; the other spreads the instances'
// locations over global memory at a stride.
//
// The layout is computed on the host and given to the device as tables
// (role and instance per work-item, address per instance and location), so
// the device code is the same for every layout and the layout is testable.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_HARNESS_LAYOUT_H
#define INCANT_HARNESS_LAYOUT_H

#include "incant/Litmus/Program.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace incant::harness {

/// Where one thread of the test sits relative to the others. Classes,
/// warps, lanes and clusters are numbered in the order of the test's first
/// thread that has them, so thread 0 sits in class 0, warp 0, lane 0.
struct RoleSlot {
  uint32_t Class = 0;    ///< Group class: which work-group of a row.
  uint32_t WarpClass = 0; ///< Which warp among its class's warps.
  uint32_t Lane = 0;      ///< Position among the roles sharing its warp.
  /// With PlacementShape::ClusterSize > 1, the role's cluster among the
  /// test's clusters and its work-group's position inside that cluster;
  /// otherwise Class and 0 (every class a cluster of its own).
  uint32_t ClusterGroup = 0;
  uint32_t CtaInCluster = 0;
};

/// The test's placement, reduced to classes.
struct PlacementShape {
  std::vector<RoleSlot> Roles;             ///< One per Program thread.
  uint32_t NumClasses = 0;                 ///< K
  std::vector<uint32_t> WarpsPerClass;     ///< q_c
  std::vector<uint32_t> LanesPerWarp;      ///< h_c (most roles in one warp)
  bool MultiDevice = false;                ///< Threads on different devices.
  /// Work-groups per cluster (CUDA thread-block clusters): above 1 only when
  /// the test can tell clusters apart, i.e. it has an op with cluster scope
  /// and two of its work-groups in one cluster; then that many, the most
  /// any of its clusters holds. Backends without clusters ignore it.
  uint32_t ClusterSize = 1;
  /// Distinct RoleSlot::ClusterGroup values (at least 1).
  uint32_t NumClusterGroups = 1;

  /// The most warps one class uses, and the most roles one warp holds
  /// (at least 1 each).
  uint32_t maxWarps() const;
  uint32_t maxLanes() const;
};

PlacementShape placementShape(const litmus::Program &P);

struct LayoutParams {
  uint32_t GroupSize = 256; ///< Work-items per work-group.
  uint32_t WarpSize = 32;   ///< Work-items per warp / sub-group.
  uint32_t Rows = 1;        ///< Rows of work-groups (instances scale with it).
  uint32_t Stride = 16;     ///< Words between two global locations.
  uint32_t StressGroups = 0; ///< Extra work-groups after the testing ones.
  uint64_t Seed = 1;
  bool Shuffle = true;      ///< Use the seed's permutations (else identity).
};

/// A launch's layout. Work-item w (global linear id) of work-group w /
/// GroupSize plays role Role[w] of instance Instance[w], or no role (-1).
struct Layout {
  uint32_t GroupSize = 0;
  uint32_t WarpSize = 0;
  uint32_t NumGroups = 0;        ///< Testing and stress work-groups.
  uint32_t NumTestGroups = 0;
  uint32_t InstancesPerRow = 0;
  uint32_t NumInstances = 0;
  uint32_t NumLocs = 0;          ///< Program::Locs.size()
  uint32_t GlobalWords = 0;      ///< Size of the test's global buffer.
  uint32_t SharedWordsPerGroup = 0; ///< Local memory per work-group.
  std::vector<int32_t> Role;     ///< Per work-item.
  std::vector<int32_t> Instance; ///< Per work-item (-1 with no role).
  /// Per instance and location: word index in the global buffer, or in the
  /// work-group's local array for a Region::Shared location.
  std::vector<uint32_t> LocAddr;

  uint32_t numWorkItems() const { return NumGroups * GroupSize; }
  uint32_t addr(uint32_t Inst, uint32_t Loc) const {
    return LocAddr[size_t(Inst) * NumLocs + Loc];
  }
};

/// Instances one row holds for this shape and group geometry (0 if a
/// work-group is too small for the test's placement).
uint32_t instancesPerRow(const PlacementShape &S, uint32_t GroupSize,
                         uint32_t WarpSize);

/// Computes a layout; on a test the harness cannot place (threads on
/// several devices, shared memory across work-groups, work-groups too small)
/// returns nullopt with the reason in \p Error.
std::optional<Layout> computeLayout(const litmus::Program &P,
                                    const LayoutParams &LP, std::string &Error);

/// A multiplier in [1, N) coprime with N drawn from \p Seed (1 for N <= 2):
/// v -> v * P mod N is then a permutation of [0, N).
uint32_t coprimeMultiplier(uint32_t N, uint64_t Seed);

/// The first multiplier above N / 2 coprime with N (1 for N <= 2): a
/// permutation that spreads consecutive values about half the range apart
/// while every other one stays next to its neighbour (v and v + 2 land two
/// words apart), so a warp's accesses still share cache lines. The CUDA
/// harness places locations with it: on the H100 a seeded multiplier
/// (coprimeMultiplier) scatters a warp's accesses and halves the
/// throughput (docs/cuda.md, "Refactoring check").
uint32_t halfwayMultiplier(uint32_t N);

/// The inverse of \p P modulo \p N (P * X = 1 mod N), for undoing a
/// permutation on the device; \p P must be coprime with N. 0 for N <= 1.
uint32_t inverseMultiplier(uint32_t P, uint32_t N);

} // namespace incant::harness

#endif // INCANT_HARNESS_LAYOUT_H
