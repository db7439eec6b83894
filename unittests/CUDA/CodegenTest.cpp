//===- CodegenTest.cpp - CUDA code generation from litmus::Program --------===//

#include "incant/Testing/Programs.h"
#include "incant/CUDA/Codegen.h"
#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace incant;
using namespace incant::handbuilt;

namespace {

cuda::GeneratedTest gen(const litmus::Program &P) {
  DiagnosticEngine Diags;
  auto G = cuda::generateCuda(P, {}, nullptr, Diags);
  EXPECT_TRUE(G.has_value());
  EXPECT_FALSE(Diags.hasErrors());
  return G ? *G : cuda::GeneratedTest();
}

bool has(const std::string &S, const std::string &Sub) {
  return S.find(Sub) != std::string::npos;
}

} // namespace

TEST(CudaLayout, DifferentCtas) {
  auto L = harness::placementShape(mp(Place::CTA));
  ASSERT_EQ(L.Roles.size(), 2u);
  EXPECT_EQ(L.ClusterSize, 1u);
  EXPECT_EQ(L.NumClusterGroups, 2u);
  EXPECT_NE(L.Roles[0].ClusterGroup, L.Roles[1].ClusterGroup);
  EXPECT_EQ(L.maxWarps(), 1u);
  EXPECT_EQ(L.maxLanes(), 1u);
}

TEST(CudaLayout, OneCtaDifferentWarps) {
  auto L = harness::placementShape(mp(Place::Warp));
  EXPECT_EQ(L.NumClusterGroups, 1u);
  EXPECT_EQ(L.Roles[0].ClusterGroup, L.Roles[1].ClusterGroup);
  EXPECT_NE(L.Roles[0].WarpClass, L.Roles[1].WarpClass);
  EXPECT_EQ(L.maxLanes(), 1u);
}

TEST(CudaLayout, OneWarp) {
  auto L = harness::placementShape(sb(Place::Lane));
  EXPECT_EQ(L.maxWarps(), 1u);
  EXPECT_EQ(L.Roles[0].WarpClass, L.Roles[1].WarpClass);
  EXPECT_NE(L.Roles[0].Lane, L.Roles[1].Lane);
  EXPECT_EQ(L.maxLanes(), 2u);
}

TEST(CudaLayout, ClusterOnlyWhenTheTestCanTell) {
  // Same cluster, different CTAs, cluster-scoped accesses: a cluster launch.
  auto L = harness::placementShape(mp(Place::Cluster));
  EXPECT_EQ(L.ClusterSize, 2u);
  EXPECT_EQ(L.NumClusterGroups, 1u);
  EXPECT_NE(L.Roles[0].CtaInCluster, L.Roles[1].CtaInCluster);
  // Same placement with .gpu scopes only: plain different blocks.
  litmus::Program P = mp(Place::Cluster);
  for (auto &T : P.Threads)
    for (auto &O : T.Ops)
      O.Sc = litmus::Scope::GPU;
  auto L2 = harness::placementShape(P);
  EXPECT_EQ(L2.ClusterSize, 1u);
  EXPECT_EQ(L2.NumClusterGroups, 2u);
}

TEST(CudaLayout, FourCtasAndMixed) {
  litmus::Program P = mp();
  P.Threads.resize(4);
  for (int T = 0; T < 4; ++T)
    P.Threads[T].Where = {0, T, T, 0};
  auto L = harness::placementShape(P);
  EXPECT_EQ(L.NumClusterGroups, 4u);
  // Two roles in CTA 0 (different warps) and one in CTA 1.
  P.Threads.resize(3);
  P.Threads[0].Where = {0, 0, 0, 0};
  P.Threads[1].Where = {0, 0, 0, 1};
  P.Threads[2].Where = {0, 1, 1, 0};
  L = harness::placementShape(P);
  EXPECT_EQ(L.NumClusterGroups, 2u);
  EXPECT_EQ(L.maxWarps(), 2u);
  EXPECT_EQ(L.Roles[0].ClusterGroup, L.Roles[1].ClusterGroup);
  EXPECT_NE(L.Roles[0].WarpClass, L.Roles[1].WarpClass);
  EXPECT_NE(L.Roles[0].ClusterGroup, L.Roles[2].ClusterGroup);
}

