//===- AnalysisTest.cpp - Patches, Pareto choice, sequences, statistics ----===//
#include "incant/Tune/Tune.h"

#include <gtest/gtest.h>

#include <set>

using namespace incant;
using namespace incant::tune;

namespace {

std::vector<std::optional<uint64_t>> row(std::initializer_list<int> L) {
  std::vector<std::optional<uint64_t>> R;
  for (int V : L)
    R.push_back(V < 0 ? std::nullopt : std::optional<uint64_t>(V));
  return R;
}

TEST(EpsilonPatches, MaximalRunsStrictlyAboveEpsilon) {
  auto P = epsilonPatches(row({0, 4, 5, 3, 9, 9, 9, 0, 4}), 3);
  ASSERT_EQ(P.size(), 3u);
  EXPECT_EQ(P[0].First, 1u);
  EXPECT_EQ(P[0].Length, 2u);
  EXPECT_EQ(P[1].First, 4u); // 3 is not above epsilon 3
  EXPECT_EQ(P[1].Length, 3u);
  EXPECT_EQ(P[2].First, 8u);
  EXPECT_EQ(P[2].Length, 1u);
}

TEST(EpsilonPatches, MissingPointEndsARun) {
  auto P = epsilonPatches(row({5, 5, -1, 5}), 0);
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Length, 2u);
  EXPECT_EQ(P[1].Length, 1u);
}

TEST(EpsilonPatches, EmptyAndQuiet) {
  EXPECT_TRUE(epsilonPatches({}, 3).empty());
  EXPECT_TRUE(epsilonPatches(row({1, 2, 3}), 3).empty());
}

/// Synthetic patch data: offsets 0..63 step 1; test t, distance d shows
/// weak behaviour in blocks of \p Size offsets, every other block.
PatchData blocks(std::vector<uint32_t> SizePerTest, uint32_t Distances) {
  PatchData D;
  for (uint32_t L = 0; L < 64; ++L)
    D.Offsets.push_back(L);
  for (uint32_t I = 0; I < Distances; ++I)
    D.Distances.push_back(32 * (I + 1));
  for (uint32_t Size : SizePerTest) {
    std::vector<std::vector<std::optional<uint64_t>>> Rows;
    for (uint32_t I = 0; I < Distances; ++I) {
      std::vector<std::optional<uint64_t>> R;
      for (uint32_t L = 0; L < 64; ++L)
        R.push_back(((L / Size) + I) % 2 == 0 ? 10 : 1);
      Rows.push_back(R);
    }
    D.Weak.push_back(Rows);
  }
  return D;
}

TEST(PatchAnalysis, AgreeingTestsGiveTheCriticalSize) {
  PatchAnalysis A = analysePatches(blocks({8, 8, 8}, 3), 3);
  ASSERT_TRUE(A.Critical);
  EXPECT_EQ(*A.Critical, 8u);
  EXPECT_EQ(A.Suggested, 8u);
  EXPECT_EQ(A.ModeSize, (std::vector<uint32_t>{8, 8, 8}));
}

TEST(PatchAnalysis, DisagreementHasNoCriticalSizeButASuggestion) {
  PatchAnalysis A = analysePatches(blocks({8, 16, 8}, 3), 3);
  EXPECT_FALSE(A.Critical);
  EXPECT_EQ(A.Suggested, 8u); // two tests of three
  EXPECT_EQ(A.ModeSize[1], 16u);
}

TEST(PatchAnalysis, SizeScalesWithTheOffsetStep) {
  PatchData D = blocks({4, 4}, 2);
  for (uint32_t &L : D.Offsets)
    L *= 8; // offsets 0, 8, 16, ...: a run of 4 samples is 32 words
  PatchAnalysis A = analysePatches(D, 3);
  ASSERT_TRUE(A.Critical);
  EXPECT_EQ(*A.Critical, 32u);
}

TEST(PatchAnalysis, RunsCutByTheLastOffsetAreNotCounted) {
  PatchData D;
  D.Offsets = {0, 1, 2, 3};
  D.Distances = {1};
  D.Weak = {{row({9, 9, 9, 9})}};
  PatchAnalysis A = analysePatches(D, 3);
  EXPECT_TRUE(A.SizeCounts[0].empty());
  EXPECT_EQ(A.ModeSize[0], 0u);
  EXPECT_FALSE(A.Critical);
  EXPECT_EQ(A.Suggested, 0u);
}

TEST(Pareto, StrictlyBetterOnEveryTestDominates) {
  std::vector<std::vector<double>> S = {
      {10, 10, 10}, // 0: dominated by 3
      {30, 1, 1},   // 1
      {1, 30, 1},   // 2
      {11, 11, 11}, // 3
      {11, 11, 10}, // 4: not strictly worse than 3 on every test
  };
  EXPECT_EQ(paretoOptimal(S), (std::vector<size_t>{1, 2, 3, 4}));
}

TEST(Pareto, SingleOptimumNeedsNoTieBreak) {
  std::vector<std::vector<double>> S = {{1, 2, 3}, {5, 6, 7}, {0, 0, 0}};
  EXPECT_EQ(chooseBest(S), 1u);
}

