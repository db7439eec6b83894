//===- RunnerTest.cpp - Condition evaluation, emit, and no-driver paths ---===//

#include "HandBuilt.h"
#include "incant/CUDA/CudaApi.h"
#include "incant/CUDA/Runner.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <filesystem>
#include <fstream>

using namespace incant;

TEST(CudaRunner, Condition) {
  auto P = handbuilt::mp();
  EXPECT_TRUE(cuda::evaluateCondition(P, {1, 0}));
  EXPECT_FALSE(cuda::evaluateCondition(P, {1, 1}));
  EXPECT_FALSE(cuda::evaluateCondition(P, {0, 0}));
  auto S = handbuilt::sb();
  EXPECT_TRUE(cuda::evaluateCondition(S, {0, 0}));
  EXPECT_FALSE(cuda::evaluateCondition(S, {0, 1}));
  // Values: 32-bit items compare on their low word, addresses as locations.
  using V = std::vector<litmus::Value>;
  EXPECT_TRUE(cuda::evaluateCondition(P, V{{-1, 1}, {-1, 0}}));
  auto Q = handbuilt::mp();
  Q.Condition.Kids[0].Rhs = litmus::Term::constant(litmus::Value{1, 0}); // 1:r0 = y
  EXPECT_TRUE(cuda::evaluateCondition(Q, V{{1, 0}, {-1, 0}}));
  EXPECT_FALSE(cuda::evaluateCondition(Q, V{{0, 0}, {-1, 0}}));
  EXPECT_FALSE(cuda::evaluateCondition(Q, V{{-1, 1}, {-1, 0}}));
  Q.Condition.Kids[0].Rhs = litmus::Term::constant(-1);
  EXPECT_TRUE(cuda::evaluateCondition(Q, V{{-1, -1}, {-1, 0}}));
  EXPECT_FALSE(cuda::evaluateCondition(Q, V{{-1, int64_t{1} << 33}, {-1, 0}}));
}

TEST(CudaRunner, NoDriverIsReported) {
  void *H = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (H) {
    dlclose(H);
    GTEST_SKIP() << "a CUDA driver is installed here";
  }
  DiagnosticEngine Diags;
  auto R = cuda::runOnCuda(handbuilt::mp(), {}, nullptr, Diags);
  EXPECT_EQ(R.Status, cuda::RunResult::NoDriver);
  EXPECT_EQ(R.Message, "no CUDA driver (libcuda.so.1) found");
}

TEST(CudaRunner, EmitWritesSources) {
  auto Dir = std::filesystem::temp_directory_path() / "incant-cuda-emit-test";
  std::filesystem::remove_all(Dir);
  cuda::RunOptions O;
  O.EmitDir = Dir.string();
  DiagnosticEngine Diags;
  auto R = cuda::runOnCuda(handbuilt::sb(), O, nullptr, Diags);
  ASSERT_EQ(R.Status, cuda::RunResult::Emitted) << R.Message;
  EXPECT_TRUE(std::filesystem::exists(Dir / "test.cu"));
  EXPECT_TRUE(std::filesystem::exists(Dir / "incant_harness.cuh"));
  EXPECT_TRUE(std::filesystem::exists(Dir / "incant_params.h"));
  std::string Why;
  cuda::CudaLibraries L;
  if (L.loadNvrtc(Why)) {
    ASSERT_TRUE(std::filesystem::exists(Dir / "test.ptx"));
    std::ifstream F(Dir / "test.ptx");
    std::string Ptx((std::istreambuf_iterator<char>(F)), {});
    EXPECT_NE(Ptx.find("st.relaxed.gpu.global.u32"), std::string::npos);
    EXPECT_NE(Ptx.find("pmevent.mask 0x100"), std::string::npos);
    EXPECT_NE(Ptx.find(".target sm_90"), std::string::npos);
  }
  std::filesystem::remove_all(Dir);
}

TEST(CudaRunner, NvrtcCandidates) {
  auto C = cuda::nvrtcCandidates();
  ASSERT_FALSE(C.empty());
  EXPECT_NE(std::find(C.begin(), C.end(), "libnvrtc.so.13"), C.end());
  EXPECT_NE(std::find(C.begin(), C.end(), "/usr/local/cuda/lib64/libnvrtc.so.13"),
            C.end());
}
