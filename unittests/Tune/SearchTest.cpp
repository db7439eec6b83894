//===- SearchTest.cpp - The searches on synthetic chips ---------------------===//
#include "incant/Tune/Tune.h"
#include "incant/Harness/Profile.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

using namespace incant;
using namespace incant::tune;

namespace {

/// A made-up chip: stressing offset l at distance d shows weak behaviour
/// when l and d fall in "matching" 16-word patches; the access sequence
/// and spread scale the count; every test behaves alike but with its own
/// factor. Deterministic.
class FakeChip : public Measurer {
public:
  uint64_t Calls = 0;
  std::vector<std::string> Log;

  std::optional<Measurement> measure(size_t Test, const harness::RunParams &P,
                                     std::string &Error) override {
    ++Calls;
    const harness::Incantations &I = P.Inc;
    if (I.StressInTest && I.StressOffset == P.LocDistance) {
      Error = "clash";
      return std::nullopt;
    }
    Measurement M;
    M.Instances = 100000;
    M.Seconds = 0.5;
    if (!I.MemStress)
      return M;
    uint64_t Base = ((I.StressOffset / 16) + P.LocDistance / 32) % 2 == 0 ? 20
                                                                          : 0;
    uint64_t Loads = 0, Stores = 0;
    for (const auto &A : I.StressSeq)
      (A.IsStore ? Stores : Loads)++;
    // The best sequence per test differs a little; "ld^2 st" style mixes
    // win overall.
    uint64_t SeqF = 1 + Loads * Stores + (Test == 1 ? Stores : 0);
    uint64_t SpreadF = I.StressLocs == 3 ? 4 : I.StressLocs <= 4 ? 2 : 1;
    M.Weak = Base * SeqF * SpreadF * (Test + 1);
    Log.push_back(std::to_string(Test) + ":" + std::to_string(P.LocDistance) +
                  ":" + std::to_string(I.StressOffset));
    return M;
  }
};

TEST(PatchSearch, FindsTheFakeChipsPatchSize) {
  FakeChip C;
  PatchOptions O;
  for (uint32_t D = 32; D <= 128; D += 32)
    O.Distances.push_back(D);
  for (uint32_t L = 4; L < 132; L += 4)
    O.Offsets.push_back(L);
  Budget B;
  PatchData D = runPatch(C, 3, harness::RunParams(), O, B);
  EXPECT_TRUE(D.Complete);
  EXPECT_EQ(D.Weak.size(), 3u);
  // Offsets equal to a distance are skipped, not measured.
  EXPECT_FALSE(D.Weak[0][0][7]); // d = 32, l = 32
  EXPECT_EQ(D.Measurements, 3u * (4 * 32 - 4));
  PatchAnalysis A = analysePatches(D, 3);
  ASSERT_TRUE(A.Critical);
  EXPECT_EQ(*A.Critical, 16u);
}

TEST(PatchSearch, SpentBudgetStopsAndMarksIncomplete) {
  FakeChip C;
  PatchOptions O;
  O.Distances = {32};
  O.Offsets = {4, 8};
  Budget B(1e-9);
  while (!B.expired()) {
  }
  PatchData D = runPatch(C, 3, harness::RunParams(), O, B);
  EXPECT_FALSE(D.Complete);
  EXPECT_EQ(C.Calls, 0u);
}

TEST(SequenceSearch, RanksAllSequencesAndPicksAMix) {
  FakeChip C;
  SequenceOptions O;
  O.MaxLength = 3;
  O.Distances = {32, 64};
  O.Offsets = {4, 20};
  Budget B;
  SequenceData D = runSequence(C, 3, harness::RunParams(), O, B);
  EXPECT_TRUE(D.Complete);
  EXPECT_EQ(D.Seqs.size(), 14u);
  ASSERT_EQ(D.BaselineScore.size(), 3u);
  EXPECT_EQ(D.BaselineScore[0], 0u);
  // 1 + loads * stores is largest for two of one and one of the other;
  // test 1 also rewards stores, so Pareto and the tie-break pick ld st^2's
  // shape... all of ld st st, st ld st, st st ld score alike: first wins.
  EXPECT_EQ(paperNotation(D.Seqs[D.Best]), "ld st^2");
}

TEST(SpreadSearch, PicksTheFakeChipsSpread) {
  FakeChip C;
  SpreadOptions O;
  O.MaxSpread = 6;
  O.Patch = 16;
  O.Phase = 4;
  O.Distances = {32, 64};
  O.Samples = 2;
  Budget B;
  SpreadData D = runSpread(C, 3, harness::RunParams(), O, B);
  EXPECT_TRUE(D.Complete);
  EXPECT_EQ(D.Spreads.size(), 6u);
  EXPECT_EQ(D.Measurements, 6u * 3 * 2 * 2);
  EXPECT_EQ(D.Best, 3u);
}

/// A noisy chip for random search: the weak rate grows with stress
/// iterations and falls with the stride; binomial noise from a seed.
class NoisyChip : public Measurer {
public:
  explicit NoisyChip(uint64_t Seed) : Rng(Seed) {}
  std::mt19937_64 Rng;
  uint64_t Calls = 0;
  std::optional<Measurement> measure(size_t Test, const harness::RunParams &P,
                                     std::string &) override {
    ++Calls;
    double Rate = 1e-4 * (Test + 1);
    if (P.Inc.MemStress)
      Rate *= 1 + P.Inc.StressIterations / 32.0;
    Rate /= 1 + P.Stride / 16.0;
    Measurement M;
    M.Instances = 1000000;
    M.Weak = std::binomial_distribution<uint64_t>(M.Instances, Rate)(Rng);
    M.Seconds = 0.01;
    return M;
  }
};

TEST(RandomSearch, SameSeedSameChoices) {
  RandomOptions O;
  O.Seed = 7;
  O.Candidates = 12;
  O.Rounds = 3;
  auto Run = [&] {
    NoisyChip C(99);
    Budget B;
    return runRandom(C, 3, harness::RunParams(), O, B);
  };
  RandomData A = Run(), B = Run();
  ASSERT_EQ(A.Trials.size(), 13u);
  ASSERT_EQ(A.Trials.size(), B.Trials.size());
  for (size_t I = 0; I < A.Trials.size(); ++I) {
    EXPECT_EQ(A.Trials[I].Params.Inc.StressIterations,
              B.Trials[I].Params.Inc.StressIterations);
    EXPECT_EQ(A.Trials[I].Params.Stride, B.Trials[I].Params.Stride);
    EXPECT_EQ(A.Trials[I].Note, B.Trials[I].Note);
  }
  EXPECT_EQ(A.Best, B.Best);
  // A different seed draws different candidates.
  RandomOptions O2 = O;
  O2.Seed = 8;
  bool Differs = false;
  for (uint32_t I = 1; I <= 12; ++I)
    Differs |= drawCandidate({}, O, I).Stride != drawCandidate({}, O2, I).Stride;
  EXPECT_TRUE(Differs);
}

TEST(RandomSearch, EarlyStoppingAndAWinnerBetterThanTheStart) {
  RandomOptions O;
  O.Seed = 3;
  O.Candidates = 30;
  O.Rounds = 4;
  NoisyChip C(5);
  Budget B;
  harness::RunParams Start; // no stress, stride 16: a poor start
  RandomData D = runRandom(C, 3, Start, O, B);
  EXPECT_TRUE(D.Complete);
  const RandomTrial &W = D.Trials[D.Best];
  EXPECT_GT(D.Best, 0u);
  EXPECT_TRUE(W.Params.Inc.MemStress);
  size_t Early = 0;
  for (const RandomTrial &T : D.Trials)
    Early += T.Rounds < O.Rounds;
  EXPECT_GT(Early, 0u); // clear cases stop before the last round
  for (size_t T = 0; T < 3; ++T)
    EXPECT_GT(W.Scores[T].perSecond(), D.Trials[0].Scores[T].perSecond());
}

TEST(RandomSearch, TheGivenFirstCandidateRunsFirst) {
  RandomOptions O;
  O.Candidates = 2;
  O.Rounds = 1;
  harness::RunParams Def;
  Def.Stride = 3;
  O.First = Def;
  NoisyChip C(1);
  Budget B;
  harness::RunParams Start;
  Start.Stride = 64;
  RandomData D = runRandom(C, 2, Start, O, B);
  ASSERT_EQ(D.Trials.size(), 4u);
  EXPECT_EQ(D.Trials[0].Params.Stride, 64u);
  EXPECT_EQ(D.Trials[1].Params.Stride, 3u);
  EXPECT_EQ(C.Calls, 8u);
}

TEST(RandomSearch, EvenCandidatesStepFromTheIncumbent) {
  RandomOptions O;
  O.Seed = 11;
  harness::RunParams Inc;
  Inc.Stride = 5;
  Inc.Inc.StressIterations = 7;
  for (uint32_t I = 2; I < 40; I += 2) {
    harness::RunParams P = nextCandidate({}, Inc, O, I);
    int Changed = (P.Stride != 5) + (P.Inc.StressIterations != 7);
    EXPECT_LE(Changed, 2);
    harness::RunParams Q = nextCandidate({}, Inc, O, I);
    EXPECT_EQ(P.Stride, Q.Stride);
    EXPECT_EQ(P.Inc.StressSeq, Q.Inc.StressSeq);
  }
  EXPECT_EQ(nextCandidate({}, Inc, O, 3).Stride, drawCandidate({}, O, 3).Stride);
}

TEST(RandomSearch, CandidatesKeepOddOffsetsAndBoundedGroups) {
  RandomOptions O;
  O.MaxGroupSize = 128;
  for (uint32_t I = 1; I < 200; ++I) {
    harness::RunParams P = drawCandidate({}, O, I);
    EXPECT_LE(P.GroupSize, 128u);
    EXPECT_EQ(P.Inc.StressOffset % 2, 1u);
    EXPECT_GE(P.Inc.StressOffset, 3u);
    EXPECT_FALSE(P.Inc.StressSeq.empty());
  }
}

TEST(Budget, ProgressGoesToTheStream) {
  std::ostringstream OS;
  Budget B(0, &OS);
  B.progress("patch", 1, 10, "first");
  B.progress("patch", 2, 10, "too soon, not printed");
  B.progress("patch", 10, 10, "last");
  std::string S = OS.str();
  EXPECT_NE(S.find("tune patch: 1/10 (10%)"), std::string::npos);
  EXPECT_EQ(S.find("too soon"), std::string::npos);
  EXPECT_NE(S.find("10/10 (100%)"), std::string::npos);
  EXPECT_FALSE(B.expired());
}

} // namespace