TEST(Pareto, TieBrokenByTwoOfThree) {
  // 0 and 1 are both Pareto-optimal; 1 is better on MP and SB.
  std::vector<std::vector<double>> S = {{100, 90, 50}, {120, 80, 60}};
  EXPECT_EQ(paretoOptimal(S).size(), 2u);
  EXPECT_EQ(chooseBest(S), 1u);
}

TEST(Pareto, CycleFallsBackToRanksThenOrder) {
  // Rock-paper-scissors: each beats one other on two tests.
  std::vector<std::vector<double>> S = {{3, 2, 1}, {1, 3, 2}, {2, 1, 3}};
  EXPECT_EQ(paretoOptimal(S).size(), 3u);
  EXPECT_EQ(chooseBest(S), 0u); // equal duels and ranks: first
  // A dominated candidate does not change the choice.
  std::vector<std::vector<double>> S2 = {{3, 2, 1}, {1, 3, 2}, {2, 1, 3},
                                         {0, 0, 0}};
  EXPECT_EQ(chooseBest(S2), 0u);
}

TEST(Pareto, EqualScoresTieToTheFirst) {
  std::vector<std::vector<double>> S = {{5, 5, 5}, {5, 5, 5}};
  EXPECT_EQ(chooseBest(S), 0u);
}

TEST(Sequences, CountAndOrder) {
  auto S = allSequences(5);
  EXPECT_EQ(S.size(), 62u); // the paper's 63 less the empty sequence
  std::set<std::string> Unique;
  for (const auto &Q : S)
    Unique.insert(harness::formatStressSeq(Q));
  EXPECT_EQ(Unique.size(), 62u);
  EXPECT_EQ(paperNotation(S[0]), "ld");
  EXPECT_EQ(paperNotation(S[1]), "st");
  EXPECT_EQ(paperNotation(S[2]), "ld^2");
  EXPECT_EQ(paperNotation(S.back()), "st^5");
  EXPECT_EQ(allSequences(1).size(), 2u);
  EXPECT_EQ(allSequences(0).size(), 0u);
}

TEST(Sequences, PaperNotation) {
  std::vector<harness::StressAccess> Q;
  std::string E;
  ASSERT_TRUE(harness::parseStressSeq("ld0 ld0 ld0 st0 ld0", Q, E));
  EXPECT_EQ(paperNotation(Q), "ld^3 st ld");
  EXPECT_EQ(paperNotation({}), "(none)");
}

TEST(Sequences, ChooseUsesParetoAndTieBreak) {
  SequenceData D;
  D.Seqs = allSequences(1); // ld, st
  D.Score = {{100, 10, 50}, {90, 20, 60}};
  chooseSequence(D);
  EXPECT_EQ(D.Pareto.size(), 2u);
  EXPECT_EQ(D.Best, 1u); // better on LB and SB
}

TEST(Spread, RegionsStayInsideTheScratchpad) {
  for (uint32_t M = 1; M <= 16; ++M)
    for (uint64_t Draw = 0; Draw < 200; ++Draw) {
      RegionSet R = drawRegions(M, 16, Draw * 2654435761u);
      EXPECT_GE(R.Step, 1u);
      EXPECT_LT(R.First + (M - 1) * R.Step, 16u) << M << ' ' << Draw;
    }
  RegionSet R = drawRegions(1, 8, 13);
  EXPECT_EQ(R.First, 5u);
}

TEST(Spread, ChoosesTheParetoOptimalSpread) {
  SpreadData D;
  D.Spreads = {1, 2, 3, 4};
  D.Score = {{10, 10, 10}, {30, 25, 20}, {20, 30, 10}, {5, 5, 5}};
  chooseSpread(D);
  EXPECT_EQ(D.Best, 2u);
}

TEST(Statistics, ScoresScaleTheWilsonInterval) {
  Score S;
  S.add({50, 1000, 2.0});
  EXPECT_DOUBLE_EQ(S.perSecond(), 25.0);
  EXPECT_LT(S.low(1.96), 25.0);
  EXPECT_GT(S.high(1.96), 25.0);
  harness::Proportion P = harness::wilson(50, 1000);
  EXPECT_NEAR(S.low(1.96), P.Low * 500, 1e-9);
  Score Empty;
  EXPECT_EQ(Empty.perSecond(), 0);
  EXPECT_EQ(Empty.high(1.96), 0);
}

TEST(Statistics, SeparationNeedsMostTests) {
  auto Make = [](uint64_t W) {
    Score S;
    S.add({W, 100000, 1.0});
    return S;
  };
  std::vector<Score> Hi = {Make(1000), Make(1000), Make(10)};
  std::vector<Score> Lo = {Make(100), Make(100), Make(1000)};
  EXPECT_EQ(separated(Hi, Lo, 1.96), 1);
  EXPECT_EQ(separated(Lo, Hi, 1.96), -1);
  std::vector<Score> Near = {Make(101), Make(99), Make(1000)};
  EXPECT_EQ(separated(Near, Lo, 1.96), 0);
  EXPECT_TRUE(betterByEstimate(Near, Lo) == false); // 1 win, 1 loss, equal
  EXPECT_TRUE(betterByEstimate(Hi, Lo));
}

} // namespace
