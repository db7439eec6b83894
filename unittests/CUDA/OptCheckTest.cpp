//===- OptCheckTest.cpp - SASS checks on listings taken on an H100 --------===//
//
// Inputs/*.sass: `cuobjdump -sass` of the harness for MP, for SB with
// fence.sc.gpu and for litmus/bar/MP+bar.sync+warp-shared, compiled by
// NVRTC 13.0 for sm_90 on the H100 (encodings dropped). See docs/cuda.md.
//
//===----------------------------------------------------------------------===//
#include "CudaTestSupport.h"
#include "incant/Testing/Programs.h"
#include "incant/CUDA/Codegen.h"
#include "incant/CUDA/OptCheck.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace incant;

namespace {

using cudatest::input;

std::vector<std::vector<std::string>> expected(const litmus::Program &P) {
  DiagnosticEngine Diags;
  auto G = cuda::generateCuda(P, {}, nullptr, Diags);
  EXPECT_TRUE(G.has_value());
  return G ? G->ExpectedMemOps : std::vector<std::vector<std::string>>{};
}

void replaceFirst(std::string &S, const std::string &From,
                  const std::string &To) {
  size_t P = S.find(From);
  ASSERT_NE(P, std::string::npos);
  S.replace(P, From.size(), To);
}

/// The MP listing with role 1's first load turned into a store ("" if the
/// listing is not as expected).
std::string mpWithRole1LoadAsStore() {
  std::string S = input("mp-h100.sass");
  size_t M = S.find("PMTRIG 0x102");
  size_t L = M == std::string::npos ? M : S.find("LDG.E.STRONG.GPU", M);
  if (L == std::string::npos)
    return "";
  S.replace(L, 3, "STG");
  return S;
}

} // namespace

TEST(OptCheck, Classes) {
  EXPECT_EQ(cuda::sassClass("LDG.E.STRONG.GPU"), "LD");
  EXPECT_EQ(cuda::sassClass("LDS"), "LD");
  EXPECT_EQ(cuda::sassClass("STG.E.STRONG.SYS"), "ST");
  EXPECT_EQ(cuda::sassClass("ATOMG.E.CAS.STRONG.GPU"), "RMW");
  EXPECT_EQ(cuda::sassClass("REDG.E.ADD.STRONG.GPU"), "RMW");
  EXPECT_EQ(cuda::sassClass("MEMBAR.SC.GPU"), "FENCE");
  EXPECT_EQ(cuda::sassClass("LDC"), "");
  EXPECT_EQ(cuda::sassClass("STL"), "");
  EXPECT_EQ(cuda::sassClass("CCTL.IVALL"), "");
  EXPECT_EQ(cuda::sassClass("ERRBAR"), "");
  EXPECT_EQ(cuda::sassClass("BAR.SYNC.DEFER_BLOCKING"), "BAR");
  EXPECT_EQ(cuda::sassClass("BAR.ARV"), "");
  EXPECT_EQ(cuda::sassClass("WARPSYNC"), "");
}

TEST(OptCheck, RegionNamesAndOkDetail) {
  std::string S1 = mpWithRole1LoadAsStore();
  ASSERT_FALSE(S1.empty());
  auto R = cuda::checkSass(S1, expected(handbuilt::mp()),
                           {"thread 0 part 0", "thread 1 part 0"});
  EXPECT_EQ(R.K, cuda::OptCheckResult::Failed);
  EXPECT_EQ(R.Detail.rfind("thread 1 part 0: expected LD LD", 0), 0u)
      << R.Detail;
  cuda::OptCheckResult Ok;
  Ok.K = cuda::OptCheckResult::Ok;
  Ok.Detail = "ptxas -O0";
  EXPECT_EQ(Ok.line(), "optcheck: ok (ptxas -O0)");
}

TEST(OptCheck, MessagePassingOnH100) {
  std::string Sass = input("mp-h100.sass");
  ASSERT_FALSE(Sass.empty());
  auto R = cuda::checkSass(Sass, expected(handbuilt::mp()));
  EXPECT_EQ(R.K, cuda::OptCheckResult::Ok) << R.line();
  EXPECT_EQ(R.line(), "optcheck: ok");
}

