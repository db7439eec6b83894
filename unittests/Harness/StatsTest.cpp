//===- StatsTest.cpp - Rates and Wilson intervals ---------------------------===//
#include "incant/Harness/Stats.h"

#include <gtest/gtest.h>

using namespace incant::harness;

TEST(Stats, Wilson) {
  Proportion P = wilson(50, 100);
  EXPECT_DOUBLE_EQ(P.Rate, 0.5);
  EXPECT_NEAR(P.Low, 0.4038, 1e-3);
  EXPECT_NEAR(P.High, 0.5962, 1e-3);

  // No weak outcome in a million: the rate is 0 and at most ~3.8e-6.
  Proportion Z = wilson(0, 1000000);
  EXPECT_EQ(Z.Rate, 0);
  EXPECT_EQ(Z.Low, 0);
  EXPECT_NEAR(Z.High, 3.84e-6, 1e-7);

  Proportion All = wilson(10, 10);
  EXPECT_EQ(All.High, 1);
  EXPECT_GT(All.Low, 0.6);

  Proportion None = wilson(0, 0);
  EXPECT_EQ(None.Low, 0);
  EXPECT_EQ(None.High, 1);
}

TEST(Stats, PerSecond) {
  EXPECT_DOUBLE_EQ(perSecond(100, 0.5), 200);
  EXPECT_EQ(perSecond(100, 0), 0);
}