TEST(CudaCodegen, MessagePassingInlinePtx) {
  auto G = gen(mp());
  EXPECT_TRUE(has(G.Source, "st.relaxed.gpu.global.u32 [%0], %1;"));
  EXPECT_TRUE(has(G.Source, "ld.relaxed.gpu.global.u32 %0, [%1];"));
  EXPECT_TRUE(has(G.Source, "#include \"incant_harness.cuh\""));
  EXPECT_TRUE(has(G.Source, "#define INCANT_NUM_OUT 2"));
  EXPECT_EQ(G.NumGlobal, 2u);
  EXPECT_EQ(G.NumShared, 0u);
  ASSERT_EQ(G.ExpectedMemOps.size(), 2u);
  EXPECT_EQ(G.ExpectedMemOps[0], (std::vector<std::string>{"ST", "ST"}));
  EXPECT_EQ(G.ExpectedMemOps[1], (std::vector<std::string>{"LD", "LD"}));
  // Role 1's loads are observed: written to the instance's out slots.
  EXPECT_TRUE(has(G.Source, "o[0] = (unsigned)r0;"));
  EXPECT_TRUE(has(G.Source, "o[1] = (unsigned)r1;"));
}

TEST(CudaCodegen, Fences) {
  auto G = gen(sb(Place::CTA, FenceSel::FenceScGpu));
  EXPECT_TRUE(has(G.Source, "asm volatile(\"fence.sc.gpu;\""));
  EXPECT_EQ(G.ExpectedMemOps[0],
            (std::vector<std::string>{"ST", "FENCE", "LD"}));
  auto G2 = gen(lb(Place::CTA, FenceSel::MembarGl));
  EXPECT_TRUE(has(G2.Source, "asm volatile(\"membar.gl;\""));
}

TEST(CudaCodegen, SharedMemory) {
  auto G = gen(mp(Place::Warp, FenceSel::None, /*Shared=*/true));
  EXPECT_EQ(G.NumShared, 2u);
  EXPECT_EQ(G.NumGlobal, 0u);
  EXPECT_TRUE(has(G.Source, "st.relaxed.gpu.shared.u32"));
  EXPECT_TRUE(has(G.Source, "__cvta_generic_to_shared"));
  EXPECT_TRUE(has(G.Source, "incant_sword(P, 0, iw, il)"));
}

TEST(CudaCodegen, SemanticsScopesCacheOpsAndRmw) {
  litmus::Program P = mp();
  auto &T0 = P.Threads[0].Ops, &T1 = P.Threads[1].Ops;
  T0[1].S = litmus::Sem::Release;
  T0[1].Sc = litmus::Scope::Sys;
  T1[0].S = litmus::Sem::Acquire;
  T1[0].Sc = litmus::Scope::CTA;
  T1[1].S = litmus::Sem::Weak;
  T1[1].Cache = litmus::CacheOp::CG;
  T1[1].Sp = litmus::Space::Generic;
  litmus::Op Cas = memOp(litmus::Op::Kind::Rmw, 0, 0, 0);
  Cas.Rmw = litmus::RmwOp::Cas;
  Cas.Dst = 0;
  Cas.Src = {litmus::Operand::imm(0), litmus::Operand::imm(2)};
  Cas.S = litmus::Sem::AcqRel;
  T0.push_back(Cas);
  litmus::Op Red = memOp(litmus::Op::Kind::Rmw, 1, -1, 0);
  Red.Rmw = litmus::RmwOp::Add;
  Red.Dst = -1;
  Red.Src = {litmus::Operand::imm(1)};
  Red.S = litmus::Sem::Weak;
  T0.push_back(Red);
  auto G = gen(P);
  EXPECT_TRUE(has(G.Source, "st.release.sys.global.u32"));
  EXPECT_TRUE(has(G.Source, "ld.acquire.cta.global.u32"));
  EXPECT_TRUE(has(G.Source, "ld.cg.u32 %0, [%1];"));
  EXPECT_TRUE(has(G.Source, "atom.acq_rel.gpu.global.cas.b32 %0, [%1], %2, %3;"));
  EXPECT_TRUE(has(G.Source, "red.global.add.s32 [%0], %1;"));
  EXPECT_EQ(G.ExpectedMemOps[0],
            (std::vector<std::string>{"ST", "FENCE?", "ST", "FENCE?", "ATOM",
                                      "FENCE?", "RED"}));
  EXPECT_EQ(G.ExpectedMemOps[1],
            (std::vector<std::string>{"LD", "FENCE?", "LD"}));
}

