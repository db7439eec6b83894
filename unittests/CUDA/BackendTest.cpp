//===- BackendTest.cpp - The CUDA backend's emit and no-driver paths ------===//

#include "incant/CUDA/CudaApi.h"
#include "incant/CUDA/CudaBackend.h"
#include "incant/Support/OutputFile.h"
#include "incant/Testing/Programs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace incant;

namespace {

bool haveDriver() {
  void *H = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (H)
    dlclose(H);
  return H != nullptr;
}

} // namespace

TEST(CudaBackend, NoDriverIsReported) {
  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is installed here";
  auto B = cuda::createCudaBackend();
  std::string Why;
  EXPECT_FALSE(B->available(Why));
  EXPECT_EQ(Why, cuda::noDriverMessage());
  EXPECT_TRUE(B->devices().empty());
  litmus::Program P = handbuilt::mp();
  harness::RunRequest Req;
  Req.Prog = &P;
  DiagnosticEngine Diags;
  Expected<harness::RunResult> R = B->run(Req, Diags);
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error(), ErrorKind::Device);
  ASSERT_EQ(Diags.diagnostics().size(), 1u);
  EXPECT_EQ(Diags.diagnostics()[0].Message, cuda::noDriverMessage());
  EXPECT_EQ(Diags.diagnostics()[0].File, nullptr);
}

TEST(CudaBackend, EmitWritesSources) {
  // The process id in the name: other checkouts' tests may run at once.
  auto Dir = std::filesystem::temp_directory_path() /
             ("incant-cuda-emit-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(Dir);
  litmus::Program P = handbuilt::sb();
  harness::RunRequest Req;
  Req.Prog = &P;
  Req.EmitDir = Dir.string();
  DiagnosticEngine Diags;
  auto R = cuda::createCudaBackend()->run(Req, Diags);
  ASSERT_TRUE(R) << (Diags.diagnostics().empty()
                         ? ""
                         : Diags.diagnostics()[0].Message);
  // Named after the test, so that tests share a folder.
  std::string Stem = safeFileName(P.Name);
  EXPECT_TRUE(std::filesystem::exists(Dir / (Stem + ".cu")));
  EXPECT_TRUE(std::filesystem::exists(Dir / "incant_harness.cuh"));
  EXPECT_TRUE(std::filesystem::exists(Dir / "incant_params.h"));
  auto Listed = [&](const std::string &F) {
    return std::find(R->EmittedFiles.begin(), R->EmittedFiles.end(),
                     (Dir / F).string()) != R->EmittedFiles.end();
  };
  EXPECT_TRUE(Listed(Stem + ".cu"));
  EXPECT_TRUE(Listed("incant_harness.cuh"));
  EXPECT_EQ(R->OptCheck.rfind("optcheck: ", 0), 0u) << R->OptCheck;
  std::string Why;
  cuda::CudaLibraries L;
  if (L.loadNvrtc(Why)) {
    ASSERT_TRUE(std::filesystem::exists(Dir / (Stem + ".ptx")));
    EXPECT_TRUE(Listed(Stem + ".ptx"));
    std::ifstream F(Dir / (Stem + ".ptx"));
    std::string Ptx((std::istreambuf_iterator<char>(F)), {});
    EXPECT_NE(Ptx.find("st.relaxed.gpu.global.u32"), std::string::npos);
    EXPECT_NE(Ptx.find("pmevent.mask 0x100"), std::string::npos);
    EXPECT_NE(Ptx.find(".target sm_90"), std::string::npos);
  } else {
    ASSERT_EQ(R->Device.Notes.size(), 1u);
    EXPECT_NE(R->Device.Notes[0].find("PTX not written"), std::string::npos);
  }
  std::filesystem::remove_all(Dir);
}

TEST(CudaBackend, ATestOnTwoDevicesIsRefused) {
  litmus::Program P = handbuilt::mp();
  P.Threads[1].Where.Device = 1;
  auto File = std::make_shared<SourceFile>("two.litmus", "");
  harness::RunRequest Req;
  Req.Prog = &P;
  Req.File = File;
  Req.EmitDir =
      (std::filesystem::temp_directory_path() /
       ("incant-cuda-2dev-" + std::to_string(::getpid())))
          .string();
  DiagnosticEngine Diags;
  Expected<harness::RunResult> R = cuda::createCudaBackend()->run(Req, Diags);
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error(), ErrorKind::Input);
  ASSERT_EQ(Diags.diagnostics().size(), 1u);
  EXPECT_EQ(Diags.diagnostics()[0].Message,
            "the test places threads on different devices; the CUDA backend "
            "runs a test on one device");
  EXPECT_FALSE(std::filesystem::exists(Req.EmitDir));
}

TEST(CudaBackend, NvrtcCandidates) {
  auto C = cuda::nvrtcCandidates();
  ASSERT_FALSE(C.empty());
  EXPECT_NE(std::find(C.begin(), C.end(), "libnvrtc.so.13"), C.end());
  EXPECT_NE(
      std::find(C.begin(), C.end(), "/usr/local/cuda/lib64/libnvrtc.so.13"),
      C.end());
}
