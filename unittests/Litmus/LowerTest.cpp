//===- LowerTest.cpp - Tests of lowering litmus tests to Programs ---------===//
#include "Helpers.h"

using namespace incant;
using namespace incant::litmus;
using namespace incant::litmus::test;

namespace {

bool sameCTA(const Placement &A, const Placement &B) {
  return A.Device == B.Device && A.Cluster == B.Cluster && A.CTA == B.CTA;
}
bool sameWarp(const Placement &A, const Placement &B) {
  return sameCTA(A, B) && A.Warp == B.Warp;
}

int32_t loc(const Program &P, const std::string &Name) {
  for (size_t I = 0; I != P.Locs.size(); ++I)
    if (P.Locs[I].Name == Name)
      return static_cast<int32_t>(I);
  ADD_FAILURE() << "no location " << Name;
  return -1;
}

int32_t reg(const ThreadProgram &T, const std::string &Name) {
  for (size_t I = 0; I != T.Regs.size(); ++I)
    if (T.Regs[I].Name == Name)
      return static_cast<int32_t>(I);
  ADD_FAILURE() << "no register " << Name;
  return -1;
}

TEST(LitmusLower, ThesisSB) {
  Lowered L = lowerText(SBText);
  ASSERT_TRUE(L.P);
  const Program &P = *L.P;
  EXPECT_EQ(P.Name, "SB");
  ASSERT_EQ(P.Threads.size(), 2u);
  ASSERT_EQ(P.Locs.size(), 2u);
  int32_t X = loc(P, "x"), Y = loc(P, "y");
  EXPECT_EQ(P.Locs[X].R, Region::Shared);
  EXPECT_EQ(P.Locs[Y].R, Region::Global);
  EXPECT_EQ(P.Locs[X].Init, (Value{-1, 0}));
  // Same CTA, different warps.
  EXPECT_TRUE(sameCTA(P.Threads[0].Where, P.Threads[1].Where));
  EXPECT_FALSE(sameWarp(P.Threads[0].Where, P.Threads[1].Where));

  const ThreadProgram &T0 = P.Threads[0];
  ASSERT_EQ(T0.Regs.size(), 4u);
  const Register &R1 = T0.Regs[reg(T0, "r1")];
  EXPECT_EQ(R1.Bits, 64);
  EXPECT_FALSE(R1.Signed);
  EXPECT_EQ(R1.Init, (Value{X, 0}));
  EXPECT_EQ(T0.Regs[reg(T0, "r0")].Bits, 32);
  EXPECT_TRUE(T0.Regs[reg(T0, "r0")].Signed);
  EXPECT_EQ(P.Threads[1].Regs[reg(P.Threads[1], "r1")].Init, (Value{Y, 0}));

  ASSERT_EQ(T0.Ops.size(), 3u);
  const Op &Mov = T0.Ops[0];
  EXPECT_EQ(Mov.K, Op::Kind::Alu);
  EXPECT_EQ(Mov.Alu, AluOp::Mov);
  EXPECT_EQ(Mov.Dst, reg(T0, "r0"));
  ASSERT_EQ(Mov.Src.size(), 1u);
  EXPECT_EQ(Mov.Src[0].K, Operand::Kind::Imm);
  EXPECT_EQ(Mov.Src[0].Imm.Int, 1);
  const Op &St = T0.Ops[1];
  EXPECT_EQ(St.K, Op::Kind::Store);
  EXPECT_EQ(St.S, Sem::Weak);
  EXPECT_EQ(St.Sc, Scope::None);
  EXPECT_EQ(St.Cache, CacheOp::CG);
  EXPECT_EQ(St.Addr.K, Operand::Kind::Reg);
  EXPECT_EQ(St.Addr.Reg, reg(T0, "r1"));
  EXPECT_EQ(St.Src[0].K, Operand::Kind::Reg);
  EXPECT_EQ(St.Src[0].Reg, reg(T0, "r0"));
  EXPECT_EQ(St.Bits, 32);
  EXPECT_TRUE(St.Signed);
  const Op &Ld = T0.Ops[2];
  EXPECT_EQ(Ld.K, Op::Kind::Load);
  EXPECT_EQ(Ld.Dst, reg(T0, "r2"));
  EXPECT_EQ(Ld.Addr.Reg, reg(T0, "r3"));
  EXPECT_EQ(Ld.Range.Begin.Line, 16u);
  EXPECT_EQ(Ld.Range.Begin.Col, 1u);

  EXPECT_EQ(P.Q, Quantifier::Exists);
  EXPECT_EQ(P.Condition.K, Cond::And);
  ASSERT_EQ(P.Condition.Kids.size(), 2u);
  EXPECT_EQ(P.Condition.Kids[0].K, Cond::Eq);
  EXPECT_EQ(P.Condition.Kids[0].Lhs.K, Term::Kind::Reg);
  EXPECT_EQ(P.Condition.Kids[0].Lhs.Thread, 0);
  EXPECT_EQ(P.Condition.Kids[0].Lhs.Index, reg(T0, "r2"));
  EXPECT_EQ(P.Condition.Kids[0].Rhs.K, Term::Kind::Const);
  EXPECT_EQ(P.Condition.Kids[0].Rhs.V, (Value{-1, 0}));
  ASSERT_EQ(P.Observe.size(), 2u);
  EXPECT_EQ(P.Observe[0].Thread, 0);
  EXPECT_EQ(P.Observe[1].Thread, 1);
  EXPECT_EQ(P.Observe[1].Index, reg(P.Threads[1], "r2"));
}

const char *MPText = R"(GPU_PTX MP+membar.gls
{
0:.reg .s32 r0; 0:.reg .b64 r1 = x; 0:.reg .b64 r3 = y;
1:.reg .s32 r0; 1:.reg .s32 r2; 1:.reg .b64 r1 = y; 1:.reg .b64 r3 = x;
}
 T0                 | T1                 ;
 mov.s32 r0, 1      | ld.cg.s32 r0, [r1] ;
 st.cg.s32 [r1], r0 | membar.gl          ;
 membar.gl          | ld.cg.s32 r2, [r3] ;
 st.cg.s32 [r3], r0 |                    ;
ScopeTree
(device (cta (warp T0)) (cta (warp T1)))
x: global, y: global
exists (1:r0=1 /\ 1:r2=0)
)";

