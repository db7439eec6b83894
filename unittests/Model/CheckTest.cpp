//===- CheckTest.cpp - Tests of traces, candidate executions and check ----===//
#include "incant/Cat/Model.h"
#include "incant/Cat/Primitives.h"
#include "incant/Model/Check.h"
#include "incant/Model/Executions.h"
#include "incant/Model/Traces.h"
#include "incant/Testing/Programs.h"

#include <chrono>
#include <set>
#include <gtest/gtest.h>

using namespace incant;
using namespace incant::model;
using namespace incant::handbuilt;
using litmus::Op;
using litmus::Operand;
using litmus::AluOp;
using litmus::CmpOp;
using litmus::FenceKind;
using litmus::RmwOp;
using litmus::Scope;
using litmus::Value;

namespace {

/// A cat model from text.
std::optional<cat::Model> catModel(const std::string &Text) {
  DiagnosticEngine Diags;
  auto F = std::make_shared<SourceFile>("test.cat", Text);
  return cat::Model::parse(F, Diags);
}

const char *const ScCat = R"("SC"
acyclic po | rf | co | fr as sc
empty rmw & (fre ; coe) as atomic
)";
const char *const NoneCat = R"("none"
let nothing = 0
)";

Value iv(int64_t V) { return Value{-1, V}; }

/// SB: T0: x=1; r0=y   T1: y=1; r0=x.
litmus::Program sb() {
  litmus::Program P;
  P.Name = "SB";
  int X = addLoc(P, "x"), Y = addLoc(P, "y");
  {
    ThreadBuilder T = addThread(P, {0, 0, 0, 0});
    int R0 = T.reg("r0");
    T.st(A(X), I(1));
    T.ld(R0, A(Y));
  }
  {
    ThreadBuilder T = addThread(P, {0, 0, 1, 0});
    int R0 = T.reg("r0");
    T.st(A(Y), I(1));
    T.ld(R0, A(X));
  }
  P.Q = litmus::Quantifier::Exists;
  P.Condition = both(regEq(0, 0, 0), regEq(1, 0, 0));
  P.Observe = {{0, 0}, {1, 0}};
  return P;
}

TEST(CheckTest, SBUnderSCNeverBothZero) {
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  CheckResult R = check(sb(), *M);
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Positive, 0u);
  EXPECT_EQ(R.Negative, 3u);
  ASSERT_EQ(R.States.size(), 3u);
  EXPECT_EQ(R.States[0].Values, (std::vector<Value>{iv(0), iv(1)}));
  EXPECT_EQ(R.States[1].Values, (std::vector<Value>{iv(1), iv(0)}));
  EXPECT_EQ(R.States[2].Values, (std::vector<Value>{iv(1), iv(1)}));
  EXPECT_EQ(R.Candidates, 4u);
  EXPECT_FALSE(R.Incomplete);
}

TEST(CheckTest, SBWithoutChecksShowsBothZero) {
  auto M = catModel(NoneCat);
  ASSERT_TRUE(M);
  CheckResult R = check(sb(), *M);
  EXPECT_TRUE(R.Ok);
  EXPECT_EQ(R.Positive, 1u);
  EXPECT_EQ(R.Negative, 3u);
  ASSERT_EQ(R.States.size(), 4u);
  EXPECT_TRUE(R.States[0].Satisfies);
  EXPECT_EQ(R.States[0].Executions, 1u);
  EXPECT_FALSE(R.States[1].Satisfies);
}

TEST(CheckTest, Quantifiers) {
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  litmus::Program P = sb();
  P.Q = litmus::Quantifier::NotExists;
  EXPECT_TRUE(check(P, *M).Ok);
  P.Q = litmus::Quantifier::Forall;
  EXPECT_FALSE(check(P, *M).Ok);
  P.Condition = litmus::Cond{}; // true
  EXPECT_TRUE(check(P, *M).Ok);
}

