//===- ModuleTest.cpp - Tests of the whole-module PTX parser and printer ---===//
#include "incant/PTX/Module.h"
#include "incant/PTX/ModuleCheck.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::ptx;

namespace {

struct Parsed {
  std::optional<Module> M;
  std::vector<Diagnostic> Diags;
};

Parsed parse(const std::string &Text) {
  auto F = std::make_shared<SourceFile>("k.ptx", Text);
  DiagnosticEngine D;
  Parsed P;
  P.M = parseModule(F, D);
  P.Diags = D.diagnostics();
  return P;
}

/// Parses a module that must have no diagnostics at all.
Module parseOk(const std::string &Text) {
  Parsed P = parse(Text);
  EXPECT_TRUE(P.M) << Text;
  for (const Diagnostic &D : P.Diags)
    ADD_FAILURE() << DiagnosticEngine::format(D);
  return P.M ? std::move(*P.M) : Module();
}

/// Expects one error at Line:Col whose message contains Msg.
void expectError(const std::string &Text, uint32_t Line, uint32_t Col,
                 const std::string &Msg) {
  Parsed P = parse(Text);
  EXPECT_FALSE(P.M) << Text;
  ASSERT_EQ(P.Diags.size(), 1u) << Text;
  const Diagnostic &D = P.Diags[0];
  EXPECT_EQ(D.Sev, Severity::Error);
  EXPECT_EQ(D.Range.Begin.Line, Line) << DiagnosticEngine::format(D);
  EXPECT_EQ(D.Range.Begin.Col, Col) << DiagnosticEngine::format(D);
  EXPECT_NE(D.Message.find(Msg), std::string::npos)
      << DiagnosticEngine::format(D);
}

/// The body of the first function.
const Function &firstFunction(const Module &M) {
  for (const ModuleItem &It : M.Items)
    if (const auto *F = std::get_if<Function>(&It))
      return *F;
  static Function None;
  ADD_FAILURE() << "no function";
  return None;
}

std::vector<const Instruction *> instructions(const Function &F) {
  std::vector<const Instruction *> R;
  for (const BodyItem &It : F.Body)
    if (const auto *I = std::get_if<Instruction>(&It))
      R.push_back(I);
  return R;
}

/// Print -> parse -> print is a fixpoint.
void expectFixpoint(const Module &M) {
  std::string P1 = printModule(M);
  Module M2 = parseOk(P1);
  EXPECT_EQ(P1, printModule(M2));
}

const char *Header = ".version 8.0\n.target sm_90\n.address_size 64\n";

std::string kernel(const std::string &Body) {
  return std::string(Header) +
         ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n" + Body + "}\n";
}

TEST(PTXModule, HeaderAndFunction) {
  Module M = parseOk(std::string(Header) + R"(
.visible .entry _Z1kPi(
	.param .u64 .ptr .global .align 4 _Z1kPi_param_0,
	.param .align 8 .b8 _Z1kPi_param_1[16]
)
.maxntid 256, 1, 1
.minnctapersm 2
{
	.reg .b32 %r<12>;
	.reg .pred %p<3>;
	ret;
}
.func (.param .b32 func_retval0) f(.param .b32 f_param_0);
)");
  EXPECT_EQ(M.VersionMajor, 8u);
  EXPECT_EQ(M.VersionMinor, 0u);
  ASSERT_EQ(M.Targets.size(), 1u);
  EXPECT_EQ(M.Targets[0], "sm_90");
  EXPECT_EQ(M.AddressSize, 64u);
  const Function &F = firstFunction(M);
  EXPECT_TRUE(F.IsEntry);
  EXPECT_EQ(F.Link, Linkage::Visible);
  EXPECT_EQ(F.Name, "_Z1kPi");
  EXPECT_EQ(F.NameRange.Begin.Line, 5u);
  ASSERT_EQ(F.Params.size(), 2u);
  EXPECT_TRUE(F.Params[0].IsPtr);
  EXPECT_EQ(F.Params[0].PtrSpace, AddrSpace::Global);
  EXPECT_EQ(F.Params[0].PtrAlign, 4u);
  EXPECT_EQ(F.Params[1].Align, 8u);
  ASSERT_EQ(F.Params[1].Dims.size(), 1u);
  EXPECT_EQ(F.Params[1].Dims[0], 16u);
  ASSERT_EQ(F.Perf.size(), 2u);
  EXPECT_EQ(F.Perf[0].Name, ".maxntid");
  EXPECT_EQ(F.Perf[0].Values, (std::vector<uint64_t>{256, 1, 1}));
  ASSERT_EQ(F.Body.size(), 3u);
  const auto &R = std::get<Variable>(F.Body[0]);
  EXPECT_EQ(R.Space, AddrSpace::Reg);
  EXPECT_EQ(R.Type, ".b32");
  EXPECT_EQ(R.Name, "%r");
  EXPECT_TRUE(R.IsRange);
  EXPECT_EQ(R.RangeCount, 12u);
  const Function *G = M.findFunction("f");
  ASSERT_TRUE(G);
  EXPECT_FALSE(G->HasBody);
  EXPECT_TRUE(G->HasReturnList);
  ASSERT_EQ(G->Returns.size(), 1u);
  EXPECT_EQ(G->Returns[0].Name, "func_retval0");
  expectFixpoint(M);
}

