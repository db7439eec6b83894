//===- FunctionIRTest.cpp - Blocks, CFG, loops, def-use, locations --------===//
#include "incant/IR/FunctionIR.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::ir;

namespace {

struct Parsed {
  std::optional<ptx::Module> M;
  std::vector<Diagnostic> Diags;
};

Parsed parse(const std::string &Text) {
  auto F = std::make_shared<SourceFile>("t.ptx", Text);
  DiagnosticEngine D;
  Parsed P;
  P.M = ptx::parseModule(F, D);
  P.Diags = D.diagnostics();
  return P;
}

std::string kernel(const std::string &Body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_param_0)\n{\n" +
         Body + "}\n";
}

/// The body index of the first instruction named \p Name after \p From.
unsigned find(const FunctionIR &F, const std::string &Text, unsigned From = 0) {
  for (unsigned Item : F.instructions())
    if (Item >= From && ptx::printInstruction(F.inst(Item)).find(Text) == 0)
      return Item;
  ADD_FAILURE() << "no instruction " << Text;
  return 0;
}

const char *LoopBody = R"(
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [k_param_0];
	mov.u32 	%r1, 0;
$L_outer:
	mov.u32 	%r2, 0;
$L_inner:
	add.s32 	%r2, %r2, 1;
	setp.lt.s32 	%p1, %r2, 10;
	@%p1 bra 	$L_inner;
	add.s32 	%r1, %r1, 1;
	setp.lt.s32 	%p2, %r1, 10;
	@%p2 bra 	$L_outer;
	st.global.u32 	[%rd1], %r1;
	ret;
)";

TEST(IRFunction, BlocksAndCfg) {
  Parsed P = parse(kernel(LoopBody));
  ASSERT_TRUE(P.M) << (P.Diags.empty() ? "" : P.Diags[0].Message);
  ModuleIR IR(*P.M);
  ASSERT_EQ(IR.functions().size(), 1u);
  const FunctionIR &F = IR.functions()[0];
  // entry | $L_outer | $L_inner | after inner | after outer
  ASSERT_EQ(F.blocks().size(), 5u);
  EXPECT_EQ(F.blocks()[1].Labels, std::vector<std::string>{"$L_outer"});
  EXPECT_EQ(F.blockOfLabel("$L_inner"), 2u);
  const Digraph &G = F.cfg();
  EXPECT_TRUE(G.hasEdge(0, 1));
  EXPECT_TRUE(G.hasEdge(1, 2));
  EXPECT_TRUE(G.hasEdge(2, 2));
  EXPECT_TRUE(G.hasEdge(2, 3));
  EXPECT_TRUE(G.hasEdge(3, 1));
  EXPECT_TRUE(G.hasEdge(3, 4));
  EXPECT_TRUE(G.succs(4).empty());
  EXPECT_EQ(F.dominators().idom(4), 3u);
  EXPECT_EQ(F.postDominators().ipdom(0), 1u);
  ASSERT_EQ(F.loops().loops().size(), 2u);
  EXPECT_EQ(F.loops().loops()[0].Header, 1u);
  EXPECT_EQ(F.loops().loops()[1].Header, 2u);
  EXPECT_EQ(F.loops().depth(2), 2u);
  EXPECT_EQ(F.loops().depth(4), 0u);
  EXPECT_TRUE(F.unknownLabels().empty());
  EXPECT_TRUE(F.unresolvedNames().empty());
}

TEST(IRFunction, DefUseAndReachingDefs) {
  Parsed P = parse(kernel(LoopBody));
  ASSERT_TRUE(P.M);
  ModuleIR IR(*P.M);
  const FunctionIR &F = IR.functions()[0];
  // %r<6> declares %r0..%r5; plus 3 predicates and 3 64-bit registers.
  EXPECT_EQ(F.registers().size(), 12u);
  unsigned R1 = F.findRegister("%r1");
  ASSERT_NE(R1, NoNode);
  EXPECT_EQ(F.registers()[R1].Type, ".b32");
  EXPECT_EQ(F.registers()[R1].Defs.size(), 2u); // mov, add
  EXPECT_EQ(F.registers()[R1].Uses.size(), 3u); // add, setp, st
  EXPECT_EQ(F.findRegister("%r6"), NoNode);

  unsigned Mov = find(F, "mov.u32 %r1");
  unsigned Add = find(F, "add.s32 %r1");
  unsigned St = find(F, "st.global");
  EXPECT_EQ(F.defs(Mov), std::vector<unsigned>{R1});
  // st uses %rd1 and %r1 and defines nothing.
  EXPECT_TRUE(F.defs(St).empty());
  EXPECT_EQ(F.uses(St).size(), 2u);
  // Only the add reaches the store; both reach the add.
  EXPECT_EQ(F.reachingDefs(R1, St), std::vector<unsigned>{Add});
  EXPECT_EQ(F.reachingDefs(R1, Add), (std::vector<unsigned>{Mov, Add}));
  // The guard is a use.
  unsigned Bra = find(F, "@%p1 bra");
  EXPECT_EQ(F.uses(Bra), std::vector<unsigned>{F.findRegister("%p1")});
  EXPECT_TRUE(F.dominates(Mov, St));
  EXPECT_FALSE(F.dominates(St, Mov));
}

