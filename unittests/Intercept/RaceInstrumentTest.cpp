//===- RaceInstrumentTest.cpp - Pass "race" ------------------------------===//
//
// What the pass adds (the hooks, a call before each access with the right
// info word, a call after each barrier and before each fence), the sites
// and static verdicts in the manifest, pruning, errors, and every module of
// the PTX corpus instrumented and assembled by ptxas.
//
//===----------------------------------------------------------------------===//
#include "incant/Intercept/ImageScan.h"
#include "incant/Intercept/Instrument.h"
#include "Ptxas.h"
#include "runtime/incant_race.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

extern "C" const char incant_race_hooks_ptx[];

namespace {

using namespace incant;
using namespace incant::intercept;

const char *Module = R"(.version 8.5
.target sm_90
.address_size 64
.file 1 "/src/k.cu"
.visible .shared .align 4 .b8 tile[256];
.visible .entry _Z1kPiS_(
  .param .u64 _Z1kPiS__param_0,
  .param .u64 _Z1kPiS__param_1
)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .loc 1 3 0
  ld.param.u64 %rd1, [_Z1kPiS__param_0];
  ld.param.u64 %rd2, [_Z1kPiS__param_1];
  cvta.to.global.u64 %rd3, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  .loc 1 4 3
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
  .loc 1 5 3
  shl.b32 %r6, %r1, 2;
  st.shared.u32 [tile+4], %r2;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 atom.global.add.u32 %r7, [%rd5+8], 1;
  st.relaxed.gpu.global.u32 [%rd5], %r3;
  st.volatile.global.u32 [%rd5], %r4;
  ld.param.u64 %rd6, [_Z1kPiS__param_1];
  ld.u8 %r4, [%rd6];
  membar.gl;
  bar.warp.sync -1;
  red.release.gpu.global.add.u32 [%rd5], 1;
  ret;
}
)";

InstrumentResult instrument(const std::string &Text,
                            std::vector<std::string> Passes = {"race"},
                            InstrumentOptions O = {}) {
  DiagnosticEngine Diags;
  O.Passes = std::move(Passes);
  InstrumentResult R = instrumentPtx(
      std::make_shared<SourceFile>("k.ptx", Text), O, Diags);
  for (const Diagnostic &D : Diags.diagnostics())
    ADD_FAILURE() << D.Message;
  return R;
}

/// The info words of the access calls, in order.
std::vector<uint32_t> infoWords(const std::string &Ptx) {
  std::vector<uint32_t> V;
  std::regex Re(R"(st\.param\.b32 \[incant_race_p1\], (\d+);)");
  for (std::sregex_iterator It(Ptx.begin(), Ptx.end(), Re), End; It != End; ++It)
    V.push_back(static_cast<uint32_t>(std::stoul((*It)[1])));
  return V;
}

uint32_t info(uint32_t Flags, unsigned Log2Bytes, uint32_t Space,
              uint32_t Scope = 0) {
  return Flags | Log2Bytes << INCANT_RACE_SIZE_SHIFT |
         Space << INCANT_RACE_SPACE_SHIFT | Scope << INCANT_RACE_SCOPE_SHIFT;
}