TEST(PTXModule, MemoryInstructionsDecoded) {
  Module M = parseOk(kernel(R"(
	ld.param.u64 %rd1, [k_param_0];
	ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];
	st.global.v2.u32 [%rd1+-4], {%r1, %r2};
	atom.global.acq_rel.gpu.cas.b32 %r3, [%rd1], %r4, 5;
	red.release.sys.global.add.u32 [sym+8], 1;
	atom.shared::cluster.add.u32 %r5, [%r6], 1;
	ld.acquire.cta.shared.u32 %r7, [%r8];
	st.volatile.global.u32 [%rd1], %r1;
	ld.local.f32 %f5, [depot+4];
	cvta.to.global.u64 %rd2, %rd1;
)"));
  auto Is = instructions(firstFunction(M));
  ASSERT_EQ(Is.size(), 10u);
  EXPECT_EQ(Is[0]->Op, Opcode::Ld);
  EXPECT_EQ(Is[0]->ASpace, AddrSpace::Param);
  EXPECT_EQ(Is[0]->Space, StateSpace::Generic);
  EXPECT_EQ(Is[0]->Ops[1].K, Operand::Address);
  EXPECT_EQ(Is[0]->Ops[1].Name, "k_param_0");
  // Vector load: a Vector operand with four registers.
  EXPECT_EQ(Is[1]->ASpace, AddrSpace::Global);
  EXPECT_EQ(Is[1]->Space, StateSpace::Global);
  ASSERT_EQ(Is[1]->Ops[0].K, Operand::Vector);
  EXPECT_EQ(Is[1]->Ops[0].Elems.size(), 4u);
  EXPECT_EQ(Is[1]->Ops[1].Value, 16);
  ASSERT_EQ(Is[1]->Types.size(), 1u);
  EXPECT_EQ(Is[1]->Types[0].K, Type::F);
  EXPECT_EQ(Is[2]->Ops[0].Value, -4);
  EXPECT_EQ(Is[2]->S, Sem::Weak);
  // Atomics: semantics, scope, operation.
  EXPECT_EQ(Is[3]->Op, Opcode::Atom);
  EXPECT_EQ(Is[3]->S, Sem::AcqRel);
  EXPECT_EQ(Is[3]->Sc, Scope::GPU);
  EXPECT_EQ(Is[3]->Atom, AtomOp::Cas);
  EXPECT_EQ(Is[3]->Ops.size(), 4u);
  EXPECT_EQ(Is[4]->Op, Opcode::Red);
  EXPECT_EQ(Is[4]->S, Sem::Release);
  EXPECT_EQ(Is[4]->Sc, Scope::Sys);
  EXPECT_EQ(Is[4]->Ops[0].Name, "sym");
  EXPECT_EQ(Is[4]->Ops[0].Value, 8);
  EXPECT_EQ(Is[5]->ASpace, AddrSpace::SharedCluster);
  EXPECT_EQ(Is[5]->S, Sem::Relaxed); // PTX default for atom
  EXPECT_EQ(Is[5]->Sc, Scope::GPU);
  EXPECT_EQ(Is[6]->S, Sem::Acquire);
  EXPECT_EQ(Is[6]->Sc, Scope::CTA);
  EXPECT_EQ(Is[6]->Space, StateSpace::Shared);
  EXPECT_EQ(Is[7]->S, Sem::Volatile);
  EXPECT_EQ(Is[8]->ASpace, AddrSpace::Local);
  EXPECT_EQ(Is[9]->Op, Opcode::Cvta);
  EXPECT_EQ(Is[9]->ASpace, AddrSpace::Global);
  // Negative offsets print the way ptxas reads them.
  EXPECT_EQ(printBodyItem(*std::next(firstFunction(M).Body.begin(), 2)),
            "st.global.v2.u32 [%rd1+-4], {%r1, %r2};");
  expectFixpoint(M);
}

