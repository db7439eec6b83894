//===- InstructionTest.cpp - Tests of the PTX instruction layer -----------===//
#include "incant/PTX/Instruction.h"
#include "incant/PTX/Lexer.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::ptx;

namespace {

struct Result {
  std::optional<Statement> S;
  std::vector<Diagnostic> Diags;
};

Result parse(const std::string &Text) {
  auto F = std::make_shared<SourceFile>("t.ptx", Text);
  DiagnosticEngine D;
  Result R;
  R.S = parseStatement(F, 0, static_cast<uint32_t>(Text.size()), D);
  R.Diags = D.diagnostics();
  return R;
}

Instruction inst(const std::string &Text) {
  Result R = parse(Text);
  EXPECT_TRUE(R.S && R.S->Inst) << Text;
  if (!R.S || !R.S->Inst)
    return {};
  return *R.S->Inst;
}

/// Expects exactly one error at \p Line:\p Col whose message contains \p Msg.
void expectError(const std::string &Text, uint32_t Line, uint32_t Col,
                 const std::string &Msg) {
  Result R = parse(Text);
  EXPECT_FALSE(R.S) << Text;
  ASSERT_EQ(R.Diags.size(), 1u) << Text;
  EXPECT_EQ(R.Diags[0].Range.Begin.Line, Line) << Text;
  EXPECT_EQ(R.Diags[0].Range.Begin.Col, Col) << Text;
  EXPECT_NE(R.Diags[0].Message.find(Msg), std::string::npos)
      << Text << ": " << R.Diags[0].Message;
  EXPECT_EQ(R.Diags[0].Range.Begin.Col, Col) << R.Diags[0].Message;
}

TEST(PTXLexer, Tokens) {
  SourceFile F("t", "ld.global r0, [x+0x10]; // c\n@!p -5");
  Lexer L(F, 0, F.text().size());
  std::vector<TokKind> Kinds;
  while (!L.peek().is(TokKind::Eof))
    Kinds.push_back(L.next().K);
  std::vector<TokKind> Want = {
      TokKind::Ident, TokKind::Directive, TokKind::Ident, TokKind::Comma,
      TokKind::LBracket, TokKind::Ident, TokKind::Plus, TokKind::Int,
      TokKind::RBracket, TokKind::Semi, TokKind::At, TokKind::Bang,
      TokKind::Ident, TokKind::Minus, TokKind::Int};
  EXPECT_EQ(Kinds, Want);
}

TEST(PTXLexer, HexAndLocations) {
  SourceFile F("t", "\n  0x80000000");
  Lexer L(F, 0, F.text().size());
  Token T = L.next();
  EXPECT_TRUE(T.IsHex);
  EXPECT_EQ(T.IntVal, 0x80000000u);
  EXPECT_EQ(T.Range.Begin.Line, 2u);
  EXPECT_EQ(T.Range.Begin.Col, 3u);
}

TEST(PTXInstruction, LoadForms) {
  Instruction I = inst("ld.global.cg.s32 r2, [r3]");
  EXPECT_EQ(I.Op, Opcode::Ld);
  EXPECT_EQ(I.S, Sem::Weak);
  EXPECT_EQ(I.Space, StateSpace::Global);
  EXPECT_EQ(I.Cache, CacheOp::CG);
  ASSERT_EQ(I.Types.size(), 1u);
  EXPECT_EQ(I.Types[0], (Type{Type::S, 32}));
  ASSERT_EQ(I.Ops.size(), 2u);
  EXPECT_EQ(I.Ops[0].K, Operand::Reg);
  EXPECT_EQ(I.Ops[1].K, Operand::Address);
  EXPECT_EQ(I.Ops[1].Name, "r3");

  I = inst("ld.volatile.shared.u64 r0, [x+8]");
  EXPECT_EQ(I.S, Sem::Volatile);
  EXPECT_EQ(I.Space, StateSpace::Shared);
  EXPECT_EQ(I.Ops[1].Value, 8);

  I = inst("ld.acquire.cluster.b32 r0, [r1-4]");
  EXPECT_EQ(I.S, Sem::Acquire);
  EXPECT_EQ(I.Sc, Scope::Cluster);
  EXPECT_EQ(I.Ops[1].Value, -4);

  I = inst("ld.relaxed.sys %r0, x"); // bare location (Dat3M)
  EXPECT_EQ(I.S, Sem::Relaxed);
  EXPECT_EQ(I.Sc, Scope::Sys);
  EXPECT_EQ(I.Ops[0].Name, "%r0");
  EXPECT_EQ(I.Ops[1].K, Operand::Symbol);
  EXPECT_EQ(I.Ops[1].Name, "x");

  for (const char *C : {"ca", "cg", "cs", "lu", "cv"})
    inst(std::string("ld.") + C + ".u32 r0, [r1]");
}

TEST(PTXInstruction, StoreForms) {
  Instruction I = inst("st.release.gpu.global.u64 [x], 0x80000000");
  EXPECT_EQ(I.Op, Opcode::St);
  EXPECT_EQ(I.S, Sem::Release);
  EXPECT_EQ(I.Sc, Scope::GPU);
  EXPECT_EQ(I.Ops[1].K, Operand::Imm);
  EXPECT_EQ(I.Ops[1].Value, 0x80000000);
  EXPECT_TRUE(I.Ops[1].Hex);

  I = inst("st.weak x, -1");
  EXPECT_EQ(I.S, Sem::Weak);
  EXPECT_EQ(I.Ops[0].K, Operand::Symbol);
  EXPECT_EQ(I.Ops[1].Value, -1);

  for (const char *C : {"wb", "cg", "cs", "wt"})
    inst(std::string("st.") + C + ".s32 [r1], r0");
  inst("st.volatile.s32 [r1], r0");
  inst("st.relaxed.cta.s32 [r1], r0");
}

TEST(PTXInstruction, AtomAndRed) {
  Instruction I = inst("atom.cas.b32 r0, [r4], 0, 1");
  EXPECT_EQ(I.Op, Opcode::Atom);
  EXPECT_EQ(I.Atom, AtomOp::Cas);
  EXPECT_EQ(I.S, Sem::Relaxed); // PTX default
  EXPECT_EQ(I.Sc, Scope::GPU);  // PTX default
  EXPECT_EQ(I.Ops.size(), 4u);

  I = inst("atom.acq_rel.sys.global.exch.b64 r0, [x], r1");
  EXPECT_EQ(I.S, Sem::AcqRel);
  EXPECT_EQ(I.Sc, Scope::Sys);
  EXPECT_EQ(I.Atom, AtomOp::Exch);

  I = inst("red.acq_rel.cta.plus x, 1"); // Dat3M spelling
  EXPECT_EQ(I.Op, Opcode::Red);
  EXPECT_EQ(I.Atom, AtomOp::Add);
  EXPECT_EQ(I.Ops.size(), 2u);
  EXPECT_EQ(I.Ops[0].K, Operand::Symbol);

  const std::pair<const char *, AtomOp> Ops[] = {
      {"add", AtomOp::Add}, {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec},
      {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
      {"min", AtomOp::Min}, {"max", AtomOp::Max}};
  for (auto [Name, Op] : Ops) {
    EXPECT_EQ(inst(std::string("atom.") + Name + ".u32 r0, [x], 1").Atom, Op);
    EXPECT_EQ(inst(std::string("red.release.gpu.") + Name + ".u32 [x], 1").Atom,
              Op);
  }
}

TEST(PTXInstruction, FencesAndBarriers) {
  EXPECT_EQ(inst("membar.cta").Sc, Scope::CTA);
  EXPECT_EQ(inst("membar.gl").Sc, Scope::GPU);
  EXPECT_EQ(inst("membar.sys").Sc, Scope::Sys);
  EXPECT_EQ(inst("membar.gl").S, Sem::SC);
  Instruction F = inst("fence.sc.cluster");
  EXPECT_EQ(F.S, Sem::SC);
  EXPECT_EQ(F.Sc, Scope::Cluster);
  F = inst("fence.acq_rel.gpu");
  EXPECT_EQ(F.S, Sem::AcqRel);
  EXPECT_EQ(inst("bar.sync 0").Op, Opcode::Bar);
  EXPECT_EQ(inst("barrier.sync 1").Ops[0].Value, 1);
  EXPECT_EQ(inst("bar.cta.sync 1").Ops.size(), 1u);
  EXPECT_EQ(inst("bar.sync 1, 64").Ops.size(), 2u);
}

TEST(PTXInstruction, AluAndControl) {
  EXPECT_EQ(inst("mov.s32 r0, 1").Op, Opcode::Mov);
  EXPECT_EQ(inst("add.s32 r0, r1, 2").Ops.size(), 3u);
  inst("sub.u64 r0, r1, r2");
  inst("mul.lo.s32 r0, r1, 3");
  Instruction A = inst("and.b32 r1, r0, 0");
  EXPECT_EQ(A.Op, Opcode::And);
  EXPECT_EQ(A.Ops[2].K, Operand::Imm);
  inst("or.b32 r0, r1, r2");
  inst("xor.b32 r0, r1, r2");
  inst("not.b32 r0, r1");
  Instruction C = inst("cvt.u64.u32 r0, r1");
  ASSERT_EQ(C.Types.size(), 2u);
  EXPECT_EQ(C.Types[0], (Type{Type::U, 64}));
  EXPECT_EQ(C.Types[1], (Type{Type::U, 32}));
  const std::pair<const char *, CmpOp> Cmps[] = {
      {"eq", CmpOp::Eq}, {"ne", CmpOp::Ne}, {"lt", CmpOp::Lt},
      {"le", CmpOp::Le}, {"gt", CmpOp::Gt}, {"ge", CmpOp::Ge},
      {"lo", CmpOp::Lo}, {"ls", CmpOp::Ls}, {"hi", CmpOp::Hi},
      {"hs", CmpOp::Hs}};
  for (auto [Name, Cmp] : Cmps)
    EXPECT_EQ(inst(std::string("setp.") + Name + ".u32 p, r0, 0").Cmp, Cmp);
  Instruction B = inst("@!p bra.uni L0");
  ASSERT_TRUE(B.G);
  EXPECT_TRUE(B.G->Negated);
  EXPECT_EQ(B.G->Reg, "p");
  EXPECT_EQ(B.Ops[0].K, Operand::Label);
  EXPECT_EQ(inst("goto L1").Op, Opcode::Bra);
  Instruction Beq = inst("bne r0, 1, LC01"); // Dat3M pseudo-instruction
  EXPECT_EQ(Beq.Op, Opcode::CmpBra);
  EXPECT_EQ(Beq.Cmp, CmpOp::Ne);
  EXPECT_EQ(Beq.Ops[2].K, Operand::Label);
  EXPECT_EQ(inst("bge r0, r1, L").Cmp, CmpOp::Ge);
  EXPECT_EQ(inst("beq r0, r1, L").Cmp, CmpOp::Eq);
  Instruction G = inst("@r1 ld.cg.u32 r2, [r3]");
  ASSERT_TRUE(G.G);
  EXPECT_FALSE(G.G->Negated);
}

TEST(PTXStatement, LabelsAndEmpty) {
  Result R = parse("L0:");
  ASSERT_TRUE(R.S);
  ASSERT_EQ(R.S->Labels.size(), 1u);
  EXPECT_EQ(R.S->Labels[0].Name, "L0");
  EXPECT_FALSE(R.S->Inst);
  R = parse("  ");
  ASSERT_TRUE(R.S);
  EXPECT_TRUE(R.S->empty());
  R = parse("L1: L2: membar.cta;");
  ASSERT_TRUE(R.S && R.S->Inst);
  EXPECT_EQ(R.S->Labels.size(), 2u);
}

TEST(PTXStatement, SourceRanges) {
  Result R = parse("  @p ld.cg.s32 r2, [r3+4]");
  ASSERT_TRUE(R.S && R.S->Inst);
  const Instruction &I = *R.S->Inst;
  EXPECT_EQ(I.Range.Begin.Col, 3u);
  EXPECT_EQ(I.Range.End.Col, 26u);
  EXPECT_EQ(I.G->Range.Begin.Col, 3u);
  EXPECT_EQ(I.NameRange.Begin.Col, 6u);
  ASSERT_EQ(I.Mods.size(), 2u);
  EXPECT_EQ(I.Mods[1].Text, ".s32");
  EXPECT_EQ(I.Mods[1].Range.Begin.Col, 11u);
  EXPECT_EQ(I.Ops[1].Range.Begin.Col, 20u);
  EXPECT_EQ(I.Ops[1].Range.End.Col, 26u);
}

TEST(PTXPrinter, Canonical) {
  auto RoundTrip = [](const std::string &In, const std::string &Want) {
    Result R = parse(In);
    ASSERT_TRUE(R.S) << In;
    std::string Out = printStatement(*R.S);
    EXPECT_EQ(Out, Want);
    Result R2 = parse(Out);
    ASSERT_TRUE(R2.S) << Out;
    EXPECT_EQ(printStatement(*R2.S), Out);
  };
  RoundTrip("ld.cg.s32 r2,[r3]", "ld.cg.s32 r2, [r3]");
  RoundTrip("st.global.u32 [x + 0x10] , 0x80000000",
            "st.global.u32 [x+0x10], 0x80000000");
  RoundTrip("L0:  @!p  bra L0 ;", "L0: @!p bra L0");
  RoundTrip("atom.relaxed.gpu.plus r0, x, -5", "atom.relaxed.gpu.plus r0, x, -5");
  RoundTrip("ld.u32 r0, [r1-8]", "ld.u32 r0, [r1-8]");
  RoundTrip("st.u64 [x], -0x10", "st.u64 [x], -0x10");
  RoundTrip("st.u64 [x], 0xffffffffffffffff", "st.u64 [x], -0x1");
  RoundTrip("ld.u32 r0, [x-9223372036854775808]",
            "ld.u32 r0, [x-9223372036854775808]");
}

TEST(PTXDiagnostics, Errors) {
  expectError("foo.s32 r0, r1", 1, 1, "unknown instruction 'foo'");
  expectError("  ld.s32.bogus r0, [r1]", 1, 9,
              "unknown modifier '.bogus' for 'ld'");
  expectError("ld.release.gpu.s32 r0, [r1]", 1, 3,
              "unknown modifier '.release' for 'ld'");
  expectError("ld.relaxed.s32 r0, [r1]", 1, 3, "'.relaxed' needs a scope");
  expectError("ld.acquire.gpu.relaxed.gpu r0, [r1]", 1, 15,
              "modifier '.relaxed' conflicts with '.acquire'");
  expectError("ld.s32 r0", 1, 10, "'ld' needs 2 operands, found 1");
  expectError("ld.s32 r0, [r1], r2", 1, 18, "too many operands for 'ld'");
  expectError("ld.s32 1, [r1]", 1, 8, "expected a destination register");
  expectError("st.s32 [r1], [r2]", 1, 14, "expected a register or an immediate");
  expectError("ld.s32 r0, 5", 1, 12, "expected an address");
  expectError("ld.s32 r0, [r1", 1, 15, "expected ']'");
  expectError("atom.b32 r0, [x], 1", 1, 1, "'atom' needs an operation");
  expectError("red.cas.b32 [x], 1", 1, 4, "'red' cannot do '.cas'");
  expectError("membar", 1, 1, "'membar' needs a level");
  expectError("membar.gpu", 1, 7, "unknown modifier '.gpu' for 'membar'");
  expectError("fence.sc", 1, 1, "'fence' needs a scope");
  expectError("bar 0", 1, 1, "'bar' needs a mode: 'bar.sync' or 'bar.arrive'");
  expectError("bar.sync.arrive 0", 1, 9, "'bar' has two modes");
  expectError("fence.proxy", 1, 6, "'fence.proxy' needs a proxy kind");
  expectError("fence.proxy.tensormap", 1, 12,
              "unknown modifier '.tensormap' for 'fence'");
  expectError("fence.proxy.alias.gpu", 1, 18, "a proxy fence takes no semantics or scope");
  expectError("bar.sync 0, 1, 2, 3", 1, 19, "too many operands for 'bar' (expected 3)");
  expectError("setp.u32 p, r0, 0", 1, 1, "'setp' needs a comparison");
  expectError("cvt.u32 r0, r1", 1, 1, "'cvt' needs two types");
  expectError("@ 5 ld.s32 r0, [r1]", 1, 3, "expected a predicate register");
  expectError("bra 3", 1, 5, "expected a label");
  expectError("mov.s32 r0, 99999999999999999999", 1, 13, "is too large");
  expectError("mov.s32 r0, 1 r2", 1, 15, "unexpected 'r2'");
  expectError("st.volatile.cg.s32 [r1], r0", 1, 12,
              "cache operator '.cg' cannot be used with '.volatile'");
  expectError("ld.weak.gpu r0, [r1]", 1, 8, "scope '.gpu' needs");
}

TEST(PTXTypes, Names) {
  for (const char *N : {".s8", ".s16", ".s32", ".s64", ".u8", ".u16", ".u32",
                        ".u64", ".b8", ".b16", ".b32", ".b64", ".pred"}) {
    std::optional<Type> T = parseType(N);
    ASSERT_TRUE(T) << N;
    EXPECT_EQ(typeName(*T), N);
  }
  EXPECT_FALSE(parseType(".f32"));
  EXPECT_FALSE(parseType(".s33"));
}

} // namespace