TEST(RacePass, InstrumentsAccessesBarriersAndFences) {
  if (!incant_race_hooks_ptx[0])
    GTEST_SKIP() << "incant was built without nvcc";
  InstrumentResult R = instrument(Module);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  const std::string Id = R.Manifest.Id;
  EXPECT_NE(R.Ptx.find(".visible .global .align 8 .b8 __incant_race_" + Id),
            std::string::npos);
  EXPECT_NE(R.Ptx.find(".func __incant_race_access_" + Id), std::string::npos);
  EXPECT_NE(R.Ptx.find(".func __incant_race_sync_" + Id), std::string::npos);
  EXPECT_EQ(R.Ptx.find("incant_race_unit"), std::string::npos);

  // Sites: the accesses and synchronisation in order (ld.param is not
  // one); each access's info word carries its site id.
  std::vector<std::string> Kinds;
  for (const Site &S : R.Manifest.Sites)
    Kinds.push_back(S.Kind);
  EXPECT_EQ(Kinds, (std::vector<std::string>{
                       "read global", "write shared", "barrier",
                       "atomic global", "write global", "write global",
                       "read generic", "fence", "warp barrier",
                       "atomic global"}));
  using namespace std::string_literals;
  std::vector<uint32_t> Want = {
      info(INCANT_RACE_READ, 4, INCANT_RACE_SPACE_GLOBAL) | 0,
      info(INCANT_RACE_WRITE, 2, INCANT_RACE_SPACE_SHARED) | 1,
      info(INCANT_RACE_READ | INCANT_RACE_WRITE | INCANT_RACE_ATOMIC, 2,
           INCANT_RACE_SPACE_GLOBAL, INCANT_RACE_SCOPE_GPU) |
          3,
      info(INCANT_RACE_WRITE, 2, INCANT_RACE_SPACE_GLOBAL,
           INCANT_RACE_SCOPE_GPU) |
          4,
      info(INCANT_RACE_WRITE, 2, INCANT_RACE_SPACE_GLOBAL) | 5, // volatile
      info(INCANT_RACE_READ, 0, INCANT_RACE_SPACE_GENERIC) | 6,
      info(INCANT_RACE_WRITE | INCANT_RACE_ATOMIC, 2, INCANT_RACE_SPACE_GLOBAL,
           INCANT_RACE_SCOPE_GPU) |
          INCANT_RACE_RELEASE | 9};
  EXPECT_EQ(infoWords(R.Ptx), Want);
  // The guarded atomic's call has its guard; sync kinds follow.
  EXPECT_NE(R.Ptx.find("@%p1 call __incant_race_access_" + Id),
            std::string::npos);
  // In the kernel (the hooks copied from the runtime come before it).
  size_t Kernel = R.Ptx.find(".entry _Z1kPiS_");
  ASSERT_NE(Kernel, std::string::npos);
  auto At = [&](const std::string &Text) { return R.Ptx.find(Text, Kernel); };
  size_t FenceCall = At("st.param.b32 [incant_race_p0], 3;");
  size_t WarpCall = At("st.param.b32 [incant_race_p0], 1;");
  EXPECT_NE(FenceCall, std::string::npos) << "membar.gl is a GPU fence";
  EXPECT_NE(WarpCall, std::string::npos) << "bar.warp.sync";
  // Barriers are counted once passed; a fence's release is counted before
  // it, so that the fence orders the count before the thread's later
  // stores (a reader that sees a fenced flag sees the count).
  EXPECT_LT(FenceCall, At("membar.gl;"));
  EXPECT_GT(WarpCall, At("bar.warp.sync -1;"));
  EXPECT_NE(At("st.param.b32 [incant_race_p0], 0;"), std::string::npos);
  EXPECT_GT(At("st.param.b32 [incant_race_p0], 0;"), At("bar.sync 0;"));

  // Every call is the body of a loop whose branch polls the unit's word
  // (never taken; it puts the hook's yield in the caller for ptxas).
  unsigned Calls = 0;
  for (size_t P = At("call __incant_race_"); P != std::string::npos;
       P = R.Ptx.find("call __incant_race_", P + 1), ++Calls) {
    size_t Line = R.Ptx.rfind('\n', R.Ptx.rfind('\n', P) - 1) + 1;
    std::string Label = R.Ptx.substr(Line, R.Ptx.find(':', Line) - Line);
    EXPECT_EQ(Label.rfind("$incant_race_call_", 0), 0u) << Label;
    size_t Poll = R.Ptx.find(
        "ld.relaxed.cta.global.u32 %incant_race_w, [__incant_race_" + Id + "];",
        P);
    size_t Back = R.Ptx.find("@%incant_race_q bra " + Label + ";", P);
    EXPECT_LT(Poll, Back);
    EXPECT_LT(Back, R.Ptx.find('}', P));
  }
  EXPECT_EQ(Calls, R.Manifest.Sites.size());

  // What the manifest says about each access: text, variable, line.
  const Site &Ld = R.Manifest.Sites[0];
  EXPECT_EQ(Ld.Text, "ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5]");
  EXPECT_EQ(Ld.Object, "_Z1kPiS__param_0");
  EXPECT_EQ(Ld.File, "/src/k.cu");
  EXPECT_EQ(Ld.Line, 4u);
  EXPECT_EQ(R.Manifest.Sites[1].Object, "tile");
  EXPECT_EQ(R.Manifest.Sites[6].Object, "_Z1kPiS__param_1");
  EXPECT_EQ(Ld.Static, ""); // no static checker asked
}