TEST(PTXModule, SynchronisationAndWarpInstructions) {
  Module M = parseOk(kernel(R"(
	bar.sync 0;
	barrier.sync.aligned 1, 64;
	bar.warp.sync -1;
	barrier.cluster.arrive.release.aligned;
	membar.gl;
	fence.sc.gpu;
	fence.proxy.async.shared::cta;
	shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;
	vote.sync.ballot.b32 %r3, %p1, -1;
	vote.sync.any.pred %p2, !%p1, -1;
	match.any.sync.b64 %r4, %rd1, -1;
	redux.sync.add.s32 %r5, %r6, -1;
	activemask.b32 %r7;
	cp.async.ca.shared.global [%r8], [%rd2], 4, 4;
	cp.async.wait_group 0;
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r9], 0;
	wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2}, {%r1, %r2}, {%r3, %r4}, {%f3, %f4};
)"));
  auto Is = instructions(firstFunction(M));
  ASSERT_EQ(Is.size(), 17u);
  EXPECT_EQ(Is[0]->Op, Opcode::Bar);
  EXPECT_EQ(Is[1]->Op, Opcode::Bar);
  EXPECT_TRUE(Is[1]->hasMod(".aligned"));
  EXPECT_EQ(Is[1]->Ops.size(), 2u);
  EXPECT_EQ(Is[2]->Op, Opcode::BarWarp);
  EXPECT_EQ(Is[2]->Ops[0].Value, -1);
  EXPECT_EQ(Is[3]->Op, Opcode::BarrierCluster);
  EXPECT_EQ(Is[3]->S, Sem::Release);
  EXPECT_EQ(Is[4]->Op, Opcode::Membar);
  EXPECT_EQ(Is[4]->Sc, Scope::GPU);
  EXPECT_EQ(Is[4]->S, Sem::SC);
  EXPECT_EQ(Is[5]->S, Sem::SC);
  EXPECT_EQ(Is[5]->Sc, Scope::GPU);
  EXPECT_EQ(Is[6]->Op, Opcode::Fence);
  EXPECT_EQ(Is[6]->S, Sem::None); // a proxy fence
  EXPECT_EQ(Is[7]->Op, Opcode::Shfl);
  ASSERT_EQ(Is[7]->Ops[0].K, Operand::Pair);
  EXPECT_EQ(Is[7]->Ops[0].Elems[1].Name, "%p1");
  EXPECT_EQ(Is[8]->Op, Opcode::Vote);
  EXPECT_TRUE(Is[9]->Ops[1].Negated);
  EXPECT_EQ(Is[10]->Op, Opcode::Match);
  EXPECT_EQ(Is[11]->Op, Opcode::Redux);
  EXPECT_EQ(Is[12]->Op, Opcode::Activemask);
  EXPECT_EQ(Is[13]->Op, Opcode::CpAsync);
  EXPECT_EQ(Is[13]->ASpace, AddrSpace::Shared);
  EXPECT_EQ(Is[14]->Op, Opcode::CpAsync);
  EXPECT_EQ(Is[15]->Op, Opcode::Mbarrier);
  EXPECT_EQ(Is[16]->Op, Opcode::Tensor);
  EXPECT_EQ(Is[16]->Ops.size(), 4u);
  expectFixpoint(M);
}