TEST(CheckTest, MaxCandidatesMarksIncomplete) {
  auto M = catModel(NoneCat);
  ASSERT_TRUE(M);
  CheckOptions O;
  O.MaxCandidates = 2;
  CheckResult R = check(sb(), *M, O);
  EXPECT_EQ(R.Candidates, 2u);
  EXPECT_TRUE(R.Incomplete);
}

/// An SB ring of \p N threads: thread i stores 1 to x_i, then reads
/// x_{i+1}; 2^N candidates under a model that allows everything.
litmus::Program sbRing(int N) {
  litmus::Program P;
  P.Name = "SB-ring";
  std::vector<int> X;
  for (int K = 0; K != N; ++K)
    X.push_back(addLoc(P, "x" + std::to_string(K)));
  for (int K = 0; K != N; ++K) {
    ThreadBuilder T = addThread(P, {0, 0, K, 0});
    int R0 = T.reg("r0");
    T.st(A(X[K]), I(1));
    T.ld(R0, A(X[(K + 1) % N]));
    P.Observe.push_back({K, 0});
  }
  P.Q = litmus::Quantifier::Exists;
  P.Condition = regEq(0, 0, 0);
  return P;
}

TEST(CheckTest, MaxStepsBoundsTheSearch) {
  auto M = catModel(NoneCat);
  ASSERT_TRUE(M);
  CheckOptions O;
  O.MaxSteps = 1000;
  CheckResult R = check(sbRing(64), *M, O);
  EXPECT_TRUE(R.Incomplete);
  EXPECT_TRUE(R.StoppedByCaller);
  EXPECT_EQ(R.Steps, 1000u);
  EXPECT_EQ(R.IncompleteReason,
            "stopped after 1000 steps (trace combinations, rf, co and "
            "Fence-SC choices, and candidate executions)");
}

TEST(CheckTest, TimeLimitBoundsTheSearch) {
  auto M = catModel(NoneCat);
  ASSERT_TRUE(M);
  CheckOptions O;
  O.MaxSteps = 0;
  O.TimeLimit = 0.2;
  uint64_t Calls = 0;
  O.Progress = [&](uint64_t Steps, uint64_t) {
    EXPECT_EQ(Steps % 1024, 0u);
    ++Calls;
  };
  auto Start = std::chrono::steady_clock::now();
  CheckResult R = check(sbRing(40), *M, O);
  double S = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                           Start)
                 .count();
  EXPECT_TRUE(R.Incomplete);
  EXPECT_EQ(R.IncompleteReason, "stopped at the time limit of 0.2s");
  EXPECT_LT(S, 30.0); // generous: the machine may be loaded
  EXPECT_GT(Calls, 0u); // progress comes before the clock is checked
}

TEST(CheckTest, DefaultOptionsAreBounded) {
  CheckOptions O;
  EXPECT_GT(O.MaxSteps, 0u);
  EXPECT_GT(O.TimeLimit, 0.0);
}

/// Collects the pairs of a named relation over all candidates, as
/// (thread, event index in trace) pairs, de-duplicated.
struct Pair {
  int FromThread, FromOp, ToThread, ToOp;
  friend bool operator==(const Pair &, const Pair &) = default;
};

std::vector<Pair> pairsOf(const litmus::Program &P, const char *Name) {
  std::vector<Pair> Out;
  forEachCandidate(P, {}, {}, [&](const Candidate &C) {
    const cat::Relation *Rel = C.execution().relation(Name);
    EXPECT_NE(Rel, nullptr) << Name;
    if (!Rel)
      return false;
    for (unsigned A = 0; A < C.numEvents(); ++A)
      for (unsigned B = 0; B < C.numEvents(); ++B)
        if (Rel->contains(A, B)) {
          const EventRef &EA = C.event(A), &EB = C.event(B);
          Pair Pr{EA.Thread, EA.E ? EA.E->OpIndex : -1, EB.Thread,
                  EB.E ? EB.E->OpIndex : -1};
          if (std::find(Out.begin(), Out.end(), Pr) == Out.end())
            Out.push_back(Pr);
        }
    return true;
  });
  return Out;
}

