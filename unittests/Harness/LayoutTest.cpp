//===- LayoutTest.cpp - Parallel-testing layouts ----------------------------===//
#include "incant/Harness/Layout.h"
#include "incant/Testing/Programs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

using namespace incant;
using namespace incant::harness;
using namespace incant::handbuilt;
using namespace incant::litmus;

namespace {

/// Checks the three layout invariants: every (instance, role) is played by
/// exactly one work-item; the roles of an instance sit where the placement
/// says; addresses of different (instance, location) pairs never meet.
void checkLayout(const Program &P, const Layout &L) {
  uint32_t T = uint32_t(P.Threads.size());
  std::vector<int64_t> Where(size_t(L.NumInstances) * T, -1);
  for (uint32_t W = 0; W < L.numWorkItems(); ++W) {
    if (L.Role[W] < 0) {
      EXPECT_EQ(L.Instance[W], -1);
      continue;
    }
    ASSERT_GE(L.Instance[W], 0);
    ASSERT_LT(uint32_t(L.Instance[W]), L.NumInstances);
    EXPECT_LT(W / L.GroupSize, L.NumTestGroups) << "a role in a stress group";
    int64_t &Slot = Where[size_t(L.Instance[W]) * T + L.Role[W]];
    EXPECT_EQ(Slot, -1) << "instance " << L.Instance[W] << " role "
                        << L.Role[W] << " played twice";
    Slot = W;
  }
  for (uint32_t N = 0; N < L.NumInstances; ++N)
    for (uint32_t A = 0; A < T; ++A) {
      int64_t WA = Where[size_t(N) * T + A];
      ASSERT_GE(WA, 0) << "instance " << N << " role " << A << " unplayed";
      for (uint32_t B = 0; B < A; ++B) {
        int64_t WB = Where[size_t(N) * T + B];
        const Placement &PA = P.Threads[A].Where, &PB = P.Threads[B].Where;
        bool SameGroup = PA.Device == PB.Device && PA.Cluster == PB.Cluster &&
                         PA.CTA == PB.CTA;
        EXPECT_EQ(WA / L.GroupSize == WB / L.GroupSize, SameGroup);
        if (SameGroup) {
          EXPECT_EQ(WA / L.WarpSize == WB / L.WarpSize, PA.Warp == PB.Warp)
              << "instance " << N << " roles " << A << "," << B;
        }
      }
    }
  // Addresses: global ones disjoint over the whole launch and stride apart;
  // shared ones disjoint within a work-group.
  std::set<uint32_t> Global;
  std::set<std::pair<uint32_t, uint32_t>> Shared;
  for (uint32_t N = 0; N < L.NumInstances; ++N)
    for (uint32_t Loc = 0; Loc < L.NumLocs; ++Loc) {
      uint32_t A = L.addr(N, Loc);
      if (P.Locs[Loc].R == Region::Shared) {
        EXPECT_LT(A, L.SharedWordsPerGroup);
        uint32_t G = uint32_t(Where[size_t(N) * T] / L.GroupSize);
        EXPECT_TRUE(Shared.insert({G, A}).second);
      } else {
        EXPECT_LT(A, L.GlobalWords);
        EXPECT_TRUE(Global.insert(A).second) << "address " << A << " reused";
      }
    }
}

Layout mustLayout(const Program &P, LayoutParams LP) {
  std::string Err;
  std::optional<Layout> L = computeLayout(P, LP, Err);
  EXPECT_TRUE(L) << Err;
  return L ? *L : Layout{};
}

TEST(Layout, InterGroupTwoThreads) {
  Program P = sb();
  for (bool Shuffle : {false, true})
    for (uint32_t Rows : {1u, 3u, 8u}) {
      LayoutParams LP{64, 32, Rows, 16, 0, 42, Shuffle};
      Layout L = mustLayout(P, LP);
      EXPECT_EQ(L.InstancesPerRow, 64u);
      EXPECT_EQ(L.NumInstances, 64u * Rows);
      EXPECT_EQ(L.NumTestGroups, 2u * Rows);
      checkLayout(P, L);
    }
}

TEST(Layout, PartnersComeFromOtherRows) {
  LayoutParams LP{32, 32, 8, 16, 0, 5, true};
  Layout L = mustLayout(sb(), LP);
  // The instances a work-group plays role 0 of have their role 1 spread
  // over more than one other work-group.
  std::vector<int32_t> Role1Group(L.NumInstances);
  for (uint32_t W = 0; W < L.numWorkItems(); ++W)
    if (L.Role[W] == 1)
      Role1Group[L.Instance[W]] = int32_t(W / L.GroupSize);
  for (uint32_t W = 0; W < L.numWorkItems(); ++W) {
    if (L.Role[W] == 0) {
      EXPECT_NE(Role1Group[L.Instance[W]], int32_t(W / L.GroupSize));
    }
  }
}

TEST(Layout, SameGroupDifferentWarps) {
  Program P = mp();
  P.Threads[1].Where = {0, 0, 0, 1};
  Layout L = mustLayout(P, {128, 32, 4, 8, 1, 3, true});
  EXPECT_EQ(L.InstancesPerRow, 64u); // 2 warp pairs of 32 instances
  EXPECT_EQ(L.NumTestGroups, 4u);
  checkLayout(P, L);
}

TEST(Layout, SameWarp) {
  Program P = mp();
  P.Threads[1].Where = {0, 0, 0, 0};
  Layout L = mustLayout(P, {64, 32, 2, 4, 0, 9, true});
  EXPECT_EQ(L.InstancesPerRow, 32u);
  checkLayout(P, L);
}

TEST(Layout, MixedPlacementAndSharedMemory) {
  // Three threads: 0 and 1 in one CTA (different warps), 2 elsewhere.
  Program P = sb();
  ThreadBuilder T2 = addThread(P, {0, 0, 1, 0});
  T2.ld(T2.reg("r0"), A(0));
  P.Threads[1].Where = {0, 0, 0, 1};
  Layout L = mustLayout(P, {96, 32, 5, 16, 2, 11, true});
  EXPECT_EQ(L.NumGroups, 12u);
  checkLayout(P, L);

  // Shared memory with every thread in one CTA.
  Program S = mp();
  S.Threads[1].Where = {0, 0, 0, 1};
  S.Locs[1].R = Region::Shared;
  Layout LS = mustLayout(S, {64, 16, 3, 16, 0, 4, true});
  EXPECT_EQ(LS.SharedWordsPerGroup, LS.InstancesPerRow);
  checkLayout(S, LS);
}

TEST(Layout, Errors) {
  std::string Err;
  Program S = sb();
  S.Locs[0].R = Region::Shared;
  EXPECT_FALSE(computeLayout(S, {}, Err));
  EXPECT_NE(Err.find("shared memory"), std::string::npos);

  Program W = mp();
  W.Threads[1].Where = {0, 0, 0, 1};
  EXPECT_FALSE(computeLayout(W, {32, 32, 1, 16, 0, 1, true}, Err));
  EXPECT_NE(Err.find("cannot hold"), std::string::npos);

  Program D = mp();
  D.Threads[1].Where.Device = 1;
  EXPECT_FALSE(computeLayout(D, {}, Err));
  EXPECT_NE(Err.find("devices"), std::string::npos);
}

TEST(Layout, CoprimeMultiplier) {
  for (uint32_t N : {1u, 2u, 3u, 12u, 64u, 97u, 1000u})
    for (uint64_t Seed = 0; Seed < 20; ++Seed) {
      uint32_t P = coprimeMultiplier(N, Seed);
      EXPECT_GE(P, 1u);
      EXPECT_TRUE(N <= 1 || P < N);
      EXPECT_EQ(std::gcd(P, N == 0 ? 1 : N), 1u);
    }
}

TEST(Layout, HalfwayMultiplier) {
  for (uint32_t N : {1u, 2u, 3u, 4u, 12u, 97u, 1000u, 270336u}) {
    uint32_t P = halfwayMultiplier(N);
    EXPECT_EQ(std::gcd(P, std::max(N, 1u)), 1u) << N;
    if (N > 2) {
      EXPECT_GT(P, N / 2) << N;
      EXPECT_LT(P, N) << N;
    }
  }
  EXPECT_EQ(halfwayMultiplier(12), 7u);
  EXPECT_EQ(halfwayMultiplier(270336), 135169u);
  // A bijection on [0, N).
  std::vector<bool> Hit(1000);
  for (uint32_t V = 0; V < 1000; ++V)
    Hit[uint64_t(V) * halfwayMultiplier(1000) % 1000] = true;
  EXPECT_EQ(std::count(Hit.begin(), Hit.end(), true), 1000);
}

TEST(Layout, InverseMultiplierUndoesThePermutation) {
  for (uint32_t N : {2u, 3u, 12u, 32u, 97u, 1000u, 33792u})
    for (uint64_t Seed = 0; Seed < 20; ++Seed) {
      uint32_t P = coprimeMultiplier(N, Seed);
      uint32_t X = inverseMultiplier(P, N);
      EXPECT_LT(X, N);
      EXPECT_EQ(uint64_t(P) * X % N, N == 1 ? 0u : 1u) << P << " mod " << N;
    }
  EXPECT_EQ(inverseMultiplier(1, 1), 0u);
  EXPECT_EQ(inverseMultiplier(1, 0), 0u);
}

} // namespace
