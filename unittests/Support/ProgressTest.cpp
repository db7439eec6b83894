#include "incant/Support/Progress.h"

#include <gtest/gtest.h>
#include <sstream>
#include <thread>

using namespace incant;

TEST(ProgressLine, NothingOffATerminal) {
  std::ostringstream OS;
  {
    ProgressLine P(OS, /*Terminal=*/false, 0);
    EXPECT_FALSE(P.due());
    P.update([] { return std::string("working"); });
  }
  EXPECT_EQ(OS.str(), "");
}

TEST(ProgressLine, NothingDuringTheDelay) {
  std::ostringstream OS;
  ProgressLine P(OS, true, 3600);
  bool Called = false;
  P.update([&] {
    Called = true;
    return std::string("working");
  });
  EXPECT_FALSE(Called);
  EXPECT_EQ(OS.str(), "");
}

TEST(ProgressLine, RewrittenInPlaceAndErased) {
  std::ostringstream OS;
  {
    ProgressLine P(OS, true, 0);
    P.update([] { return std::string("check: 12 candidates"); });
    EXPECT_EQ(OS.str(), "\rcheck: 12 candidates");
    // At most ten lines a second.
    EXPECT_FALSE(P.due());
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    P.update([] { return std::string("check: 9"); });
  }
  EXPECT_EQ(OS.str(), "\rcheck: 12 candidates\rcheck: 9            "
                      "\r                    \r");
}
