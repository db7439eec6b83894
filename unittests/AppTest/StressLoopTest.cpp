//===- StressLoopTest.cpp - `incant stress` against a fake program --------===//
//
// The run loop, verdicts, statistics and output, with incant-fakeapp
// (FakeApp.cpp) standing in for an application: it fails exactly when its
// run's seed hashes below a rate, hangs, crashes, or prints what it was
// given. The injected library is loaded into it as into any program (it
// sees no CUDA and reports no launches).
//
//===----------------------------------------------------------------------===//
#include "incant/Commands/StressCommand.h"
#include "FakeAppCommand.h"
#include "incant/AppTest/StressStore.h"
#include "incant/Support/Hash.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <unistd.h>

using namespace incant;
using namespace incant::apptest;

namespace {

struct Outcome {
  int Rc;
  nlohmann::json J;
  std::string Err;
};

Outcome run(const StressCommand &Cmd) {
  std::ostringstream Out, Err;
  int Rc = runStress(Cmd, Out, Err);
  nlohmann::json J = nlohmann::json::parse(Out.str(), nullptr, false);
  return {Rc, J, Err.str()};
}

/// How many of \p Runs runs of \p Env fail with rate \p P (the fake app's
/// rule applied to the loop's seeds).
uint64_t expectedFailures(uint64_t Seed, const std::string &Env, uint64_t Runs,
                          unsigned P) {
  uint64_t N = 0;
  for (uint64_t I = 0; I < Runs; ++I) {
    uint64_t S = fnv1a64(fmt::format("{}/{}/{}", Seed, Env, I));
    N += fnv1a64(std::to_string(S)) % 100 < P;
  }
  return N;
}

TEST(StressLoop, FailuresAtAKnownRate) {
  StressCommand Cmd = fakeAppCommand({"rate", "30"});
  Cmd.Envs = "none-,sys+";
  Cmd.Runs = 60;
  Outcome O = run(Cmd);
  ASSERT_FALSE(O.J.is_discarded()) << O.Err;
  ASSERT_EQ(O.J["environments"].size(), 2u);
  uint64_t Total = 0;
  for (const auto &E : O.J["environments"]) {
    std::string Env = E["env"];
    uint64_t Want = expectedFailures(1, Env, 60, 30);
    EXPECT_EQ(E["runs"], 60u);
    EXPECT_EQ(E["fail"], Want) << Env;
    EXPECT_EQ(E["failures"], Want);
    EXPECT_EQ(E["hang"], 0u);
    EXPECT_EQ(E["crash"], 0u);
    harness::Proportion P = harness::wilson(Want, 60);
    EXPECT_DOUBLE_EQ(E["rate"].get<double>(), P.Rate);
    EXPECT_DOUBLE_EQ(E["low"].get<double>(), P.Low);
    EXPECT_DOUBLE_EQ(E["high"].get<double>(), P.High);
    // The library was loaded and reported, and saw no kernel launch.
    EXPECT_EQ(E["unreported"], 0u);
    EXPECT_EQ(E["launches"], 0u);
    Total += Want;
  }
  ASSERT_GT(Total, 0u); // the seeds do make some runs fail
  EXPECT_EQ(O.Rc, 1);
}

TEST(StressLoop, SameSeedSameRuns) {
  StressCommand Cmd = fakeAppCommand({"rate", "50"});
  Cmd.Runs = 20;
  Outcome A = run(Cmd), B = run(Cmd);
  EXPECT_EQ(A.J["environments"][0]["fail"], B.J["environments"][0]["fail"]);
  EXPECT_EQ(A.J["environments"][0]["fail"], expectedFailures(1, "sys-", 20, 50));
  Cmd.Seed = 7;
  Outcome C = run(Cmd);
  EXPECT_EQ(C.J["environments"][0]["fail"], expectedFailures(7, "sys-", 20, 50));
}

TEST(StressLoop, HangsAndCrashes) {
  StressCommand Hang = fakeAppCommand({"hang"});
  Hang.Runs = 2;
  Hang.Timeout = 0.3;
  Outcome H = run(Hang);
  EXPECT_EQ(H.Rc, 1);
  EXPECT_EQ(H.J["environments"][0]["hang"], 2u);
  EXPECT_EQ(H.J["environments"][0]["failures"], 2u);
  StressCommand Crash = fakeAppCommand({"crash"});
  Crash.Runs = 3;
  Outcome C = run(Crash);
  EXPECT_EQ(C.Rc, 1);
  EXPECT_EQ(C.J["environments"][0]["crash"], 3u);
}

TEST(StressLoop, PostConditions) {
  StressCommand Ok = fakeAppCommand({"print", "hello world"});
  Ok.Runs = 3;
  Ok.ExpectStdout = "hel+o w";
  EXPECT_EQ(run(Ok).Rc, 0);
  Ok.ExpectStdout = "^bye";
  Outcome Wrong = run(Ok);
  EXPECT_EQ(Wrong.Rc, 1);
  EXPECT_EQ(Wrong.J["environments"][0]["fail"], 3u);

  StressCommand Exit = fakeAppCommand({"exit", "3"});
  Exit.Runs = 2;
  Exit.ExpectExit = 3;
  EXPECT_EQ(run(Exit).Rc, 0);
  Exit.ExpectExit.reset();
  EXPECT_EQ(run(Exit).Rc, 1);

  StressCommand Check = fakeAppCommand({"print", "all good"});
  Check.Runs = 2;
  Check.Check = "grep -q good \"$INCANT_APP_STDOUT\" && test \"$INCANT_APP_EXIT\" = 0";
  EXPECT_EQ(run(Check).Rc, 0);
  Check.Check = "grep -q bad \"$INCANT_APP_STDOUT\"";
  EXPECT_EQ(run(Check).Rc, 1);
}

TEST(StressLoop, TheEnvironmentReachesTheProgram) {
  StressCommand Cmd = fakeAppCommand({"env"});
  Cmd.Envs = "cache+:spread2";
  Cmd.Runs = 1;
  Cmd.ExpectStdout = "INCANT_STRESS=cache";
  EXPECT_EQ(run(Cmd).Rc, 0);
  Cmd.ExpectStdout = "INCANT_RANDOMISE=1";
  EXPECT_EQ(run(Cmd).Rc, 0);
  Cmd.ExpectStdout = "INCANT_SPREAD=2";
  EXPECT_EQ(run(Cmd).Rc, 0);
  Cmd.ExpectStdout = "LD_PRELOAD=" + std::string(INCANT_INJECT_LIB);
  EXPECT_EQ(run(Cmd).Rc, 0);
}

TEST(StressLoop, TimeBudget) {
  StressCommand Cmd = fakeAppCommand({"exit", "0"});
  Cmd.Time = "0.3s";
  Outcome O = run(Cmd);
  EXPECT_EQ(O.Rc, 0);
  EXPECT_GT(O.J["environments"][0]["runs"].get<uint64_t>(), 0u);
  EXPECT_GE(O.J["environments"][0]["seconds"].get<double>(), 0.3);
}

TEST(StressLoop, BadInput) {
  StressCommand Missing = fakeAppCommand({});
  Missing.Argv = {"/nonexistent/app"};
  Outcome M = run(Missing);
  EXPECT_EQ(M.Rc, 2);
  EXPECT_NE(M.Err.find("no such program: /nonexistent/app"), std::string::npos);

  StressCommand NotOurs = fakeAppCommand({"exit", "0"});
  NotOurs.NoBuildCheck = false;
  Outcome N = run(NotOurs);
  EXPECT_EQ(N.Rc, 2);
  EXPECT_NE(N.Err.find("was not built through incant"), std::string::npos);

  StressCommand Broken = fakeAppCommand({"exit", "0"});
  Broken.Runs = 1;
  Broken.Check = "exit 9";
  Outcome B = run(Broken);
  EXPECT_EQ(B.Rc, 2);
  EXPECT_NE(B.Err.find("the check command `exit 9` failed"), std::string::npos);

  StressCommand Env = fakeAppCommand({"exit", "0"});
  Env.Envs = "warm+";
  EXPECT_EQ(run(Env).Rc, 2);
  StressCommand Re = fakeAppCommand({"exit", "0"});
  Re.ExpectStdout = "(";
  EXPECT_EQ(run(Re).Rc, 2);
  StressCommand T = fakeAppCommand({"exit", "0"});
  T.Time = "soon";
  EXPECT_EQ(run(T).Rc, 2);
  StressCommand Lib = fakeAppCommand({"exit", "0"});
  Lib.InjectLibrary = "/nonexistent/libincant-inject.so";
  Outcome L = run(Lib);
  EXPECT_EQ(L.Rc, 3); // incant's own part is missing, not the input
  EXPECT_NE(L.Err.find("injected library"), std::string::npos);
}

TEST(StressLoop, Store) {
  std::string Db = ::testing::TempDir() + "/stress-" + std::to_string(getpid()) +
                   ".sqlite";
  std::filesystem::remove(Db);
  StressCommand Cmd = fakeAppCommand({"rate", "30"});
  Cmd.Runs = 5;
  Cmd.Db = Db;
  Outcome O = run(Cmd);
  std::string Error;
  auto S = StressStore::open(Db, Error);
#ifdef INCANT_HAVE_SQLITE_TEST
  ASSERT_TRUE(S) << Error;
#endif
  if (!S) {
    EXPECT_EQ(O.Rc, 2);
    EXPECT_NE(O.Err.find("without SQLite"), std::string::npos) << O.Err;
    return;
  }
  std::string App = std::string(INCANT_FAKEAPP) + " rate 30";
  EXPECT_EQ(S->count(App, "sys-"), 5u);
  // A second invocation adds its runs (after this one lets go: one writer
  // per database at a time).
  S.reset();
  run(Cmd);
  S = StressStore::open(Db, Error);
  ASSERT_TRUE(S) << Error;
  EXPECT_EQ(S->count(App, "sys-"), 10u);
  S.reset(); // closed first, so that its -wal and -shm go with it
  for (const char *Ext : {"", "-wal", "-shm"})
    std::filesystem::remove(Db + Ext);
}

} // namespace
