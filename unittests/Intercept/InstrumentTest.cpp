//===- InstrumentTest.cpp - The instrumenting pipeline and its passes -----===//
//
// The rewrite on small modules (what it records, what it leaves alone, that
// it is idempotent and prints stably), and on every module of the PTX
// corpus: the result validates, carries its manifest, and ptxas assembles
// it without a stack frame the original did not have.
//
//===----------------------------------------------------------------------===//
#include "incant/Intercept/ImageScan.h"
#include "incant/Intercept/Instrument.h"
#include "Ptxas.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

using namespace incant;
using namespace incant::intercept;

namespace {

const char *const Module = R"ptx(.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 func_retval0) _Z3bidv()
{
	.reg .b32 %r<3>;
	mov.u32 %r1, %ctaid.y;
	mov.u32 %r2, %tid.x;
	add.s32 %r1, %r1, %r2;
	st.param.b32 [func_retval0], %r1;
	ret;
}

.visible .entry _Z1kPi(
	.param .u64 _Z1kPi_param_0
)
{
	.reg .b32 %r<7>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [_Z1kPi_param_0];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	{
	.param .b32 retval0;
	call.uni (retval0), _Z3bidv, ();
	ld.param.b32 %r5, [retval0];
	}
	add.s32 %r6, %r4, %r5;
	mul.wide.u32 %rd2, %r6, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}

.visible .entry _Z5plainPi(
	.param .u64 _Z5plainPi_param_0
)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [_Z5plainPi_param_0];
	st.global.u32 [%rd1], 1;
	ret;
}

.visible .entry _Z7clusterPi(
	.param .u64 _Z7clusterPi_param_0
)
.reqnctapercluster 2, 1, 1
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [_Z7clusterPi_param_0];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %cluster_ctarank;
	add.s32 %r1, %r1, %r2;
	st.global.u32 [%rd1], %r1;
	ret;
}
)ptx";

std::shared_ptr<SourceFile> file(const std::string &Name,
                                 const std::string &Text) {
  return std::make_shared<SourceFile>(Name, Text);
}

InstrumentResult instrument(const std::string &Text,
                            std::vector<std::string> Passes = {"randomise"}) {
  DiagnosticEngine Diags;
  InstrumentOptions Opts;
  Opts.Passes = std::move(Passes);
  Opts.PtxFile = "t.ptx";
  InstrumentResult R = instrumentPtx(file("t.ptx", Text), Opts, Diags);
  for (const Diagnostic &D : Diags.diagnostics())
    ADD_FAILURE() << DiagnosticEngine::format(D);
  return R;
}

