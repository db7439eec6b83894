//===- TuneCommandTest.cpp - Option parsing of incant tune -----------------===//
#include "incant/Commands/TuneCommand.h"

#include <chrono>
#include <gtest/gtest.h>

#include <sstream>

using namespace incant::tune;

namespace {

TEST(TuneOptions, Durations) {
  double S = -1;
  EXPECT_TRUE(parseDuration("90", S));
  EXPECT_EQ(S, 90);
  EXPECT_TRUE(parseDuration("90s", S));
  EXPECT_EQ(S, 90);
  EXPECT_TRUE(parseDuration("5m", S));
  EXPECT_EQ(S, 300);
  EXPECT_TRUE(parseDuration("2.5min", S));
  EXPECT_EQ(S, 150);
  EXPECT_TRUE(parseDuration("1h", S));
  EXPECT_EQ(S, 3600);
  for (const char *Bad : {"", "m", "5x", "-3s", "5 m", "nan", "1e9h"})
    EXPECT_FALSE(parseDuration(Bad, S)) << Bad;
}

TEST(TuneOptions, Ranges) {
  std::vector<uint32_t> V;
  std::string E;
  ASSERT_TRUE(parseRange("1,32:129:32", V, E)) << E;
  EXPECT_EQ(V, (std::vector<uint32_t>{1, 32, 64, 96, 128}));
  ASSERT_TRUE(parseRange("4:12:8", V, E));
  EXPECT_EQ(V, (std::vector<uint32_t>{4}));
  EXPECT_FALSE(parseRange("", V, E));
  EXPECT_FALSE(parseRange("1,,2", V, E));
  EXPECT_FALSE(parseRange("4:8", V, E));
  EXPECT_FALSE(parseRange("4:8:0", V, E));
  EXPECT_FALSE(parseRange("8:4:1", V, E)); // empty
  EXPECT_EQ(E, "no values in '8:4:1'");
  EXPECT_FALSE(parseRange("0:4000000:1", V, E));
  EXPECT_FALSE(parseRange("-1", V, E));
  EXPECT_FALSE(parseRange("99999999999", V, E));
  // Counted before expanding (OptionFuzzer: half a billion values, a hang).
  auto Start = std::chrono::steady_clock::now();
  EXPECT_FALSE(parseRange("4:949471947:2", V, E));
  EXPECT_EQ(E, "more than 4096 values in '4:949471947:2'");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          Start)
                .count(),
            1.0);
  ASSERT_TRUE(parseRange("0:4096:1", V, E)) << E;
  EXPECT_FALSE(parseRange("0:4096:1,5", V, E));
}

TEST(TuneOptions, BadModeIsAUsageError) {
  TuneCommand C;
  C.Mode = "fast";
  std::ostringstream Out, Err;
  EXPECT_EQ(runTune(C, Out, Err), 2);
  EXPECT_NE(Err.str().find("unknown tune mode 'fast'"), std::string::npos);
}

} // namespace
