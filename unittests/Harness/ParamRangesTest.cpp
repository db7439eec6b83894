#include "incant/Harness/ParamRanges.h"
#include "incant/Harness/Profile.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::harness;

TEST(ParamRanges, DefaultsAreInRange) {
  std::string E;
  EXPECT_TRUE(checkParams(RunParams(), E)) << E;
}

TEST(ParamRanges, EveryProfileNumberHasARange) {
  // A profile's numbers are checked with these ranges: each numeric
  // profile parameter must have one (paramRange asserts otherwise).
  RunParams P;
  for (const std::string &N : profileParamNames()) {
    if (paramValue(P, N)->K == ProfileValue::Number) {
      EXPECT_TRUE(paramRange(N).contains(paramValue(P, N)->Num)) << N;
    }
  }
}

TEST(ParamRanges, OutOfRangeIsNamed) {
  RunParams P;
  P.Inc.StressPatch = 1'000'000'000;
  std::string E;
  EXPECT_FALSE(checkParams(P, E));
  EXPECT_EQ(E, "the run parameter stress-patch must be from 1 to 65536, not 1000000000");
  P = RunParams();
  P.Iterations = 0;
  EXPECT_FALSE(checkParams(P, E));
  EXPECT_EQ(E, "the run parameter iterations must be from 1 to 10^9, not 0");
  // setParam refuses what the range refuses.
  P = RunParams();
  EXPECT_FALSE(setParam(P, "stride", ProfileValue::number(5000)));
  EXPECT_TRUE(setParam(P, "stride", ProfileValue::number(4096)));
}
