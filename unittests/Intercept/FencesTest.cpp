//===- FencesTest.cpp - Switchable fences (pass "fences") -----------------===//
//
// The pass on a small module (sites, guards of every kind, the mask, the
// orderings the module had, calls), before sm_70, fixFences (the
// unconditional builds), the embedded PTX found in a fatbinary, the
// injected library's INCANT_FENCES, and every module of the PTX corpus
// with the pass, then fixed with every fence on, reassembled by ptxas.
//
//===----------------------------------------------------------------------===//
#include "incant/Intercept/Fences.h"
#include "incant/Intercept/ImageScan.h"
#include "incant/Intercept/Instrument.h"
#include "Ptxas.h"
#include "runtime/inject_config.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace incant;
using namespace incant::intercept;

namespace {

const char *const Module = R"ptx(.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 func_retval0) _Z4loadPj(
	.param .b64 _Z4loadPj_param_0
)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [_Z4loadPj_param_0];
	ld.u32 %r1, [%rd1];
	st.param.b32 [func_retval0], %r1;
	ret;
}

.visible .entry _Z1kPjS_(
	.param .u64 _Z1kPjS__param_0,
	.param .u64 _Z1kPjS__param_1
)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<5>;
	.shared .align 4 .b8 buf[16];
	ld.param.u64 %rd1, [_Z1kPjS__param_0];
	ld.param.u64 %rd2, [_Z1kPjS__param_1];
	cvta.to.global.u64 %rd3, %rd1;
	ld.global.u32 %r1, [%rd3];
	st.shared.u32 [buf], %r1;
	ld.global.nc.u32 %r2, [%rd3+4];
	membar.gl;
	st.global.u32 [%rd3+8], %r2;
	atom.acquire.gpu.global.cas.b32 %r3, [%rd3+12], 0, 1;
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), _Z4loadPj, (param0);
	ld.param.b32 %r4, [retval0];
	}
	st.release.gpu.u32 [%rd2], %r4;
	ret;
}
)ptx";

InstrumentResult instrument(const std::string &Text,
                            std::vector<std::string> Passes = {"randomise",
                                                                "fences"}) {
  auto F = std::make_shared<SourceFile>("m.ptx", Text);
  DiagnosticEngine Diags;
  InstrumentOptions O;
  O.Passes = std::move(Passes);
  InstrumentResult R = instrumentPtx(F, O, Diags);
  EXPECT_FALSE(Diags.hasErrors());
  return R;
}

size_t count(const std::string &S, const std::string &What) {
  size_t N = 0;
  for (size_t At = S.find(What); At != std::string::npos;
       At = S.find(What, At + 1))
    ++N;
  return N;
}

TEST(Fences, SiteAfterEveryGlobalOrGenericAccess) {
  InstrumentResult R = instrument(Module);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  std::vector<std::string> Kinds;
  for (const Site &S : R.Manifest.Sites)
    if (S.Pass == "fences")
      Kinds.push_back(S.Function + " " + S.Kind);
  // Not ld.param, st.shared, ld.global.nc, st.param.
  EXPECT_EQ(Kinds, (std::vector<std::string>{
                       "_Z4loadPj after ld.u32",
                       "_Z1kPjS_ after ld.global.u32",
                       "_Z1kPjS_ after st.global.u32",
                       "_Z1kPjS_ after atom.acquire.gpu.global.cas.b32",
                       "_Z1kPjS_ after st.release.gpu.u32"}));
  // Each site has one guarded fence of each kind.
  EXPECT_EQ(count(R.Ptx, "fence.sc.gpu;"), 5u);
  EXPECT_EQ(count(R.Ptx, "fence.acq_rel.gpu;"), 5u);
  EXPECT_EQ(count(R.Ptx, "fence.sc.cta;"), 5u);
  EXPECT_EQ(count(R.Ptx, "fence.acq_rel.cta;"), 5u);
  std::string Mask = fenceMaskName(R.Manifest.Id);
  // Sites are numbered with the randomise pass's (none here): ids 0..4,
  // one word per kind.
  EXPECT_NE(R.Ptx.find(".const .align 4 .b32 " + Mask + "[4];"),
            std::string::npos)
      << R.Ptx;
  EXPECT_NE(R.Ptx.find("[" + Mask + "+12]"), std::string::npos);
  // The calls the manifest records.
  for (const FunctionRecord &F : R.Manifest.Functions) {
    if (F.Name == "_Z1kPjS_") {
      EXPECT_EQ(F.Calls, std::vector<std::string>{"_Z4loadPj"});
    }
  }
}

TEST(Fences, RecordsTheOrderingsTheModuleHad) {
  InstrumentResult R = instrument(Module);
  std::vector<std::string> Orders;
  for (const ExistingOrder &O : R.Manifest.Orders)
    Orders.push_back(O.Kind + " @" + std::to_string(O.PtxLine));
  EXPECT_EQ(Orders, (std::vector<std::string>{
                        "membar.gl @31",
                        "atom.acquire.gpu.global.cas.b32 (acquire) @33",
                        "st.release.gpu.u32 (release) @41"}));
}