TEST(LitmusLower, ThesisMP) {
  Lowered L = lowerText(MPText);
  ASSERT_TRUE(L.P);
  const Program &P = *L.P;
  EXPECT_FALSE(sameCTA(P.Threads[0].Where, P.Threads[1].Where));
  EXPECT_EQ(P.Threads[0].Where.Device, P.Threads[1].Where.Device);
  ASSERT_EQ(P.Threads[0].Ops.size(), 4u);
  ASSERT_EQ(P.Threads[1].Ops.size(), 3u);
  const Op &F = P.Threads[1].Ops[1];
  EXPECT_EQ(F.K, Op::Kind::Fence);
  EXPECT_EQ(F.Fence, FenceKind::Membar);
  EXPECT_EQ(F.Sc, Scope::GPU);
  EXPECT_EQ(F.S, Sem::SC);
  EXPECT_EQ(P.Observe.size(), 2u);
}

TEST(LitmusLower, ThesisCoRR) {
  Lowered L = lowerText(R"(GPU_PTX CoRR
{
0:.reg .s32 r0; 0:.reg .b64 r1 = x;
1:.reg .s32 r0; 1:.reg .s32 r2; 1:.reg .b64 r1 = x;
}
 T0                 | T1                 ;
 mov.s32 r0, 1      | ld.cg.s32 r0, [r1] ;
 st.cg.s32 [r1], r0 | ld.ca.s32 r2, [r1] ;
ScopeTree
(device (cta (warp T0) (warp T1)))
x: global
exists (1:r0=1 /\ 1:r2=0)
)");
  ASSERT_TRUE(L.P);
  const Program &P = *L.P;
  EXPECT_TRUE(sameCTA(P.Threads[0].Where, P.Threads[1].Where));
  EXPECT_EQ(P.Locs.size(), 1u);
  EXPECT_EQ(P.Threads[1].Ops[1].Cache, CacheOp::CA);
  EXPECT_EQ(P.Threads[1].Ops[0].Addr.Reg, P.Threads[1].Ops[1].Addr.Reg);
}

