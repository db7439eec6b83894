//===- CycleTest.cpp - The edge vocabulary: spelling and parsing ----------===//
#include "incant/Gen/Cycle.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::gen;

namespace {

std::optional<Cycle> parse(const std::string &Text, DiagnosticEngine &D) {
  return parseCycle(std::make_shared<SourceFile>("--cycle", Text), D);
}

TEST(GenCycle, EveryEdgeNameRoundTrips) {
  const char *Names[] = {
      "PodWW", "PodWR", "PodRW", "PodRR", "PosWW", "PosWR", "PosRW",
      "PosRR", "Rfe", "Rfi", "Fre", "Fri", "Coe", "Coi", "Rfe@warp",
      "Fre@cta", "Coe@cluster", "Rfe@gpu", "DpAddrdR", "DpAddrdW",
      "DpDatadW", "DpCtrldR", "DpCtrldW", "FencedWR", "FencesRR",
      "FencedWW.membar.cta", "FencedRR.membar.gl", "FencedWR.membar.sys",
      "FencedWR.fence.sc.gpu", "FencedRW.fence.acq_rel.cluster",
      "FencedWW.fence.sc.sys"};
  for (const char *N : Names) {
    std::optional<Edge> E = parseEdge(N);
    ASSERT_TRUE(E) << N;
    EXPECT_EQ(printEdge(*E), N);
  }
}

TEST(GenCycle, AliasesAndRejects) {
  EXPECT_EQ(printEdge(*parseEdge("Wse")), "Coe");
  EXPECT_EQ(printEdge(*parseEdge("Wsi")), "Coi");
  for (const char *Bad : {"PodXW", "Pod", "Rfi@cta", "Rfe@block", "PodWW@cta",
                          "FencedWR.membar.gpu", "FencedWRmembar.gl",
                          "DpDatadR", "fre", ""})
    EXPECT_FALSE(parseEdge(Bad)) << Bad;
}

TEST(GenCycle, SynchronisationEdges) {
  for (const char *N :
       {"MbarsWR.rel.acq.cta", "MbardRW.rlx.rlx.cluster.test.loop@cluster",
        "MbarsWW.rel.rlx.cta.loop", "MbarsRR.rlx.acq.cluster.test",
        "TxsWR.st.acq.cluster@cluster", "TxdWW.red.rlx.cta.loop",
        "CbarsWR.rel", "CbardRW.rlx@cta"}) {
    std::optional<Edge> E = parseEdge(N);
    ASSERT_TRUE(E) << N;
    EXPECT_TRUE(E->isSync() && E->External) << N;
    EXPECT_EQ(printEdge(*E), N);
  }
  // Words left out take the defaults: rel, acq (st for Tx), cta.
  EXPECT_EQ(printEdge(*parseEdge("MbardWR")), "MbardWR.rel.acq.cta");
  EXPECT_EQ(printEdge(*parseEdge("MbarsWR.loop")), "MbarsWR.rel.acq.cta.loop");
  EXPECT_EQ(printEdge(*parseEdge("TxsWR.cluster")), "TxsWR.st.acq.cluster");
  for (const char *Bad :
       {"Cbarsww", "TxsRR", "MbarxWR", "MbarsWR.acq.rel", "MbarsWR.gpu",
        "MbarsWR.loop.test", "MbarsWR.loop.loop", "CbarsWR.acq",
        "CbarsWR.rel.cta", "TxsWR.rel", "MbarsWR.rel.acq.cta.fast",
        "MbarsWR@block"})
    EXPECT_FALSE(parseEdge(Bad)) << Bad;
}

TEST(GenCycle, FencesAccessesLevels) {
  for (const char *F : {"membar.cta", "membar.gl", "membar.sys",
                        "fence.sc.cta", "fence.sc.cluster", "fence.sc.gpu",
                        "fence.acq_rel.sys", "fence.proxy.async"})
    EXPECT_EQ(printFence(*parseFence(F)), F);
  EXPECT_FALSE(parseFence("membar.gpu"));
  EXPECT_FALSE(parseFence("fence.sc"));
  for (const char *A : {"weak", "volatile", "relaxed.cta", "acquire.gpu",
                        "release.sys", "atomic.cluster", "bulk"})
    EXPECT_EQ(printAccess(*parseAccess(A)), A);
  EXPECT_FALSE(parseAccess("relaxed"));
  EXPECT_FALSE(parseAccess("acquire.gl"));
  for (const char *L : {"warp", "cta", "cluster", "gpu"})
    EXPECT_EQ(printLevel(*parseLevel(L)), L);
}

TEST(GenCycle, KindsNameTheSourceOfTheNextEdge) {
  DiagnosticEngine D;
  std::optional<Cycle> C =
      parse("PodWW release.gpu Rfe acquire.gpu PodRR Fre", D);
  ASSERT_TRUE(C);
  ASSERT_EQ(C->Edges.size(), 4u);
  EXPECT_FALSE(C->Kinds[0]);
  EXPECT_EQ(C->Kinds[1]->K, Access::Release);
  EXPECT_EQ(C->Kinds[2]->K, Access::Acquire);
  EXPECT_EQ(printCycle(*C), "PodWW release.gpu Rfe acquire.gpu PodRR Fre");
  // A kind after the last edge names the first event.
  C = parse("PodWW Rfe PodRR Fre relaxed.cta", D);
  ASSERT_TRUE(C);
  EXPECT_EQ(printAccess(*C->Kinds[0]), "relaxed.cta");
  EXPECT_FALSE(D.hasErrors());
}

TEST(GenCycle, ErrorsPointAtTheWord) {
  DiagnosticEngine D;
  EXPECT_FALSE(parse("PodWW Rfe PodXR Fre", D));
  ASSERT_EQ(D.numErrors(), 1u);
  EXPECT_EQ(D.diagnostics()[0].Range.Begin.Col, 11u);
  EXPECT_NE(D.diagnostics()[0].Message.find("unknown relaxation 'PodXR'"),
            std::string::npos);

  DiagnosticEngine D2;
  EXPECT_FALSE(parse("PodWW Rfe PodWR Fre", D2));
  ASSERT_EQ(D2.numErrors(), 1u);
  EXPECT_EQ(D2.diagnostics()[0].Range.Begin.Col, 11u);
  EXPECT_NE(D2.diagnostics()[0].Message.find("impossible cycle"),
            std::string::npos);

  DiagnosticEngine D3;
  EXPECT_FALSE(parse("PodWW acquire.gpu Rfe PodRR Fre", D3));
  ASSERT_EQ(D3.numErrors(), 1u);
  EXPECT_EQ(D3.diagnostics()[0].Range.Begin.Col, 7u);

  DiagnosticEngine D4;
  EXPECT_FALSE(parse("PodWW Rfe membar.gl PodRR Fre", D4));
  ASSERT_EQ(D4.numErrors(), 1u);
  EXPECT_NE(D4.diagnostics()[0].Message.find("FencedWR.membar.gl"),
            std::string::npos);
}

TEST(GenCycle, SplitWordsKeepsRanges) {
  SourceFile F("--fences", "none, membar.gl,,fence.sc.gpu");
  std::vector<Word> W = splitWords(F);
  ASSERT_EQ(W.size(), 3u);
  EXPECT_EQ(W[1].Text, "membar.gl");
  EXPECT_EQ(W[1].Range.Begin.Col, 7u);
  EXPECT_EQ(W[2].Range.Begin.Col, 18u);
}

} // namespace