TEST(PTXModule, ControlFlowCallsAndImmediates) {
  Module M = parseOk(kernel(R"(
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.y;
	mov.f32 %f1, 0f3F800000;
	mov.f64 %fd1, 0d3FF0000000000000;
	add.f32 %f2, %f1, 1.5;
	setp.lt.s32 %p1, %r1, 32;
	@!%p1 bra.uni $L__BB0_2;
$L__BB0_1:
	{ // callseq 0, 0
	.param .b32 param0;
	.param .b32 retval0;
	st.param.b32 [param0+0], %r1;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd1, (param0), prototype_0;
	call.uni (retval0), f, (param0);
	ld.param.b32 %r3, [retval0+0];
	} // callseq 0
$L__BB0_2:
	exit;
)"));
  const Function &F = firstFunction(M);
  auto Is = instructions(F);
  EXPECT_EQ(Is[0]->Ops[1].Name, "%tid.x");
  EXPECT_EQ(Is[1]->Ops[1].Name, "%ctaid.y");
  EXPECT_EQ(Is[2]->Ops[1].K, Operand::FloatImm);
  EXPECT_EQ(Is[2]->Ops[1].FloatForm, 'f');
  EXPECT_EQ(Is[2]->Ops[1].Value, 0x3F800000);
  EXPECT_EQ(Is[3]->Ops[1].FloatForm, 'd');
  EXPECT_EQ(Is[4]->Ops[2].K, Operand::FloatImm);
  EXPECT_EQ(Is[4]->Ops[2].Name, "1.5");
  EXPECT_EQ(Is[5]->Cmp, CmpOp::Lt);
  ASSERT_TRUE(Is[6]->G);
  EXPECT_TRUE(Is[6]->G->Negated);
  EXPECT_EQ(Is[6]->G->Reg, "%p1");
  EXPECT_EQ(Is[6]->Op, Opcode::Bra);
  EXPECT_EQ(Is[6]->Ops[0].K, Operand::Label);
  // Labels, the nested scope and the prototype are body items.
  unsigned Labels = 0, Begins = 0, Ends = 0, Protos = 0;
  for (const BodyItem &It : F.Body) {
    Labels += std::holds_alternative<Label>(It);
    Begins += std::holds_alternative<BlockBegin>(It);
    Ends += std::holds_alternative<BlockEnd>(It);
    if (const auto *P = std::get_if<CallPrototype>(&It)) {
      ++Protos;
      EXPECT_EQ(P->Name, "prototype_0");
      EXPECT_TRUE(P->HasReturnList);
      EXPECT_EQ(P->Params.size(), 1u);
    }
  }
  EXPECT_EQ(Labels, 2u);
  EXPECT_EQ(Begins, 1u);
  EXPECT_EQ(Ends, 1u);
  EXPECT_EQ(Protos, 1u);
  const Instruction *Call = Is[8];
  EXPECT_EQ(Call->Op, Opcode::Call);
  ASSERT_EQ(Call->Ops.size(), 4u);
  EXPECT_EQ(Call->Ops[0].K, Operand::List);
  EXPECT_EQ(Call->Ops[2].K, Operand::List);
  EXPECT_EQ(Call->Ops[3].Name, "prototype_0");
  // `+0` is kept: ptxas -G assembles [%SP+0] and [%SP] differently.
  EXPECT_TRUE(Is[7]->Ops[0].ExplicitOffset);
  EXPECT_EQ(printBodyItem(F.Body[11]), "st.param.b32 [param0+0], %r1;");
  EXPECT_EQ(Is.back()->Op, Opcode::Exit);
  expectFixpoint(M);
}

TEST(PTXModule, DeclarationsAndInitializers) {
  Module M = parseOk(std::string(Header) + R"(
.extern .shared .align 16 .b8 smem[];
.global .align 4 .f32 vals[2][2] = {{1.5, 0f40000000}, {-2.25, 0}};
.global .align 8 .u64 ptrs[2] = {generic(vals), generic(vals)+8};
.global .align 8 .u64 table[2] = {f, g};
.visible .global .attribute(.managed) .align 4 .u32 counter;
.const .align 4 .b32 masks[2] = {0xFFFFFFFF, 017};
.global .v4 .u32 vec;
.shared .u32 a, b;
)");
  std::vector<const Variable *> Vs;
  for (const ModuleItem &It : M.Items)
    if (const auto *V = std::get_if<Variable>(&It))
      Vs.push_back(V);
  ASSERT_EQ(Vs.size(), 9u);
  EXPECT_EQ(Vs[0]->Link, Linkage::Extern);
  EXPECT_EQ(Vs[0]->Space, AddrSpace::Shared);
  ASSERT_EQ(Vs[0]->Dims.size(), 1u);
  EXPECT_FALSE(Vs[0]->Dims[0]);
  ASSERT_TRUE(Vs[1]->Init);
  EXPECT_EQ(Vs[1]->Init->K, Operand::Vector);
  EXPECT_EQ(Vs[1]->Init->Elems[1].Elems[0].Name, "-2.25");
  EXPECT_EQ(Vs[2]->Init->Elems[1].K, Operand::Generic);
  EXPECT_EQ(Vs[2]->Init->Elems[1].Value, 8);
  EXPECT_EQ(Vs[3]->Init->Elems[0].Name, "f");
  ASSERT_EQ(Vs[4]->Attributes.size(), 1u);
  EXPECT_EQ(Vs[4]->Attributes[0], ".managed");
  EXPECT_EQ(Vs[5]->Init->Elems[1].Value, 15); // octal, as in C
  EXPECT_EQ(Vs[6]->Vec, 4u);
  EXPECT_EQ(Vs[7]->Name, "a");
  EXPECT_EQ(Vs[8]->Name, "b");
  EXPECT_EQ(Vs[8]->Space, AddrSpace::Shared);
  EXPECT_EQ(printVariable(*Vs[2]), ".global .align 8 .u64 ptrs[2] = "
                                   "{generic(vals), generic(vals)+8};");
  expectFixpoint(M);
}

TEST(PTXModule, DebugDirectives) {
  Module M = parseOk(std::string(Header) + R"(
.visible .entry k()
{
	.loc	1 14 3
	.loc	2 107 3, function_name $L__info_string0, inlined_at 1 14 3
	.pragma "nounroll";
	ret;
}
	.file	1 "/tmp/k.cu"
	.file	2 "/tmp/with \"quote\".h", 1700000000, 1234
	.section	.debug_str
	{
$L__info_string0:
.b8 95,90,0
	}
)");
  const Function &F = firstFunction(M);
  const auto &L1 = std::get<LocDirective>(F.Body[0]);
  EXPECT_EQ(L1.File, 1u);
  EXPECT_EQ(L1.Line, 14u);
  EXPECT_EQ(L1.Col, 3u);
  EXPECT_FALSE(L1.HasInlinedAt);
  const auto &L2 = std::get<LocDirective>(F.Body[1]);
  EXPECT_TRUE(L2.HasInlinedAt);
  EXPECT_EQ(L2.FunctionName, "$L__info_string0");
  EXPECT_EQ(L2.InlinedLine, 14u);
  EXPECT_EQ(printLoc(L2), ".loc\t2 107 3, function_name $L__info_string0, "
                          "inlined_at 1 14 3");
  EXPECT_EQ(std::get<Pragma>(F.Body[2]).Strings[0], "nounroll");
  const auto &F2 = std::get<FileEntry>(M.Items[2]);
  EXPECT_EQ(F2.Path, "/tmp/with \"quote\".h");
  EXPECT_EQ(F2.Timestamp, 1700000000u);
  EXPECT_EQ(F2.Size, 1234u);
  const auto &S = std::get<Section>(M.Items[3]);
  EXPECT_EQ(S.Name, ".debug_str");
  EXPECT_EQ(S.Text, "$L__info_string0:\n.b8 95,90,0");
  expectFixpoint(M);
}

TEST(PTXModule, UnknownInstructionIsKeptWithAWarning) {
  Parsed P = parse(kernel("\tfrobnicate.sync.b32 %r1, [%rd1], 3;\n"
                          "\tnewop.x %r1, %r2 ^ 3;\n"));
  ASSERT_TRUE(P.M);
  ASSERT_EQ(P.Diags.size(), 2u);
  EXPECT_EQ(P.Diags[0].Sev, Severity::Warning);
  EXPECT_EQ(P.Diags[0].Range.Begin.Line, 8u);
  EXPECT_EQ(P.Diags[0].Range.Begin.Col, 2u);
  EXPECT_NE(P.Diags[0].Message.find("unknown instruction 'frobnicate'"),
            std::string::npos);
  auto Is = instructions(firstFunction(*P.M));
  ASSERT_EQ(Is.size(), 2u);
  EXPECT_EQ(Is[0]->Op, Opcode::Unknown);
  EXPECT_EQ(Is[0]->Ops.size(), 3u); // operands that fit the grammar
  EXPECT_EQ(Is[1]->Op, Opcode::Unknown);
  EXPECT_TRUE(Is[1]->Ops.empty()); // operands that do not: kept as text
  EXPECT_EQ(Is[1]->Verbatim, "%r1, %r2 ^ 3");
  EXPECT_EQ(printBodyItem(firstFunction(*P.M).Body[1]),
            "newop.x %r1, %r2 ^ 3;");
  std::string P1 = printModule(*P.M);
  Parsed Q = parse(P1);
  ASSERT_TRUE(Q.M);
  EXPECT_EQ(printModule(*Q.M), P1);
}

TEST(PTXModule, DefinedOperands) {
  Module M = parseOk(kernel(R"(
	ld.global.u32 %r1, [%rd1];
	st.global.u32 [%rd1], %r1;
	atom.global.add.u32 %r2, [%rd1], 1;
	red.global.add.u32 [%rd1], 1;
	shfl.sync.idx.b32 %r3|%p1, %r1, 0, 31, -1;
	ld.shared.v2.u32 {%r4, %r5}, [%r6];
	bar.red.popc.u32 %r7, 0, %p1;
	bar.sync 0;
	nanosleep.u32 %r1;
	call.uni (retval0), f, (param0);
	cp.async.ca.shared.global [%r8], [%rd2], 4;
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;
	mbarrier.init.shared.b64 [%r6], 1;
	prmt.b32 %r9, %r1, %r2, 0x3210;
)"));
  std::vector<unsigned> Defs;
  for (const Instruction *I : instructions(firstFunction(M)))
    Defs.push_back(numDefOperands(*I));
  EXPECT_EQ(Defs, (std::vector<unsigned>{1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1,
                                         0, 1}));
}

TEST(PTXModule, TrailingCommentIsNotKeptInRawText) {
  Parsed P = parse(kernel("\tnewop.x %r1, %r2 ^ 3 // note\n;\n"));
  ASSERT_TRUE(P.M);
  auto Is = instructions(firstFunction(*P.M));
  ASSERT_EQ(Is.size(), 1u);
  EXPECT_EQ(Is[0]->Verbatim, "%r1, %r2 ^ 3");
  std::string P1 = printModule(*P.M);
  Parsed Q = parse(P1);
  ASSERT_TRUE(Q.M);
  EXPECT_EQ(printModule(*Q.M), P1);
}

TEST(PTXModule, PrintedLayout) {
  Module M = parseOk(std::string(Header) +
                     ".visible .entry k(.param .u32 n)\n.reqntid 32\n{\n"
                     ".reg .b32 %r<2>;\nL: @%p1 add.s32 %r1, %r1, -1; }");
  EXPECT_EQ(printModule(M), ".version 8.0\n.target sm_90\n.address_size 64\n"
                            "\n.visible .entry k(\n\t.param .u32 n\n)\n"
                            ".reqntid 32\n{\n\t.reg .b32 %r<2>;\nL:\n"
                            "\t@%p1 add.s32 %r1, %r1, -1;\n}\n");
}

TEST(PTXModule, SourceRanges) {
  Module M = parseOk(kernel("\tadd.s32 %r1, %r2, 4;\n"));
  const auto &I = *instructions(firstFunction(M))[0];
  EXPECT_EQ(I.Range.Begin.Line, 8u);
  EXPECT_EQ(I.Range.Begin.Col, 2u);
  EXPECT_EQ(I.Range.End.Col, 21u); // the ';' is not part of it
  EXPECT_EQ(I.Ops[1].Range.Begin.Col, 15u);
  EXPECT_EQ(I.Mods[0].Range.Begin.Col, 5u);
}

TEST(PTXModule, ModuleInstruction) {
  auto F = std::make_shared<SourceFile>("<new>", "@%p1 fence.sc.gpu;");
  DiagnosticEngine D;
  std::optional<Instruction> I =
      parseModuleInstruction(F, 0, F->text().size(), D);
  ASSERT_TRUE(I);
  EXPECT_EQ(I->Op, Opcode::Fence);
  EXPECT_EQ(I->S, Sem::SC);
  EXPECT_TRUE(I->G);
  auto Bad = std::make_shared<SourceFile>("<new>", "add.s32 %r1, %r2 %r3");
  EXPECT_FALSE(parseModuleInstruction(Bad, 0, Bad->text().size(), D));
  EXPECT_TRUE(D.hasErrors());
}

TEST(PTXModule, LitmusCellsStayStrict) {
  // The litmus parser keeps its small instruction set.
  auto F = std::make_shared<SourceFile>("t", "shfl.sync.bfly.b32 r0, r1, 1, 31, -1");
  DiagnosticEngine D;
  EXPECT_FALSE(parseStatement(F, 0, F->text().size(), D));
  ASSERT_EQ(D.diagnostics().size(), 1u);
  EXPECT_NE(D.diagnostics()[0].Message.find("unknown instruction 'shfl'"),
            std::string::npos);
}

TEST(PTXModule, Errors) {
  // Line 4 is the first line after the header.
  expectError(std::string(Header) + "foo", 4, 1, "expected a directive");
  expectError(".version 8\n", 1, 10, "expected a version number");
  expectError(".address_size 48\n", 1, 15, "must be 32 or 64");
  expectError(kernel("\tadd.s32 %r1, %r2, 4\n"), 8, 21,
              "expected ';' after the instruction, found '}'");
  expectError(std::string(Header) + ".entry k()\n{\n\tret;\n", 7, 1,
              "expected '}' to end the body of 'k', found end of file");
  expectError(kernel("\tld.global.u32 %r1, [%rd1+];\n"), 8, 27,
              "expected an integer offset in the address");
  expectError(kernel("\tld.global.u32 %r1, [%rd1;\n"), 8, 26,
              "expected ']' to end the address");
  expectError(kernel("\tadd.s32 %r1, %r2, ;\n"), 8, 20, "expected an operand");
  expectError(kernel("\t.reg %r<4>;\n"), 8, 7,
              "expected a type (.b32, .u64, .f32, ...), found '%r'");
  expectError(kernel("\t.reg .b32 %r<4;\n"), 8, 16, "expected '>'");
  expectError(std::string(Header) + ".global .u32 x = ;\n", 4, 18,
              "expected an operand");
  expectError(std::string(Header) + ".global .u32 .s32 x;\n", 4, 14,
              "unexpected '.s32' in the declaration");
  expectError(std::string(Header) + ".entry k(.param .u32 a b)\n", 4, 24,
              "expected ',' or ')' in the parameter list");
  expectError(std::string(Header) + ".entry k()\n.maxntid 1,\n{\n}\n", 6, 1,
              "expected a number after '.maxntid'");
  expectError(kernel("\t.loc 1 2\n"), 9, 1, "expected a column");
  expectError(kernel("\tmov.f32 %f1, 0f3F80;\n"), 8, 15,
              "'0f3F80' needs 8 hexadecimal digits");
  expectError(kernel("\t@!;\n"), 8, 4,
              "expected a predicate register after '@'");
  expectError(kernel("\t@%p1;\n"), 8, 6, "expected an instruction, found ';'");
  expectError(std::string(Header) + ".visible .global\n", 5, 1,
              "expected a type");
  expectError(std::string(Header) + ".file 1 x.cu\n", 4, 9,
              "expected a file name in double quotes");
  // Raw text of an unknown directive stops at the function's '}'.
  Parsed P = parse(kernel("\t.newthing a, b\n"));
  EXPECT_FALSE(P.M);
  ASSERT_EQ(P.Diags.size(), 2u);
  EXPECT_EQ(P.Diags[0].Sev, Severity::Warning);
  EXPECT_EQ(P.Diags[1].Range.Begin.Line, 9u);
  EXPECT_NE(P.Diags[1].Message.find("expected ';' to end '.newthing'"),
            std::string::npos);
}

TEST(PTXModule, UnknownDirectiveIsKept) {
  Parsed P = parse(std::string(Header) + ".newdirective a, {b}, c;\n");
  ASSERT_TRUE(P.M);
  ASSERT_EQ(P.Diags.size(), 1u);
  EXPECT_EQ(P.Diags[0].Sev, Severity::Warning);
  const auto &R = std::get<RawDirective>(P.M->Items[0]);
  EXPECT_EQ(R.Name, ".newdirective");
  EXPECT_EQ(R.Text, "a, {b}, c");
  EXPECT_NE(printModule(*P.M).find(".newdirective a, {b}, c;"),
            std::string::npos);
}

TEST(PTXModule, NothingCrashesOnTruncatedInput) {
  // Every prefix of a realistic module parses or reports an error.
  std::string Text = kernel(R"(
	.reg .b32 %r<4>;
	.loc 1 2 3, function_name $L__s, inlined_at 1 4 5
	@%p1 atom.global.cas.b32 %r1, [%rd1+-8], %r2, {%r3, _};
	call.uni (retval0), f, (param0);
	prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);
)") + ".global .u64 p[2] = {generic(x)+8, 0f3F800000};\n.section .debug_str { a }\n";
  for (size_t N = 0; N <= Text.size(); ++N) {
    Parsed P = parse(Text.substr(0, N));
    if (P.M)
      expectFixpoint(*P.M);
    else
      EXPECT_FALSE(P.Diags.empty());
  }
}

} // namespace