TEST(CheckTest, DataDependency) {
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y");
  ThreadBuilder T = addThread(P);
  int R0 = T.reg("r0"), R1 = T.reg("r1");
  T.ld(R0, A(X));                   // 0
  T.alu(AluOp::Add, R1, {R(R0), I(1)}); // 1
  T.st(A(Y), R(R1));                // 2
  T.st(A(X), I(5));                 // 3: no dependency
  EXPECT_EQ(pairsOf(P, "data"), (std::vector<Pair>{{0, 0, 0, 2}}));
  EXPECT_TRUE(pairsOf(P, "addr").empty());
  EXPECT_TRUE(pairsOf(P, "ctrl").empty());
}

TEST(CheckTest, FalseAddressDependencyStillCounts) {
  // The thesis's false dependency: r2 = r1 & 0; the address is x + r2.
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y");
  ThreadBuilder T = addThread(P);
  int R1 = T.reg("r1"), R2 = T.reg("r2"), R3 = T.reg("r3", 64),
      R4 = T.reg("r4");
  T.ld(R1, A(Y));                          // 0
  T.alu(AluOp::And, R2, {R(R1), I(0)});    // 1
  T.alu(AluOp::Mov, R3, {A(X)}, 64);       // 2
  T.alu(AluOp::Add, R3, {R(R3), R(R2)}, 64); // 3
  T.ld(R4, R(R3));                         // 4
  EXPECT_EQ(pairsOf(P, "addr"), (std::vector<Pair>{{0, 0, 0, 4}}));
  EXPECT_TRUE(pairsOf(P, "data").empty());
}

TEST(CheckTest, ControlDependencyCoversLaterEvents) {
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y"), Z = addLoc(P, "z");
  ThreadBuilder T = addThread(P);
  int R0 = T.reg("r0"), Pr = T.reg("p", 1);
  T.ld(R0, A(X));                        // 0
  T.setp(CmpOp::Eq, Pr, R(R0), I(1));    // 1
  T.bra(3, Pr);                          // 2
  T.st(A(Y), I(1));                      // 3
  T.st(A(Z), I(1));                      // 4
  // x only ever holds 0 here, so one trace; both stores follow the branch.
  std::vector<Pair> Ctrl = pairsOf(P, "ctrl");
  EXPECT_EQ(Ctrl, (std::vector<Pair>{{0, 0, 0, 3}, {0, 0, 0, 4}}));
}

TEST(CheckTest, PredicatedInstructionHasControlDependency) {
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y");
  ThreadBuilder T = addThread(P);
  int R0 = T.reg("r0"), Pr = T.reg("p", 1);
  T.ld(R0, A(X));                     // 0
  T.setp(CmpOp::Eq, Pr, R(R0), I(0)); // 1
  T.st(A(Y), I(1)).GuardReg = Pr;     // 2
  EXPECT_EQ(pairsOf(P, "ctrl"), (std::vector<Pair>{{0, 0, 0, 2}}));
}

TEST(CheckTest, CasSuccessAndFailure) {
  litmus::Program P;
  int X = addLoc(P, "x");
  {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0");
    T.rmw(RmwOp::Cas, R0, A(X), {I(0), I(1)});
  }
  {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0");
    T.rmw(RmwOp::Cas, R0, A(X), {I(0), I(2)});
  }
  TraceSet TS = computeTraces(P, {});
  EXPECT_EQ(TS.Values[0], (std::vector<Value>{iv(0), iv(1), iv(2)}));
  // Thread 0: reads 0 and writes 1; or reads T1's 2 and fails (read only).
  ASSERT_EQ(TS.Threads[0].size(), 2u);
  unsigned Successes = 0;
  for (const Trace &Tr : TS.Threads[0]) {
    ASSERT_GE(Tr.Events.size(), 1u);
    EXPECT_EQ(Tr.Events[0].K, EventKind::Read);
    EXPECT_TRUE(Tr.Events[0].Atom);
    if (Tr.Events[0].V == iv(0)) {
      ASSERT_EQ(Tr.Events.size(), 2u);
      EXPECT_EQ(Tr.Events[1].K, EventKind::Write);
      EXPECT_EQ(Tr.Events[1].V, iv(1));
      EXPECT_EQ(Tr.Events[1].RmwRead, 0);
      ++Successes;
    } else {
      EXPECT_EQ(Tr.Events.size(), 1u);
    }
  }
  EXPECT_EQ(Successes, 1u);
  // Under SC with atomicity exactly one CAS succeeds.
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  P.Observe = {{0, 0}, {1, 0}, {-1, X}};
  CheckResult R = check(P, *M);
  ASSERT_EQ(R.States.size(), 2u);
  // T0 wins (reads 0, x=1) and T1 then fails reading 1; or the reverse.
  EXPECT_EQ(R.States[0].Values, (std::vector<Value>{iv(0), iv(1), iv(1)}));
  EXPECT_EQ(R.States[1].Values, (std::vector<Value>{iv(2), iv(0), iv(2)}));
  // rmw relates the read and write halves.
  std::vector<Pair> Rmw = pairsOf(P, "rmw");
  EXPECT_NE(std::find(Rmw.begin(), Rmw.end(), Pair{0, 0, 0, 0}), Rmw.end());
}