TEST(RandomSearch, ASettingIsNeverMeasuredTwice) {
  // The first candidate is the starting point's setting: skipped, not
  // measured, never a winner; so is every later candidate drawn again.
  RandomOptions O;
  O.Candidates = 12;
  O.Rounds = 2;
  harness::RunParams Start;
  O.First = Start;
  NoisyChip C(2);
  Budget B;
  RandomData D = runRandom(C, 2, Start, O, B);
  ASSERT_GE(D.Trials.size(), 2u);
  EXPECT_EQ(D.Trials[1].Rounds, 0u);
  EXPECT_FALSE(D.Trials[1].Winner);
  EXPECT_EQ(D.Trials[1].Note, "skipped: the starting point's setting");
  auto Same = [](const harness::RunParams &A, const harness::RunParams &B) {
    for (const std::string &N : harness::profileParamNames())
      if (!(harness::paramValue(A, N) == harness::paramValue(B, N)))
        return false;
    return true;
  };
  uint64_t Measured = 0;
  for (size_t I = 0; I < D.Trials.size(); ++I) {
    Measured += uint64_t(D.Trials[I].Rounds) * 2;
    for (size_t J = 0; J < I; ++J)
      if (D.Trials[I].Rounds > 0 && D.Trials[J].Rounds > 0) {
        EXPECT_FALSE(Same(D.Trials[I].Params, D.Trials[J].Params))
            << "trials " << J << " and " << I;
      }
  }
  EXPECT_EQ(C.Calls, Measured); // the skipped ones cost no measurement
}
