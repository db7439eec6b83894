//===- BuildTest.cpp - One test from one cycle -----------------------------===//
#include "incant/Gen/Generate.h"
#include "incant/Litmus/Printer.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::gen;

namespace {

Cycle cycleOf(const std::string &Text) {
  DiagnosticEngine D;
  std::optional<Cycle> C =
      parseCycle(std::make_shared<SourceFile>("--cycle", Text), D);
  EXPECT_TRUE(C) << Text;
  return C ? *C : Cycle{};
}

GeneratedTest build(const std::string &Text, bool Shared = false) {
  std::string Why;
  std::optional<GeneratedTest> G = buildTest(cycleOf(Text), Shared, "", Why);
  EXPECT_TRUE(G) << Text << ": " << Why;
  return G ? *G : GeneratedTest{};
}

std::string whyNot(const std::string &Text, bool Shared = false) {
  std::string Why;
  EXPECT_FALSE(buildTest(cycleOf(Text), Shared, "", Why)) << Text;
  return Why;
}

std::string condition(const GeneratedTest &G) {
  return litmus::printCondition(G.AST, G.AST.Condition);
}

TEST(GenBuild, MessagePassingWithMembarGl) {
  GeneratedTest G = build("FencedWW.membar.gl Rfe@gpu FencedRR.membar.gl "
                          "Fre@gpu");
  EXPECT_EQ(G.Name, "MP+membar.gl+gpu-global");
  EXPECT_EQ(G.Text, R"(GPU_PTX MP+membar.gl+gpu-global
"Cycle: FencedWW.membar.gl Rfe@gpu FencedRR.membar.gl Fre@gpu"
{
0:.reg .b64 r0 = x;
0:.reg .b64 r1 = y;
1:.reg .b64 r0 = y;
1:.reg .s32 r1;
1:.reg .b64 r2 = x;
1:.reg .s32 r3;
x=0;
y=0;
}
 T0                | T1                 ;
 st.cg.s32 [r0], 1 | ld.cg.s32 r1, [r0] ;
 membar.gl         | membar.gl          ;
 st.cg.s32 [r1], 1 | ld.cg.s32 r3, [r2] ;
ScopeTree
(device (kernel (cta (warp T0)) (cta (warp T1))))
x: global, y: global
exists (1:r1=1 /\ 1:r3=0)
)");
}

TEST(GenBuild, RotationsGiveOneTest) {
  GeneratedTest A = build("PodWW Rfe@cta PodRR Fre@cta");
  GeneratedTest B = build("Rfe@cta PodRR Fre@cta PodWW");
  GeneratedTest C = build("PodRR Fre@cta PodWW Rfe@cta");
  EXPECT_EQ(A.Key, B.Key);
  EXPECT_EQ(A.Key, C.Key);
  EXPECT_EQ(A.Name, "MP+cta-global");
  EXPECT_EQ(C.Name, "MP+cta-global");
  // Different scope relation, region or fence: different tests.
  EXPECT_NE(A.Key, build("PodWW Rfe@gpu PodRR Fre@gpu").Key);
  EXPECT_NE(A.Key, build("PodWW Rfe@cta PodRR Fre@cta", true).Key);
  EXPECT_NE(A.Key, build("FencedWW.membar.cta Rfe@cta PodRR Fre@cta").Key);
}

TEST(GenBuild, SymmetricFencesAreIsomorphic) {
  GeneratedTest A = build("FencedWR.membar.gl Fre@gpu PodWR Fre@gpu");
  GeneratedTest B = build("PodWR Fre@gpu FencedWR.membar.gl Fre@gpu");
  EXPECT_EQ(A.Key, B.Key);
  EXPECT_EQ(A.Name, B.Name);
  EXPECT_EQ(A.Name, "SB+membar.gl+po+gpu-global");
}

TEST(GenBuild, ConditionsOfTheClassicShapes) {
  EXPECT_EQ(condition(build("PodWR Fre@gpu PodWR Fre@gpu")),
            "0:r2=0 /\\ 1:r2=0");
  EXPECT_EQ(condition(build("PodRW Rfe@gpu PodRW Rfe@gpu")),
            "0:r1=1 /\\ 1:r1=1");
  // S: x has two writes; the last one in coherence is T0's.
  GeneratedTest S = build("PodWW Rfe@gpu PodRW Coe@gpu");
  EXPECT_EQ(condition(S), "1:r1=1 /\\ x=2");
  EXPECT_NE(S.Text.find("st.cg.s32 [r0], 2"), std::string::npos);
  EXPECT_EQ(condition(build("PodWW Coe@gpu PodWR Fre@gpu")),
            "1:r2=0 /\\ y=2");
  EXPECT_EQ(condition(build("PodWW Coe@gpu PodWW Coe@gpu")), "x=2 /\\ y=2");
  EXPECT_EQ(condition(build("Rfe@gpu PodRR Fre@gpu Rfe@gpu PodRR Fre@gpu")),
            "1:r1=1 /\\ 1:r3=0 /\\ 3:r1=1 /\\ 3:r3=0");
  EXPECT_EQ(condition(build("Rfe@gpu PosRR Fre@gpu")), "1:r1=1 /\\ 1:r2=0");
}

TEST(GenBuild, PlacementFromScopeRelations) {
  GeneratedTest W = build("PodWW Rfe@warp PodRR Fre@warp", true);
  EXPECT_EQ(W.Name, "MP+warp-shared");
  EXPECT_NE(W.Text.find("(device (kernel (cta (warp T0 T1))))"),
            std::string::npos);
  EXPECT_NE(W.Text.find("x: shared, y: shared"), std::string::npos);
  GeneratedTest K = build("PodWW Rfe@cluster PodRR Fre@cluster");
  EXPECT_NE(K.Text.find("(device (kernel (cluster (cta (warp T0)) "
                        "(cta (warp T1)))))"),
            std::string::npos);
  // WRC with T0 and T1 in one CTA, T2 elsewhere: x is used by all three
  // threads so it stays global; y is shared by T1 and T2 only... which are
  // in different CTAs, so nothing can be shared.
  EXPECT_NE(whyNot("Rfe@cta PodRW Rfe@gpu PodRR Fre@gpu", true)
                .find("none can be shared"),
            std::string::npos);
  // ISA2 with T1 and T2 in one CTA: z (T1, T2) is shared, x and y are not.
  GeneratedTest I =
      build("PodWW Rfe@gpu PodRW Rfe@cta PodRR Fre@gpu", true);
  EXPECT_NE(I.Name.find("-mixed"), std::string::npos);
  EXPECT_NE(I.Text.find("x: global, y: global, z: shared"),
            std::string::npos);
}

TEST(GenBuild, ImpossibleCycles) {
  EXPECT_NE(whyNot("PodWW Rfe@cta PodRR Fre@gpu").find("no placement"),
            std::string::npos);
  EXPECT_NE(whyNot("Coe@gpu Coe@gpu").find("cyclic"), std::string::npos);
  EXPECT_NE(whyNot("PodWW Coi").find("external"), std::string::npos);
  EXPECT_NE(whyNot("PodWR Fre@gpu PosWR Fre@gpu").find("only once"),
            std::string::npos);
  std::string Why;
  Cycle Generic = cycleOf("FencedWW Rfe PodRR Fre");
  EXPECT_FALSE(buildTest(Generic, false, "", Why));
  EXPECT_NE(Why.find("stands for a list"), std::string::npos);
}

TEST(GenBuild, AccessKindsDependenciesAndFences) {
  GeneratedTest G = build("FencedWW.fence.sc.gpu release.gpu Rfe@gpu "
                          "acquire.gpu DpAddrdR volatile Fre@gpu");
  EXPECT_NE(G.Text.find("fence.sc.gpu"), std::string::npos);
  EXPECT_NE(G.Text.find("st.release.gpu.s32"), std::string::npos);
  EXPECT_NE(G.Text.find("ld.acquire.gpu.s32"), std::string::npos);
  EXPECT_NE(G.Text.find("ld.volatile.s32"), std::string::npos);
  EXPECT_NE(G.Text.find("and.b32"), std::string::npos);
  EXPECT_NE(G.Text.find("cvt.u64.u32"), std::string::npos);
  GeneratedTest A = build("PodWW atomic.cta Rfe@cta atomic.cta PodRR Fre@cta");
  EXPECT_NE(A.Text.find("atom.relaxed.cta.exch.b32"), std::string::npos);
  EXPECT_NE(A.Text.find("atom.relaxed.cta.add.s32"), std::string::npos);
  GeneratedTest C = build("PodWW Rfe@gpu DpCtrldR Fre@gpu");
  EXPECT_NE(C.Text.find("@r3 bra L0"), std::string::npos);
  EXPECT_NE(C.Text.find("L0: ld.cg.s32"), std::string::npos);
  GeneratedTest D = build("DpDatadW Rfe@gpu DpDatadW Rfe@gpu");
  EXPECT_EQ(D.Name, "LB+data+gpu-global");
  EXPECT_NE(D.Text.find("add.s32"), std::string::npos);
}

bool has(const GeneratedTest &G, const std::string &S) {
  return G.Text.find(S) != std::string::npos;
}

TEST(GenBuild, MbarrierMessagePassing) {
  // In one CTA: T0 arrives on T1's mbarrier, T1 waits once; the condition
  // asks for the wait to have seen the phase complete.
  GeneratedTest G = build("MbarsWR.rel.acq.cta@cta Fre@cta");
  EXPECT_EQ(G.Name, "Fre+MbarsWR.rel.acq.cta+cta-global");
  EXPECT_TRUE(has(G, "mbarrier.arrive.release.cta.shared::cta.b64 _, [bar1]"));
  EXPECT_TRUE(has(G, "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 "
                     "r0, [bar1], 0"));
  EXPECT_TRUE(has(G, "bar1=1;"));
  EXPECT_TRUE(has(G, "x: global, bar1: shared"));
  EXPECT_EQ(condition(G), "1:r0=1 /\\ 1:r2=0");
  // Across the cluster: the arrive reaches T1's CTA through mapa; the wait
  // is retried with test_wait.
  GeneratedTest R =
      build("MbarsWR.rlx.rlx.cluster.test.loop@cluster Fre@cluster");
  EXPECT_TRUE(has(R, "mapa.shared::cluster.u32 r1, bar1, 1"));
  EXPECT_TRUE(has(R, "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 "
                     "_, [r1]"));
  EXPECT_TRUE(has(R, "L0: mbarrier.test_wait.parity.relaxed.cluster"));
  EXPECT_TRUE(has(R, "@!r0 bra L0"));
  EXPECT_NE(whyNot("MbarsWR@gpu Fre@gpu").find("own cluster"),
            std::string::npos);
}

TEST(GenBuild, AsyncStoreCompletesOnTheReadersMbarrier) {
  GeneratedTest G = build("PodWW TxdWR.red.acq.cluster@cluster Fre@cluster");
  // y, written by the async store, lives in T1's CTA; x stays global.
  EXPECT_TRUE(has(G, "x: global, y: shared, bar1: shared"));
  EXPECT_TRUE(has(G, "mapa.shared::cluster.u32 r1, y, 1"));
  EXPECT_TRUE(has(G, "red.async.relaxed.cluster.shared::cluster.mbarrier::"
                     "complete_tx::bytes.add.u32 [r1], 1, [r2]"));
  EXPECT_TRUE(has(G, "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta"
                     ".b64 _, [bar1], 4"));
  EXPECT_TRUE(has(G, "-dsmem-mixed"));
  EXPECT_NE(whyNot("TxsWR@cta Fre@cta").find("level is cluster"),
            std::string::npos);
  EXPECT_NE(whyNot("PodWW release.cluster TxdWR@cluster Fre@cluster")
                .find("cannot qualify"),
            std::string::npos);
}

TEST(GenBuild, ClusterBarrierEveryThreadOnce) {
  GeneratedTest G = build("CbardWR.rlx@cluster Fre@cluster CbardWR.rlx@cluster "
                          "Fre@cluster");
  size_t Arrives = 0;
  for (size_t P = 0; (P = G.Text.find("barrier.cluster.arrive.relaxed", P)) !=
                     std::string::npos;
       ++P)
    ++Arrives;
  EXPECT_EQ(Arrives, 4u);
  EXPECT_NE(whyNot("CbarsWR@cluster CbarsRR@cluster Fre@cluster")
                .find("once"),
            std::string::npos);
  EXPECT_NE(whyNot("CbardWR.rel@cluster Fre@cluster CbardWR.rlx@cluster "
                   "Fre@cluster")
                .find("two kinds"),
            std::string::npos);
  EXPECT_NE(whyNot("CbardWR@cluster Fre@gpu CbardWR@cluster Fre@gpu")
                .find("one cluster"),
            std::string::npos);
}

TEST(GenBuild, BulkCopiesAndTheProxyFence) {
  // A bulk read of global x after an acquire and a proxy fence: copied to
  // shared memory on a fresh mbarrier, waited for, then read.
  GeneratedTest G = build("PodWW release.gpu Rfe@gpu acquire.gpu "
                          "FencedRR.fence.proxy.async bulk Fre@gpu");
  EXPECT_TRUE(has(G, "fence.proxy.async"));
  EXPECT_TRUE(has(G, "cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes [s0], [x], 16, [m1]"));
  EXPECT_TRUE(has(G, "ld.shared.s32 r3, [s0]"));
  EXPECT_TRUE(has(G, "s0: shared, m1: shared"));
  // A bulk write of shared x: copied out of a global location holding 1.
  GeneratedTest W = build("bulk PosWR Fre@cta bulk PosWR Fre@cta", true);
  EXPECT_TRUE(has(W, "g0=1;"));
  EXPECT_TRUE(has(W, "[x], [g0], 16"));
  // A bulk read of shared x: copied to global memory with a bulk group.
  GeneratedTest R = build("PosWR bulk Fre@cta PosWR bulk Fre@cta", true);
  EXPECT_TRUE(has(R, "cp.async.bulk.global.shared::cta.bulk_group [g0], "
                     "[x], 16"));
  EXPECT_TRUE(has(R, "cp.async.bulk.wait_group 0"));
  std::string Why;
  EXPECT_FALSE(buildTest(cycleOf("PodWW Rfe@cluster PodRR bulk Fre@cluster"),
                         MemVariant::Dsmem, "", Why));
  EXPECT_NE(Why.find("another CTA's shared memory"), std::string::npos);
  EXPECT_NE(whyNot("PodWW Rfe@gpu DpAddrdR bulk Fre@gpu").find("dependency"),
            std::string::npos);
}

TEST(GenBuild, CycleInTheCommentRebuildsTheTest) {
  GeneratedTest G = build("FencedWR.fence.acq_rel.cta Fre@cta relaxed.cta "
                          "PodWR Fre@cta");
  ASSERT_EQ(G.AST.Comments.size(), 1u);
  EXPECT_EQ(G.AST.Comments[0], "Cycle: " + G.CycleText);
  EXPECT_EQ(build(G.CycleText).Key, G.Key);
  GeneratedTest M = build("PodWW TxdWR.st.rlx.cluster.loop@cluster "
                          "Fre@cluster");
  EXPECT_EQ(build(M.CycleText).Key, M.Key);
}

} // namespace