TEST(OptCheck, FencedStoreBufferingOnH100) {
  std::string Sass = input("sb-fence-h100.sass");
  ASSERT_FALSE(Sass.empty());
  using handbuilt::FenceSel;
  auto R = cuda::checkSass(
      Sass, expected(handbuilt::sb(handbuilt::Place::CTA,
                                   FenceSel::FenceScGpu)));
  EXPECT_EQ(R.K, cuda::OptCheckResult::Ok) << R.line();
  // The same listing does not pass for the unfenced test.
  auto R2 = cuda::checkSass(Sass, expected(handbuilt::sb()));
  EXPECT_EQ(R2.K, cuda::OptCheckResult::Failed);
}

TEST(OptCheck, ReorderedOrDroppedAccessFails) {
  std::string Sass = input("mp-h100.sass");
  // Make role 1's first load a store: kinds no longer match.
  std::string S1 = mpWithRole1LoadAsStore();
  ASSERT_FALSE(S1.empty());
  auto R = cuda::checkSass(S1, expected(handbuilt::mp()));
  EXPECT_EQ(R.K, cuda::OptCheckResult::Failed);
  EXPECT_NE(R.Detail.find("thread 1"), std::string::npos) << R.Detail;
  // Drop role 0's second store.
  std::string S2 = Sass;
  size_t M0 = S2.find("PMTRIG 0x100");
  size_t A = S2.find("STG.E.STRONG.GPU", M0);
  size_t B = S2.find("STG.E.STRONG.GPU", A + 1);
  S2.replace(B, 16, "NOP             ");
  EXPECT_EQ(cuda::checkSass(S2, expected(handbuilt::mp())).K,
            cuda::OptCheckResult::Failed);
}

TEST(OptCheck, NoMarkersIsSkipped) {
  std::string Sass = input("mp-h100.sass");
  std::string S = Sass;
  size_t P;
  while ((P = S.find("PMTRIG")) != std::string::npos)
    S.replace(P, 6, "NOP   ");
  auto R = cuda::checkSass(S, expected(handbuilt::mp()));
  EXPECT_EQ(R.K, cuda::OptCheckResult::Skipped);
  EXPECT_EQ(R.line(), "optcheck: skipped (no role markers found in the SASS)");
  // A missing role is a failure, not a skip.
  std::string S3 = Sass;
  replaceFirst(S3, "PMTRIG 0x102", "NOP         ");
  replaceFirst(S3, "PMTRIG 0x103", "NOP         ");
  EXPECT_EQ(cuda::checkSass(S3, expected(handbuilt::mp())).K,
            cuda::OptCheckResult::Failed);
}

TEST(OptCheck, BarSyncPartsOnH100) {
  // The SASS of MP with bar.sync 0 between each thread's accesses, roles in
  // two warps of one CTA, locations in shared memory: five regions (role 0
  // part 0, role 1 part 0, the barrier, role 0 part 1, role 1 part 1).
  std::string Sass = input("mp-bar-sync-h100.sass");
  ASSERT_FALSE(Sass.empty());
  litmus::Program P = handbuilt::mp(handbuilt::Place::Warp,
                                    handbuilt::FenceSel::None, true);
  litmus::Op Bar{};
  Bar.K = litmus::Op::Kind::Barrier;
  for (auto &T : P.Threads)
    T.Ops.insert(T.Ops.begin() + 1, Bar);
  DiagnosticEngine Diags;
  auto G = cuda::generateCuda(P, {}, nullptr, Diags);
  ASSERT_TRUE(G.has_value());
  auto R = cuda::checkSass(Sass, G->ExpectedMemOps, G->RegionNames);
  EXPECT_EQ(R.K, cuda::OptCheckResult::Ok) << R.line();
  // Without the barrier between its markers the check fails and names it.
  std::string S = Sass;
  size_t M = S.find("PMTRIG 0x104");
  ASSERT_NE(M, std::string::npos);
  replaceFirst(S, "BAR.SYNC.DEFER_BLOCKING 0x0 ;\n        /*20b0*/",
               "NOP ;\n        /*20b0*/");
  auto R2 = cuda::checkSass(S, G->ExpectedMemOps, G->RegionNames);
  EXPECT_EQ(R2.K, cuda::OptCheckResult::Failed);
  EXPECT_EQ(R2.Detail.rfind("barrier 0: expected BAR", 0), 0u) << R2.Detail;
}

