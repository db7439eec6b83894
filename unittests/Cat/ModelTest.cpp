//===- ModelTest.cpp - Evaluating cat models on hand-built executions -----===//
#include "incant/Cat/Model.h"
#include "incant/Cat/Primitives.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <sstream>
#include <utility>

using namespace incant;
using namespace incant::cat;

namespace {

std::optional<Model> parse(const std::string &Text, DiagnosticEngine &Diags) {
  return Model::parse(std::make_shared<SourceFile>("test.cat", Text), Diags);
}

Model mustParse(const std::string &Text) {
  DiagnosticEngine Diags;
  std::optional<Model> M = parse(Text, Diags);
  if (!M) {
    std::string All;
    for (const Diagnostic &D : Diags.diagnostics())
      All += DiagnosticEngine::format(D);
    ADD_FAILURE() << All;
    return std::move(*parse("", Diags));
  }
  return std::move(*M);
}

Relation rel(unsigned N,
             std::initializer_list<std::pair<unsigned, unsigned>> Pairs) {
  Relation R(N);
  for (auto [A, B] : Pairs)
    R.insert(A, B);
  return R;
}

EventSet set(unsigned N, std::initializer_list<unsigned> Events) {
  EventSet S(N);
  for (unsigned E : Events)
    S.insert(E);
  return S;
}

// Store buffering, the weak outcome (both reads see the initial values).
//   0: IW x   1: IW y
//   T0: 2: W x=1   3: R y=0        T1: 4: W y=1   5: R x=0
Execution sbWeak() {
  Execution X(6);
  X.setSet("IW", set(6, {0, 1}));
  X.setSet("W", set(6, {0, 1, 2, 4}));
  X.setSet("R", set(6, {3, 5}));
  X.setSet("F", set(6, {}));
  X.setRelation("po", rel(6, {{2, 3}, {4, 5}}));
  X.setRelation("rf", rel(6, {{1, 3}, {0, 5}}));
  X.setRelation("co", rel(6, {{0, 2}, {1, 4}}));
  X.setRelation("loc", rel(6, {{0, 0}, {0, 2}, {0, 5}, {2, 0}, {2, 2},
                               {2, 5}, {5, 0}, {5, 2}, {5, 5}, {1, 1},
                               {1, 3}, {1, 4}, {3, 1}, {3, 3}, {3, 4},
                               {4, 1}, {4, 3}, {4, 4}}));
  Relation Int(6);
  for (unsigned A : {2, 3})
    for (unsigned B : {2, 3})
      Int.insert(A, B);
  for (unsigned A : {4, 5})
    for (unsigned B : {4, 5})
      Int.insert(A, B);
  Relation Ext = Int.complement();
  X.setRelation("int", Int);
  X.setRelation("ext", Ext);
  return X;
}

TEST(ModelTest, SCForbidsStoreBuffering) {
  Model M = mustParse("\"SC\"\nacyclic po | rf | co | fr as sc\n");
  EXPECT_EQ(M.name(), "SC");
  Verdict V = M.evaluate(sbWeak());
  EXPECT_FALSE(V.Allowed);
  ASSERT_EQ(V.FailedChecks.size(), 1u);
  EXPECT_EQ(V.FailedChecks[0], "sc");
  EXPECT_TRUE(V.Error.empty());
}

TEST(ModelTest, TSOAllowsStoreBuffering) {
  Model M = mustParse("TSO\n"
                      "let ppo = po \\ (W * R)\n"
                      "acyclic ppo | rfe | co | fr as tso\n"
                      "acyclic po-loc | rf | co | fr as sc-per-loc\n");
  EXPECT_EQ(M.name(), "TSO");
  Verdict V = M.evaluate(sbWeak());
  EXPECT_TRUE(V.Allowed) << (V.FailedChecks.empty() ? V.Error
                                                    : V.FailedChecks[0]);
}

TEST(ModelTest, UnnamedChecksAreNamedByPosition) {
  Model M = mustParse("let com = rf | co | fr\n  acyclic po | com\n");
  Verdict V = M.evaluate(sbWeak());
  ASSERT_EQ(V.FailedChecks.size(), 1u);
  EXPECT_EQ(V.FailedChecks[0], "2:3");
}

TEST(ModelTest, AllFailedChecksAreReported) {
  Model M = mustParse("acyclic po | rf | co | fr as a\n"
                      "empty fr as b\n"
                      "irreflexive fr;po as c\n"
                      "~empty po as d\n");
  Verdict V = M.evaluate(sbWeak());
  EXPECT_FALSE(V.Allowed);
  EXPECT_EQ(V.FailedChecks, (std::vector<std::string>{"a", "b"}));
}

TEST(ModelTest, FlagsDoNotForbid) {
  Model M = mustParse("flag ~empty fr as has-fr\n"
                      "flag empty fr as no-fr\n"
                      "flag acyclic po as po-acyclic\n");
  Verdict V = M.evaluate(sbWeak());
  EXPECT_TRUE(V.Allowed);
  EXPECT_EQ(V.Flags, (std::vector<std::string>{"has-fr", "po-acyclic"}));
}

TEST(ModelTest, NegatedChecks) {
  Model M = mustParse("~empty rf as a\n~acyclic po as b\n~irreflexive id as c\n");
  Verdict V = M.evaluate(sbWeak());
  EXPECT_EQ(V.FailedChecks, (std::vector<std::string>{"b"}));
}

TEST(ModelTest, LetRecComputesLeastFixpoint) {
  // A hand-written transitive closure must equal po+ on a chain.
  Execution X(5);
  X.setRelation("po", rel(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
  Model M = mustParse("let rec t = po | (t ; t)\n"
                      "empty t \\ po+ as sound\n"
                      "empty po+ \\ t as complete\n"
                      "let rec a = po | b and b = a ; po\n"
                      "empty (a | b) \\ po+ as mutual-sound\n"
                      "~empty b & (_ * _) as mutual-nonempty\n");
  Verdict V = M.evaluate(X);
  EXPECT_TRUE(V.Allowed) << (V.FailedChecks.empty() ? V.Error
                                                    : V.FailedChecks[0]);
}

TEST(ModelTest, NonMonotoneLetRecIsReportedNotLooped) {
  Execution X(3);
  X.setRelation("po", rel(3, {{0, 1}}));
  Model M = mustParse("let rec x = ~x\nacyclic x\n");
  Verdict V = M.evaluate(X);
  EXPECT_FALSE(V.Allowed);
  EXPECT_FALSE(V.Error.empty());
}

TEST(ModelTest, FunctionsAndBuiltins) {
  Execution X = sbWeak();
  // fencerel(S) = po;[S];po; with no fences it is empty.
  Model M = mustParse("let f(r, s) = r | s\n"
                      "let g(r) = f(r, r^-1)\n"
                      "empty g(po) \\ (po | po^-1) as sym\n"
                      "empty fencerel(F) as nofence\n"
                      "empty domain(rf) \\ IW as dom\n"
                      "empty range(rf) \\ R as ran\n"
                      "empty WR(po) \\ [W];po;[R] as wr\n"
                      "empty MM(po) \\ po as mm\n"
                      "~empty RW(fr) as rw\n");
  Verdict V = M.evaluate(X);
  EXPECT_TRUE(V.Allowed) << (V.FailedChecks.empty() ? V.Error
                                                    : V.FailedChecks[0]);
}

TEST(ModelTest, DerivedPrimitives) {
  Execution X = sbWeak();
  Model M = mustParse("empty fr \\ (rf^-1 ; co) as fr\n"
                      "empty (rf^-1 ; co) \\ fr as fr2\n"
                      "empty rfe \\ rf as rfe\n"
                      "empty rfi as rfi\n"
                      "empty M \\ (R | W) as m\n"
                      "empty id \\ [_] as id\n"
                      "empty membar.cta as membar\n");
  X.setSet("MEMBAR", set(6, {}));
  X.setSet("CTA", set(6, {}));
  Verdict V = M.evaluate(X);
  EXPECT_TRUE(V.Allowed) << (V.FailedChecks.empty() ? V.Error
                                                    : V.FailedChecks[0]);
}

TEST(ModelTest, MissingPrimitiveIsAnErrorNotACrash) {
  Model M = mustParse("acyclic po | addr\n");
  Verdict V = M.evaluate(sbWeak());
  EXPECT_FALSE(V.Allowed);
  EXPECT_NE(V.Error.find("addr"), std::string::npos);
  // A primitive of the wrong size.
  Execution X(3);
  X.setRelation("po", Relation(4));
  X.setRelation("addr", Relation(3));
  V = M.evaluate(X);
  EXPECT_FALSE(V.Allowed);
  EXPECT_NE(V.Error.find("po"), std::string::npos) << V.Error;
}

TEST(ModelTest, BindingFollowsTheLayout) {
  Model M = mustParse("empty rf as no-rf\n");
  Execution A(2), B(2);
  A.setRelation("rf", Relation(2));
  A.setRelation("po", rel(2, {{0, 1}}));
  B.setRelation("po", Relation(2));
  B.setRelation("rf", rel(2, {{0, 1}}));
  EXPECT_TRUE(M.evaluate(A).Allowed);
  EXPECT_FALSE(M.evaluate(B).Allowed);
  EXPECT_TRUE(M.evaluate(A).Allowed);
}

TEST(ModelTest, ResizeKeepsTheLayoutAndEmptiesEverything) {
  Model M = mustParse("acyclic po | rf as a\n");
  Execution X(2);
  X.setSet("W", set(2, {0}));
  X.setRelation("po", rel(2, {{0, 1}}));
  X.setRelation("rf", rel(2, {{1, 0}}), 1);
  EXPECT_FALSE(M.evaluate(X).Allowed);
  uint64_t Key = X.layoutKey();
  X.resize(3);
  EXPECT_EQ(X.numEvents(), 3u);
  EXPECT_EQ(X.layoutKey(), Key);
  ASSERT_EQ(X.relations().size(), 2u);
  EXPECT_EQ(X.relations()[1].Name, "rf");
  EXPECT_EQ(X.relations()[1].Level, 1);
  EXPECT_EQ(X.set("W")->size(), 3u);
  EXPECT_TRUE(X.set("W")->empty());
  EXPECT_TRUE(X.relation("po")->empty());
  EXPECT_TRUE(M.evaluate(X).Allowed);
  X.relationAt(0) = rel(3, {{0, 2}});
  X.relationAt(1) = rel(3, {{2, 0}});
  EXPECT_FALSE(M.evaluate(X).Allowed);
}

TEST(ModelTest, LargeExecutions) {
  // More than one word per row: a 150-event po chain closed into a cycle.
  unsigned N = 150;
  Relation Po(N);
  for (unsigned I = 0; I + 1 < N; ++I)
    Po.insert(I, I + 1);
  Execution X(N);
  X.setRelation("po", Po);
  Relation Back(N);
  Back.insert(N - 1, 0);
  X.setRelation("rf", Back);
  Model M = mustParse("acyclic po as a\nacyclic po | rf as b\n"
                      "let rec t = po | t;t\nempty t \\ po+ as c\n");
  Verdict V = M.evaluate(X);
  EXPECT_EQ(V.FailedChecks, (std::vector<std::string>{"b"}));
}

TEST(ModelTest, ZeroEvents) {
  Model M = mustParse("acyclic po | ~id as a\nempty _ as b\n");
  Execution X(0);
  X.setRelation("po", Relation(0));
  EXPECT_TRUE(M.evaluate(X).Allowed);
}

TEST(ModelTest, PrimitiveTable) {
  EXPECT_TRUE(lookupPrimitive("membar.cta").has_value());
  EXPECT_TRUE(lookupPrimitive("po-loc").has_value());
  EXPECT_FALSE(lookupPrimitive("nope").has_value());
  for (const PrimitiveInfo &P : primitiveNames())
    EXPECT_EQ(lookupPrimitive(P.Name), lookupPrimitive(P.Name));
  EXPECT_TRUE(primitiveNames()[*lookupPrimitive("R")].IsSet);
  EXPECT_FALSE(primitiveNames()[*lookupPrimitive("rf")].IsSet);
}

} // namespace

namespace {

TEST(ModelTest, PrintShowsTheCompiledForm) {
  Model M = mustParse("\"P\"\nlet a = [W] ; po\nlet b = [W] ; po\n"
                      "let dead = rf ; co\nacyclic a | b as x\n");
  std::ostringstream OS;
  M.print(OS);
  std::string S = OS.str();
  // [W];po is a restriction, computed once; the unused let is gone.
  EXPECT_NE(S.find("restrict"), std::string::npos) << S;
  EXPECT_EQ(S.find("seq"), std::string::npos) << S;
  EXPECT_NE(S.find("check acyclic"), std::string::npos) << S;
  EXPECT_NE(S.find("as x"), std::string::npos) << S;
  EXPECT_EQ(S.find("= rf"), std::string::npos) << S;
}

} // namespace