TEST(CudaCodegen, BranchesAreBounded) {
  litmus::Program P = mp();
  litmus::Op Br{};
  Br.K = litmus::Op::Kind::Branch;
  Br.GuardReg = 0;
  Br.GuardNegated = true;
  Br.Target = 0; // spin until r0 != 0
  P.Threads[1].Ops.insert(P.Threads[1].Ops.begin() + 1, Br);
  auto G = gen(P);
  EXPECT_TRUE(has(G.Source, "L1_0:;"));
  EXPECT_TRUE(has(G.Source, "if (++steps > 1000u) goto L1_end; goto L1_0;"));
  // An instance cut by the bound is marked in its key (the last out slot),
  // so that the launcher counts it apart and never as an outcome.
  ASSERT_EQ(G.CutSlot, int32_t(P.Observe.size()));
  EXPECT_EQ(G.NumOut, P.Observe.size() + 1);
  EXPECT_TRUE(has(G.Source, "if (steps > 1000u) o[2] = 1u;"));
  EXPECT_TRUE(has(G.Source, "t[2] = out[(incant_u64)i * 3u + 2u];"));
  EXPECT_TRUE(has(G.Source, "out[(incant_u64)i * 3u + 2u] = 0u;"));
  EXPECT_EQ(cuda::decodeOutcome(G, {1, 0, 1}).size(), P.Observe.size());
  // A test without a loop keeps its outcome words as they were.
  EXPECT_EQ(gen(mp()).CutSlot, -1);
}

TEST(CudaCodegen, NoInputTextInCode) {
  litmus::Program P = mp();
  P.Name = "\"); system(\"rm -rf /\"); //";
  P.Locs[0].Name = "x\"*/evil";
  P.Threads[0].Regs[0].Name = "r0; } evil(); {";
  auto G = gen(P);
  EXPECT_FALSE(has(G.Source, "evil"));
  EXPECT_FALSE(has(G.Source, "system"));
}

namespace {

litmus::Op barrier(int32_t Id = 0) {
  litmus::Op Bar{};
  Bar.K = litmus::Op::Kind::Barrier;
  Bar.BarrierId = Id;
  return Bar;
}

/// MP with bar.sync between each thread's two accesses, roles in two warps
/// of one CTA.
litmus::Program mpBar() {
  litmus::Program P = mp(Place::Warp);
  for (auto &T : P.Threads)
    T.Ops.insert(T.Ops.begin() + 1, barrier());
  return P;
}

} // namespace