const char *CASSLText = R"(GPU_PTX CAS-SL
{
x=0; y=1;
0:.reg .b32 r0; 0:.reg .b64 r3 = x; 0:.reg .b64 r4 = y;
1:.reg .b32 r0; 1:.reg .pred r1; 1:.reg .b32 r2;
1:.reg .b64 r3 = x; 1:.reg .b64 r4 = y;
}
 T0                        | T1                          ;
 st.cg.u32 [r3], 1         | atom.cas.b32 r0, [r4], 0, 1 ;
 membar.gl                 | setp.eq.u32 r1, r0, 0       ;
 atom.exch.b32 r0, [r4], 0 | @r1 membar.gl               ;
                           | @r1 ld.cg.u32 r2, [r3]      ;
ScopeTree
(device (cta (warp T0)) (cta (warp T1)))
exists (1:r0=0 /\ 1:r2=0)
)";

TEST(LitmusLower, ThesisCASSL) {
  Lowered L = lowerText(CASSLText);
  ASSERT_TRUE(L.P);
  const Program &P = *L.P;
  EXPECT_EQ(P.Locs[loc(P, "y")].Init, (Value{-1, 1}));
  const ThreadProgram &T0 = P.Threads[0], &T1 = P.Threads[1];
  const Op &Exch = T0.Ops[2];
  EXPECT_EQ(Exch.K, Op::Kind::Rmw);
  EXPECT_EQ(Exch.Rmw, RmwOp::Exch);
  EXPECT_EQ(Exch.S, Sem::Relaxed);
  EXPECT_EQ(Exch.Sc, Scope::GPU);
  EXPECT_EQ(Exch.Dst, reg(T0, "r0"));
  ASSERT_EQ(Exch.Src.size(), 1u);
  EXPECT_EQ(Exch.Src[0].Imm.Int, 0);
  EXPECT_FALSE(Exch.Signed);
  const Op &Cas = T1.Ops[0];
  EXPECT_EQ(Cas.Rmw, RmwOp::Cas);
  ASSERT_EQ(Cas.Src.size(), 2u);
  EXPECT_EQ(Cas.Src[0].Imm.Int, 0);
  EXPECT_EQ(Cas.Src[1].Imm.Int, 1);
  const Op &Setp = T1.Ops[1];
  EXPECT_EQ(Setp.K, Op::Kind::Alu);
  EXPECT_EQ(Setp.Alu, AluOp::Setp);
  EXPECT_EQ(Setp.Cmp, CmpOp::Eq);
  EXPECT_EQ(Setp.Dst, reg(T1, "r1"));
  EXPECT_TRUE(T1.Regs[reg(T1, "r1")].IsPred);
  EXPECT_EQ(T1.Regs[reg(T1, "r1")].Bits, 1);
  EXPECT_EQ(T1.Ops[2].GuardReg, reg(T1, "r1"));
  EXPECT_FALSE(T1.Ops[2].GuardNegated);
  EXPECT_EQ(T1.Ops[3].GuardReg, reg(T1, "r1"));
  EXPECT_EQ(T1.Ops[3].K, Op::Kind::Load);
  EXPECT_EQ(P.Observe.size(), 2u);
}

