//===- SolverTest.cpp - Answers, models, limits and MaxSAT ----------------===//
#include "incant/SMT/Solver.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace incant::smt;

namespace {

Expr i(int64_t V) { return Expr::mkInt(V); }

TEST(SMTSolver, SatWithModelAndUnsat) {
  Expr X = Expr::mkVar("sx", Sort::integer());
  Expr Y = Expr::mkVar("sy", Sort::integer());
  Solver S;
  S.add(X.ge(i(0)) && X.lt(i(10)));
  S.add((X + Y).eq(i(12)) && Y.gt(X));
  Result R = S.check();
  ASSERT_TRUE(R.isSat()) << R.str();
  std::optional<int64_t> VX = R.model().evalInt(X), VY = R.model().evalInt(Y);
  ASSERT_TRUE(VX && VY);
  EXPECT_EQ(*VX + *VY, 12);
  EXPECT_GT(*VY, *VX);
  EXPECT_EQ(R.model().evalBool(X.lt(i(10))), true);

  S.push();
  S.add(X.ge(i(6)));
  EXPECT_TRUE(S.check().isUnsat());
  S.pop();
  EXPECT_EQ(S.scopes(), 0u);
  EXPECT_TRUE(S.check().isSat());
  // Assumptions hold for one check only.
  EXPECT_TRUE(S.check({X.ge(i(6))}).isUnsat());
  EXPECT_TRUE(S.check().isSat());
  EXPECT_EQ(Result::unsat().str(), "unsat");
}

TEST(SMTSolver, BitVectorWitness) {
  // Two 32-bit thread ids whose byte offsets 4*t collide modulo 2^32.
  Expr T1 = Expr::mkVar("t1", Sort::bv(32)), T2 = Expr::mkVar("t2", Sort::bv(32));
  Expr Four = Expr::mkBV(4, 32);
  Solver S;
  S.add(T1.ne(T2));
  S.add((T1 * Four).eq(T2 * Four));
  Result R = S.check();
  ASSERT_TRUE(R.isSat());
  uint64_t A = *R.model().evalUInt(T1), B = *R.model().evalUInt(T2);
  EXPECT_NE(A, B);
  EXPECT_EQ((A * 4) & 0xFFFFFFFF, (B * 4) & 0xFFFFFFFF);
  // With the ids below 2^30 no collision exists.
  S.add(T1.ult(Expr::mkBV(1u << 30, 32)) && T2.ult(Expr::mkBV(1u << 30, 32)));
  EXPECT_TRUE(S.check().isUnsat());
}

TEST(SMTSolver, TimeoutIsUnknownNotABool) {
  // Nonlinear integer arithmetic Z3 4.8 does not decide quickly: the check
  // must come back unknown with the reason once the limit passes.
  Expr N = Expr::mkVar("n", Sort::integer()), M = Expr::mkVar("m", Sort::integer());
  Expr C1 = Expr::mkVar("c1", Sort::integer()), C2 = Expr::mkVar("c2", Sort::integer());
  Expr T1 = Expr::mkVar("u1", Sort::integer()), T2 = Expr::mkVar("u2", Sort::integer());
  Solver S(Limits{/*TimeoutMs=*/200, 0});
  S.add(N.gt(i(0)) && N.le(i(1024)) && T1.ge(i(0)) && T2.ge(i(0)) &&
        T1.lt(N) && T2.lt(N) && C1.ge(i(0)) && C2.ge(i(0)) && C1.lt(M) &&
        C2.lt(M));
  S.add(T1.ne(T2) || C1.ne(C2));
  S.add((C1 * N + T1).eq(C2 * N + T2));
  auto Start = std::chrono::steady_clock::now();
  Result R = S.check();
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              Start)
                    .count();
  // Z3 may also prove it; what matters is that a limit ends the check.
  if (R.isUnknown()) {
    EXPECT_TRUE(R.isTimeout()) << R.reason();
    EXPECT_EQ(R.str(), "unknown (timeout)");
  } else {
    EXPECT_TRUE(R.isUnsat()) << R.str();
  }
  EXPECT_LT(Secs, 30.0);
  // An interrupted check leaves later checks alone.
  Solver After;
  After.add(N.eq(i(3)));
  EXPECT_TRUE(After.check().isSat());
  EXPECT_TRUE(S.check({N.gt(i(2000))}).isUnsat());
}

TEST(SMTSolver, ResourceLimit) {
  Expr X = Expr::mkVar("rx", Sort::bv(64)), Y = Expr::mkVar("ry", Sort::bv(64));
  Solver S(Limits{0, /*ResourceLimit=*/1});
  // Factoring a 64-bit number exceeds any tiny resource limit.
  S.add((X * Y).eq(Expr::mkBV(0xF4E7D65C9B3A1C8Full, 64)) &&
        X.ugt(Expr::mkBV(1, 64)) && Y.ugt(Expr::mkBV(1, 64)));
  Result R = S.check();
  EXPECT_TRUE(R.isUnknown()) << R.str();
}

TEST(SMTSolver, WeightedMaxSat) {
  // GPURepair's shape: barrier variables, a hard clause per error trace,
  // and a soft "off" per barrier weighted by its cost.
  Expr B1 = Expr::mkVar("b1", Sort::boolean());
  Expr B2 = Expr::mkVar("b2", Sort::boolean());
  Expr B3 = Expr::mkVar("b3", Sort::boolean());
  MaxSat O;
  O.addHard(B1 || B2);  // a race that either barrier fixes
  O.addHard(B2 || B3);  // another
  O.addSoft(!B1, 1);
  O.addSoft(!B2, 5);    // a barrier in a loop costs more
  O.addSoft(!B3, 1);
  Result R = O.check();
  ASSERT_TRUE(R.isSat()) << R.str();
  EXPECT_EQ(R.cost(), 2u); // b1 and b3 (1 + 1) beat b2 (5)
  EXPECT_EQ(R.model().evalBool(B1), true);
  EXPECT_EQ(R.model().evalBool(B2), false);
  EXPECT_EQ(R.model().evalBool(B3), true);

  MaxSat Bad;
  Bad.addHard(B1);
  Bad.addHard(!B1);
  EXPECT_TRUE(Bad.check().isUnsat());
}

TEST(SMTSolver, Version) { EXPECT_FALSE(z3Version().empty()); }

} // namespace
