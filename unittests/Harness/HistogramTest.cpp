//===- HistogramTest.cpp - Histogram merging and witnesses ------------------===//
#include "incant/Harness/Histogram.h"
#include "incant/Harness/Params.h"
#include "incant/Testing/Programs.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::harness;
using namespace incant::handbuilt;
using namespace incant::litmus;

namespace {

Outcome vals(std::initializer_list<int64_t> L) {
  Outcome O;
  for (int64_t V : L)
    O.push_back({-1, V});
  return O;
}

TEST(Histogram, AddMergeCount) {
  Histogram A, B;
  A.add(vals({0, 1}), 5);
  A.add(vals({1, 1}), 2);
  A.add(vals({0, 0}), 0); // a zero count adds no outcome
  B.add(vals({0, 1}), 1);
  B.add(vals({0, 0}), 3);
  A.merge(B);
  EXPECT_EQ(A.total(), 11u);
  EXPECT_EQ(A.count(vals({0, 1})), 6u);
  EXPECT_EQ(A.count(vals({0, 0})), 3u);
  EXPECT_EQ(A.count(vals({1, 0})), 0u);
  ASSERT_EQ(A.outcomes().size(), 3u);
  EXPECT_EQ(A.outcomes().begin()->first, vals({0, 0})); // sorted
}

TEST(Histogram, WitnessesFollowTheQuantifier) {
  Program P = sb();
  Histogram H;
  H.add(vals({0, 1}), 10);
  H.add(vals({1, 1}), 4);
  Witnesses W = witnesses(P, H);
  EXPECT_EQ(W.Positive, 0u);
  EXPECT_EQ(W.Negative, 14u);
  EXPECT_FALSE(W.Ok);
  H.add(vals({0, 0}), 2);
  W = witnesses(P, H);
  EXPECT_EQ(W.Positive, 2u);
  EXPECT_TRUE(W.Ok);
  P.Q = Quantifier::NotExists;
  EXPECT_FALSE(witnesses(P, H).Ok);
  P.Q = Quantifier::Forall;
  EXPECT_FALSE(witnesses(P, H).Ok);
}

TEST(Params, StressSequence) {
  std::vector<StressAccess> S;
  std::string Err;
  ASSERT_TRUE(parseStressSeq("st0 ld1,ld12", S, Err)) << Err;
  ASSERT_EQ(S.size(), 3u);
  EXPECT_EQ(S[2], (StressAccess{false, 12}));
  EXPECT_EQ(formatStressSeq(S), "st0 ld1 ld12");
  EXPECT_FALSE(parseStressSeq("st0 xx", S, Err));
  EXPECT_NE(Err.find("column 5"), std::string::npos) << Err;
  EXPECT_FALSE(parseStressSeq("st", S, Err));
  EXPECT_FALSE(parseStressSeq("", S, Err));
}

} // namespace

TEST(Histogram, CountColumnFitsTheLargestCount) {
  Program P = sb();
  Histogram Small;
  Small.add(vals({0, 0}), 116);
  Small.add(vals({0, 1}), 42101);
  std::vector<std::string> L = histogramLines(P, Small);
  ASSERT_EQ(L.size(), 2u);
  // litmus7's 8 characters for counts that fit them.
  EXPECT_EQ(L[0], "116     *>0:r0=0; 1:r0=0;");
  EXPECT_EQ(L[1], "42101   :>0:r0=0; 1:r0=1;");
  Histogram Big;
  Big.add(vals({0, 0}), 12345678);      // 8 digits
  Big.add(vals({1, 1}), 131072000000ull); // 12 digits
  L = histogramLines(P, Big);
  ASSERT_EQ(L.size(), 2u);
  EXPECT_EQ(L[0], "12345678     *>0:r0=0; 1:r0=0;");
  EXPECT_EQ(L[1], "131072000000 :>0:r0=1; 1:r0=1;");
}
