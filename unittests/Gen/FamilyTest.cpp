//===- FamilyTest.cpp - Families: options, presets, and every test checked -===//
//
// Every generated test must parse, lower, print back to the same text and
// be checked by the shipped models without error; the models never allow a
// cycle's outcome under SC (that is what makes it a cycle).
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Model.h"
#include "incant/Gen/Generate.h"
#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"
#include "incant/Litmus/Printer.h"
#include "incant/Model/Check.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace incant;
using namespace incant::gen;

namespace {

std::vector<GeneratedTest> family(const GenOptions &O) {
  DiagnosticEngine D;
  auto Tests = generate(O, D);
  EXPECT_TRUE(Tests);
  for (const Diagnostic &X : D.diagnostics())
    ADD_FAILURE() << DiagnosticEngine::format(X);
  return Tests ? *Tests : std::vector<GeneratedTest>{};
}

const cat::Model &model(const std::string &Name) {
  static std::map<std::string, cat::Model> Cache;
  auto It = Cache.find(Name);
  if (It == Cache.end()) {
    DiagnosticEngine D;
    auto M = cat::Model::load(
        std::string(INCANT_SOURCE_DIR) + "/models/" + Name + ".cat", D);
    EXPECT_TRUE(M) << Name;
    It = Cache.emplace(Name, std::move(*M)).first;
  }
  return It->second;
}

/// Parses, lowers, reprints and checks every test; returns how many the
/// model \p Name allows.
void checkAll(const std::vector<GeneratedTest> &Tests, bool Models = true) {
  std::set<std::string> Names;
  for (const GeneratedTest &G : Tests) {
    EXPECT_TRUE(Names.insert(G.Name).second) << "duplicate name " << G.Name;
    auto F = std::make_shared<SourceFile>(G.Name + ".litmus", G.Text);
    DiagnosticEngine D;
    std::optional<litmus::Test> T = litmus::parseTest(F, D);
    ASSERT_TRUE(T) << G.Text;
    EXPECT_EQ(litmus::printTest(*T), G.Text);
    std::optional<litmus::Program> P = litmus::lower(*T, D);
    ASSERT_TRUE(P) << G.Text
                   << (D.diagnostics().empty()
                           ? ""
                           : DiagnosticEngine::format(D.diagnostics()[0]));
    if (!Models)
      continue;
    model::CheckResult SC = model::check(*P, model("sc"));
    EXPECT_EQ(SC.Positive, 0u) << "SC allows the cycle of " << G.Name;
    EXPECT_GT(SC.Negative, 0u) << G.Name;
    for (const char *M : {"ptx-rmo", "ptx"}) {
      model::CheckResult R = model::check(*P, model(M));
      EXPECT_FALSE(R.Incomplete) << G.Name;
      EXPECT_GT(R.Positive + R.Negative, 0u) << M << " " << G.Name;
    }
  }
}

TEST(GenFamily, ClassicPresetChecksUnderEveryModel) {
  GenOptions O;
  O.Families = presetFamilies("classic");
  std::vector<GeneratedTest> T = family(O);
  EXPECT_EQ(T.size(), 504u);
  checkAll(T);
}

TEST(GenFamily, EveryShapeFenceDependencyAccessAndScope) {
  FamilyOptions F;
  for (const Shape &S : shapes())
    F.Shapes += std::string(F.Shapes.empty() ? "" : ",") + S.Name;
  F.Fences = "none,fence.sc.cta,fence.acq_rel.gpu,addr,data,ctrl";
  F.Scopes = "warp,cluster,gpu";
  F.Accesses = "weak,atomic.gpu,relacq.cluster,volatile";
  F.Memory = "global,shared";
  FamilyOptions Mixed;
  Mixed.Shapes = "IRIW,WRC,ISA2,RWC";
  Mixed.Scopes = "warp,cta,cluster,gpu";
  Mixed.MixedScopes = true;
  Mixed.Memory = "global,shared";
  GenOptions O;
  O.Families = {F, Mixed};
  std::vector<GeneratedTest> T = family(O);
  EXPECT_GT(T.size(), 3000u);
  // Checking all of them under three models takes minutes (the lit test
  // test/gen/check-family.test checks a whole family); take every 29th.
  std::vector<GeneratedTest> Some;
  for (size_t I = 0; I < T.size(); I += 29)
    Some.push_back(T[I]);
  checkAll(Some);
  checkAll(T, /*Models=*/false);
}

TEST(GenFamily, DiyEnumeration) {
  FamilyOptions F;
  F.Relax = "PodWR,Fre,Rfi,Fri,PosRR,PosWW,FencedWR";
  F.Safe = "PodWW,PodRR,PodRW,Rfe,Coe,DpAddrdR,DpDatadW,DpCtrldW";
  F.Fences = "membar.cta,fence.sc.gpu";
  F.Scopes = "cta,gpu";
  F.MaxSize = 5;
  F.MaxThreads = 3;
  GenOptions O;
  O.Families = {F};
  std::vector<GeneratedTest> T = family(O);
  EXPECT_GT(T.size(), 1000u);
  checkAll(T);
}

TEST(GenFamily, CampaignPreset) {
  GenOptions O;
  O.Families = presetFamilies("campaign");
  GenStats S;
  DiagnosticEngine D;
  auto T = generate(O, D, &S);
  ASSERT_TRUE(T);
  EXPECT_GE(T->size(), 5000u);
  EXPECT_LE(T->size(), 12000u);
  std::map<std::string, size_t> PerShape;
  for (const GeneratedTest &G : *T)
    ++PerShape[G.Name.substr(0, G.Name.find('+', 1))];
  for (const char *Sh :
       {"MP", "SB", "LB", "S", "R", "2+2W", "IRIW", "WRC", "ISA2"})
    EXPECT_GT(PerShape[Sh == std::string("2+2W") ? "2" : Sh], 100u) << Sh;
  checkAll(*T, /*Models=*/false);
}

TEST(GenFamily, HopperPreset) {
  // Every test of the preset lowers and is checked by all three models;
  // each feature has tests ptx forbids and tests it allows (with and
  // without what orders them).
  GenOptions O;
  O.Families = presetFamilies("hopper");
  ASSERT_EQ(O.Families.size(), 4u);
  std::vector<GeneratedTest> T = family(O);
  EXPECT_GE(T.size(), 500u);
  checkAll(T);
  std::map<std::string, std::pair<size_t, size_t>> Verdicts; // No, Ok
  for (const GeneratedTest &G : T) {
    auto F = std::make_shared<SourceFile>(G.Name + ".litmus", G.Text);
    DiagnosticEngine D;
    auto P = litmus::lower(*litmus::parseTest(F, D), D);
    ASSERT_TRUE(P);
    std::string Feature = G.Name.find("Mbar") != std::string::npos ? "mbar"
                          : G.Name.find("Tx") != std::string::npos ? "tx"
                          : G.Name.find("Cbar") != std::string::npos
                              ? "cbar"
                              : "bulk";
    auto &V = Verdicts[Feature];
    ++(model::check(*P, model("ptx")).Positive ? V.second : V.first);
  }
  for (const char *F : {"mbar", "tx", "cbar", "bulk"}) {
    EXPECT_GT(Verdicts[F].first, 0u) << F;
    EXPECT_GT(Verdicts[F].second, 0u) << F;
  }
}

TEST(GenFamily, Deterministic) {
  GenOptions O;
  O.Families = presetFamilies("modern");
  std::vector<GeneratedTest> A = family(O), B = family(O);
  ASSERT_EQ(A.size(), B.size());
  for (size_t I = 0; I != A.size(); ++I)
    EXPECT_EQ(A[I].Text, B[I].Text);
}

TEST(GenFamily, OptionErrors) {
  FamilyOptions F;
  F.Shapes = "MP,XX";
  F.Fences = "none,membar.gpu";
  F.Scopes = "cta,block";
  F.Accesses = "acquire.gpu";
  GenOptions O;
  O.Families = {F};
  DiagnosticEngine D;
  EXPECT_FALSE(generate(O, D));
  ASSERT_EQ(D.numErrors(), 4u);
  std::string All;
  for (const Diagnostic &X : D.diagnostics())
    All += DiagnosticEngine::format(X);
  EXPECT_NE(All.find("--fences:1:6: error: unknown fence 'membar.gpu'"),
            std::string::npos)
      << All;
  EXPECT_NE(All.find("--scopes:1:5: error: unknown scope relation 'block'"),
            std::string::npos);
  EXPECT_NE(All.find("unknown access variant 'acquire.gpu'"),
            std::string::npos);
  EXPECT_NE(All.find("--shapes:1:4: error: unknown shape 'XX'"),
            std::string::npos);

  FamilyOptions G;
  G.Cycles = {"PodWW Rfe@cta PodRR Fre@gpu"};
  O.Families = {G};
  DiagnosticEngine D2;
  EXPECT_FALSE(generate(O, D2));
  ASSERT_EQ(D2.numErrors(), 1u);
  EXPECT_NE(D2.diagnostics()[0].Message.find("impossible cycle"),
            std::string::npos);
}

// Kinds written in a --cycle name the test: MP with release/acquire is not
// named like plain MP (it used to be, and a later gen overwrote it).
TEST(GenFamily, WrittenKindsGoIntoTheName) {
  FamilyOptions F;
  F.Cycles = {"PodWW release.gpu Rfe@gpu acquire.gpu PodRR Fre@gpu",
              "PodWW Rfe@gpu PodRR Fre@gpu"};
  GenOptions O;
  O.Families = {F};
  std::vector<GeneratedTest> T = family(O);
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[0].Name, "MP+gpu-global+weak_release.gpu_acquire.gpu_weak");
  EXPECT_EQ(T[1].Name, "MP+gpu-global");
}