// Synchronisation objects and asynchronous copies of sm_90: named
// barriers with a count, mbarriers, cp.async with its groups and on an
// mbarrier, a bulk copy on an mbarrier's transactions, distributed shared
// memory and the cluster barrier; what the checker does not follow (a
// tensor copy) is a note.
const char *Hopper = R"(.version 8.5
.target sm_90
.address_size 64
.visible .shared .align 128 .b8 stage[2048];
.visible .shared .align 8 .b64 full;
.visible .entry _Z1hPj(
  .param .u64 _Z1hPj_param_0
)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [_Z1hPj_param_0];
  mov.u32 %r1, stage;
  mov.u32 %r2, full;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  bar.sync 0;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 1024;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 1024, [%r2];
  mov.u32 %r3, 0;
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], %r3;
  ld.shared.u32 %r4, [%r1];
  cp.async.ca.shared.global [%r1+1024], [%rd1], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r2];
  bar.arrive 1, 256;
  bar.sync 2, 256;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mapa.shared::cluster.u32 %r5, %r1, 1;
  ld.shared::cluster.u32 %r6, [%r5];
  cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r3}], [%r2];
  ret;
}
)";

TEST(RacePass, InstrumentsObjectsAndCopies) {
  if (!incant_race_hooks_ptx[0])
    GTEST_SKIP() << "incant was built without nvcc";
  InstrumentResult R = instrument(Hopper);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  const std::string Id = R.Manifest.Id;
  EXPECT_NE(R.Ptx.find(".func __incant_race_obj_" + Id), std::string::npos);
  EXPECT_NE(R.Ptx.find(".func __incant_race_copy_" + Id), std::string::npos);
  std::vector<std::string> Kinds;
  for (const Site &S : R.Manifest.Sites)
    Kinds.push_back(S.Kind);
  EXPECT_EQ(Kinds, (std::vector<std::string>{
                       "barrier mbarrier init", "barrier",
                       "barrier mbarrier arrive", "async copy to shared",
                       "barrier mbarrier wait", "read shared",
                       "async copy to shared", "barrier cp.async.commit_group",
                       "barrier cp.async.wait_group",
                       "barrier cp.async.mbarrier.arrive",
                       "barrier named arrive", "barrier named arrive",
                       "barrier named wait", "barrier cluster arrive",
                       "barrier cluster wait", "read shared::cluster"}));
  size_t Kernel = R.Ptx.find(".entry _Z1hPj");
  ASSERT_NE(Kernel, std::string::npos);
  auto At = [&](const std::string &Text) { return R.Ptx.find(Text, Kernel); };
  // The wait's call runs only where it succeeded.
  EXPECT_NE(At("@%p1 call __incant_race_obj_" + Id), std::string::npos);
  // Its parity and "has parity" go in the third argument.
  EXPECT_NE(At("or.b32 "), std::string::npos);
  // bar.arrive's call comes before it, bar.sync's wait after it.
  EXPECT_LT(At("st.param.b32 [incant_race_p0], " +
               std::to_string(INCANT_RACE_OBJ_BAR_ARRIVE) + ";"),
            At("bar.arrive 1, 256;"));
  EXPECT_GT(At("st.param.b32 [incant_race_p0], " +
               std::to_string(INCANT_RACE_OBJ_BAR_WAIT) + ";"),
            At("bar.sync 2, 256;"));
  EXPECT_GT(At("st.param.b32 [incant_race_p0], " +
               std::to_string(INCANT_RACE_OBJ_CLUSTER_WAIT) + ";"),
            At("barrier.cluster.wait;"));
  // The bulk copy's info word: its site, the destination's space, the
  // mbarrier completion; its size is the fourth argument.
  uint32_t Bulk = 3 | INCANT_RACE_SPACE_CLUSTER << INCANT_RACE_SPACE_SHIFT |
                  INCANT_RACE_COPY_MBAR;
  EXPECT_NE(At("st.param.b32 [incant_race_p4], " + std::to_string(Bulk) + ";"),
            std::string::npos);
  EXPECT_NE(At("st.param.b32 [incant_race_p3], 1024;"), std::string::npos);
  bool Noted = false;
  for (const std::string &N : R.Manifest.Notes)
    Noted |= N.rfind("race: not checked: cp.async.bulk.tensor", 0) == 0;
  EXPECT_TRUE(Noted) << "the tensor copy is named in a note";
  if (*INCANT_PTXAS) {
    std::string Log;
    EXPECT_TRUE(ptxastest::assemble(R.Ptx, "sm_90", false, "race-hopper", Log))
        << Log;
  }
}