TEST(CudaCodegen, BarrierTestRunsRolesInPartsBetweenBarriers) {
  auto G = gen(mpBar());
  EXPECT_TRUE(has(G.Source, "#define INCANT_HAS_BARRIER 1"));
  // Parts: role 0 part 0, role 1 part 0, the barrier, role 0 part 1, role 1
  // part 1, each a marked region.
  ASSERT_EQ(G.ExpectedMemOps.size(), 5u);
  EXPECT_EQ(G.ExpectedMemOps[0], (std::vector<std::string>{"ST"}));
  EXPECT_EQ(G.ExpectedMemOps[1], (std::vector<std::string>{"LD"}));
  EXPECT_EQ(G.ExpectedMemOps[2], (std::vector<std::string>{"BAR"}));
  EXPECT_EQ(G.ExpectedMemOps[3], (std::vector<std::string>{"ST"}));
  EXPECT_EQ(G.RegionNames[2], "barrier 0");
  EXPECT_EQ(G.RegionNames[4], "thread 1 part 1");
  // One barrier, unconditional, between the parts; no rotation loop.
  size_t B = G.Source.find("asm volatile(\"barrier.sync 0;\"");
  ASSERT_NE(B, std::string::npos);
  EXPECT_EQ(G.Source.find("barrier.sync", B + 20), std::string::npos);
  EXPECT_LT(G.Source.find("pmevent.mask 0x103;"), B);
  EXPECT_GT(G.Source.find("pmevent.mask 0x106;"), B);
  EXPECT_FALSE(has(G.Source, "for (unsigned step"));
  // Idle lanes and threads without an instance skip the parts, not the
  // barrier.
  EXPECT_TRUE(has(G.Source, "const bool idle = shadow && !(P.flags & "
                            "INCANT_F_BANK);"));
  EXPECT_TRUE(has(G.Source, "if (run0) {"));
  EXPECT_TRUE(has(G.Source, "o[0] = (unsigned)r1_0;"));
}

TEST(CudaCodegen, BarrierSequencesMustAgree) {
  litmus::Program P = mpBar();
  P.Threads[1].Ops[1].BarrierId = 1;
  std::ostringstream OS;
  DiagnosticEngine Diags(&OS);
  EXPECT_FALSE(cuda::generateCuda(P, {}, nullptr, Diags).has_value());
  EXPECT_TRUE(has(OS.str(), "same barriers in the same order"));
  litmus::Program Q = mpBar();
  Q.Threads[0].Ops[1].GuardReg = 0;
  std::ostringstream OS2;
  DiagnosticEngine D2(&OS2);
  EXPECT_FALSE(cuda::generateCuda(Q, {}, nullptr, D2).has_value());
  EXPECT_TRUE(has(OS2.str(), "guarded bar.sync"));
}

TEST(CudaCodegen, SixtyFourBitAccesses) {
  litmus::Program P = mp();
  for (auto &T : P.Threads)
    for (auto &O : T.Ops)
      O.Bits = 64;
  P.Threads[1].Regs[0].Bits = 64;
  litmus::Op Cas = memOp(litmus::Op::Kind::Rmw, 1, 0, 0);
  Cas.Rmw = litmus::RmwOp::Cas;
  Cas.Bits = 64;
  Cas.Dst = 0;
  Cas.Src = {litmus::Operand::imm(0), litmus::Operand::imm(2)};
  P.Threads[0].Ops.push_back(Cas);
  auto G = gen(P);
  EXPECT_TRUE(has(G.Source, "st.relaxed.gpu.global.u64 [%0], %1;\" :: "
                            "\"l\"("));
  EXPECT_TRUE(has(G.Source, "\"l\"((incant_u64)(1ull))"));
  EXPECT_TRUE(has(G.Source, "ld.relaxed.gpu.global.u64 %0, [%1];\" : "
                            "\"=l\"(v)"));
  EXPECT_TRUE(has(G.Source, "atom.relaxed.gpu.global.cas.b64"));
  // 8-byte slots: even global indices, the odd one is the high word.
  EXPECT_EQ(G.NumGlobal, 4u);
  EXPECT_EQ(G.GlobalIndex, (std::vector<int32_t>{0, 2}));
  EXPECT_TRUE(has(G.Source, "mem[w] = (unsigned)v; mem[w + 1] = "
                            "(unsigned)(v >> 32);"));
  // Observed r0 of thread 1 is 64-bit: a high-word slot after the two.
  EXPECT_EQ(G.HiSlot, (std::vector<int32_t>{2, -1}));
  EXPECT_EQ(G.NumOut, 3u);
  EXPECT_TRUE(has(G.Source, "incant_put64(o, 0u, 2u, r0, a);"));
  // 64-bit inc has no PTX form.
  litmus::Program Q = mp();
  litmus::Op Inc = Cas;
  Inc.Rmw = litmus::RmwOp::Inc;
  Q.Threads[0].Ops.push_back(Inc);
  DiagnosticEngine Diags(nullptr);
  EXPECT_FALSE(cuda::generateCuda(Q, {}, nullptr, Diags).has_value());
}