TEST(LitmusLower, PTXFormat) {
  Lowered L = lowerText(R"(PTX SL
{
m=1;
}
 P0@cta 0,gpu 0                 | P1@cta 1,gpu 0                   | P2 ;
 st.weak x, 1                   | L0:                              | fence.acq_rel.sys ;
 fence.sc.gpu                   | atom.acquire.gpu.cas r1, m, 0, 1 | ;
 atom.release.gpu.exch r0, m, 0 | setp.ne.s32 p, r1, 0             | ;
 red.relaxed.cta.plus x, 2      | @!p bra L0                       | ;
 ld.volatile.u64 r5, [x+8]      | ld.weak r2, x                    | ;
 mov.b64 r6, m                  | bra END                          | ;
                                | END:                             | ;
exists (P1:r2 == 0 /\ x == 3 /\ P0:r6 == m)
)");
  ASSERT_TRUE(L.P) << DiagnosticEngine::format(L.Diags[0]);
  const Program &P = *L.P;
  ASSERT_EQ(P.Threads.size(), 3u);
  // Locations from the init block first, then as they are used.
  EXPECT_EQ(P.Locs[0].Name, "m");
  EXPECT_EQ(P.Locs[1].Name, "x");
  EXPECT_EQ(P.Locs[1].R, Region::Global);
  // @cta placement; P2 has none and gets its own CTA.
  EXPECT_FALSE(sameCTA(P.Threads[0].Where, P.Threads[1].Where));
  EXPECT_FALSE(sameCTA(P.Threads[0].Where, P.Threads[2].Where));
  EXPECT_FALSE(sameCTA(P.Threads[1].Where, P.Threads[2].Where));

  const ThreadProgram &T0 = P.Threads[0], &T1 = P.Threads[1];
  EXPECT_EQ(T0.Ops[0].K, Op::Kind::Store);
  EXPECT_EQ(T0.Ops[0].Addr.K, Operand::Kind::Addr);
  EXPECT_EQ(T0.Ops[0].Addr.Imm, (Value{1, 0}));
  EXPECT_EQ(T0.Ops[1].Fence, FenceKind::FenceSC);
  EXPECT_EQ(T0.Ops[1].Sc, Scope::GPU);
  EXPECT_EQ(T0.Ops[2].S, Sem::Release);
  const Op &Red = T0.Ops[3];
  EXPECT_EQ(Red.K, Op::Kind::Rmw);
  EXPECT_EQ(Red.Dst, -1);
  EXPECT_EQ(Red.Rmw, RmwOp::Add);
  EXPECT_EQ(Red.Sc, Scope::CTA);
  const Op &Vol = T0.Ops[4];
  EXPECT_EQ(Vol.S, Sem::Volatile);
  EXPECT_EQ(Vol.Sc, Scope::None);
  EXPECT_EQ(Vol.Addr.Imm, (Value{1, 8}));
  EXPECT_EQ(Vol.Bits, 64);
  const Op &MovAddr = T0.Ops[5];
  EXPECT_EQ(MovAddr.Src[0].K, Operand::Kind::Addr);
  EXPECT_EQ(MovAddr.Src[0].Imm, (Value{0, 0}));

  ASSERT_EQ(T1.Ops.size(), 5u);
  EXPECT_EQ(T1.Ops[2].K, Op::Kind::Branch);
  EXPECT_EQ(T1.Ops[2].Target, 0);
  EXPECT_TRUE(T1.Ops[2].GuardNegated);
  EXPECT_EQ(T1.Ops[4].Target, 5); // END: past the last op
  EXPECT_TRUE(T1.Regs[reg(T1, "p")].IsPred);
  EXPECT_EQ(P.Threads[2].Ops[0].Fence, FenceKind::FenceAcqRel);
  EXPECT_EQ(P.Threads[2].Ops[0].S, Sem::AcqRel);
  EXPECT_EQ(P.Threads[2].Ops[0].Sc, Scope::Sys);

  // Observe: in order of first appearance.
  ASSERT_EQ(P.Observe.size(), 3u);
  EXPECT_EQ(P.Observe[0].Thread, 1);
  EXPECT_EQ(P.Observe[1].Thread, -1);
  EXPECT_EQ(P.Observe[1].Index, 1);
  EXPECT_EQ(P.Observe[2].Thread, 0);
  EXPECT_EQ(P.Condition.Kids[2].Rhs.V, (Value{0, 0}));
}