const FunctionRecord *fn(const UnitManifest &M, const std::string &Name) {
  for (const FunctionRecord &F : M.Functions)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

/// The body of function \p Name in PTX text (up to the next "\n}").
std::string body(const std::string &Ptx, const std::string &Name) {
  size_t B = Ptx.find(Name + "(");
  if (B == std::string::npos)
    return {};
  size_t E = Ptx.find("\n}", B);
  return Ptx.substr(B, E - B);
}

TEST(Instrument, RemapsKernelsAndDeviceFunctions) {
  InstrumentResult R = instrument(Module);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  const UnitManifest &M = R.Manifest;
  EXPECT_EQ(M.Target, "sm_90");
  EXPECT_EQ(M.Passes, std::vector<std::string>{"randomise"});
  ASSERT_TRUE(fn(M, "_Z1kPi") && fn(M, "_Z3bidv") && fn(M, "_Z5plainPi"));
  EXPECT_TRUE(fn(M, "_Z1kPi")->Remapped);
  EXPECT_TRUE(fn(M, "_Z1kPi")->CallsRemapped);
  EXPECT_TRUE(fn(M, "_Z3bidv")->Remapped);
  EXPECT_FALSE(fn(M, "_Z5plainPi")->Remapped);
  EXPECT_TRUE(fn(M, "_Z5plainPi")->LeftAlone.empty());
  // One site per id read, with its PTX line.
  ASSERT_EQ(M.Sites.size(), 4u);
  EXPECT_EQ(M.Sites[0].Kind, "%ctaid.y read");
  EXPECT_EQ(M.Sites[0].Function, "_Z3bidv");
  EXPECT_EQ(M.Sites[0].PtxLine, 8u);
  EXPECT_EQ(M.Sites[2].Kind, "%ctaid.x read");
  for (size_t I = 0; I < M.Sites.size(); ++I) {
    EXPECT_EQ(M.Sites[I].Id, I);
    EXPECT_EQ(M.Sites[I].Pass, "randomise");
  }
  // The kernel reads its own switch word, the device function its unit's;
  // the original reads are gone except in the prologue.
  std::string K = body(R.Ptx, "_Z1kPi"), F = body(R.Ptx, "_Z3bidv");
  EXPECT_NE(K.find("[__incant_k__Z1kPi+4]"), std::string::npos) << K;
  EXPECT_NE(F.find("[" + ctlVarName(M.Id) + "+0]"), std::string::npos) << F;
  EXPECT_NE(K.find("mov.u32 %r1, %incant_id"), std::string::npos) << K;
  // The unit's variables are declared.
  EXPECT_NE(R.Ptx.find(".visible .const .align 8 .b8 " + ctlVarName(M.Id) + "[64];"),
            std::string::npos);
  EXPECT_NE(R.Ptx.find(".visible .const .align 4 .b32 __incant_k__Z1kPi[4] = {3, 0,"),
            std::string::npos);
}

TEST(Instrument, LeavesClusterKernelsAlone) {
  InstrumentResult R = instrument(Module);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  const FunctionRecord *C = fn(R.Manifest, "_Z7clusterPi");
  ASSERT_TRUE(C);
  EXPECT_FALSE(C->Remapped);
  EXPECT_NE(C->LeftAlone.find("clusters"), std::string::npos) << C->LeftAlone;
  std::string B = body(R.Ptx, "_Z7clusterPi");
  EXPECT_NE(B.find("mov.u32 %r1, %ctaid.x"), std::string::npos) << B;
}

TEST(Instrument, SharedDeviceFunctionsFollowTheUnsafeKernel) {
  // The cluster kernel now calls the device function the other kernel
  // calls: their ids must agree, so all three are left alone.
  std::string Text = Module;
  size_t At = Text.find("\tadd.s32 %r1, %r1, %r2;\n\tst.global.u32 [%rd1], %r1;");
  ASSERT_NE(At, std::string::npos);
  Text.insert(At, "\t{\n\t.param .b32 retval0;\n\tcall.uni (retval0), _Z3bidv, ();\n"
                  "\tld.param.b32 %r2, [retval0];\n\t}\n");
  InstrumentResult R = instrument(Text);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  for (const char *Name : {"_Z1kPi", "_Z3bidv", "_Z7clusterPi"}) {
    const FunctionRecord *F = fn(R.Manifest, Name);
    ASSERT_TRUE(F) << Name;
    EXPECT_FALSE(F->Remapped) << Name;
    EXPECT_FALSE(F->LeftAlone.empty()) << Name;
  }
  EXPECT_NE(fn(R.Manifest, "_Z1kPi")->LeftAlone.find("shares device functions"),
            std::string::npos);
  EXPECT_TRUE(R.Manifest.Sites.empty());
}

TEST(Instrument, VectorReadsAreLeftAlone) {
  std::string Text = Module;
  size_t At = Text.find("mov.u32 %r2, %ntid.x;");
  ASSERT_NE(At, std::string::npos);
  Text.replace(At, std::string("mov.u32 %r2, %ntid.x;").size(),
               "mov.u32 %r2, %ntid.x;\n\t{\n\t.reg .b32 %q<4>;\n\tmov.v4.u32 "
               "{%q0, %q1, %q2, %q3}, %tid;\n\t}");
  InstrumentResult R = instrument(Text);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  EXPECT_NE(fn(R.Manifest, "_Z1kPi")->LeftAlone.find("as a vector"),
            std::string::npos);
}

TEST(Instrument, IdempotentAndStable) {
  InstrumentResult R = instrument(Module);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  // What ptxas gets the second time (another -gencode) stays as it is.
  DiagnosticEngine Diags;
  InstrumentResult Again =
      instrumentPtx(file("t.ptx", R.Ptx), InstrumentOptions(), Diags);
  EXPECT_EQ(Again.Status, InstrumentStatus::AlreadyInstrumented);
  // Print -> parse -> print is a fixpoint.
  auto M = ptx::parseModule(file("o.ptx", R.Ptx), Diags);
  ASSERT_TRUE(M);
  EXPECT_EQ(ptx::printModule(*M), R.Ptx);
  EXPECT_EQ(Diags.numErrors(), 0u);
}

TEST(Instrument, ManifestTravelsInTheModule) {
  InstrumentResult R = instrument(Module);
  auto Units = findUnits(R.Ptx);
  ASSERT_EQ(Units.size(), 1u);
  ASSERT_TRUE(Units[0].Manifest) << Units[0].Error;
  EXPECT_EQ(*Units[0].Manifest, R.Manifest);
}

TEST(Instrument, UnitIdsDependOnTheSalt) {
  DiagnosticEngine Diags;
  InstrumentOptions A, B;
  A.Salt = "/tmp/a.cubin|sm_90";
  B.Salt = "/tmp/b.cubin|sm_90";
  auto RA = instrumentPtx(file("t.ptx", Module), A, Diags);
  auto RB = instrumentPtx(file("t.ptx", Module), B, Diags);
  auto RA2 = instrumentPtx(file("t.ptx", Module), A, Diags);
  EXPECT_NE(RA.Manifest.Id, RB.Manifest.Id);
  EXPECT_EQ(RA.Manifest.Id, RA2.Manifest.Id);
}

TEST(Instrument, Errors) {
  DiagnosticEngine Diags;
  InstrumentOptions Opts;
  Opts.Passes = {"nosuchpass"};
  auto R = instrumentPtx(file("t.ptx", Module), Opts, Diags);
  EXPECT_EQ(R.Status, InstrumentStatus::Error);
  ASSERT_EQ(Diags.numErrors(), 1u);
  EXPECT_NE(Diags.diagnostics()[0].Message.find("unknown pass 'nosuchpass'"),
            std::string::npos);
  DiagnosticEngine D2;
  auto Bad = instrumentPtx(file("bad.ptx", ".version 8.0\n.target sm_90\n"
                                           ".entry k( {\n"),
                           InstrumentOptions(), D2);
  EXPECT_EQ(Bad.Status, InstrumentStatus::Error);
  EXPECT_TRUE(D2.hasErrors());
}

//===-- ptxas -------------------------------------------------------------===//

using ptxastest::assemble;

TEST(Instrument, ReassemblesWithoutAStackFrame) {
  if (std::string(INCANT_PTXAS).empty())
    GTEST_SKIP() << "ptxas not found";
  InstrumentResult R = instrument(Module);
  std::string Log;
  auto Frames = assemble(R.Ptx, "sm_90", false, "small", Log);
  ASSERT_TRUE(Frames) << Log;
  EXPECT_EQ(Frames->size(), 4u) << Log;
  for (const auto &[Fn, Bytes] : *Frames)
    EXPECT_EQ(Bytes, 0u) << Fn;
}

#ifdef INCANT_PTX_CORPUS_DIR
TEST(Instrument, EveryCorpusModule) {
  if (std::string(INCANT_PTXAS).empty())
    GTEST_SKIP() << "ptxas not found";
  std::vector<std::filesystem::path> Files = ptxastest::corpusFiles();
  ASSERT_FALSE(Files.empty());
  for (const auto &Path : Files) {
    SCOPED_TRACE(Path.string());
    std::string Error;
    auto F = SourceFile::read(Path.string(), Error);
    ASSERT_TRUE(F) << Error;
    DiagnosticEngine Diags;
    InstrumentResult R = instrumentPtx(F, InstrumentOptions(), Diags);
    ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
    auto Units = findUnits(R.Ptx);
    ASSERT_EQ(Units.size(), 1u);
    ASSERT_TRUE(Units[0].Manifest);
    std::string Arch = R.Manifest.Target.empty() ? "sm_90" : R.Manifest.Target;
    // Modules with external declarations need -c (as nvcc -rdc does).
    bool Reloc = F->text().find(".extern .func") != std::string::npos;
    std::string Stem = Path.stem().string(), Log;
    auto Before = assemble(F->text(), Arch, Reloc, Stem + "-orig", Log);
    ASSERT_TRUE(Before) << Log;
    auto After = assemble(R.Ptx, Arch, Reloc, Stem + "-instr", Log);
    ASSERT_TRUE(After) << Log;
    for (const auto &[Fn, Bytes] : *After) {
      auto It = Before->find(Fn);
      unsigned Orig = It == Before->end() ? 0 : It->second;
      EXPECT_LE(Bytes, Orig) << Fn << ": the rewrite added a stack frame";
    }
  }
}
#endif

} // namespace