TEST(CudaCodegen, LocationHoldingAnAddress) {
  litmus::Program P = mp();
  litmus::Location Ptr;
  Ptr.Name = "p";
  Ptr.Init = litmus::Value{1, 0}; // p = &y
  P.Locs.push_back(Ptr);
  auto G = gen(P);
  EXPECT_EQ(G.GlobalIndex, (std::vector<int32_t>{0, 2, 4}));
  EXPECT_TRUE(has(G.Source, "v = incant_gaddr(P, i, 2u) + 0ull;"));
  // Decoding: an address comes back as its location, a 64-bit value whole,
  // a 32-bit one signed.
  cuda::GeneratedTest D;
  D.HiSlot = {2, -1};
  auto V = cuda::decodeOutcome(D, {4, 0xffffffffu, cuda::AddressTag | 1});
  ASSERT_EQ(V.size(), 2u);
  EXPECT_EQ(V[0], (litmus::Value{1, 4}));
  EXPECT_EQ(V[1], (litmus::Value{-1, -1}));
  V = cuda::decodeOutcome(D, {5, 7, 1});
  EXPECT_EQ(V[0], (litmus::Value{-1, (int64_t{1} << 32) | 5}));
}

TEST(CudaCodegen, UnsupportedOpsAreDiagnosed) {
  auto File = std::make_shared<SourceFile>("t.litmus", "bar.sync 0;\n");
  litmus::Program P = mp();
  litmus::Op Bar = barrier();
  Bar.Range.Begin = {1, 1, 0};
  Bar.Range.End = {1, 9, 8};
  P.Threads[0].Ops.push_back(Bar); // thread 1 has no barrier
  P.Threads[1].Ops[0].Bits = 16;
  P.Threads[1].Ops[0].Range.Begin = {1, 1, 0};
  std::ostringstream OS;
  DiagnosticEngine Diags(&OS);
  EXPECT_FALSE(cuda::generateCuda(P, {}, File, Diags).has_value());
  EXPECT_EQ(Diags.numErrors(), 2u);
  EXPECT_TRUE(has(OS.str(), "t.litmus:1:1: error: every thread of a test with "
                            "bar.sync must execute the same barriers"));
  EXPECT_TRUE(has(OS.str(), "16-bit memory accesses are not supported"));
}

TEST(CudaCodegen, HarnessIsEmbedded) {
  const auto &F = cuda::harnessFiles();
  ASSERT_EQ(F.size(), 2u);
  EXPECT_STREQ(F[0].Name, "incant_params.h");
  EXPECT_TRUE(has(F[1].Text, "incant_test_kernel"));
  EXPECT_TRUE(has(F[1].Text, "incant_hist_kernel"));
}