TEST(CheckTest, UnrollBoundsLoops) {
  // T0: L: r0 = x; if r0 == 0 goto L.   T1: x = 1.
  litmus::Program P;
  int X = addLoc(P, "x");
  {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0"), Pr = T.reg("p", 1);
    T.ld(R0, A(X));
    T.setp(CmpOp::Eq, Pr, R(R0), I(0));
    T.bra(0, Pr);
  }
  {
    ThreadBuilder T = addThread(P);
    T.st(A(X), I(1));
  }
  for (unsigned U : {0u, 1u, 2u, 5u}) {
    TraceOptions O;
    O.Unroll = U;
    TraceSet TS = computeTraces(P, O);
    // Reads of 0 (U of them at most) then a read of 1.
    EXPECT_EQ(TS.Threads[0].size(), U + 1) << "unroll " << U;
    for (const Trace &Tr : TS.Threads[0])
      EXPECT_EQ(Tr.Events.back().V, iv(1));
  }
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  P.Observe = {{0, 0}};
  CheckResult R = check(P, *M);
  ASSERT_EQ(R.States.size(), 1u);
  EXPECT_EQ(R.States[0].Values, std::vector<Value>{iv(1)});
  EXPECT_EQ(R.States[0].Executions, 3u); // 0, 1 or 2 reads of 0 first
}

TEST(CheckTest, FinalStateIsCoLast) {
  litmus::Program P;
  int X = addLoc(P, "x");
  for (int V : {1, 2}) {
    ThreadBuilder T = addThread(P);
    T.st(A(X), I(V));
  }
  P.Observe = {{-1, X}};
  P.Condition = locEq(X, 2);
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  CheckResult R = check(P, *M);
  EXPECT_EQ(R.Candidates, 2u);
  ASSERT_EQ(R.States.size(), 2u);
  EXPECT_EQ(R.States[0].Values, std::vector<Value>{iv(1)});
  EXPECT_EQ(R.States[1].Values, std::vector<Value>{iv(2)});
  EXPECT_EQ(R.Positive, 1u);
  EXPECT_EQ(R.Negative, 1u);
}

TEST(CheckTest, ArithmeticWrapsAtTheOpWidth) {
  litmus::Program P;
  int X = addLoc(P, "x");
  ThreadBuilder T = addThread(P);
  int R0 = T.reg("r0"), R1 = T.reg("r1", 32, false);
  T.alu(AluOp::Add, R0, {I(0x7fffffff), I(1)});
  T.alu(AluOp::Sub, R1, {I(0), I(1)}, 32, false);
  T.st(A(X), R(R1)).Signed = false;
  TraceSet TS = computeTraces(P, {});
  ASSERT_EQ(TS.Threads[0].size(), 1u);
  EXPECT_EQ(TS.Threads[0][0].FinalRegs[0], iv(INT32_MIN));
  EXPECT_EQ(TS.Threads[0][0].FinalRegs[1], iv(0xffffffff));
  EXPECT_EQ(TS.Values[0], (std::vector<Value>{iv(0), iv(0xffffffff)}));
  // The condition may write -1 for the unsigned register.
  P.Observe = {{0, 1}, {-1, X}};
  P.Condition = both(regEq(0, 1, -1), locEq(X, -1));
  auto M = catModel(NoneCat);
  ASSERT_TRUE(M);
  EXPECT_TRUE(check(P, *M).Ok);
}

