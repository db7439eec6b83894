//===- StopSignalsTest.cpp - SIGTERM and SIGINT as a request to stop ------===//
#include "incant/Support/StopSignals.h"

#include <gtest/gtest.h>

using namespace incant;

namespace {

void (*handlerOf(int Sig))(int) {
  struct sigaction A {};
  sigaction(Sig, nullptr, &A);
  return A.sa_handler;
}

TEST(StopSignals, TheFirstSignalSetsTheFlagAndTheProcessGoesOn) {
  void (*Before)(int) = handlerOf(SIGTERM);
  {
    StopSignals S;
    EXPECT_FALSE(S.requested());
    EXPECT_EQ(S.signal(), 0);
    EXPECT_STREQ(S.name(), "");
    raise(SIGTERM);
    EXPECT_TRUE(S.requested());
    EXPECT_EQ(S.signal(), SIGTERM);
    EXPECT_STREQ(S.name(), "SIGTERM");
    // The next SIGTERM would end the process: the default action is back.
    EXPECT_EQ(handlerOf(SIGTERM), SIG_DFL);
  }
  EXPECT_EQ(handlerOf(SIGTERM), Before);
}

TEST(StopSignals, AnIgnoredSignalStaysIgnored) {
  struct sigaction Ign {}, Old{};
  Ign.sa_handler = SIG_IGN;
  sigaction(SIGINT, &Ign, &Old);
  {
    StopSignals S;
    EXPECT_EQ(handlerOf(SIGINT), SIG_IGN);
    raise(SIGINT);
    EXPECT_FALSE(S.requested());
  }
  EXPECT_EQ(handlerOf(SIGINT), SIG_IGN);
  sigaction(SIGINT, &Old, nullptr);
}

TEST(StopSignals, EachObjectStartsAfresh) {
  {
    StopSignals S;
    raise(SIGINT);
    EXPECT_STREQ(S.name(), "SIGINT");
  }
  StopSignals S;
  EXPECT_FALSE(S.requested());
}

} // namespace