namespace {

TEST(PTXModule, LabelsAsTheLexerSeesThem) {
  // Found by PtxFuzzer: a label followed by vertical tabs before its ':'
  // was read as an unknown instruction, and printed as a label.
  Module M = parseOk(kernel("L\v\v:\n\tret;\nM /* c */ :\n\tret;\n"));
  const Function &F = firstFunction(M);
  ASSERT_EQ(F.Body.size(), 4u);
  EXPECT_EQ(std::get<Label>(F.Body[0]).Name, "L");
  EXPECT_EQ(std::get<Label>(F.Body[2]).Name, "M");
  expectFixpoint(M);
}

TEST(PTXModule, RawTextWithAnUnterminatedString) {
  // Found by PtxFuzzer: `.d_ ",` then ';' on the next line printed as
  // `.d_ ",;`, where the string swallowed the ';'.
  Parsed P = parse("//\n//\n\t.d_\",\n;");
  ASSERT_TRUE(P.M);
  std::string P1 = printModule(*P.M);
  Parsed Q = parse(P1);
  ASSERT_TRUE(Q.M) << P1;
  EXPECT_EQ(printModule(*Q.M), P1);
}

} // namespace

TEST(PTXModule, EveryMemoryInstructionHasAMemoryUse) {
  Module M = parse(kernel(R"(
	wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r1;
	wmma.load.a.sync.aligned.col.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r9];
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];
	stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1};
	sust.b.2d.b32.trap [%rd1, {%r1, %r2}], {%r3};
	sured.b.add.1d.trap.u32 [%rd1, {%r1}], %r3;
	tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];
	multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;
	tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];
	cp.async.ca.shared.global [%r1], [%rd1], 16;
	cp.async.wait_all;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
	tcgen05.st.sync.aligned.16x64b.x1.b32 [%r1], {%r2};
	wgmma.fence.sync.aligned;
	discard.global.L2 [%rd1], 128;
	prefetch.global.L2 [%rd1];
	frobnicate.global.b32 [%rd1], 1;
	add.s32 %r1, %r2, %r3;
)")).M.value();
  auto Is = instructions(firstFunction(M));
  ASSERT_EQ(Is.size(), 19u);
  using K = MemoryUse;
  const K::Kind Want[] = {K::Tile,    K::Tile,  K::Rows,    K::Rows,  K::Surface,
                          K::Surface, K::Texture, K::Plain, K::Fixed, K::Bulk,
                          K::Copy,    K::None,  K::Fixed,   K::Opaque, K::None,
                          K::Fixed,   K::None,  K::Unknown, K::None};
  for (size_t I = 0; I < Is.size(); ++I)
    EXPECT_EQ(memoryUse(*Is[I]).K, Want[I]) << printInstruction(*Is[I]);
  EXPECT_TRUE(memoryUse(*Is[0]).Writes && memoryUse(*Is[0]).Collective);
  EXPECT_FALSE(memoryUse(*Is[1]).Writes);
  EXPECT_TRUE(memoryUse(*Is[5]).Atomic);
  EXPECT_TRUE(memoryUse(*Is[7]).Atomic);
  EXPECT_TRUE(memoryUse(*Is[9]).Async);
  EXPECT_TRUE(memoryUse(*Is[13]).TensorMemory);
  EXPECT_EQ(memoryUse(*Is[8]).Bytes, 128u);
  EXPECT_EQ(memoryUse(*Is[12]).Bytes, 4u);
  // The tile: 16 rows of 16 floats, the stride operand; a column-major A
  // of 16x16 is 16 columns of 16 halves.
  std::optional<MatrixTile> T = matrixTile(*Is[0]);
  ASSERT_TRUE(T);
  EXPECT_EQ(T->Lines, 16u);
  EXPECT_EQ(T->LineElems, 16u);
  EXPECT_EQ(T->ElemBits, 32u);
  EXPECT_EQ(T->StrideOperand, 2);
  T = matrixTile(*Is[1]);
  ASSERT_TRUE(T);
  EXPECT_EQ(T->ElemBits, 16u);
  EXPECT_EQ(T->StrideOperand, -1);
}