TEST(LitmusLower, FalseDependencyAndAlu) {
  Lowered L = lowerText(R"(GPU_PTX LD+data
{
0:.reg .s32 r0; 0:.reg .s32 r1; 0:.reg .b64 r2 = x; 0:.reg .b64 r3 = y;
0:.reg .u64 r4;
}
 T0                    ;
 ld.cg.s32 r0, [r2]    ;
 and.b32 r1, r0, 0     ;
 add.s32 r1, r1, 1     ;
 sub.s32 r1, r1, r0    ;
 mul.lo.s32 r1, r1, 2  ;
 or.b32 r1, r1, 1      ;
 xor.b32 r1, r1, 1     ;
 not.b32 r1, r1        ;
 cvt.u64.u32 r4, r1    ;
 st.cg.s32 [r3], r1    ;
ScopeTree (device (cta (warp T0)))
exists (0:r0=0)
)");
  ASSERT_TRUE(L.P);
  const auto &Ops = L.P->Threads[0].Ops;
  ASSERT_EQ(Ops.size(), 10u);
  EXPECT_EQ(Ops[1].Alu, AluOp::And);
  EXPECT_EQ(Ops[1].Src[0].K, Operand::Kind::Reg);
  EXPECT_EQ(Ops[1].Src[1].Imm.Int, 0);
  EXPECT_EQ(Ops[2].Alu, AluOp::Add);
  EXPECT_EQ(Ops[3].Alu, AluOp::Sub);
  EXPECT_EQ(Ops[4].Alu, AluOp::Mul);
  EXPECT_EQ(Ops[5].Alu, AluOp::Or);
  EXPECT_EQ(Ops[6].Alu, AluOp::Xor);
  EXPECT_EQ(Ops[7].Alu, AluOp::Not);
  EXPECT_EQ(Ops[8].Alu, AluOp::Cvt);
  EXPECT_EQ(Ops[8].Bits, 64);
  EXPECT_FALSE(Ops[8].Signed);
}

TEST(LitmusLower, BarrierAndScopes) {
  Lowered L = lowerText(R"(GPU_PTX bar
{ x=0; 1:.reg .s32 r0; }
 T0               | T1                | T2 | T3 ;
 st.cg.s32 [x], 1 | bar.sync 3        | membar.cta | membar.sys ;
 bar.sync 3       | ld.cg.s32 r0, [x] |     |  ;
ScopeTree
(device (cluster (cta (warp T0 T1)) (cta T2)) (cta T3))
x: shared
exists (1:r0=0)
)");
  ASSERT_TRUE(L.Diags.empty()) << DiagnosticEngine::format(L.Diags[0]);
  ASSERT_TRUE(L.P);
  const Program &P = *L.P;
  EXPECT_TRUE(sameWarp(P.Threads[0].Where, P.Threads[1].Where));
  EXPECT_FALSE(sameCTA(P.Threads[0].Where, P.Threads[2].Where));
  EXPECT_EQ(P.Threads[0].Where.Cluster, P.Threads[2].Where.Cluster);
  EXPECT_NE(P.Threads[0].Where.Cluster, P.Threads[3].Where.Cluster);
  EXPECT_EQ(P.Threads[0].Ops[1].K, Op::Kind::Barrier);
  EXPECT_EQ(P.Threads[0].Ops[1].BarrierId, 3);
  EXPECT_EQ(P.Threads[2].Ops[0].Sc, Scope::CTA);
  EXPECT_EQ(P.Threads[3].Ops[0].Sc, Scope::Sys);
}

