//===- DifferentialTest.cpp - Compiled models vs direct relation algebra --===//
//
// Random expressions are evaluated twice: as a compiled .cat model, and
// directly with the Relation API (itself checked against a naive reference
// in RelationTest). This exercises the compiler's rewrites ([S];r as a
// restriction, common subexpressions, dead code, register renumbering).
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Model.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

using namespace incant;
using namespace incant::cat;

namespace {

struct Gen {
  std::mt19937 &Rng;
  const Execution &X;
  unsigned N;

  unsigned pick(unsigned K) { return std::uniform_int_distribution<unsigned>(0, K - 1)(Rng); }

  std::pair<std::string, EventSet> set(unsigned Depth) {
    const char *Names[] = {"R", "W", "F"};
    unsigned C = Depth == 0 ? 0 : pick(6);
    switch (C) {
    case 1: {
      auto [T1, S1] = set(Depth - 1);
      auto [T2, S2] = set(Depth - 1);
      S1 |= S2;
      return {"(" + T1 + " | " + T2 + ")", S1};
    }
    case 2: {
      auto [T1, S1] = set(Depth - 1);
      auto [T2, S2] = set(Depth - 1);
      S1 -= S2;
      return {"(" + T1 + " \\ " + T2 + ")", S1};
    }
    case 3: {
      auto [T, S] = set(Depth - 1);
      return {"~" + T, S.complement()};
    }
    case 4: {
      auto [T, R] = rel(Depth - 1);
      return {"domain(" + T + ")", R.domain()};
    }
    case 5: {
      auto [T, R] = rel(Depth - 1);
      return {"range(" + T + ")", R.range()};
    }
    default: {
      const char *Nm = Names[pick(3)];
      return {Nm, *X.set(Nm)};
    }
    }
  }