namespace {

/// checkModule's first error, "" if it accepts \p Text (which must parse).
std::string checkError(const std::string &Text) {
  auto F = std::make_shared<SourceFile>("k.ptx", Text);
  DiagnosticEngine D;
  std::optional<Module> M = parseModule(F, D);
  EXPECT_TRUE(M) << Text;
  if (!M)
    return "parse error";
  if (checkModule(*M, D))
    return "";
  return DiagnosticEngine::format(D.diagnostics().back());
}

} // namespace

TEST(PTXModuleCheck, WhatPtxasAcceptsPasses) {
  // Ranges up to N-1, vector components, special registers, WARP_SZ,
  // parameters, module variables, an indirect call through a register
  // with its prototype, a call to a declared function and to an alias.
  EXPECT_EQ(checkError(std::string(Header) +
                       ".extern .func ext(.param .b32 a);\n"
                       ".func real()\n{\n\tret;\n}\n"
                       ".alias other, real;\n"
                       ".global .u32 g;\n"
                       ".visible .entry k(.param .u64 k_param_0)\n{\n"
                       "\t.reg .b32 %r<13>;\n\t.reg .v4 .f32 %v;\n"
                       "\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n"
                       "\tmov.u32 %r12, %tid.x;\n\tmov.u32 %r0, WARP_SZ;\n"
                       "\tmov.f32 %v.x, 0f00000000;\n"
                       "\tld.param.u64 %rd0, [k_param_0];\n"
                       "\tst.global.u32 [g], %r0;\n"
                       "\tsetp.eq.u32 %p0, %r0, 0;\n"
                       "\t@%p0 bra $L__end;\n"
                       "\t{\n\t.param .b32 a;\n\tst.param.b32 [a], %r0;\n"
                       "\tcall.uni ext, (a);\n\t}\n"
                       "\tcall.uni real, ();\n\tcall.uni other, ();\n"
                       "\tmov.u64 %rd1, real;\n"
                       "\tproto: .callprototype _ ();\n"
                       "\tcall %rd1, (), proto;\n"
                       "$L__end:\n\tret;\n}\n"),
            "");
  EXPECT_EQ(checkError(std::string(Header) +
                       ".visible .entry k() .reqntid 32, 32, 1 .maxntid 1024\n"
                       "{\n\tret;\n}\n"),
            "");
}