TEST(Fences, BeforeSm70OnlyMembars) {
  std::string Old = Module;
  Old.replace(Old.find("sm_90"), 5, "sm_60");
  Old.replace(Old.find("atom.acquire.gpu"), 16, "atom");
  Old.replace(Old.find("st.release.gpu"), 14, "st");
  InstrumentResult R = instrument(Old);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  EXPECT_EQ(count(R.Ptx, "membar.gl;"), 5u + 1u); // and the module's own
  EXPECT_EQ(count(R.Ptx, "membar.cta;"), 5u);
  EXPECT_EQ(count(R.Ptx, "fence."), 0u);
}

TEST(Fences, NoAccessNoMask) {
  const char *NoAccess = R"ptx(.version 8.0
.target sm_90
.address_size 64
.visible .entry e()
{
	ret;
}
)ptx";
  InstrumentResult R = instrument(NoAccess);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  EXPECT_EQ(R.Ptx.find("__incant_fmask_"), std::string::npos);
  ASSERT_EQ(R.Manifest.Notes.size(), 1u);
}

std::optional<ptx::Module> parse(const std::string &Text,
                                 DiagnosticEngine &Diags) {
  return ptx::parseModule(std::make_shared<SourceFile>("i.ptx", Text), Diags);
}

TEST(Fences, FixKeepsTheChosenFencesUnconditional) {
  InstrumentResult R = instrument(Module);
  DiagnosticEngine Diags;
  auto M = parse(R.Ptx, Diags);
  ASSERT_TRUE(M);
  // Site 2 (the st.global) as sc.gpu, site 3 as acq_rel.cta; the rest go.
  ASSERT_TRUE(fixFences(*M, R.Manifest.Id, {{2, 0}, {3, 3}}, Diags));
  std::string Fixed = ptx::printModule(*M);
  EXPECT_EQ(count(Fixed, "fence.sc.gpu;"), 1u);
  EXPECT_EQ(count(Fixed, "fence.acq_rel.cta;"), 1u);
  EXPECT_EQ(count(Fixed, "fence."), 2u);
  EXPECT_EQ(count(Fixed, "@%incant_fp"), 0u);
  EXPECT_EQ(count(Fixed, "[" + fenceMaskName(R.Manifest.Id)), 0u);
  // The kept fence follows its access.
  size_t St = Fixed.find("st.global.u32");
  ASSERT_NE(St, std::string::npos);
  EXPECT_EQ(Fixed.find("fence.sc.gpu;"), Fixed.find('\n', St) + 2);
  EXPECT_EQ(ir::validate(*M, Diags), 0u);
  // Nothing kept: the module as it was before the pass, guards aside.
  auto N = parse(R.Ptx, Diags);
  ASSERT_TRUE(fixFences(*N, R.Manifest.Id, {}, Diags));
  EXPECT_EQ(count(ptx::printModule(*N), "fence."), 0u);
}

TEST(Fences, FixRefusesWhatThePassDidNotWrite) {
  DiagnosticEngine Diags;
  InstrumentResult Plain = instrument(Module, {"randomise"});
  auto M = parse(Plain.Ptx, Diags);
  ASSERT_TRUE(M);
  EXPECT_FALSE(fixFences(*M, Plain.Manifest.Id, {}, Diags));
  EXPECT_TRUE(Diags.hasErrors());
  // A guard whose bit is not one bit.
  InstrumentResult R = instrument(Module);
  std::string Bad = R.Ptx;
  size_t And = Bad.find("and.b32 %incant_fm0, %incant_fm0, 2;");
  ASSERT_NE(And, std::string::npos);
  Bad.replace(And, 37, "and.b32 %incant_fm0, %incant_fm0, 3;");
  DiagnosticEngine D2;
  auto B = parse(Bad, D2);
  ASSERT_TRUE(B);
  EXPECT_FALSE(fixFences(*B, R.Manifest.Id, {}, D2));
  EXPECT_TRUE(D2.hasErrors());
}

TEST(Fences, KindNames) {
  EXPECT_EQ(fenceKindIndex("sc.gpu"), 0u);
  EXPECT_EQ(fenceKindIndex("fence.acq_rel.gpu"), 1u);
  EXPECT_EQ(fenceKindIndex("membar.cta"), 2u);
  EXPECT_EQ(fenceKindIndex("acq_rel.cta"), 3u);
  EXPECT_FALSE(fenceKindIndex("sc.sys"));
  EXPECT_EQ(fenceKindCuda(0), "__threadfence();");
}