TEST(CheckTest, AccessOffALocationDropsTheTrace) {
  litmus::Program P;
  int X = addLoc(P, "x");
  ThreadBuilder T = addThread(P);
  int R0 = T.reg("r0", 64), R1 = T.reg("r1");
  T.alu(AluOp::Add, R0, {A(X), I(4)}, 64);
  T.ld(R1, R(R0));
  TraceSet TS = computeTraces(P, {});
  EXPECT_TRUE(TS.Threads[0].empty());
  auto M = catModel(NoneCat);
  ASSERT_TRUE(M);
  CheckResult R = check(P, *M);
  EXPECT_EQ(R.Candidates, 0u);
  EXPECT_TRUE(R.States.empty());
}

TEST(CheckTest, PointerLoadedFromMemory) {
  // x holds the address of y; T0 reads x and then through it.
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y", 7);
  P.Locs[X].Init = Value{Y, 0};
  ThreadBuilder T = addThread(P);
  int R0 = T.reg("r0", 64), R1 = T.reg("r1");
  T.ld(R0, A(X));
  T.ld(R1, R(R0));
  TraceSet TS = computeTraces(P, {});
  ASSERT_EQ(TS.Threads[0].size(), 1u);
  EXPECT_EQ(TS.Threads[0][0].FinalRegs[1], iv(7));
  EXPECT_EQ(TS.Threads[0][0].Events[1].Addr, 1u);
}

TEST(CheckTest, OwnLaterWritesAreNotGuessed) {
  // r = x; x = r + 1 alone: the read cannot see its own later write, so x
  // holds 0 or 1, not an ever-growing set.
  litmus::Program P;
  int X = addLoc(P, "x");
  ThreadBuilder T = addThread(P);
  int R0 = T.reg("r0");
  T.ld(R0, A(X));
  T.alu(AluOp::Add, R0, {R(R0), I(1)});
  T.st(A(X), R(R0));
  TraceSet TS = computeTraces(P, {});
  EXPECT_FALSE(TS.Incomplete);
  EXPECT_EQ(TS.Values[0], (std::vector<Value>{iv(0), iv(1)}));
  EXPECT_EQ(TS.Threads[0].size(), 1u);
}

TEST(CheckTest, IncrementsStopAtTheWriteBound) {
  // Two threads incrementing x guess ever larger values, but no execution
  // has more than two writes, so two rounds find every value: 0, 1, 2.
  litmus::Program P;
  int X = addLoc(P, "x");
  for (int K = 0; K < 2; ++K) {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0");
    T.rmw(RmwOp::Add, R0, A(X), {I(1)});
  }
  TraceSet TS = computeTraces(P, {});
  EXPECT_FALSE(TS.Incomplete);
  EXPECT_EQ(TS.Values[0], (std::vector<Value>{iv(0), iv(1), iv(2)}));
  // A tighter cap than the values need makes the result incomplete.
  TraceOptions O;
  O.MaxValuesPerLocation = 2;
  EXPECT_TRUE(computeTraces(P, O).Incomplete);
  // The executions are still right: x ends at 2, the threads read 0 and 1.
  P.Observe = {{0, 0}, {1, 0}, {-1, X}};
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  CheckResult R = check(P, *M);
  ASSERT_EQ(R.States.size(), 2u);
  EXPECT_EQ(R.States[0].Values, (std::vector<Value>{iv(0), iv(1), iv(2)}));
  EXPECT_EQ(R.States[1].Values, (std::vector<Value>{iv(1), iv(0), iv(2)}));
}