// A module with neither objects nor copies gets neither hook.
TEST(RacePass, AddsObjectAndCopyHooksOnlyWhereUsed) {
  if (!incant_race_hooks_ptx[0])
    GTEST_SKIP() << "incant was built without nvcc";
  InstrumentResult R = instrument(Module);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  EXPECT_EQ(R.Ptx.find("__incant_race_obj_"), std::string::npos);
  EXPECT_EQ(R.Ptx.find("__incant_race_copy_"), std::string::npos);
}

// Why each call is in a loop: the hooks start with a YIELD (they read
// memory other threads write), which lets waiting lanes past their
// convergence point; ptxas allows for a yield it sees, so the caller must
// show one. Relies on the undocumented opcode of YIELD (Ptxas.h).
TEST(RacePass, PtxasSeesTheHooksYieldInTheCaller) {
  if (!incant_race_hooks_ptx[0] || !*INCANT_PTXAS)
    GTEST_SKIP() << "incant was built without nvcc, or ptxas is missing";
  InstrumentResult R = instrument(Module);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  auto Yields = [&](const std::string &Ptx, const std::string &Name) {
    std::string Log;
    EXPECT_TRUE(ptxastest::assemble(Ptx, "sm_90", false, Name, Log)) << Log;
    return ptxastest::yieldsIn(std::string(INCANT_TEST_WORK_DIR) + "/" + Name +
                                   ".ptx.cubin",
                               "_Z1kPiS_");
  };
  std::optional<unsigned> With = Yields(R.Ptx, "race-yield");
  // The same module without the loops' branches: the plain calls.
  std::string Plain = std::regex_replace(
      R.Ptx, std::regex(R"(@%incant_race_q bra \$incant_race_call_\d+;)"), "");
  std::optional<unsigned> Without = Yields(Plain, "race-noyield");
  ASSERT_TRUE(With && Without);
  EXPECT_EQ(*Without, 0u) << "the kernel has no loop of its own";
  EXPECT_GE(*With, 1u);
}

