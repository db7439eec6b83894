//===- RelationTest.cpp - Relation algebra against a naive reference ------===//
#include "incant/Cat/Relation.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace incant::cat;

namespace {

using Matrix = std::vector<std::vector<bool>>;

Matrix toMatrix(const Relation &R) {
  Matrix M(R.size(), std::vector<bool>(R.size()));
  for (unsigned A = 0; A != R.size(); ++A)
    for (unsigned B = 0; B != R.size(); ++B)
      M[A][B] = R.contains(A, B);
  return M;
}

Relation fromMatrix(const Matrix &M) {
  Relation R(M.size());
  for (unsigned A = 0; A != M.size(); ++A)
    for (unsigned B = 0; B != M.size(); ++B)
      if (M[A][B])
        R.insert(A, B);
  return R;
}

Relation randomRelation(unsigned N, double Density, std::mt19937 &Rng) {
  std::bernoulli_distribution Coin(Density);
  Relation R(N);
  for (unsigned A = 0; A != N; ++A)
    for (unsigned B = 0; B != N; ++B)
      if (Coin(Rng))
        R.insert(A, B);
  return R;
}

EventSet randomSet(unsigned N, std::mt19937 &Rng) {
  std::bernoulli_distribution Coin(0.5);
  EventSet S(N);
  for (unsigned E = 0; E != N; ++E)
    if (Coin(Rng))
      S.insert(E);
  return S;
}

Matrix naiveCompose(const Matrix &A, const Matrix &B) {
  size_t N = A.size();
  Matrix C(N, std::vector<bool>(N));
  for (size_t I = 0; I != N; ++I)
    for (size_t K = 0; K != N; ++K)
      if (A[I][K])
        for (size_t J = 0; J != N; ++J)
          if (B[K][J])
            C[I][J] = true;
  return C;
}

Matrix naivePlus(const Matrix &A) {
  // Fixpoint of R := R | R;A.
  Matrix R = A;
  for (;;) {
    Matrix Next = R, Step = naiveCompose(R, A);
    for (size_t I = 0; I != R.size(); ++I)
      for (size_t J = 0; J != R.size(); ++J)
        Next[I][J] = Next[I][J] || Step[I][J];
    if (Next == R)
      return R;
    R = Next;
  }
}

bool naiveAcyclic(const Matrix &A) {
  Matrix P = naivePlus(A);
  for (size_t I = 0; I != A.size(); ++I)
    if (P[I][I])
      return false;
  return true;
}

// Sizes around the one-word boundary and a few words.
const unsigned Sizes[] = {0, 1, 2, 5, 31, 63, 64, 65, 100, 130};

TEST(RelationTest, BasicsAndBounds) {
  Relation R(70);
  EXPECT_TRUE(R.empty());
  R.insert(0, 69);
  R.insert(69, 0);
  EXPECT_TRUE(R.contains(0, 69));
  EXPECT_EQ(R.count(), 2u);
  EXPECT_FALSE(R.isAcyclic());
  EXPECT_TRUE(R.isIrreflexive());
  R.erase(69, 0);
  EXPECT_TRUE(R.isAcyclic());
  // The complement never sets bits beyond the last event.
  Relation C = Relation(70).complement();
  EXPECT_EQ(C.count(), 70u * 70u);
  EventSet S(70);
  EXPECT_EQ(S.complement().count(), 70u);
}

TEST(RelationTest, CompositionMatchesNaive) {
  std::mt19937 Rng(1);
  for (unsigned N : Sizes)
    for (double D : {0.02, 0.1, 0.3}) {
      Relation A = randomRelation(N, D, Rng), B = randomRelation(N, D, Rng);
      EXPECT_EQ(toMatrix(A.compose(B)),
                naiveCompose(toMatrix(A), toMatrix(B)))
          << "N=" << N;
    }
}

TEST(RelationTest, ClosureMatchesNaive) {
  std::mt19937 Rng(2);
  for (unsigned N : Sizes)
    for (double D : {0.01, 0.05, 0.2}) {
      Relation A = randomRelation(N, D, Rng);
      Matrix Plus = naivePlus(toMatrix(A));
      EXPECT_EQ(toMatrix(A.transitiveClosure()), Plus) << "N=" << N;
      Matrix Star = Plus;
      for (unsigned I = 0; I != N; ++I)
        Star[I][I] = true;
      EXPECT_EQ(toMatrix(A.reflexiveTransitiveClosure()), Star);
    }
}

TEST(RelationTest, AcyclicityMatchesNaive) {
  std::mt19937 Rng(3);
  for (unsigned N : Sizes)
    for (int Trial = 0; Trial != 20; ++Trial) {
      // Mostly forward edges so that both answers occur often.
      Relation A(N);
      std::uniform_int_distribution<unsigned> Ev(0, N ? N - 1 : 0);
      for (unsigned K = 0; K != N; ++K) {
        unsigned X = Ev(Rng), Y = Ev(Rng);
        if (X < Y || Trial % 3 == 0)
          A.insert(X, Y);
      }
      EXPECT_EQ(A.isAcyclic(), naiveAcyclic(toMatrix(A))) << "N=" << N;
    }
}

TEST(RelationTest, InverseRestrictDomainRange) {
  std::mt19937 Rng(4);
  for (unsigned N : Sizes) {
    Relation A = randomRelation(N, 0.1, Rng);
    EventSet S = randomSet(N, Rng), T = randomSet(N, Rng);
    Relation Inv = A.inverse(), Res = A.restrict(S, T);
    EventSet Dom = A.domain(), Ran = A.range();
    for (unsigned X = 0; X != N; ++X) {
      bool HasSucc = false, HasPred = false;
      for (unsigned Y = 0; Y != N; ++Y) {
        EXPECT_EQ(Inv.contains(Y, X), A.contains(X, Y));
        EXPECT_EQ(Res.contains(X, Y),
                  A.contains(X, Y) && S.contains(X) && T.contains(Y));
        HasSucc |= A.contains(X, Y);
        HasPred |= A.contains(Y, X);
      }
      EXPECT_EQ(Dom.contains(X), HasSucc);
      EXPECT_EQ(Ran.contains(X), HasPred);
    }
    EXPECT_EQ(Inv.inverse(), A);
  }
}

TEST(RelationTest, ProductIdentityAndSetAlgebra) {
  std::mt19937 Rng(5);
  for (unsigned N : Sizes) {
    EventSet S = randomSet(N, Rng), T = randomSet(N, Rng);
    Relation P = Relation::product(S, T), I = Relation::identityOn(S);
    for (unsigned X = 0; X != N; ++X)
      for (unsigned Y = 0; Y != N; ++Y) {
        EXPECT_EQ(P.contains(X, Y), S.contains(X) && T.contains(Y));
        EXPECT_EQ(I.contains(X, Y), X == Y && S.contains(X));
      }
    EventSet U = S, In = S, D = S;
    U |= T;
    In &= T;
    D -= T;
    for (unsigned X = 0; X != N; ++X) {
      EXPECT_EQ(U.contains(X), S.contains(X) || T.contains(X));
      EXPECT_EQ(In.contains(X), S.contains(X) && T.contains(X));
      EXPECT_EQ(D.contains(X), S.contains(X) && !T.contains(X));
    }
    EXPECT_EQ(S.count() + S.complement().count(), N);
    EXPECT_EQ(Relation::identity(N).count(), N);
    EXPECT_EQ(Relation(N).reflexiveClosure(), Relation::identity(N));
  }
}

TEST(RelationTest, UnionIntersectionDifference) {
  std::mt19937 Rng(6);
  for (unsigned N : Sizes) {
    Matrix A = toMatrix(randomRelation(N, 0.3, Rng));
    Matrix B = toMatrix(randomRelation(N, 0.3, Rng));
    Relation U = fromMatrix(A), I = fromMatrix(A), D = fromMatrix(A);
    U |= fromMatrix(B);
    I &= fromMatrix(B);
    D -= fromMatrix(B);
    for (unsigned X = 0; X != N; ++X)
      for (unsigned Y = 0; Y != N; ++Y) {
        EXPECT_EQ(U.contains(X, Y), A[X][Y] || B[X][Y]);
        EXPECT_EQ(I.contains(X, Y), A[X][Y] && B[X][Y]);
        EXPECT_EQ(D.contains(X, Y), A[X][Y] && !B[X][Y]);
      }
    Relation C = fromMatrix(A).complement();
    EXPECT_EQ(C.count() + fromMatrix(A).count(), N * N);
  }
}

} // namespace