TEST(LitmusLower, CompareAndBranch) {
  Lowered L = lowerText(R"(PTX loop
{ m=0; }
 P0@cta 0,gpu 0                    ;
 LC00:                             ;
 atom.relaxed.gpu.exch r0, m, 1    ;
 bne r0, 0, LC00                   ;
 goto LC01                         ;
 LC01:                             ;
exists (P0:r0 == 0)
)");
  ASSERT_TRUE(L.P) << DiagnosticEngine::format(L.Diags[0]);
  const ThreadProgram &T = L.P->Threads[0];
  ASSERT_EQ(T.Ops.size(), 4u);
  EXPECT_EQ(T.Ops[1].K, Op::Kind::Alu);
  EXPECT_EQ(T.Ops[1].Alu, AluOp::Setp);
  EXPECT_EQ(T.Ops[1].Cmp, CmpOp::Ne);
  EXPECT_EQ(T.Ops[1].Src[0].Reg, reg(T, "r0"));
  EXPECT_EQ(T.Ops[1].Src[1].Imm.Int, 0);
  EXPECT_TRUE(T.Regs[T.Ops[1].Dst].IsPred);
  EXPECT_EQ(T.Ops[2].K, Op::Kind::Branch);
  EXPECT_EQ(T.Ops[2].GuardReg, T.Ops[1].Dst);
  EXPECT_EQ(T.Ops[2].Target, 0);
  EXPECT_EQ(T.Ops[3].Target, 4);
  ASSERT_EQ(L.P->Observe.size(), 1u);
}

TEST(LitmusLower, PTXClusterPlacement) {
  Lowered L = lowerText(R"(PTX t
{}
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@cta 0,gpu 1 | P3@cta 0,gpu 0 ;
 membar.cta | membar.cta | membar.cta | membar.cta ;
exists true
)");
  ASSERT_TRUE(L.P);
  const auto &Th = L.P->Threads;
  EXPECT_EQ(Th[0].Where.Cluster, Th[1].Where.Cluster);
  EXPECT_FALSE(sameCTA(Th[0].Where, Th[1].Where));
  EXPECT_NE(Th[0].Where.Device, Th[2].Where.Device);
  EXPECT_FALSE(sameCTA(Th[0].Where, Th[3].Where)); // cluster 0 vs none
}