/// A fatbinary with one ELF entry and one PTX entry holding \p Ptx.
std::string fatbinary(const std::string &Ptx) {
  auto Put = [](std::string &S, uint64_t V, int Bytes) {
    for (int I = 0; I < Bytes; ++I)
      S += char((V >> (8 * I)) & 0xff);
  };
  std::string Entries;
  std::string Elf = "\x7f" "ELF....";
  Put(Entries, 2, 2), Put(Entries, 0x101, 2), Put(Entries, 64, 4);
  Put(Entries, Elf.size(), 8), Entries += std::string(48, '\0'), Entries += Elf;
  std::string Payload = Ptx + std::string(8, '\0');
  Put(Entries, 1, 2), Put(Entries, 0x101, 2), Put(Entries, 64, 4);
  Put(Entries, Payload.size(), 8), Entries += std::string(48, '\0');
  Entries += Payload;
  std::string F = "junk";
  Put(F, 0xBA55ED50u, 4), Put(F, 1, 2), Put(F, 16, 2), Put(F, Entries.size(), 8);
  return F + Entries + "more junk";
}

TEST(Fences, FindsTheUnitsPtxInAFatbinary) {
  InstrumentResult R = instrument(Module);
  std::string Bin = fatbinary(R.Ptx);
  EXPECT_EQ(findUnitPtx(Bin, R.Manifest.Id), R.Ptx);
  EXPECT_EQ(findUnitPtx(Bin, "0123456789abcdef"), "");
  // A truncated fatbinary is not read past its end.
  EXPECT_EQ(findUnitPtx(Bin.substr(0, 60), R.Manifest.Id), "");
}

TEST(Fences, LibraryFenceVariable) {
  using namespace incant_inject;
  std::vector<FenceEntry> E;
  std::string Error;
  ASSERT_TRUE(parseFences("0123456789abcdef:1,3-4/acq_rel.cta;*:all/sc.cta",
                          E, Error))
      << Error;
  ASSERT_EQ(E.size(), 2u);
  std::vector<uint32_t> Mask(4 * 2, 0);
  addFenceBits(E[0], 2, Mask);
  EXPECT_EQ(Mask[0], 0x2u);                 // sc.gpu: site 1
  EXPECT_EQ(Mask[3 * 2], 0x18u);            // acq_rel.cta: sites 3, 4
  addFenceBits(E[1], 2, Mask);
  EXPECT_EQ(Mask[2 * 2], 0xffffffffu);      // sc.cta: every site
  EXPECT_EQ(Mask[2 * 2 + 1], 0xffffffffu);
  for (const char *Bad : {"0123:1", "*:x", "*:3-1", "*:1/sc.sys", "*"}) {
    std::vector<FenceEntry> B;
    EXPECT_FALSE(parseFences(Bad, B, Error)) << Bad;
  }
}

//===-- ptxas -------------------------------------------------------------===//

bool assembles(const std::string &Ptx, const std::string &Arch, bool Reloc,
               const std::string &Name, std::string &Log) {
  return ptxastest::assemble(Ptx, Arch, Reloc, Name, Log).has_value();
}

TEST(Fences, SmallModuleReassembles) {
  if (std::string(INCANT_PTXAS).empty())
    GTEST_SKIP() << "ptxas not found";
  InstrumentResult R = instrument(Module);
  std::string Log;
  EXPECT_TRUE(assembles(R.Ptx, "sm_90", false, "fences-small", Log)) << Log;
}

#ifdef INCANT_PTX_CORPUS_DIR
TEST(Fences, EveryCorpusModuleWithFencesAndFixed) {
  if (std::string(INCANT_PTXAS).empty())
    GTEST_SKIP() << "ptxas not found";
  std::vector<std::filesystem::path> Files = ptxastest::corpusFiles();
  ASSERT_FALSE(Files.empty());
  unsigned Sites = 0;
  for (const auto &Path : Files) {
    SCOPED_TRACE(Path.string());
    std::string Error;
    auto F = SourceFile::read(Path.string(), Error);
    ASSERT_TRUE(F) << Error;
    InstrumentResult R = instrument(F->text());
    ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
    std::string Arch = R.Manifest.Target.empty() ? "sm_90" : R.Manifest.Target;
    bool Reloc = F->text().find(".extern .func") != std::string::npos;
    std::string Stem = Path.stem().string(), Log;
    ASSERT_TRUE(assembles(R.Ptx, Arch, Reloc, Stem + "-fences", Log)) << Log;
    // The conservative build: every fence unconditional.
    std::map<uint32_t, unsigned> All;
    for (const Site &S : R.Manifest.Sites)
      if (S.Pass == "fences")
        All[S.Id] = 0;
    Sites += unsigned(All.size());
    if (All.empty())
      continue;
    DiagnosticEngine Diags;
    auto M = parse(R.Ptx, Diags);
    ASSERT_TRUE(M);
    ASSERT_TRUE(fixFences(*M, R.Manifest.Id, All, Diags));
    ASSERT_TRUE(assembles(ptx::printModule(*M), Arch, Reloc, Stem + "-cons",
                          Log))
        << Log;
  }
  EXPECT_GT(Sites, 100u);
}
#endif

} // namespace