TEST(CheckTest, HandshakeLoopsFindTheirValues) {
  // T0: x = 1; wait for y.  T1: wait for x; y = 1. The values each loop
  // waits for come from runs of the other thread that are later dropped.
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y");
  {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0"), Pr = T.reg("p", 1);
    T.st(A(X), I(1));
    T.ld(R0, A(Y));
    T.setp(CmpOp::Eq, Pr, R(R0), I(0));
    T.bra(1, Pr);
  }
  {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0"), Pr = T.reg("p", 1);
    T.ld(R0, A(X));
    T.setp(CmpOp::Eq, Pr, R(R0), I(0));
    T.bra(0, Pr);
    T.st(A(Y), I(1));
  }
  P.Observe = {{0, 0}, {1, 0}};
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  CheckResult R = check(P, *M);
  ASSERT_EQ(R.States.size(), 1u);
  EXPECT_EQ(R.States[0].Values, (std::vector<Value>{iv(1), iv(1)}));
}

TEST(CheckTest, ScopeAndFenceRelations) {
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y");
  {
    ThreadBuilder T = addThread(P, {0, 0, 0, 0});
    T.st(A(X), I(1));                     // 0
    T.fence(FenceKind::Membar, Scope::CTA); // 1
    T.st(A(Y), I(1));                     // 2
    T.bar(0);                             // 3
  }
  {
    ThreadBuilder T = addThread(P, {0, 0, 0, 1}); // same CTA, other warp
    T.bar(0);                             // 0
  }
  {
    ThreadBuilder T = addThread(P, {0, 0, 1, 0}); // other CTA
    T.bar(0);                             // 0
  }
  EXPECT_EQ(pairsOf(P, "membar.cta"),
            (std::vector<Pair>{{0, 0, 0, 2}, {0, 0, 0, 3}}));
  EXPECT_TRUE(pairsOf(P, "membar.gl").empty());
  std::vector<Pair> Bsync = pairsOf(P, "syncbar");
  EXPECT_NE(std::find(Bsync.begin(), Bsync.end(), Pair{0, 3, 1, 0}),
            Bsync.end());
  EXPECT_EQ(std::find(Bsync.begin(), Bsync.end(), Pair{0, 3, 2, 0}),
            Bsync.end());
  std::vector<Pair> Cta = pairsOf(P, "cta");
  EXPECT_NE(std::find(Cta.begin(), Cta.end(), Pair{0, 0, 1, 0}), Cta.end());
  EXPECT_EQ(std::find(Cta.begin(), Cta.end(), Pair{0, 0, 2, 0}), Cta.end());
  std::vector<Pair> Warp = pairsOf(P, "warp");
  EXPECT_EQ(std::find(Warp.begin(), Warp.end(), Pair{0, 0, 1, 0}),
            Warp.end());
  std::vector<Pair> Gpu = pairsOf(P, "gpu");
  EXPECT_NE(std::find(Gpu.begin(), Gpu.end(), Pair{0, 0, 2, 0}), Gpu.end());
  // Initial writes are in no scope relation.
  for (const Pair &Pr : Gpu)
    EXPECT_GE(Pr.FromThread, 0);
}

TEST(CheckTest, ReadWithNoWriterPrunesTheCombination) {
  // MP under SC: T1 reading y=1 then x=0 is forbidden; reading 1 from y
  // needs T0's write, which always exists, so all 4 combinations survive.
  litmus::Program P;
  int X = addLoc(P, "x"), Y = addLoc(P, "y");
  {
    ThreadBuilder T = addThread(P);
    T.st(A(X), I(1));
    T.st(A(Y), I(1));
  }
  {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0"), R1 = T.reg("r1");
    T.ld(R0, A(Y));
    T.ld(R1, A(X));
  }
  P.Condition = both(regEq(1, 0, 1), regEq(1, 1, 0));
  P.Observe = {{1, 0}, {1, 1}};
  auto M = catModel(ScCat);
  ASSERT_TRUE(M);
  CheckResult R = check(P, *M);
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.States.size(), 3u);
  EXPECT_EQ(R.Candidates, 4u);
}

