//===- ClassifyTest.cpp - Families and scopes of tests --------------------===//
#include "incant/Campaign/Classify.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::campaign;

namespace {

TEST(Family, NamePrefix) {
  EXPECT_EQ(familyOf("MP+cta-global"), "MP");
  EXPECT_EQ(familyOf("SB+membar.gl+warp-shared"), "SB");
  EXPECT_EQ(familyOf("2+2W+cta-global"), "2+2W");
  EXPECT_EQ(familyOf("2+2W"), "2+2W");
  EXPECT_EQ(familyOf("CoRR"), "CoRR");
  EXPECT_EQ(familyOf(""), "");
  EXPECT_EQ(familyOf("+x"), "");
}

litmus::Program twoThreads(litmus::Placement A, litmus::Placement B) {
  litmus::Program P;
  P.Threads.resize(2);
  P.Threads[0].Where = A;
  P.Threads[1].Where = B;
  P.Locs.resize(2);
  return P;
}

TEST(Scope, WidestSeparation) {
  EXPECT_EQ(scopeOf(twoThreads({0, 0, 0, 0}, {0, 0, 1, 0})),
            "inter-cta/global");
  EXPECT_EQ(scopeOf(twoThreads({0, 0, 0, 0}, {0, 0, 0, 1})),
            "inter-warp/global");
  EXPECT_EQ(scopeOf(twoThreads({0, 0, 0, 0}, {0, 0, 0, 0})),
            "intra-warp/global");
  EXPECT_EQ(scopeOf(twoThreads({0, 0, 0, 0}, {1, 0, 0, 0})),
            "inter-device/global");
  litmus::Program P = twoThreads({0, 0, 0, 0}, {0, 0, 0, 1});
  P.Locs[0].R = P.Locs[1].R = litmus::Region::Shared;
  EXPECT_EQ(scopeOf(P), "inter-warp/shared");
  P.Locs[1].R = litmus::Region::Global;
  EXPECT_EQ(scopeOf(P), "inter-warp/mixed");
  // Three threads: one pair in different CTAs decides.
  P.Threads.push_back(P.Threads[0]);
  P.Threads[2].Where.CTA = 1;
  EXPECT_EQ(scopeOf(P), "inter-cta/mixed");
  P.Locs.clear();
  EXPECT_EQ(scopeOf(P), "inter-cta/none");
}

} // namespace