TEST(IRFunction, NestedScopesShadowRegisters) {
  Parsed P = parse(kernel(R"(
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	setp.ne.u32 	%p1, %r1, 0;
	{
	.reg .pred 	%p1;
	setp.ne.u32 	%p1, %r2, 0;
	bar.red.popc.u32 	%r0, 0, %p1;
	}
	@%p1 bra 	$L_end;
$L_end:
	ret;
)"));
  ASSERT_TRUE(P.M) << (P.Diags.empty() ? "" : P.Diags[0].Message);
  ModuleIR IR(*P.M);
  const FunctionIR &F = IR.functions()[0];
  unsigned Outer = F.findRegister("%p1");
  ASSERT_NE(Outer, NoNode);
  ASSERT_EQ(F.registers().size(), 6u);
  unsigned Inner = 5;
  EXPECT_EQ(F.registers()[Inner].Name, "%p1");
  EXPECT_EQ(F.registers()[Inner].ScopeDepth, 1u);
  EXPECT_EQ(F.registers()[Outer].Defs.size(), 1u);
  EXPECT_EQ(F.registers()[Outer].Uses.size(), 1u); // the guard
  EXPECT_EQ(F.registers()[Inner].Defs.size(), 1u);
  EXPECT_EQ(F.registers()[Inner].Uses.size(), 1u); // bar.red
  // bar.red defines its destination.
  unsigned Red = find(F, "bar.red");
  EXPECT_EQ(F.defs(Red), std::vector<unsigned>{F.findRegister("%r0")});
}

TEST(IRFunction, UnresolvedNamesAndUnknownLabels) {
  Parsed P = parse(kernel(R"(
	.reg .b32 	%r<2>;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r0, some_global;
	add.s32 	%r1, %r1, %r9;
	bra.uni 	$L_nowhere;
)"));
  ASSERT_TRUE(P.M) << (P.Diags.empty() ? "" : P.Diags[0].Message);
  ModuleIR IR(*P.M);
  const FunctionIR &F = IR.functions()[0];
  std::vector<std::string> Names;
  for (const auto &[Item, Name] : F.unresolvedNames())
    Names.push_back(Name);
  EXPECT_EQ(Names, (std::vector<std::string>{"some_global", "%r9"}));
  ASSERT_EQ(F.unknownLabels().size(), 1u);
  EXPECT_EQ(F.unknownLabels()[0].second, "$L_nowhere");
}

TEST(IRFunction, GuardedReturnFallsThrough) {
  Parsed P = parse(kernel(R"(
	.reg .pred 	%p<2>;
	@%p1 ret;
	exit;
)"));
  ASSERT_TRUE(P.M);
  ModuleIR IR(*P.M);
  const FunctionIR &F = IR.functions()[0];
  ASSERT_EQ(F.blocks().size(), 2u);
  EXPECT_TRUE(F.cfg().hasEdge(0, 1));
  EXPECT_TRUE(F.cfg().succs(1).empty());
}

TEST(IRFunction, BranchTargetsOfBrx) {
  Parsed P = parse(kernel(R"(
	.reg .b32 	%r<2>;
	mov.u32 	%r1, 1;
$L_tbl: .branchtargets $L_a, $L_b;
	brx.idx 	%r1, $L_tbl;
$L_a:
	ret;
$L_b:
	ret;
)"));
  ASSERT_TRUE(P.M) << (P.Diags.empty() ? "" : P.Diags[0].Message);
  ModuleIR IR(*P.M);
  const FunctionIR &F = IR.functions()[0];
  unsigned A = F.blockOfLabel("$L_a"), B = F.blockOfLabel("$L_b");
  unsigned Brx = F.blockOf(find(F, "brx.idx"));
  EXPECT_TRUE(F.cfg().hasEdge(Brx, A));
  EXPECT_TRUE(F.cfg().hasEdge(Brx, B));
  EXPECT_FALSE(F.cfg().hasEdge(A, B)); // ret does not fall through
}

TEST(IRFunction, LocationsWithInliningChain) {
  std::string Text = R"(.version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 flag;
.visible .entry k()
{
	.reg .b32 	%r<2>;
	.loc	1 23 5
	.loc	1 8 3, function_name $L__info_string0, inlined_at 1 23 5
	st.global.u32 	[flag], 1;
	.loc	2 127 3, function_name $L__info_string1, inlined_at 1 8 3
	atom.global.exch.b32 	%r1, [flag], 1;
	.loc	1 0 5
	ret;
}
	.file	1 "/src/kern.cu"
	.file	2 "/cuda/include/atomic.hpp"
	.section	.debug_str
	{
$L__info_string0:
.b8 112,117,98,0
$L__info_string1:
.b8 120,99,104,103,0
	}
)";
  Parsed P = parse(Text);
  ASSERT_TRUE(P.M) << (P.Diags.empty() ? "" : P.Diags[0].Message);
  ModuleIR IR(*P.M);
  EXPECT_EQ(IR.debugStrings().at("$L__info_string0"), "pub");
  const FunctionIR &F = IR.functions()[0];
  const DebugLoc &St = F.loc(find(F, "st.global"));
  ASSERT_EQ(St.Frames.size(), 2u);
  EXPECT_EQ(St.Frames[0].File, "/src/kern.cu");
  EXPECT_EQ(St.Frames[0].Line, 8u);
  EXPECT_EQ(St.Frames[0].Function, "pub");
  EXPECT_EQ(St.Frames[1].Line, 23u);
  EXPECT_EQ(St.Frames[1].Col, 5u);

  const DebugLoc &At = F.loc(find(F, "atom"));
  ASSERT_EQ(At.Frames.size(), 3u);
  EXPECT_EQ(At.Frames[0].File, "/cuda/include/atomic.hpp");
  EXPECT_EQ(At.Frames[0].Function, "xchg");
  EXPECT_EQ(At.Frames[1].Line, 8u);
  EXPECT_EQ(At.Frames[1].Function, "pub");
  EXPECT_EQ(At.Frames[2].Line, 23u);
  // The user's frame is the innermost one in the kernel's own file.
  ASSERT_NE(At.userFrame(), nullptr);
  EXPECT_EQ(At.userFrame()->Line, 8u);

  const DebugLoc &Ret = F.loc(find(F, "ret"));
  EXPECT_FALSE(Ret.hasLine());
  EXPECT_EQ(Ret.userFrame(), nullptr);
}

TEST(IRFunction, ReadDebugStrings) {
  auto S = readDebugStrings("$L__a:\n.b8 104,105,0\n$L__b:\n.b8 "
                            "120\n.b8 121,0\n junk 9999: .b8 ,,\n");
  EXPECT_EQ(S.size(), 2u);
  EXPECT_EQ(S["$L__a"], "hi");
  EXPECT_EQ(S["$L__b"], "xy");
}

TEST(IRFunction, CheckedInKernels) {
  for (const char *Name : {"kern.ptx", "sync.ptx"}) {
    std::string Path = std::string(INCANT_SOURCE_DIR) + "/test/ptx/Inputs/" + Name;
    std::string Err;
    auto File = SourceFile::read(Path, Err);
    ASSERT_TRUE(File) << Err;
    DiagnosticEngine D;
    auto M = ptx::parseModule(File, D);
    ASSERT_TRUE(M) << Name;
    ModuleIR IR(*M);
    for (const FunctionIR &F : IR.functions()) {
      EXPECT_TRUE(F.unknownLabels().empty()) << F.name();
      for (const auto &[Item, N] : F.unresolvedNames())
        EXPECT_TRUE(N.rfind("_Z", 0) == 0 || N == "flag" || N == "data")
            << F.name() << ": " << N;
      for (unsigned B = 0; B < F.blocks().size(); ++B)
        EXPECT_TRUE(F.dominators().reachable(B)) << F.name() << " block " << B;
    }
  }
}

} // namespace