namespace {

/// A GPU_PTX test from text, lowered.
litmus::Program lowered(const std::string &Text) {
  auto F = std::make_shared<SourceFile>("t.litmus", Text);
  DiagnosticEngine Diags;
  auto T = litmus::parseTest(F, Diags);
  EXPECT_TRUE(T.has_value());
  auto P = T ? litmus::lower(*T, Diags) : std::nullopt;
  EXPECT_TRUE(P.has_value()) << (Diags.diagnostics().empty()
                                     ? std::string()
                                     : Diags.diagnostics().front().Message);
  return P ? *P : litmus::Program();
}

const char *DsmemMP = R"(GPU_PTX MP+dsmem
{
0:.reg .b64 r1 = x;
0:.reg .b64 r3 = y;
1:.reg .s32 r0;
1:.reg .s32 r2;
1:.reg .b32 r4;
1:.reg .b32 r5;
x=0; y=0;
}
 T0                   | T1                                ;
 st.shared.s32 [r1],1 | mapa.shared::cluster.u32 r5, y, 0 ;
 st.shared.s32 [r3],1 | mapa.shared::cluster.u32 r4, x, 0 ;
                      | ld.shared::cluster.s32 r0,[r5]    ;
                      | ld.shared::cluster.s32 r2,[r4]    ;
ScopeTree
(device (kernel (cluster (cta (warp T0)) (cta (warp T1)))))
x: shared, y: shared
exists (1:r0=1 /\ 1:r2=0)
)";

const char *TmaMP = R"(GPU_PTX MP+tma
{
1:.reg .pred p0;
1:.reg .s32 r0;
g=1; s=0; b=1;
}
 T0                                                                                  | T1 ;
 mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [b], 16                    | mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p0, [b], 0 ;
 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [g], 16, [b] | ld.shared.s32 r0,[s] ;
ScopeTree
(device (kernel (cta (warp T0) (warp T1))))
g: global, s: shared, b: shared
exists (1:p0=1 /\ 1:r0=0)
)";

} // namespace

TEST(CudaHopper, DistributedSharedMemoryLaunchesClusters) {
  // Weak accesses only, but mapa and .shared::cluster tell CTAs of one
  // cluster apart: a cluster launch, and the remote role maps its
  // addresses to the home CTA's rank.
  litmus::Program P = lowered(DsmemMP);
  auto L = harness::placementShape(P);
  EXPECT_EQ(L.ClusterSize, 2u);
  cuda::GeneratedTest G = gen(P);
  EXPECT_TRUE(G.ClusterShared);
  EXPECT_TRUE(has(G.Source, "#define INCANT_CLUSTER 2"));
  EXPECT_TRUE(has(G.Source, "#define INCANT_CLUSTER_SHARED 1"));
  EXPECT_TRUE(has(G.Source, "incant_mapa(a[1], (vb % 2u + 2u - 1u + 0u) % 2u)"));
  EXPECT_TRUE(has(G.Source, "ld.shared::cluster.u32"));
}

TEST(CudaHopper, BulkCopyAndMbarrier) {
  litmus::Program P = lowered(TmaMP);
  // The copy is four ops of one asynchronous instruction: its async-proxy
  // read and write, the completion's proxy fence and complete_tx.
  const auto &Ops = P.Threads[0].Ops;
  ASSERT_EQ(Ops.size(), 5u);
  EXPECT_EQ(Ops[0].Mbar, litmus::MbarOp::Arrive);
  for (size_t K = 1; K < 5; ++K)
    EXPECT_EQ(Ops[K].Async, Ops[1].Async);
  EXPECT_EQ(Ops[1].Px, litmus::Proxy::Async);
  EXPECT_EQ(Ops[4].Mbar, litmus::MbarOp::CompleteTx);
  // The mbarrier expects one arrival; the model counts the copy too.
  EXPECT_EQ(P.Locs[2].Mbarrier, 1);
  EXPECT_EQ(P.Locs[2].Init.Int, 2);
  cuda::GeneratedTest G = gen(P);
  EXPECT_EQ(G.SharedStride, 4u);
  EXPECT_TRUE(G.Align16);
  EXPECT_TRUE(G.SkipOptCheck);
  EXPECT_TRUE(has(G.Source, "mbarrier.init.shared::cta.b64"));
  EXPECT_TRUE(has(G.Source, "fence.proxy.async.shared::cta;"));
  EXPECT_TRUE(has(G.Source, "cp.async.bulk.shared::cluster.global.mbarrier::"
                            "complete_tx::bytes [%0], [%1], 16, [%2];"));
  EXPECT_TRUE(has(G.Source, "mbarrier.try_wait.parity.acquire.cta"));
}
