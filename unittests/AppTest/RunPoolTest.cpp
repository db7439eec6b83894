//===- RunPoolTest.cpp - Runs of one application, several at once ---------===//
#include "incant/AppTest/RunPool.h"
#include "FakeAppCommand.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>

using namespace incant;
using namespace incant::apptest;

namespace {

std::unique_ptr<RunPool> pool(const StressCommand &Cmd, unsigned Jobs) {
  DiagnosticEngine Diags;
  auto First = AppRunner::make(Cmd, Diags);
  EXPECT_TRUE(First);
  if (!First)
    return nullptr;
  auto P = RunPool::make(std::move(*First), Cmd, Jobs, Diags);
  EXPECT_TRUE(P);
  return P ? std::move(*P) : nullptr;
}

TEST(RunPool, EveryIndexOnceUntilABodySaysStop) {
  StressCommand Cmd = fakeAppCommand({"print", "ok"});
  for (unsigned Jobs : {1u, 4u}) {
    std::unique_ptr<RunPool> P = pool(Cmd, Jobs);
    ASSERT_TRUE(P);
    EXPECT_EQ(P->size(), Jobs);
    // One lock file for the pool, only when runs overlap.
    EXPECT_EQ(P->lockFile().empty(), Jobs == 1);
    std::mutex Mu;
    std::multiset<uint64_t> Seen;
    std::set<const AppRunner *> Runners;
    P->forEach([&](uint64_t I, AppRunner &R) {
      if (I >= 12)
        return false;
      RunRecord Rec;
      std::string Error;
      Environment None;
      EXPECT_TRUE(R.run(None, I, {}, Rec, Error)) << Error;
      std::lock_guard<std::mutex> G(Mu);
      EXPECT_EQ(Rec.V, Verdict::Pass);
      Seen.insert(I);
      Runners.insert(&R);
      return true;
    });
    std::multiset<uint64_t> Want;
    for (uint64_t I = 0; I < 12; ++I)
      Want.insert(I);
    EXPECT_EQ(Seen, Want) << "jobs " << Jobs;
    EXPECT_LE(Runners.size(), Jobs);
  }
}

TEST(RunPool, TheLockReachesTheProgram) {
  StressCommand Cmd = fakeAppCommand({"env"});
  std::unique_ptr<RunPool> P = pool(Cmd, 2);
  ASSERT_TRUE(P);
  ASSERT_FALSE(P->lockFile().empty());
  RunRecord Rec;
  std::string Error;
  Environment None;
  ASSERT_TRUE(P->first().run(None, 1, {}, Rec, Error)) << Error;
  EXPECT_NE(Rec.Stdout.find("INCANT_GPU_LOCK=" + P->lockFile()),
            std::string::npos)
      << Rec.Stdout;
}

} // namespace