TEST(RacePass, PrunesWhatTheStaticCheckerProves) {
  if (!incant_race_hooks_ptx[0])
    GTEST_SKIP() << "incant was built without nvcc";
  InstrumentOptions O;
  O.StaticRaces = [](const ptx::Module &M, std::string &) {
    // Every access but the shared store is proved safe; the store races.
    RaceVerdicts V;
    for (const ptx::ModuleItem &I : M.Items)
      if (const auto *F = std::get_if<ptx::Function>(&I))
        for (const ptx::BodyItem &B : F->Body)
          if (const auto *X = std::get_if<ptx::Instruction>(&B))
            V[X->Range.Begin.Offset] = X->ASpace == ptx::AddrSpace::Shared
                                           ? StaticVerdict::Race
                                           : StaticVerdict::Safe;
    return std::optional<RaceVerdicts>(V);
  };
  InstrumentResult R = instrument(Module, {"race"}, O);
  ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
  std::vector<uint32_t> Words = infoWords(R.Ptx);
  ASSERT_EQ(Words.size(), 1u);
  EXPECT_EQ(Words[0] & INCANT_RACE_SITE_MASK, 1u);
  EXPECT_EQ(R.Manifest.Sites[1].Static, "race");
  EXPECT_EQ(R.Manifest.Sites[0].Static, "safe");
  EXPECT_NE(R.Manifest.Sites[0].Kind.find("not instrumented"),
            std::string::npos);
  // No verdicts at all: everything instrumented, and the manifest says why.
  O.StaticRaces = [](const ptx::Module &, std::string &Why) {
    Why = "no solver";
    return std::optional<RaceVerdicts>();
  };
  R = instrument(Module, {"race"}, O);
  EXPECT_EQ(infoWords(R.Ptx).size(), 7u);
  ASSERT_FALSE(R.Manifest.Notes.empty());
  EXPECT_NE(R.Manifest.Notes[0].find("no solver"), std::string::npos);
}

TEST(RacePass, NeedsVoltaOrLater) {
  std::string Old = Module;
  Old.replace(Old.find("sm_90"), 5, "sm_60");
  DiagnosticEngine Diags;
  InstrumentOptions O;
  O.Passes = {"race"};
  InstrumentResult R =
      instrumentPtx(std::make_shared<SourceFile>("k.ptx", Old), O, Diags);
  EXPECT_EQ(R.Status, InstrumentStatus::Error);
  ASSERT_TRUE(Diags.hasErrors());
  EXPECT_NE(Diags.diagnostics()[0].Message.find("sm_70"), std::string::npos);
}

#ifdef INCANT_PTX_CORPUS_DIR
TEST(RacePass, EveryCorpusModuleAssembles) {
  if (std::string(INCANT_PTXAS).empty() || !incant_race_hooks_ptx[0])
    GTEST_SKIP() << "ptxas or nvcc not found";
  std::vector<std::filesystem::path> Files = ptxastest::corpusFiles();
  ASSERT_FALSE(Files.empty());
  for (const auto &Path : Files) {
    SCOPED_TRACE(Path.string());
    // Known limit (docs/race.md, "Dynamic: limits"): CUB's onesweep radix
    // sort kernel (384 threads, its keys in registers) leaves ptxas no
    // registers for the hooks' calls ("Register allocation failed").
    if (Path.stem() == "cub_sort")
      continue;
    std::string Error;
    auto F = SourceFile::read(Path.string(), Error);
    ASSERT_TRUE(F) << Error;
    InstrumentResult R = instrument(F->text(), {"randomise", "race"});
    ASSERT_EQ(R.Status, InstrumentStatus::Rewritten);
    unsigned Sites = 0;
    for (const Site &S : R.Manifest.Sites)
      Sites += S.Pass == "race";
    auto Units = findUnits(R.Ptx);
    ASSERT_EQ(Units.size(), 1u);
    std::string Arch = R.Manifest.Target.empty() ? "sm_90" : R.Manifest.Target;
    std::string Log;
    EXPECT_TRUE(ptxastest::assemble(
        R.Ptx, Arch, F->text().find(".extern .func") != std::string::npos,
        "race-" + Path.stem().string(), Log))
        << Log;
    EXPECT_GT(Sites, 0u);
  }
}
#endif

} // namespace
