//===- HarnessNvccTest.cpp - The emitted harness compiles with nvcc -------===//
//
// The CUDA backend's --emit output (the test as inline PTX and the harness
// headers) must compile for sm_90 with the local nvcc, as a user's build
// would: hand-built tests in every placement and fence, and library tests
// with bar.sync, 64-bit pointers and CoRR. Each case is its own test;
// skipped where nvcc is not installed.
//
//===----------------------------------------------------------------------===//
#include "CudaTestSupport.h"
#include "incant/CUDA/CudaBackend.h"
#include "incant/Litmus/Load.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Process.h"
#include "incant/Support/PtxCompiler.h"
#include "incant/Testing/Programs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <unistd.h>

using namespace incant;
using namespace incant::handbuilt;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string Name;
  /// A hand-built program, or (when empty) a .litmus file.
  std::function<litmus::Program()> Build;
  std::string File; ///< Relative to the source tree.
};

/// gtest names a case by its name, not by its bytes.
void PrintTo(const Case &C, std::ostream *OS) { *OS << C.Name; }

std::vector<Case> cases() {
  return {
      {"MP", [] { return mp(); }, ""},
      {"MP_membar_gl", [] { return mp(Place::CTA, FenceSel::MembarGl); }, ""},
      {"SB_fence_sc_gpu", [] { return sb(Place::CTA, FenceSel::FenceScGpu); },
       ""},
      {"LB_warp", [] { return lb(Place::Warp); }, ""},
      {"SB_lane_shared", [] { return sb(Place::Lane, FenceSel::None, true); },
       ""},
      {"MP_warp_shared", [] { return mp(Place::Warp, FenceSel::None, true); },
       ""},
      {"MP_cluster", [] { return mp(Place::Cluster); }, ""},
      {"MP_bar_sync_warp_shared",
       {},
       "litmus/bar/MP+bar.sync+warp-shared.litmus"},
      {"SB_bar_sync_warp_global",
       {},
       "litmus/bar/SB+bar.sync+warp-global.litmus"},
      {"MP_u64_pointer", {}, "unittests/CUDA/Inputs/MP+u64-pointer.litmus"},
      {"SB_bar_sync_u64_cta",
       {},
       "unittests/CUDA/Inputs/SB+bar.sync+u64+cta.litmus"},
      {"CoRR_cta_global", {}, "litmus/CoRR/CoRR+cta-global.litmus"},
      // A spin loop: the loop-bound mark in the outcome's key.
      {"MP_spin", {}, "test/run/Inputs/MP+spin.litmus"},
  };
}

class HarnessNvcc : public ::testing::TestWithParam<Case> {};

TEST_P(HarnessNvcc, EmittedHarnessCompiles) {
  std::string Nvcc = findNvcc();
  if (Nvcc.empty())
    GTEST_SKIP() << "nvcc is not installed";
  const Case &C = GetParam();
  DiagnosticEngine Diags;
  litmus::Program P;
  std::shared_ptr<const SourceFile> File;
  if (C.Build) {
    P = C.Build();
  } else {
    std::optional<litmus::LoadedTest> L =
        litmus::loadTest(std::string(INCANT_SOURCE_DIR) + "/" + C.File, Diags);
    ASSERT_TRUE(L) << C.File;
    P = std::move(L->Prog);
    File = L->File;
  }
  // The process id keeps parallel runs (ctest -j, other checkouts on the
  // same machine) out of each other's folder.
  fs::path Dir = fs::path(::testing::TempDir()) /
                 ("incant-nvcc-" + std::to_string(::getpid()) + "-" + C.Name);
  fs::remove_all(Dir);
  harness::RunRequest Req;
  Req.Prog = &P;
  Req.File = File;
  Req.EmitDir = Dir.string();
  Expected<harness::RunResult> R = cuda::createCudaBackend()->run(Req, Diags);
  ASSERT_TRUE(R) << (Diags.diagnostics().empty()
                         ? std::string("no diagnostic")
                         : DiagnosticEngine::format(Diags.diagnostics()[0]));
  std::vector<std::string> Argv;
  ProcessResult Rc = cudatest::nvcc(
      Nvcc, "-c", (Dir / (safeFileName(P.Name) + ".cu")).string(),
      (Dir / "test.o").string(), &Argv);
  EXPECT_TRUE(Rc.succeeded())
      << shellQuote(Argv) << ": " << Rc.describe() << "\n"
      << Rc.Out;
  fs::remove_all(Dir);
}

INSTANTIATE_TEST_SUITE_P(Cases, HarnessNvcc, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &I) {
                           return I.param.Name;
                         });

} // namespace
