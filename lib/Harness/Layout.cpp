//===- Layout.cpp - Parallel-testing layout of a launch ---------------------===//
#include "incant/Harness/Layout.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

namespace incant::harness {

PlacementShape placementShape(const litmus::Program &P) {
  PlacementShape S;
  std::map<std::tuple<int32_t, int32_t, int32_t>, uint32_t> ClassOf;
  std::vector<std::map<int32_t, uint32_t>> WarpOf;
  std::vector<std::vector<uint32_t>> LanesUsed; // per class, per warp-class
  for (const litmus::ThreadProgram &T : P.Threads) {
    if (T.Where.Device != P.Threads.front().Where.Device)
      S.MultiDevice = true;
    auto Key = std::make_tuple(T.Where.Device, T.Where.Cluster, T.Where.CTA);
    auto [It, New] = ClassOf.try_emplace(Key, uint32_t(ClassOf.size()));
    uint32_t C = It->second;
    if (New) {
      WarpOf.emplace_back();
      LanesUsed.emplace_back();
    }
    auto [WIt, WNew] = WarpOf[C].try_emplace(T.Where.Warp,
                                             uint32_t(WarpOf[C].size()));
    if (WNew)
      LanesUsed[C].push_back(0);
    uint32_t W = WIt->second;
    S.Roles.push_back({C, W, LanesUsed[C][W]++});
  }
  S.NumClasses = uint32_t(ClassOf.size());
  for (uint32_t C = 0; C < S.NumClasses; ++C) {
    S.WarpsPerClass.push_back(uint32_t(LanesUsed[C].size()));
    S.LanesPerWarp.push_back(
        *std::max_element(LanesUsed[C].begin(), LanesUsed[C].end()));
  }

  // Clusters: each class's cluster (numbered in order of first use) and its
  // position among the classes of that cluster.
  std::vector<uint32_t> ClusterOfClass(S.NumClasses), CtaOfClass(S.NumClasses);
  std::map<int32_t, uint32_t> ClusterIds, CtasInCluster;
  std::vector<bool> Seen(S.NumClasses);
  for (size_t R = 0; R < P.Threads.size(); ++R) {
    uint32_t C = S.Roles[R].Class;
    if (Seen[C])
      continue;
    Seen[C] = true;
    int32_t Cl = P.Threads[R].Where.Cluster;
    ClusterOfClass[C] =
        ClusterIds.try_emplace(Cl, uint32_t(ClusterIds.size())).first->second;
    CtaOfClass[C] = CtasInCluster[Cl]++;
  }
  uint32_t MostCtas = 1;
  for (const auto &[Cl, N] : CtasInCluster)
    MostCtas = std::max(MostCtas, N);
  // What tells clusters apart: a .cluster scope, or a CTA reaching another
  // one's shared memory (mapa, .shared::cluster, barrier.cluster).
  bool ClusterScope = false;
  for (const litmus::ThreadProgram &T : P.Threads)
    for (const litmus::Op &O : T.Ops)
      ClusterScope |= O.Sc == litmus::Scope::Cluster || O.MapaRank >= 0 ||
                      O.Sp == litmus::Space::SharedCluster ||
                      O.ClusterBarrier;
  bool Clusters = MostCtas > 1 && ClusterScope;
  S.ClusterSize = Clusters ? MostCtas : 1;
  S.NumClusterGroups = std::max<uint32_t>(
      Clusters ? uint32_t(ClusterIds.size()) : S.NumClasses, 1);
  for (RoleSlot &RS : S.Roles) {
    RS.ClusterGroup = Clusters ? ClusterOfClass[RS.Class] : RS.Class;
    RS.CtaInCluster = Clusters ? CtaOfClass[RS.Class] : 0;
  }
  return S;
}

uint32_t PlacementShape::maxWarps() const {
  uint32_t M = 1;
  for (uint32_t W : WarpsPerClass)
    M = std::max(M, W);
  return M;
}

uint32_t PlacementShape::maxLanes() const {
  uint32_t M = 1;
  for (uint32_t L : LanesPerWarp)
    M = std::max(M, L);
  return M;
}

uint32_t instancesPerRow(const PlacementShape &S, uint32_t GroupSize,
                         uint32_t WarpSize) {
  if (WarpSize == 0 || GroupSize == 0 || GroupSize % WarpSize != 0 ||
      S.NumClasses == 0)
    return 0;
  uint32_t Warps = GroupSize / WarpSize;
  uint32_t Best = UINT32_MAX;
  for (uint32_t C = 0; C < S.NumClasses; ++C) {
    uint32_t Tuples = Warps / S.WarpsPerClass[C];
    uint32_t PerWarp = WarpSize / S.LanesPerWarp[C];
    Best = std::min(Best, Tuples * PerWarp);
  }
  return Best;
}

uint32_t coprimeMultiplier(uint32_t N, uint64_t Seed) {
  if (N <= 2)
    return 1;
  std::mt19937_64 Rng(Seed);
  for (;;) {
    uint32_t P = 1 + uint32_t(Rng() % (N - 1));
    if (std::gcd(P, N) == 1)
      return P;
  }
}

uint32_t halfwayMultiplier(uint32_t N) {
  if (N <= 2)
    return 1;
  for (uint32_t V = N / 2 + 1; V < N; ++V)
    if (std::gcd(V, N) == 1)
      return V;
  return 1;
}

uint32_t inverseMultiplier(uint32_t P, uint32_t N) {
  if (N <= 1)
    return 0;
  // Extended Euclid on (P, N).
  int64_t T = 0, NewT = 1, R = N, NewR = P % N;
  while (NewR != 0) {
    int64_t Q = R / NewR;
    std::tie(T, NewT) = std::make_pair(NewT, T - Q * NewT);
    std::tie(R, NewR) = std::make_pair(NewR, R - Q * NewR);
  }
  assert(R == 1 && "the multiplier is not coprime with N");
  return uint32_t(T < 0 ? T + N : T);
}

namespace {

/// v -> (v * Mul + Add) mod N, a bijection on [0, N).
struct Perm {
  uint64_t Mul = 1, Add = 0, N = 1;
  uint32_t operator()(uint64_t V) const { return uint32_t((V * Mul + Add) % N); }
};

Perm makePerm(uint32_t N, uint64_t Seed, bool Shuffle) {
  Perm P;
  P.N = std::max<uint32_t>(N, 1);
  if (!Shuffle)
    return P;
  P.Mul = coprimeMultiplier(P.N, Seed);
  P.Add = std::mt19937_64(Seed ^ 0x9e3779b97f4a7c15ull)() % P.N;
  return P;
}

} // namespace

std::optional<Layout> computeLayout(const litmus::Program &P,
                                    const LayoutParams &LP,
                                    std::string &Error) {
  if (P.Threads.empty()) {
    Error = "the test has no threads";
    return std::nullopt;
  }
  PlacementShape S = placementShape(P);
  if (S.MultiDevice) {
    Error = "the test places threads on different devices; the harness runs "
            "on one device";
    return std::nullopt;
  }
  uint32_t NumShared = 0, NumGlobal = 0;
  for (const litmus::Location &L : P.Locs)
    (L.R == litmus::Region::Shared ? NumShared : NumGlobal)++;
  if (NumShared && S.NumClasses > 1) {
    Error = "the test keeps a location in shared memory but places its "
            "threads in different work-groups";
    return std::nullopt;
  }
  uint32_t PerRow = instancesPerRow(S, LP.GroupSize, LP.WarpSize);
  if (PerRow == 0) {
    Error = "a work-group of " + std::to_string(LP.GroupSize) +
            " work-items in warps of " + std::to_string(LP.WarpSize) +
            " cannot hold the test's placement";
    return std::nullopt;
  }
  uint32_t Rows = std::max<uint32_t>(LP.Rows, 1);
  uint64_t Items = uint64_t(Rows * S.NumClasses + LP.StressGroups) *
                   LP.GroupSize;
  uint64_t Words = uint64_t(Rows) * PerRow * std::max<uint32_t>(NumGlobal, 1) *
                   std::max<uint32_t>(LP.Stride, 1);
  if (Items > (1u << 28) || Words > (1u << 30)) {
    Error = "the launch is too large (reduce instances or stride)";
    return std::nullopt;
  }

  Layout L;
  L.GroupSize = LP.GroupSize;
  L.WarpSize = LP.WarpSize;
  L.NumTestGroups = Rows * S.NumClasses;
  L.NumGroups = L.NumTestGroups + LP.StressGroups;
  L.InstancesPerRow = PerRow;
  L.NumInstances = Rows * PerRow;
  L.NumLocs = uint32_t(P.Locs.size());
  L.Role.assign(L.numWorkItems(), -1);
  L.Instance.assign(L.numWorkItems(), -1);

  // Roles: instance n = (row m, slot k); class c plays it in work-group
  // RowPerm_c(m) * K + c at slot SlotPerm_c(k).
  for (uint32_t C = 0; C < S.NumClasses; ++C) {
    Perm RowP = makePerm(Rows, LP.Seed * 31 + C * 2 + 1, LP.Shuffle);
    Perm SlotP = makePerm(PerRow, LP.Seed * 37 + C * 2 + 2, LP.Shuffle);
    if (!LP.Shuffle && C > 0)
      RowP.Add = C % Rows; // partners still come from another row
    uint32_t PerWarp = LP.WarpSize / S.LanesPerWarp[C];
    uint32_t Q = S.WarpsPerClass[C];
    for (uint32_t N = 0; N < L.NumInstances; ++N) {
      uint32_t M = N / PerRow, K = N % PerRow;
      uint32_t Group = RowP(M) * S.NumClasses + C;
      uint32_t Slot = SlotP(K);
      uint32_t Tuple = Slot / PerWarp, Sub = Slot % PerWarp;
      for (uint32_t R = 0; R < S.Roles.size(); ++R) {
        const RoleSlot &RS = S.Roles[R];
        if (RS.Class != C)
          continue;
        uint32_t Warp = Tuple * Q + RS.WarpClass;
        uint32_t Lane = Sub * S.LanesPerWarp[C] + RS.Lane;
        uint32_t W = Group * LP.GroupSize + Warp * LP.WarpSize + Lane;
        assert(L.Role[W] == -1 && "two roles on one work-item");
        L.Role[W] = int32_t(R);
        L.Instance[W] = int32_t(N);
      }
    }
  }

  // Locations: global ones spread by a permutation of (instance, location)
  // slots at a stride; shared ones packed per work-group by the instance's
  // slot in its (single) work-group.
  uint32_t Stride = std::max<uint32_t>(LP.Stride, 1);
  uint32_t GSlots = L.NumInstances * std::max<uint32_t>(NumGlobal, 1);
  Perm AddrP = makePerm(GSlots, LP.Seed * 41 + 7, LP.Shuffle);
  L.GlobalWords = GSlots * Stride;
  L.SharedWordsPerGroup = PerRow * NumShared;
  L.LocAddr.assign(size_t(L.NumInstances) * L.NumLocs, 0);
  Perm Slot0 = makePerm(PerRow, LP.Seed * 37 + 2, LP.Shuffle);
  for (uint32_t N = 0; N < L.NumInstances; ++N) {
    uint32_t G = 0, Sh = 0;
    for (uint32_t Loc = 0; Loc < L.NumLocs; ++Loc) {
      uint32_t &A = L.LocAddr[size_t(N) * L.NumLocs + Loc];
      if (P.Locs[Loc].R == litmus::Region::Shared)
        A = Slot0(N % PerRow) * NumShared + Sh++;
      else
        A = AddrP(uint64_t(N) * NumGlobal + G++) * Stride;
    }
  }
  return L;
}

} // namespace incant::harness