// The listing's lines as the reader takes them: an instruction is
// "/*ADDRESS*/", blanks, an optional predicate (@P0, @!UPT...) and blanks,
// the opcode, its operands up to ';'; anything else is not one.
TEST(OptCheck, ReadsInstructionLines) {
  std::string Sass = "        /*0000*/                   PMTRIG 256 ;\n"
                     "        /*0010*/              @!UPT STG.E [R2], R3 ;  "
                     "/* 0x0000000302007986 */\n"
                     "                                                    "
                     "/* 0x000fe2000c101904 */\n"
                     "        /*0020*/              @P0 LDG.E R2, [R4] ;\n"
                     "        /*0030*/                   STG.E [R2], R3\n"
                     "        /*0040*/              @Q0 STG.E [R2], R3 ;\n"
                     "        /*zz*/                     STG.E [R2], R3 ;\n"
                     "        /*0050*/STG.E [R2], R3 ;\n"
                     "        /*0060*/                   PMTRIG R0x101 ;\n";
  std::vector<std::vector<std::string>> Roles = {{"ST", "LD"}};
  // PMTRIG R0x101 closes role 0: "0x101" counts even inside a word, as
  // the regular expression the reader was written from had it.
  EXPECT_EQ(cuda::checkSass(Sass, Roles).K, cuda::OptCheckResult::Ok);
  // A marker's decimal number counts only standing alone (not in R256).
  std::string NoClose = Sass.substr(0, Sass.rfind("        /*0060*/")) +
                        "        /*0060*/     PMTRIG R257, 257x ;\n";
  EXPECT_EQ(cuda::checkSass(NoClose, Roles).K, cuda::OptCheckResult::Skipped);
  std::string Close = Sass.substr(0, Sass.rfind("        /*0060*/")) +
                      "        /*0060*/     PMTRIG R2, 257 ;\n";
  EXPECT_EQ(cuda::checkSass(Close, Roles).K, cuda::OptCheckResult::Ok);
  // A number too large for a marker is none (and no exception).
  std::string Huge = Sass.substr(0, Sass.rfind("        /*0060*/")) +
                     "        /*0060*/     PMTRIG 0x1ffffffffffffffffffff ;\n";
  EXPECT_EQ(cuda::checkSass(Huge, Roles).K, cuda::OptCheckResult::Skipped);
  // The lines without ';', with a bad predicate or address, or with no
  // blank after the address are no accesses: adding one fails the check.
  std::string Extra = Sass;
  Extra.insert(Extra.find("        /*0060*/"),
               "        /*0058*/                   STG.E [R2], R3 ;\n");
  EXPECT_EQ(cuda::checkSass(Extra, Roles).K, cuda::OptCheckResult::Failed);
}

// INCANT_CUDA_DISASSEMBLER picks the disassembler (nvdisasm, without its
// dataflow analysis, unless it says cuobjdump); another name is refused
// with a reason.
TEST(OptCheck, DisassemblerChoice) {
  const char *Old = std::getenv("INCANT_CUDA_DISASSEMBLER");
  std::string Saved = Old ? Old : "";
  std::string Why;
  ::setenv("INCANT_CUDA_DISASSEMBLER", "objdump", 1);
  EXPECT_TRUE(cuda::disassemblerCommand(Why).empty());
  EXPECT_EQ(Why, "INCANT_CUDA_DISASSEMBLER=objdump: expected cuobjdump or "
                 "nvdisasm");
  // Asked for by name: that program (with its option) or "no NAME".
  auto Only = [&](const std::string &Name, const std::string &Option) {
    ::setenv("INCANT_CUDA_DISASSEMBLER", Name.c_str(), 1);
    Why.clear();
    auto Cmd = cuda::disassemblerCommand(Why);
    if (Cmd.empty()) {
      EXPECT_EQ(Why, "no " + Name);
      return;
    }
    ASSERT_EQ(Cmd.size(), 2u);
    EXPECT_NE(Cmd[0].find(Name), std::string::npos);
    EXPECT_EQ(Cmd[1], Option);
  };
  Only("nvdisasm", "-ndf");
  Only("cuobjdump", "-sass");
  ::unsetenv("INCANT_CUDA_DISASSEMBLER");
  Why.clear();
  auto Cmd = cuda::disassemblerCommand(Why);
  if (Cmd.empty()) {
    EXPECT_EQ(Why, "no nvdisasm or cuobjdump");
  } else {
    EXPECT_EQ(Cmd[1], Cmd[0].find("nvdisasm") != std::string::npos ? "-ndf"
                                                                    : "-sass");
  }
  if (!Saved.empty())
    ::setenv("INCANT_CUDA_DISASSEMBLER", Saved.c_str(), 1);
}