TEST(CheckTest, ReadOfTheInitialValueNeedsNoOtherWriter) {
  // T1's atom.add of 0 writes back what it read (0 or T2's 1): x=0 is then
  // also a non-initial write's value. T0 reading 0 while T1 reads 1 must
  // survive the combination pruning, which once took the read of 0 to need
  // a non-initial write of 0 and dropped it.
  litmus::Program P;
  int X = addLoc(P, "x");
  {
    ThreadBuilder T = addThread(P);
    T.ld(T.reg("r0"), A(X));
  }
  {
    ThreadBuilder T = addThread(P);
    T.rmw(RmwOp::Add, T.reg("r1"), A(X), {I(0)});
  }
  {
    ThreadBuilder T = addThread(P);
    T.st(A(X), I(1));
  }
  P.Q = litmus::Quantifier::Exists;
  P.Condition = both(regEq(0, 0, 0), regEq(1, 0, 1));
  P.Observe = {{0, 0}, {1, 0}};
  auto M = catModel(NoneCat);
  ASSERT_TRUE(M);
  EXPECT_TRUE(check(P, *M).Ok);
}

} // namespace

namespace {

TEST(CheckTest, EveryPrimitiveIsSetOnceAndFrIsDerivedFromRfCo) {
  litmus::Program P = sb();
  unsigned Seen = 0;
  forEachCandidate(P, {}, {}, [&](const Candidate &C) {
    const cat::Execution &X = C.execution();
    EXPECT_EQ(X.sets().size() + X.relations().size(),
              cat::primitiveNames().size());
    for (const cat::PrimitiveInfo &PI : cat::primitiveNames()) {
      std::string Name(PI.Name);
      EXPECT_TRUE(PI.IsSet ? X.set(Name) != nullptr
                           : X.relation(Name) != nullptr)
          << Name;
    }
    const cat::Relation &Rf = *X.relation("rf"), &Co = *X.relation("co");
    cat::Relation Fr = Rf.inverse().compose(Co);
    Fr -= cat::Relation::identity(X.numEvents());
    EXPECT_EQ(*X.relation("fr"), Fr);
    cat::Relation Rfe = Rf;
    Rfe &= *X.relation("ext");
    EXPECT_EQ(*X.relation("rfe"), Rfe);
    cat::Relation Fri = Fr;
    Fri &= *X.relation("int");
    EXPECT_EQ(*X.relation("fri"), Fri);
    // Each read reads from exactly one write, of its location and value.
    for (unsigned E = 0; E < C.numEvents(); ++E) {
      const EventRef &Ev = C.event(E);
      if (!Ev.E || Ev.E->K != EventKind::Read)
        continue;
      unsigned W = C.readsFrom(E);
      EXPECT_TRUE(Rf.contains(W, E));
      EXPECT_EQ(X.relation("rf")->inverse().row(E)[0], uint64_t(1) << W);
    }
    ++Seen;
    return true;
  });
  EXPECT_EQ(Seen, 4u);
}

} // namespace

namespace {

TEST(CheckTest, ExplodingLoopsStopAtTheWorkBound) {
  // A loop reading a location with many values and a huge unroll bound:
  // the work is bounded and the result says it is incomplete.
  litmus::Program P;
  int X = addLoc(P, "x");
  {
    ThreadBuilder T = addThread(P);
    for (int V = 1; V <= 8; ++V)
      T.st(A(X), I(V));
  }
  {
    ThreadBuilder T = addThread(P);
    int R0 = T.reg("r0");
    T.ld(R0, A(X));
    T.bra(0);
  }
  TraceOptions O;
  O.Unroll = 1000;
  O.MaxReadsPerThread = 10000;
  TraceSet TS = computeTraces(P, O);
  EXPECT_TRUE(TS.Incomplete);
}

} // namespace