TEST(PTXModuleCheck, WhatPtxasRefusesIsAnError) {
  auto Body = [](const std::string &B) {
    return std::string(Header) + ".visible .entry k()\n{\n\t.reg .b32 %r<13>;\n" +
           B + "\tret;\n}\n";
  };
  EXPECT_NE(checkError(Body("\tmov.u32 %r13, 0;\n")).find("'%r13' is not declared"),
            std::string::npos);
  EXPECT_NE(checkError(Body("\tmov.u32 %r012, 0;\n")).find("'%r012' is not declared"),
            std::string::npos);
  EXPECT_NE(checkError(Body("\tbra $L__none;\n")).find("not a label of this function"),
            std::string::npos);
  EXPECT_NE(checkError(Body("L:\nL:\n")).find("label 'L' is defined twice"),
            std::string::npos);
  EXPECT_NE(checkError(Body("\tcall.uni nobody, ();\n")).find("call to 'nobody'"),
            std::string::npos);
  EXPECT_NE(checkError(std::string(Header) +
                       ".visible .entry k() .reqntid 1, 1, 65\n{\n\tret;\n}\n")
                .find("dimension z is 65"),
            std::string::npos);
  // A kernel inside a body: the parser's error (a '}' is missing).
  expectError(std::string(Header) + ".entry k()\n{\n.entry j()\n{\n}\n", 6, 1,
              "'.entry' inside the body of 'k'");
}
