#include "incant/Support/Range.h"

#include <gtest/gtest.h>

using namespace incant;

TEST(Range, WholeNumbers) {
  std::string E;
  IntRange R{1, 1'000'000'000};
  EXPECT_EQ(parseInRange("1000", R, E), 1000u);
  EXPECT_EQ(parseInRange("007", R, E), 7u);
  // Never wrapped, converted loosely or clamped.
  for (const char *Bad : {"-1", "0", "1000000001", "99999999999999999999",
                          "0x10", " 5", "5 ", "+5", "1e3", "", "5x"}) {
    EXPECT_FALSE(parseInRange(Bad, R, E)) << Bad;
    EXPECT_EQ(E, std::string("expected a whole number from 1 to 10^9, got '") +
                     Bad + "'");
  }
  EXPECT_EQ(parseInRange("18446744073709551615", IntRange{}, E), UINT64_MAX);
  EXPECT_FALSE(parseInRange("18446744073709551616", IntRange{}, E));
}

TEST(Range, RealNumbers) {
  std::string E;
  RealRange R{0, 1e6};
  EXPECT_EQ(parseInRange("0.5", R, E), 0.5);
  EXPECT_EQ(parseInRange("1e3", R, E), 1000.0);
  for (const char *Bad : {"-5", "nan", "inf", "1e7", "", "1s", "0x1p3"})
    EXPECT_FALSE(parseInRange(Bad, R, E)) << Bad;
  EXPECT_EQ(E, "expected a number from 0 to 10^6, got '0x1p3'");
}

TEST(Range, Describe) {
  EXPECT_EQ((IntRange{0, 4096}).describe(), "0 to 4096");
  EXPECT_EQ((IntRange{0, uint64_t(1) << 24}).describe(), "0 to 2^24");
  EXPECT_EQ((IntRange{1, 10'000'000}).describe(), "1 to 10^7");
  EXPECT_EQ(IntRange{}.describe(), "0 to 2^64-1");
  EXPECT_EQ(outOfRange(IntRange{1, 64}, 100), "must be from 1 to 64, not 100");
}

TEST(Range, ALongTextIsNotEchoedWhole) {
  std::string E;
  EXPECT_FALSE(parseInRange(std::string(100000, '9'), IntRange{}, E));
  EXPECT_LT(E.size(), 200u);
}
