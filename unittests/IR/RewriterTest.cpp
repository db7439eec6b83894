//===- RewriterTest.cpp - Editing PTX modules; ptxas accepts the result ---===//
#include "incant/IR/Rewriter.h"
#include "incant/Support/Process.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace incant;
using namespace incant::ir;

namespace {

const char *Ptxas = "/usr/local/cuda/bin/ptxas";

std::optional<ptx::Module> load(const std::string &Name) {
  std::string Path =
      std::string(INCANT_SOURCE_DIR) + "/test/ptx/Inputs/" + Name;
  std::string Err;
  auto File = SourceFile::read(Path, Err);
  EXPECT_TRUE(File) << Err;
  if (!File)
    return std::nullopt;
  DiagnosticEngine D;
  return ptx::parseModule(File, D);
}

std::optional<ptx::Module> parseText(const std::string &Text,
                                     DiagnosticEngine &D) {
  return ptx::parseModule(std::make_shared<SourceFile>("t.ptx", Text), D);
}

/// Prints \p M, parses the text again (it must validate) and, when ptxas is
/// here, assembles it for sm_90. Returns the printed text.
std::string checkPrinted(const ptx::Module &M, const std::string &Tag) {
  std::string Text = ptx::printModule(M);
  DiagnosticEngine D;
  auto Again = parseText(Text, D);
  EXPECT_TRUE(Again) << Tag << ": printed module does not parse: "
                     << (D.diagnostics().empty()
                             ? ""
                             : DiagnosticEngine::format(D.diagnostics()[0]));
  if (Again) {
    DiagnosticEngine V;
    EXPECT_EQ(validate(*Again, V), 0u)
        << Tag << ": "
        << (V.diagnostics().empty()
                ? ""
                : DiagnosticEngine::format(V.diagnostics()[0]));
  }
  if (::access(Ptxas, X_OK) != 0)
    return Text; // the unit test still checks print/parse/validate
  // The process id keeps parallel runs (ctest -j, other checkouts on the
  // same machine) from writing one file.
  std::string Base = ::testing::TempDir() + "incant-rewrite-" +
                     std::to_string(::getpid()) + "-" + Tag;
  std::ofstream(Base + ".ptx") << Text;
  ProcessOptions Run;
  Run.Argv = {Ptxas, "-arch=sm_90", Base + ".ptx", "-o", Base + ".cubin"};
  Run.Stderr = OutputMode::ToStdout;
  ProcessResult R = runProcess(Run);
  EXPECT_TRUE(R.succeeded()) << Tag << ": ptxas rejected the rewritten module ("
                             << R.describe() << "):\n"
                             << R.Out;
  std::remove((Base + ".ptx").c_str());
  std::remove((Base + ".cubin").c_str());
  return Text;
}

size_t count(const std::string &Text, const std::string &What) {
  size_t N = 0;
  for (size_t At = Text.find(What); At != std::string::npos;
       At = Text.find(What, At + 1))
    ++N;
  return N;
}

bool isGlobalAccess(const ptx::Instruction &I) {
  return (I.Op == ptx::Opcode::Ld || I.Op == ptx::Opcode::St ||
          I.Op == ptx::Opcode::Atom || I.Op == ptx::Opcode::Red) &&
         (I.ASpace == ptx::AddrSpace::Global ||
          I.ASpace == ptx::AddrSpace::Generic);
}

/// kern.ptx, parsed, with a rewriter on it.
class IRRewriterKern : public ::testing::Test {
protected:
  void SetUp() override {
    M = load("kern.ptx");
    ASSERT_TRUE(M);
    Rw.emplace(*M, D);
  }
  std::optional<ptx::Module> M;
  DiagnosticEngine D;
  std::optional<Rewriter> Rw;
};

TEST(IRRewriter, OriginalsValidate) {
  for (const char *Name : {"kern.ptx", "sync.ptx"}) {
    auto M = load(Name);
    ASSERT_TRUE(M) << Name;
    DiagnosticEngine D;
    EXPECT_EQ(validate(*M, D), 0u) << Name;
  }
}

TEST(IRRewriter, FenceAfterEveryGlobalAccess) {
  for (const char *Name : {"kern.ptx", "sync.ptx"}) {
    auto M = load(Name);
    ASSERT_TRUE(M);
    DiagnosticEngine D;
    Rewriter RW(*M, D);
    unsigned Added = 0;
    {
      ModuleIR IR(*M);
      for (const FunctionIR &F : IR.functions()) {
        unsigned Func = RW.functionIndex(F.function());
        ASSERT_NE(Func, NoNode);
        for (unsigned Item : F.instructions())
          if (isGlobalAccess(F.inst(Item))) {
            ASSERT_TRUE(RW.insertAfter(Func, Item, "fence.sc.gpu;"));
            ++Added;
          }
      }
    }
    EXPECT_GT(Added, 0u);
    size_t Before = count(ptx::printModule(*M), "fence.sc.gpu");
    RW.apply();
    EXPECT_FALSE(RW.hasPending());
    std::string Text = checkPrinted(*M, std::string("fences-") + Name);
    EXPECT_EQ(count(Text, "fence.sc.gpu"), Before + Added);
    // Every global access is now directly followed by its fence.
    ModuleIR IR(*M);
    for (const FunctionIR &F : IR.functions()) {
      const auto &Insts = F.instructions();
      for (size_t K = 0; K < Insts.size(); ++K)
        if (isGlobalAccess(F.inst(Insts[K]))) {
          ASSERT_LT(K + 1, Insts.size());
          EXPECT_EQ(ptx::printInstruction(F.inst(Insts[K + 1])),
                    "fence.sc.gpu");
          // The fence shares the access's source line.
          EXPECT_EQ(F.loc(Insts[K + 1]).Frames.size(),
                    F.loc(Insts[K]).Frames.size());
        }
    }
  }
}

TEST_F(IRRewriterKern, BarrierAtLoopHeaders) {
  Rewriter &RW = *Rw;
  unsigned Added = 0;
  {
    ModuleIR IR(*M);
    for (const FunctionIR &F : IR.functions())
      for (const Loop &L : F.loops().loops()) {
        ASSERT_TRUE(RW.insertAtBlockEntry(F, L.Header, "bar.sync 0;"));
        ++Added;
      }
  }
  EXPECT_EQ(Added, 3u);
  RW.apply();
  std::string Text = checkPrinted(*M, "barriers");
  EXPECT_EQ(count(Text, "bar.sync 0"), 1 + Added);
  // Each loop header now starts with the barrier.
  ModuleIR IR(*M);
  for (const FunctionIR &F : IR.functions())
    for (const Loop &L : F.loops().loops())
      EXPECT_EQ(ptx::printInstruction(
                    F.inst(F.blocks()[L.Header].Insts.front())),
                "bar.sync 0");
}

TEST_F(IRRewriterKern, InstrumentationCallVariablesParamsRegisters) {
  Rewriter &RW = *Rw;
  unsigned Func = RW.functionIndex("_Z8producerPii");
  ASSERT_NE(Func, NoNode);
  ASSERT_TRUE(RW.addModuleText(
      ".global .align 4 .u32 incant_count;\n"
      ".func incant_hook(.param .b64 incant_hook_p)\n{\n"
      "\t.reg .b64 %a;\n\tld.param.u64 %a, [incant_hook_p];\n"
      "\tred.global.add.u32 [incant_count], 1;\n\tret;\n}\n"));
  ASSERT_TRUE(RW.addParam(Func, ".param .u64 incant_log"));
  std::string Reg = RW.addRegister(Func, ".b64");
  EXPECT_EQ(Reg, "%incant0");
  EXPECT_EQ(RW.addRegister(Func, ".b64"), "%incant1");
  {
    ModuleIR IR(*M);
    const FunctionIR *F = IR.find("_Z8producerPii");
    ASSERT_TRUE(F);
    // Before every global load: load the new parameter, call the hook.
    for (unsigned Item : F->instructions()) {
      const ptx::Instruction &I = F->inst(Item);
      if (I.Op == ptx::Opcode::Ld && I.ASpace == ptx::AddrSpace::Global) {
        ASSERT_TRUE(RW.insertBefore(Func, Item,
                                    "ld.param.u64 " + Reg + ", [incant_log];"));
        ASSERT_TRUE(RW.insertBefore(Func, Item,
                                    "call.uni incant_hook, (" + Reg + ");"));
      }
    }
  }
  RW.apply();
  std::string Text = checkPrinted(*M, "instrument");
  EXPECT_EQ(count(Text, "call.uni incant_hook"), 8u);
  EXPECT_NE(Text.find(".param .u64 incant_log"), std::string::npos);
  EXPECT_LT(Text.find("incant_count;"), Text.find(".entry"));
  EXPECT_EQ(D.numErrors(), 0u);
}

TEST_F(IRRewriterKern, Renames) {
  Rewriter &RW = *Rw;
  unsigned Func = RW.functionIndex("_Z8producerPii");
  EXPECT_TRUE(RW.renameSymbol("flag", "incant_flag"));
  EXPECT_TRUE(RW.renameRegister(Func, "%r", "%q"));
  // %rd0, %rd1, ... are taken, so the %q range cannot become %rd.
  EXPECT_FALSE(RW.renameRegister(Func, "%q", "%rd"));
  std::string Text = checkPrinted(*M, "renames");
  EXPECT_EQ(count(Text, " flag"), 0u);
  EXPECT_NE(Text.find("incant_flag"), std::string::npos);
  EXPECT_NE(Text.find(".reg .b32 %q<81>"), std::string::npos);
  // The consumer keeps its own %r registers.
  EXPECT_NE(Text.find(".reg .b32 %r<5>"), std::string::npos);
}

TEST_F(IRRewriterKern, RefusedEdits) {
  Rewriter &RW = *Rw;
  unsigned Func = RW.functionIndex("_Z8consumerPi");
  ModuleIR IR(*M);
  const FunctionIR *F = IR.find("_Z8consumerPi");
  ASSERT_TRUE(F);
  unsigned Ret = F->instructions().back();
  // After ret nothing runs.
  EXPECT_FALSE(RW.insertAfter(Func, Ret, "membar.gl;"));
  // Text that does not parse.
  EXPECT_FALSE(RW.insertBefore(Func, Ret, "ld.global.u32 %r1, [%rd1"));
  // Names already taken.
  EXPECT_FALSE(RW.renameSymbol("flag", "data"));
  EXPECT_FALSE(RW.renameSymbol("nothing", "x"));
  EXPECT_FALSE(RW.renameRegister(Func, "%r", "%rd"));
  EXPECT_FALSE(RW.addModuleText(".global .u32 flag;"));
  EXPECT_FALSE(RW.addParam(Func, ".param .u64 _Z8consumerPi_param_0"));
  EXPECT_FALSE(RW.hasPending());
  EXPECT_GE(D.numErrors(), 7u);
}

TEST_F(IRRewriterKern, ValidateFindsBrokenEdits) {
  Rewriter &RW = *Rw;
  unsigned Func = RW.functionIndex("_Z8consumerPi");
  ModuleIR IR(*M);
  unsigned First = IR.find("_Z8consumerPi")->instructions().front();
  ASSERT_TRUE(RW.insertBefore(Func, First, "ld.param.u32 %r1, [nope_param];"));
  ASSERT_TRUE(RW.insertBefore(Func, First, "add.s32 %r1, %r1, %zz;"));
  ASSERT_TRUE(RW.insertBefore(Func, First, "@%p1 bra $L_missing;"));
  ASSERT_TRUE(RW.insertBefore(Func, First, "call.uni no_such_fn, (%r1);"));
  ASSERT_TRUE(RW.insertBefore(Func, First, "st.global.u32 [no_var], %r1;"));
  // PTX's predefined WARP_SZ (nvcc's warpSize) needs no declaration.
  ASSERT_TRUE(RW.insertBefore(Func, First, "mov.u32 %r1, WARP_SZ;"));
  RW.apply();
  DiagnosticEngine V;
  EXPECT_EQ(validate(*M, V), 5u);
  std::vector<std::string> Msgs;
  for (const Diagnostic &Di : V.diagnostics()) {
    EXPECT_FALSE(Di.Range.isValid()); // inserted code has no location
    Msgs.push_back(Di.Message);
  }
  auto Has = [&](const std::string &S) {
    for (const std::string &M : Msgs)
      if (M.find(S) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(Has("parameter 'nope_param' is not declared")) << Msgs[0];
  EXPECT_TRUE(Has("register '%zz' is not declared"));
  EXPECT_TRUE(Has("label '$L_missing' is not defined in _Z8consumerPi"));
  EXPECT_TRUE(Has("function 'no_such_fn' is not declared"));
  EXPECT_TRUE(Has("'no_var' is not declared"));
  EXPECT_TRUE(Has("in _Z8consumerPi, 'add.s32 %r1, %r1, %zz'"));
}

TEST(IRRewriter, ValidatePointsIntoTheSource) {
  DiagnosticEngine D;
  auto M = parseText(".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k()\n{\n"
                     "\t.reg .b32 %r<2>;\n"
                     "\t.reg .b32 %r<2>;\n"
                     "\tmov.u32 %r1, %r7;\n"
                     "$L: ret;\n$L: ret;\n}\n",
                     D);
  ASSERT_TRUE(M);
  DiagnosticEngine V;
  EXPECT_EQ(validate(*M, V), 3u);
  ASSERT_EQ(V.diagnostics().size(), 3u);
  const Diagnostic &Dup = V.diagnostics()[0];
  EXPECT_EQ(Dup.Message, "register '%r0' is declared twice");
  EXPECT_EQ(Dup.Range.Begin.Line, 7u);
  const Diagnostic &Lab = V.diagnostics()[1];
  EXPECT_EQ(Lab.Message, "label '$L' is defined twice");
  EXPECT_EQ(Lab.Range.Begin.Line, 10u);
  EXPECT_EQ(Lab.Range.Begin.Col, 1u);
  const Diagnostic &Reg = V.diagnostics()[2];
  EXPECT_EQ(Reg.Message, "register '%r7' is not declared");
  EXPECT_EQ(Reg.Range.Begin.Line, 8u);
  EXPECT_EQ(Reg.Range.Begin.Col, 2u);
}

} // namespace
