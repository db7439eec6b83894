//===- CodegenTest.cpp - OpenCL C generation ------------------------------===//
#include "incant/OpenCL/Codegen.h"
#include "incant/Testing/Programs.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::opencl;
using namespace incant::handbuilt;
using namespace incant::litmus;

namespace {

std::optional<GeneratedKernel> gen(const Program &P, DiagnosticEngine &D,
                                   DeviceCaps Caps = {}) {
  return generateKernel(P, Caps, harness::Incantations{}, 100, nullptr, D);
}

TEST(Codegen, SBUsesExplicitAtomics) {
  DiagnosticEngine D;
  auto K = gen(sb(), D);
  ASSERT_TRUE(K);
  EXPECT_NE(K->Source.find("atomic_store_explicit(&mem[a[0]], (1), "
                           "memory_order_relaxed, memory_scope_device);"),
            std::string::npos)
      << K->Source;
  EXPECT_NE(K->Source.find("r0 = (atomic_load_explicit(&mem[a[1]], "
                           "memory_order_relaxed, memory_scope_device));"),
            std::string::npos);
  EXPECT_NE(K->Source.find("__kernel void incant_test"), std::string::npos);
  EXPECT_EQ(K->BuildOptions, "-cl-std=CL3.0");
  // Two registers per thread (r0, r1); the observed ones are 0:r0, 1:r0.
  EXPECT_EQ(K->RegsPerInstance, 4u);
  EXPECT_EQ(K->ObserveRegOffset, (std::vector<int32_t>{0, 2}));
}

TEST(Codegen, FencesAndScopes) {
  DiagnosticEngine D;
  Program P = sb(Place::CTA, FenceSel::FenceScGpu);
  P.Threads[1].Ops[1] = fenceOp(FenceKind::Membar, Scope::CTA);
  P.Threads[0].Ops[0].S = Sem::Release;
  P.Threads[0].Ops[0].Sc = Scope::Sys;
  auto K = gen(P, D);
  ASSERT_TRUE(K);
  EXPECT_NE(K->Source.find("atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, "
                           "memory_order_seq_cst, memory_scope_device)"),
            std::string::npos);
  EXPECT_NE(K->Source.find("atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, "
                           "memory_order_seq_cst, memory_scope_work_group)"),
            std::string::npos);
  // .sys on a device without all-devices scope: device scope (one device).
  EXPECT_NE(K->Source.find("memory_order_release, memory_scope_device"),
            std::string::npos);
  DeviceCaps All;
  All.ScopeAllDevices = true;
  K = gen(P, D, All);
  ASSERT_TRUE(K);
  EXPECT_NE(K->Source.find("memory_order_release, memory_scope_all_svm_devices"),
            std::string::npos);
}

TEST(Codegen, UnfaithfulOpsAreErrors) {
  auto File = std::make_shared<SourceFile>("t.litmus", "P0 ;\n bar.sync 0 ;\n");
  Program P = mp();
  Op B{};
  B.K = Op::Kind::Barrier;
  B.Range.Begin = {2, 2, 7};
  B.Range.End = {2, 12, 17};
  P.Threads[0].Ops.push_back(B);
  DiagnosticEngine D;
  EXPECT_FALSE(generateKernel(P, {}, {}, 100, File, D));
  ASSERT_EQ(D.numErrors(), 1u);
  std::string Msg = DiagnosticEngine::format(D.diagnostics()[0]);
  EXPECT_NE(Msg.find("t.litmus:2:2: error: no faithful OpenCL form: bar.sync"),
            std::string::npos)
      << Msg;

  Program Q = mp();
  Q.Threads[0].Ops[0].S = Sem::Acquire; // an acquire store
  DiagnosticEngine D2;
  EXPECT_FALSE(gen(Q, D2));
  DeviceCaps NoAcq;
  NoAcq.OrderAcqRel = false;
  Program R = mp();
  R.Threads[1].Ops[0].S = Sem::Acquire;
  DiagnosticEngine D3;
  EXPECT_FALSE(gen(R, D3, NoAcq));
  EXPECT_TRUE(gen(R, D3));
}

TEST(Codegen, RmwAndBranches) {
  Program P = mp();
  Op Cas{};
  Cas.K = Op::Kind::Rmw;
  Cas.Rmw = RmwOp::Cas;
  Cas.Dst = 0;
  Cas.Addr = Operand::addr(0);
  Cas.Src = {Operand::imm(0), Operand::imm(2)};
  Cas.S = Sem::AcqRel;
  Op Inc = Cas;
  Inc.Rmw = RmwOp::Inc;
  Inc.Src = {Operand::imm(5)};
  Inc.Signed = false;
  Op Back{};
  Back.K = Op::Kind::Branch;
  Back.GuardReg = 0;
  Back.Target = 0;
  P.Threads[0].Ops = {Cas, Inc, Back};
  DiagnosticEngine D;
  auto K = gen(P, D);
  ASSERT_TRUE(K) << (D.hasErrors() ? D.diagnostics()[0].Message : "");
  EXPECT_NE(K->Source.find("atomic_compare_exchange_strong_explicit(&mem[a[0]], "
                           "&e, 2, memory_order_acq_rel, memory_order_acquire"),
            std::string::npos)
      << K->Source;
  EXPECT_NE(K->Source.find("atomic_compare_exchange_weak_explicit"),
            std::string::npos);
  EXPECT_NE(K->Source.find("if (++steps > 100)"), std::string::npos);
  EXPECT_NE(K->Source.find("L0:;"), std::string::npos);
  // Reaching the bound marks the instance; the mark is the last value of
  // the outcome's key, so the host counts it apart, never as an outcome.
  ASSERT_GE(K->CutSlot, 0);
  EXPECT_EQ(K->NumObs, P.Observe.size() + 1);
  EXPECT_NE(K->Source.find("{ out[INCANT_CUT_SLOT] = 1; goto L_end; }"),
            std::string::npos);
  EXPECT_NE(K->Source.find("v[2] = regs[INCANT_CUT_SLOT] != 0;"),
            std::string::npos);
  DiagnosticEngine D2;
  EXPECT_EQ(gen(mp(), D2)->CutSlot, -1);
}

TEST(Codegen, HarnessIsEmbedded) {
  std::string_view H = harnessSource();
  EXPECT_NE(H.find("__kernel void incant_collect"), std::string_view::npos);
}

} // namespace
