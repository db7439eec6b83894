//===- EnvironmentTest.cpp - The testing environments ---------------------===//
#include "incant/AppTest/Environment.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace incant;
using namespace incant::apptest;

namespace {

TEST(Environment, AllIsThePapersEight) {
  std::string Error;
  auto E = parseEnvironments("all", false, Error);
  ASSERT_TRUE(E) << Error;
  std::vector<std::string> Names;
  for (const Environment &X : *E)
    Names.push_back(X.name());
  EXPECT_EQ(Names, (std::vector<std::string>{"none-", "none+", "sys-", "sys+",
                                             "rand-", "rand+", "cache-",
                                             "cache+"}));
}

TEST(Environment, NamesSignsAndPlacement) {
  std::string Error;
  auto E = parseEnvironments("sys,rand+,cache-:spread2", true, Error);
  ASSERT_TRUE(E) << Error;
  ASSERT_EQ(E->size(), 3u);
  EXPECT_EQ((*E)[0], (Environment{StressKind::Sys, true, 0}));
  EXPECT_EQ((*E)[1], (Environment{StressKind::Rand, true, 0}));
  EXPECT_EQ((*E)[2], (Environment{StressKind::Cache, false, 2}));
  EXPECT_EQ((*E)[2].name(), "cache-:spread2");
  auto F = parseEnvironments("none", false, Error);
  ASSERT_TRUE(F);
  EXPECT_FALSE((*F)[0].Randomise);
}

TEST(Environment, Errors) {
  std::string Error;
  EXPECT_FALSE(parseEnvironments("sys,bogus+", false, Error));
  EXPECT_NE(Error.find("unknown environment 'bogus+'"), std::string::npos);
  EXPECT_FALSE(parseEnvironments("sys+:spread0", false, Error));
  EXPECT_NE(Error.find("unknown placement 'spread0'"), std::string::npos);
  EXPECT_FALSE(parseEnvironments("sys+:spread1x", false, Error));
  EXPECT_FALSE(parseEnvironments("sys+:pack", false, Error));
  EXPECT_FALSE(parseEnvironments(",,", false, Error));
  EXPECT_NE(Error.find("no environment"), std::string::npos);
}

TEST(Environment, LibraryVariables) {
  StressKnobs K;
  std::string E;
  ASSERT_TRUE(harness::parseStressSeq("ld0 st0 st1", K.Sys.Seq, E)) << E;
  K.Sys.Locs = 4;
  K.Sys.Patch = 32;
  K.KeepIds = {"a", "b"};
  K.MaxStressMs = 1500;
  auto V = libraryVariables({StressKind::Cache, true, 1}, K, 42);
  auto Has = [&](const std::string &S) {
    return std::find(V.begin(), V.end(), S) != V.end();
  };
  EXPECT_TRUE(Has("INCANT_STRESS=cache"));
  EXPECT_TRUE(Has("INCANT_RANDOMISE=1"));
  EXPECT_TRUE(Has("INCANT_SEED=42"));
  // ld = 1, st = 2, two bits per access, first access lowest.
  EXPECT_TRUE(Has("INCANT_STRESS_PATTERN=" + std::to_string(1 | 2 << 2 | 2 << 4)));
  EXPECT_TRUE(Has("INCANT_STRESS_LINES=4"));
  EXPECT_TRUE(Has("INCANT_STRESS_PATCH=32"));
  EXPECT_TRUE(Has("INCANT_STRESS_MAX_MS=1500"));
  EXPECT_TRUE(Has("INCANT_SPREAD=1"));
  EXPECT_TRUE(Has("INCANT_RANDOMISE_SKIP=a,b"));
}

TEST(Environment, SysFromProfile) {
  harness::Incantations Inc;
  std::string E;
  ASSERT_TRUE(harness::parseStressSeq("ld0", Inc.StressSeq, E));
  Inc.StressLocs = 1;
  Inc.StressPatch = 32;
  SysStress S = sysStressFrom(Inc);
  EXPECT_EQ(S.Seq.size(), 1u);
  EXPECT_FALSE(S.Seq[0].IsStore);
  EXPECT_EQ(S.Locs, 1u);
  EXPECT_EQ(S.Patch, 32u);
}

} // namespace