namespace {

/// Four threads each store 1 to x; a fifth reads x three times. Each
/// combination where the reader reads 1 thrice has 4^3 rf choices, more
/// than the 4! coherence orders, so coherence is placed first.
litmus::Program fourWritersOneReader() {
  litmus::Program P;
  int X = addLoc(P, "x");
  for (int K = 0; K < 4; ++K) {
    ThreadBuilder T = addThread(P);
    T.st(A(X), I(1));
  }
  ThreadBuilder T = addThread(P);
  for (int K = 0; K < 3; ++K)
    T.ld(T.reg("r" + std::to_string(K)), A(X));
  return P;
}

/// The candidates of the combination where every read reads 1: distinct,
/// and as many as (co orders) x 4^3.
uint64_t countAllOnes(const CandidateShape &Shape) {
  litmus::Program P = fourWritersOneReader();
  std::set<std::pair<std::vector<unsigned>, std::vector<uint64_t>>> Seen;
  uint64_t N = 0;
  forEachCandidate(P, {}, Shape, [&](const Candidate &C) {
    for (unsigned R = 0; R != 3; ++R)
      if (C.finalReg(4, R) != iv(1))
        return true;
    const cat::Relation &Co = *C.execution().relation("co");
    // co is a strict partial order: irreflexive and transitive.
    cat::Relation Closed = Co.compose(Co);
    Closed |= Co;
    EXPECT_EQ(Closed, Co);
    std::vector<unsigned> Rf;
    std::vector<uint64_t> Rows;
    for (unsigned E = 0; E != C.numEvents(); ++E) {
      EXPECT_FALSE(Co.contains(E, E));
      Rows.push_back(Co.row(E)[0]);
      if (C.event(E).E && C.event(E).E->K == EventKind::Read)
        Rf.push_back(C.readsFrom(E));
    }
    EXPECT_TRUE(Seen.insert({Rf, Rows}).second);
    ++N;
    return true;
  });
  return N;
}

TEST(CheckTest, CoherencePlacedFirstReachesEveryOrderOnce) {
  // 24 total orders of four writes; 219 strict partial orders.
  EXPECT_EQ(countAllOnes({}), 24u * 64u);
  CandidateShape Partial;
  Partial.PartialCoherence = true;
  EXPECT_EQ(countAllOnes(Partial), 219u * 64u);
}

/// Three threads each atom.add x twice: rf and co are chosen together.
litmus::Program addChains(unsigned Threads, unsigned Adds) {
  litmus::Program P;
  int X = addLoc(P, "x");
  for (unsigned K = 0; K < Threads; ++K) {
    ThreadBuilder T = addThread(P);
    for (unsigned J = 0; J < Adds; ++J) {
      int R = T.reg("r" + std::to_string(J));
      T.rmw(RmwOp::Add, R, A(X), {I(1)});
      P.Observe.push_back({int32_t(K), R});
    }
  }
  P.Observe.push_back({-1, X});
  return P;
}

TEST(CheckTest, AtomicChainsUnderPartialCoherence) {
  // A partial-coherence model (it closes co itself) that orders every two
  // writes of a location and keeps atom atomic: the same executions as SC
  // with atomicity, each atom reading a distinct value and x ending at 6.
  auto Sc = catModel(ScCat);
  auto Partial = catModel(R"("partial"
let co = co+
let fr = rf^-1 ; co
acyclic po-loc | rf | co | fr as coherence
empty (((W * W) & loc) \ id) \ (co | co^-1) as ordered
empty rmw & (fre ; coe) as atomic
)");
  ASSERT_TRUE(Sc && Partial);
  litmus::Program P = addChains(3, 2);
  CheckResult A = check(P, *Sc), B = check(P, *Partial);
  EXPECT_FALSE(A.Incomplete);
  EXPECT_FALSE(B.Incomplete);
  // 6!/(2!2!2!) interleavings of the three threads' atoms.
  EXPECT_EQ(A.Positive + A.Negative, 90u);
  ASSERT_EQ(A.States.size(), B.States.size());
  for (size_t I = 0; I != A.States.size(); ++I) {
    EXPECT_EQ(A.States[I].Values, B.States[I].Values);
    EXPECT_EQ(A.States[I].Executions, B.States[I].Executions);
    EXPECT_EQ(A.States[I].Values.back(), iv(6));
  }
}

} // namespace