  std::pair<std::string, Relation> rel(unsigned Depth) {
    const char *Names[] = {"po", "rf", "co", "loc"};
    unsigned C = Depth == 0 ? 0 : pick(13);
    auto Sub = [&] { return rel(Depth - 1); };
    switch (C) {
    case 1: {
      auto [A, RA] = Sub();
      auto [B, RB] = Sub();
      RA |= RB;
      return {"(" + A + " | " + B + ")", RA};
    }
    case 2: {
      auto [A, RA] = Sub();
      auto [B, RB] = Sub();
      RA &= RB;
      return {"(" + A + " & " + B + ")", RA};
    }
    case 3: {
      auto [A, RA] = Sub();
      auto [B, RB] = Sub();
      RA -= RB;
      return {"(" + A + " \\ " + B + ")", RA};
    }
    case 4: {
      auto [A, RA] = Sub();
      auto [B, RB] = Sub();
      return {"(" + A + " ; " + B + ")", RA.compose(RB)};
    }
    case 5: {
      auto [A, RA] = Sub();
      return {"(" + A + ")+", RA.transitiveClosure()};
    }
    case 6: {
      auto [A, RA] = Sub();
      return {"(" + A + ")*", RA.reflexiveTransitiveClosure()};
    }
    case 7: {
      auto [A, RA] = Sub();
      return {"(" + A + ")?", RA.reflexiveClosure()};
    }
    case 8: {
      auto [A, RA] = Sub();
      return {"(" + A + ")^-1", RA.inverse()};
    }
    case 9: {
      auto [A, RA] = Sub();
      return {"~" + A, RA.complement()};
    }
    case 10: {
      auto [S, ES] = set(Depth - 1);
      auto [A, RA] = Sub();
      // [S] ; r and r ; [S], the restrictions the compiler rewrites.
      if (pick(2))
        return {"([" + S + "] ; " + A + ")",
                Relation::identityOn(ES).compose(RA)};
      return {"(" + A + " ; [" + S + "])",
              RA.compose(Relation::identityOn(ES))};
    }
    case 11: {
      auto [S, ES] = set(Depth - 1);
      auto [T, ET] = set(Depth - 1);
      return {"(" + S + " * " + T + ")", Relation::product(ES, ET)};
    }
    case 12: {
      auto [A, RA] = Sub();
      auto Ws = *X.set("W"), Rs = *X.set("R");
      return {"WR(" + A + ")", RA.restrict(Ws, Rs)};
    }
    default: {
      const char *Nm = Names[pick(4)];
      return {Nm, *X.relation(Nm)};
    }
    }
  }
};

Execution randomExecution(unsigned N, std::mt19937 &Rng) {
  std::bernoulli_distribution Coin(0.3), Half(0.5);
  Execution X(N);
  for (const char *S : {"R", "W", "F"}) {
    EventSet E(N);
    for (unsigned I = 0; I != N; ++I)
      if (Half(Rng))
        E.insert(I);
    X.setSet(S, E);
  }
  for (const char *Rn : {"po", "rf", "co", "loc"}) {
    Relation R(N);
    for (unsigned A = 0; A != N; ++A)
      for (unsigned B = 0; B != N; ++B)
        if (Coin(Rng) && (A < B || Half(Rng)))
          R.insert(A, B);
    X.setRelation(Rn, R);
  }
  return X;
}

TEST(DifferentialTest, RandomExpressionsMatchTheRelationAlgebra) {
  std::mt19937 Rng(42);
  for (unsigned N : {3u, 7u, 64u, 70u}) {
    for (int Trial = 0; Trial != 60; ++Trial) {
      Execution X = randomExecution(N, Rng);
      Gen G{Rng, X, N};
      // Several lets sharing subexpressions, some unused (dead code).
      std::ostringstream Text;
      std::vector<Relation> Expected;
      for (int L = 0; L != 4; ++L) {
        auto [T, R] = G.rel(3);
        Text << "let e" << L << " = " << T << "\n";
        Text << "let unused" << L << " = " << T << " ; po\n";
        Expected.push_back(R);
      }
      std::vector<std::string> Want;
      for (int L = 0; L != 4; ++L) {
        std::string E = "e" + std::to_string(L);
        Text << "acyclic " << E << " as a" << L << "\n"
             << "irreflexive " << E << " as i" << L << "\n"
             << "empty " << E << " as m" << L << "\n";
        if (!Expected[L].isAcyclic())
          Want.push_back("a" + std::to_string(L));
        if (!Expected[L].isIrreflexive())
          Want.push_back("i" + std::to_string(L));
        if (!Expected[L].empty())
          Want.push_back("m" + std::to_string(L));
      }
      DiagnosticEngine Diags;
      std::optional<Model> M = Model::parse(
          std::make_shared<SourceFile>("d.cat", Text.str()), Diags);
      ASSERT_TRUE(M) << Text.str();
      Verdict V = M->evaluate(X);
      EXPECT_EQ(V.FailedChecks, Want) << "N=" << N << "\n" << Text.str();
    }
  }
}

TEST(DifferentialTest, ValuesAfterALetRecAreTheFixpoint) {
  // Expressions repeated inside and after a let rec share code; what follows
  // the loop must see the values of its last iteration.
  std::mt19937 Rng(7);
  for (int Trial = 0; Trial != 30; ++Trial) {
    Execution X = randomExecution(9, Rng);
    Relation Po = *X.relation("po"), Rf = *X.relation("rf");
    Relation Hb = Po;
    Hb |= Rf;
    Hb = Hb.transitiveClosure();
    Relation Inside = Hb.compose(Po);
    DiagnosticEngine Diags;
    std::optional<Model> M = Model::parse(
        std::make_shared<SourceFile>("r.cat",
                                     "let rec hb = po | rf | (hb ; hb)\n"
                                     "and k = hb ; po\n"
                                     "let after = hb ; po\n"
                                     "empty after \\ k as same1\n"
                                     "empty k \\ after as same2\n"
                                     "irreflexive after as irr\n"),
        Diags);
    ASSERT_TRUE(M);
    Verdict V = M->evaluate(X);
    std::vector<std::string> Want;
    if (!Inside.isIrreflexive())
      Want.push_back("irr");
    EXPECT_EQ(V.FailedChecks, Want);
  }
}

} // namespace