TEST(LitmusLower, Errors) {
  const char *Head = "GPU_PTX t\n{\n0:.reg .s32 r0;\n0:.reg .b64 r1 = x;\n}\n";
  auto G = [&](const std::string &Rest) { return std::string(Head) + Rest; };
  expectLowerError(G(" T0 ;\n ld.cg.s32 r9, [r1] ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 12, "undeclared register 'r9'");
  expectLowerError(G(" T0 ;\n ld.cg.s32 r0, [z] ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 16, "'z' is neither a declared register nor a location");
  expectLowerError(G(" T0 ;\n @q membar.gl ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 2, "undeclared predicate register 'q'");
  expectLowerError(G(" T0 | T1 ;\n membar.gl | membar.gl ;\nScopeTree (device (cta T0))\nexists true\n"),
                   6, 7, "thread T1 is missing from the scope tree");
  expectLowerError(G(" T0 ;\n membar.gl ;\nScopeTree (device (cta T0) (cta T0))\nexists true\n"),
                   8, 33, "thread T0 appears twice in the scope tree");
  expectLowerError(G(" T0 ;\n membar.gl ;\nScopeTree (device (cta T0 T4))\nexists true\n"),
                   8, 27, "thread T4 in the scope tree has no code");
  expectLowerError(G(" T0 ;\n membar.gl ;\nexists true\n"), 8, 1, "missing scope tree");
  expectLowerError(G(" T0 | T0 ;\n membar.gl | membar.gl ;\nScopeTree (device (cta T0))\nexists true\n"),
                   6, 7, "thread T0 appears twice");
  expectLowerError(G(" T0 ;\n bra L1 ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 6, "label 'L1' not found in thread T0");
  expectLowerError(G(" T0 ;\n L1: ;\n L1: membar.gl ;\nScopeTree (device (cta T0))\nexists true\n"),
                   8, 2, "duplicate label 'L1' in thread T0");
  expectLowerError(G(" T0 ;\n membar.gl ;\nScopeTree (device (cta T0))\nexists (3:r0=1)\n"),
                   9, 9, "there is no thread 3");
  expectLowerError(G(" T0 ;\n membar.gl ;\nScopeTree (device (cta T0))\nexists (0:r5=1)\n"),
                   9, 11, "thread T0 has no register 'r5'");
  expectLowerError(G(" T0 ;\n membar.gl ;\nScopeTree (device (cta T0))\nexists (q=1)\n"),
                   9, 9, "unknown location 'q'");
  expectLowerError(G(" T0 ;\n membar.gl ;\nScopeTree (device (cta T0))\nexists (0:r0=q)\n"),
                   9, 14, "unknown location 'q'");
  expectLowerError(G(" T0 ;\n bar.sync x ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 11, "the barrier number must be an integer or a register");
  // PTX's thread count is refused, never ignored (a Dat3M test's second
  // operand was once read as one and dropped).
  expectLowerError(G(" T0 ;\n bar.sync 1, 32 ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 14, "'bar' with a thread count is not supported");
  expectLowerError(G(" T0 ;\n bar.sync 16 ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 11, "between 0 and 15");
  expectLowerError(G(" T0 ;\n ld.cg.s32 r0, [r1+4] ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 16, "a register plus an offset is not supported");
  expectLowerError(G(" T0 ;\n ld.cg.s32 r0, [16] ;\nScopeTree (device (cta T0))\nexists true\n"),
                   7, 16, "absolute addresses are not supported");
  expectLowerError("GPU_PTX t\n{\n0:.reg .s32 r0;\n5:.reg .s32 r0;\n}\n T0 ;\n membar.gl ;\n"
                   "ScopeTree (device (cta T0))\nexists true\n",
                   4, 1, "there is no thread 5");
  expectLowerError("GPU_PTX t\n{\n0:.reg .s32 r0;\n0:.reg .u32 r0;\n}\n T0 ;\n membar.gl ;\n"
                   "ScopeTree (device (cta T0))\nexists true\n",
                   4, 13, "register 'r0' of thread 0 is declared twice");
  expectLowerError("GPU_PTX t\n{\nx=0;\nx=1;\n}\n T0 ;\n membar.gl ;\n"
                   "ScopeTree (device (cta T0))\nexists true\n",
                   4, 1, "location 'x' is initialised twice");
}

TEST(LitmusLower, Dat3mBarriersAndAliases) {
  const char *Head = "PTX t\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n";
  auto D = [&](const std::string &Rest) { return std::string(Head) + Rest; };
  expectLowerError(D(" bar.cta.sync r1 ;\nexists 0==0\n"), 6, 15,
                   "the instance of 'bar' must be a non-negative integer");
  expectLowerError(D(" bar.cta.sync 1, 1, x ;\nexists 0==0\n"), 6, 21,
                   "the quorum must be an integer or a register");
  expectLowerError(D(" bar.cta.sync 1, 16 ;\nexists 0==0\n"), 6, 18,
                   "between 0 and 15");
  expectLowerError("PTX t\n{\ny @ generic aliases x;\n}\n P0 ;\n ld.weak r0, y ;\n"
                   "exists 0==0\n",
                   3, 21, "'y' aliases 'x', which is not a location declared before it");
  expectLowerError("PTX t\n{\nx=0;\nx @ surface aliases x;\n}\n P0 ;\n ld.weak r0, x ;\n"
                   "exists 0==0\n",
                   4, 1, "location 'x' is declared twice");
  expectLowerError("GPU_PTX t\n{\n0:.reg .s32 r0;\n}\n T0 ;\n ld r0, 1 ;\n"
                   "ScopeTree (device (cta T0))\nexists true\n",
                   6, 9, "expected an address");

  // Instance, id (a register) and quorum; an arrive; a Dat3M constant load.
  Lowered L = lowerText("PTX t\n{\nx=0;\ny @ generic aliases x;\n"
                        "s @ surface aliases y;\n}\n P0@cta 0,gpu 0 ;\n"
                        " bar.cta.sync 1, r2, 3 ;\n bar.cta.arrive 2 ;\n"
                        " ld r3, 7 ;\n sust.weak s, 1 ;\n fence.proxy.alias ;\n"
                        "exists (P0:r3 == 7)\n");
  ASSERT_TRUE(L.P);
  const std::vector<Op> &Ops = L.P->Threads[0].Ops;
  ASSERT_EQ(Ops.size(), 5u);
  EXPECT_EQ(Ops[0].BarrierInstance, 1);
  EXPECT_GE(Ops[0].BarrierIdReg, 0);
  EXPECT_EQ(Ops[0].BarrierQuorum.K, Operand::Kind::Imm);
  EXPECT_FALSE(Ops[0].Arrive);
  EXPECT_TRUE(Ops[1].Arrive);
  EXPECT_EQ(Ops[1].BarrierId, -1);
  EXPECT_EQ(Ops[2].K, Op::Kind::Alu);
  EXPECT_EQ(Ops[3].Px, Proxy::Surface);
  EXPECT_EQ(Ops[4].Fence, FenceKind::Proxy);
  EXPECT_EQ(Ops[4].Px, Proxy::Alias);
  // y is its own virtual address over x's memory; s is y seen by surfaces.
  const std::vector<Location> &Locs = L.P->Locs;
  ASSERT_EQ(Locs.size(), 3u);
  EXPECT_EQ(Locs[1].Phys, 0);
  EXPECT_EQ(Locs[1].Generic, 1);
  EXPECT_EQ(Locs[2].Phys, 0);
  EXPECT_EQ(Locs[2].Generic, 1);
}

TEST(LitmusLower, SharedAcrossCTAs) {
  expectLowerError(R"(GPU_PTX t
{
0:.reg .b64 r1 = x;
1:.reg .s32 r0;
}
 T0               | T1                ;
 st.cg.s32 [r1], 1 | ld.cg.s32 r0, [x] ;
ScopeTree
(device (cta T0) (cta T1))
x: shared
exists (1:r0=0)
)",
                   7, 36, "shared location 'x' is used by threads in different "
                          "CTAs (T0 and T1)");
  expectLowerError(R"(PTX t
{}
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, x  ;
x: shared
exists (P1:r0 == 0)
)",
                   4, 31, "shared location 'x' is used by threads in different "
                          "CTAs (P0 and P1)");
}

TEST(LitmusLower, ScopeTreeAndPlacementConflict) {
  expectLowerError("PTX t\n{}\n P0@cta 0 ;\n membar.gl ;\nScopeTree (device (cta P0))\nexists true\n",
                   3, 4, "placed by the scope tree or by '@', not both");
}

TEST(LitmusLower, LocationsListObservedFirst) {
  Lowered L = lowerText(R"(PTX t
{ x=0; y=0; }
 P0 ;
 ld.weak r0, y ;
locations [y; x;]
exists (P0:r0 == 1 /\ x == 0)
)");
  ASSERT_TRUE(L.P);
  ASSERT_EQ(L.P->Observe.size(), 3u);
  EXPECT_EQ(L.P->Observe[0].Index, 1); // y
  EXPECT_EQ(L.P->Observe[1].Index, 0); // x
  EXPECT_EQ(L.P->Observe[2].Thread, 0);
}

} // namespace
