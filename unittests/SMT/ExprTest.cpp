//===- ExprTest.cpp - SMT expressions and their constant folding ----------===//
#include "incant/SMT/Expr.h"

#include <gtest/gtest.h>

using namespace incant::smt;

namespace {

Expr i(int64_t V) { return Expr::mkInt(V); }
Expr bv(uint64_t V, unsigned B = 32) { return Expr::mkBV(V, B); }

TEST(SMTExpr, SortsAndConstants) {
  Expr X = Expr::mkVar("x", Sort::integer());
  EXPECT_TRUE(X.isInt());
  EXPECT_FALSE(X.isConst());
  EXPECT_EQ(i(-7).asInt(), -7);
  Expr B = bv(0xFFFFFFFF);
  EXPECT_TRUE(B.isBV());
  EXPECT_EQ(B.bits(), 32u);
  EXPECT_EQ(B.asUInt(), 0xFFFFFFFFu);
  EXPECT_EQ(B.asInt(), -1); // read as signed
  EXPECT_TRUE(Expr::mkBool(true).isTrue());
  EXPECT_FALSE(Expr().isValid());
  // One name and sort: one variable.
  EXPECT_TRUE(X.same(Expr::mkVar("x", Sort::integer())));
  Expr F1 = Expr::mkFreshVar("k", Sort::integer());
  Expr F2 = Expr::mkFreshVar("k", Sort::integer());
  EXPECT_FALSE(F1.same(F2));
}

TEST(SMTExpr, IntegerFolding) {
  Expr X = Expr::mkVar("x", Sort::integer());
  EXPECT_EQ((i(2) + i(3)).asInt(), 5);
  EXPECT_EQ((i(2) * i(-3)).asInt(), -6);
  EXPECT_EQ((i(2) - i(3)).asInt(), -1);
  EXPECT_EQ((-i(4)).asInt(), -4);
  EXPECT_TRUE((X + i(0)).same(X));
  EXPECT_TRUE((X * i(1)).same(X));
  EXPECT_EQ((X * i(0)).asInt(), 0);
  EXPECT_EQ((X - X).asInt(), 0);
  // Constants gather: (1 + x) + 2 has one constant.
  Expr S = Expr::mkAdd({i(1), X, i(2)});
  EXPECT_EQ(S.toString(), "(+ x 3)");
  // SMT-LIB's Euclidean division and modulus.
  EXPECT_EQ(i(-7).div(i(2)).asInt(), -4);
  EXPECT_EQ(i(-7).mod(i(2)).asInt(), 1);
  EXPECT_EQ(i(7).div(i(-2)).asInt(), -3);
  EXPECT_EQ(i(7).mod(i(-2)).asInt(), 1);
  // Division by zero is left to the solver.
  EXPECT_FALSE(i(7).div(i(0)).isConst());
  // Overflowing constants are left to Z3 (no wrap-around).
  Expr Big = i(INT64_MAX) + i(1);
  EXPECT_FALSE(Big.asInt().has_value());
  EXPECT_TRUE(i(1).lt(i(2)).isTrue());
  EXPECT_TRUE(X.le(X).isTrue());
  EXPECT_TRUE(X.lt(X).isFalse());
}

TEST(SMTExpr, BooleanFolding) {
  Expr P = Expr::mkVar("p", Sort::boolean());
  Expr Q = Expr::mkVar("q", Sort::boolean());
  Expr T = Expr::mkBool(true), F = Expr::mkBool(false);
  EXPECT_TRUE((P && T).same(P));
  EXPECT_TRUE((P && F).isFalse());
  EXPECT_TRUE((P || T).isTrue());
  EXPECT_TRUE((P || F).same(P));
  EXPECT_TRUE((!!P).same(P));
  EXPECT_TRUE((P && P).same(P));
  EXPECT_TRUE(Expr::mkAnd({}).isTrue());
  EXPECT_TRUE(Expr::mkOr({}).isFalse());
  EXPECT_TRUE(Expr::ite(T, P, Q).same(P));
  EXPECT_TRUE(Expr::ite(F, P, Q).same(Q));
  EXPECT_TRUE(Expr::ite(P, Q, Q).same(Q));
  EXPECT_TRUE(Expr::ite(P, T, F).same(P));
  EXPECT_TRUE(P.eq(P).isTrue());
  EXPECT_TRUE(i(1).eq(i(2)).isFalse());
  EXPECT_TRUE(P.eq(T).same(P));
  EXPECT_TRUE(F.implies(P).isTrue());
  // Invalid operands make invalid results, not crashes.
  EXPECT_FALSE((P && Expr()).isValid());
}

TEST(SMTExpr, BitVectorFolding) {
  EXPECT_EQ((bv(0xFFFFFFFF) + bv(1)).asUInt(), 0u); // wraps modulo 2^32
  EXPECT_EQ((bv(3) * bv(5)).asUInt(), 15u);
  EXPECT_EQ((bv(0) - bv(1)).asUInt(), 0xFFFFFFFFu);
  EXPECT_EQ(bv(0xF0).bvand(bv(0x3C)).asUInt(), 0x30u);
  EXPECT_EQ(bv(0xF0).bvor(bv(0x0F)).asUInt(), 0xFFu);
  EXPECT_EQ(bv(1).shl(bv(4)).asUInt(), 16u);
  EXPECT_EQ(bv(0x80000000).ashr(bv(31)).asUInt(), 0xFFFFFFFFu);
  EXPECT_EQ(bv(0x80000000).lshr(bv(31)).asUInt(), 1u);
  EXPECT_EQ(bv(7).udiv(bv(2)).asUInt(), 3u);
  EXPECT_EQ(bv(static_cast<uint64_t>(-7)).sdiv(bv(2)).asInt(), -3);
  EXPECT_EQ(bv(static_cast<uint64_t>(-7)).srem(bv(2)).asInt(), -1);
  EXPECT_TRUE(bv(static_cast<uint64_t>(-1)).slt(bv(0)).isTrue());
  EXPECT_TRUE(bv(static_cast<uint64_t>(-1)).ult(bv(0)).isFalse());
  EXPECT_EQ(bv(0x80, 8).sext(8).asUInt(), 0xFF80u);
  EXPECT_EQ(bv(0x80, 8).zext(8).asUInt(), 0x80u);
  EXPECT_EQ(bv(0xABCD, 16).extract(11, 4).asUInt(), 0xBCu);
  EXPECT_EQ(bv(0xAB, 8).concat(bv(0xCD, 8)).asUInt(), 0xABCDu);
  EXPECT_EQ(bv(200, 8).bv2int().asInt(), 200);
  EXPECT_EQ(i(-1).int2bv(8).asUInt(), 0xFFu);
  Expr X = Expr::mkVar("bx", Sort::bv(32));
  EXPECT_TRUE((X + bv(0)).same(X));
  EXPECT_TRUE((X * bv(1)).same(X));
  EXPECT_EQ((X * bv(0)).asUInt(), 0u);
}

} // namespace