TEST(GenFamily, StreamsAndStopsWhenTheSinkSays) {
  GenOptions O;
  O.Families = presetFamilies("classic");
  DiagnosticEngine D;
  unsigned Seen = 0;
  std::optional<GenStats> S = generate(O, D, [&](GeneratedTest &&) {
    return ++Seen < 10;
  });
  EXPECT_FALSE(S);
  EXPECT_EQ(Seen, 10u);
}

TEST(GenFamily, LongNamesAreBounded) {
  std::string C;
  for (int I = 0; I != 30; ++I)
    C += "PodWR Fre ";
  FamilyOptions F;
  F.Cycles = {C};
  F.MaxThreads = 30;
  GenOptions O;
  O.Families = {F};
  std::vector<GeneratedTest> T = family(O);
  ASSERT_EQ(T.size(), 1u);
  EXPECT_LE(T[0].Name.size(), MaxNameLength);
  EXPECT_EQ(T[0].AST.Name, T[0].Name);
}

TEST(GenFamily, RangesAreCheckedBeforeAnyWork) {
  FamilyOptions F;
  F.Relax = "PodWR,Fre";
  F.Safe = "PodWW,PodRR,Rfe";
  F.MaxSize = 100;
  F.MaxThreads = 100;
  GenOptions O;
  O.Families = {F};
  DiagnosticEngine D;
  EXPECT_FALSE(generate(O, D));
  EXPECT_EQ(D.numErrors(), 2u);
}

TEST(GenFamily, TimeLimitMarksIncomplete) {
  FamilyOptions F;
  F.Relax = "PodWR,Fre";
  F.Safe = "PodWW,PodRR,Rfe,DpAddrdR";
  F.MaxSize = 12;
  F.MaxThreads = 16;
  GenOptions O;
  O.Families = {F};
  O.TimeLimit = 0.2;
  DiagnosticEngine D;
  uint64_t N = 0;
  std::optional<GenStats> S = generate(O, D, [&](GeneratedTest &&) {
    ++N;
    return true;
  });
  ASSERT_TRUE(S);
  EXPECT_TRUE(S->Incomplete);
  EXPECT_LT(S->Cycles, S->Total);
  EXPECT_EQ(S->Tests, N);
  EXPECT_NE(S->IncompleteReason.find("time limit of 0.2s"), std::string::npos);
}

} // namespace
