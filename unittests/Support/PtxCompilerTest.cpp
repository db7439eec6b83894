//===- PtxCompilerTest.cpp - CUDA and OpenCL C source to PTX --------------===//
#include "incant/Support/PtxCompiler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>

using namespace incant;

namespace {

std::string input(const std::string &Name) {
  return std::string(INCANT_SOURCE_DIR) + "/test/ptx/Inputs/" + Name;
}

/// Sets an environment variable for the scope of one test.
struct ScopedEnv {
  std::string Name;
  ScopedEnv(std::string N, const char *Value) : Name(std::move(N)) {
    ::setenv(Name.c_str(), Value, 1);
  }
  ~ScopedEnv() { ::unsetenv(Name.c_str()); }
};

TEST(PtxCompilerTest, LanguageByExtension) {
  EXPECT_EQ(kernelLanguageOf("a/k.cu"), KernelLanguage::Cuda);
  EXPECT_EQ(kernelLanguageOf("k.cl"), KernelLanguage::OpenCL);
  EXPECT_EQ(kernelLanguageOf("k.ptx"), KernelLanguage::Ptx);
  EXPECT_EQ(kernelLanguageOf("cu"), KernelLanguage::Ptx);
}

TEST(PtxCompilerTest, CompilesCudaWithLineInfo) {
  if (findNvcc().empty())
    GTEST_SKIP() << "nvcc is not installed";
  PtxCompileResult R = compileToPtx(input("kern.cu"));
  ASSERT_TRUE(R.ok()) << R.Message << "\n" << R.Log;
  EXPECT_EQ(R.Compiler, "nvcc");
  EXPECT_EQ(R.PtxName, "kern.ptx");
  EXPECT_NE(R.Ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(R.Ptx.find(".loc"), std::string::npos);
  ASSERT_GE(R.Argv.size(), 4u);
  EXPECT_EQ(R.Argv[1], "-arch=sm_90");
  EXPECT_EQ(R.Argv[3], "-lineinfo");
}

TEST(PtxCompilerTest, ExtraArgumentsAndArchReachTheCompiler) {
  if (findNvcc().empty())
    GTEST_SKIP() << "nvcc is not installed";
  PtxCompileOptions O;
  O.Arch = "sm_80";
  O.LineInfo = false;
  O.ExtraArgs = {"-DINCANT_UNUSED=1"};
  PtxCompileResult R = compileToPtx(input("kern.cu"), O);
  ASSERT_TRUE(R.ok()) << R.Message << "\n" << R.Log;
  EXPECT_NE(R.Ptx.find(".target sm_80"), std::string::npos);
  EXPECT_EQ(R.Ptx.find(".loc"), std::string::npos);
}

TEST(PtxCompilerTest, RejectedSourceKeepsTheCompilersMessages) {
  if (findNvcc().empty())
    GTEST_SKIP() << "nvcc is not installed";
  PtxCompileResult R = compileToPtx(input("bad.cu"));
  EXPECT_EQ(R.K, PtxCompileResult::Rejected);
  EXPECT_NE(R.Log.find("error"), std::string::npos);
  EXPECT_EQ(R.Message, input("bad.cu") + ": nvcc failed (exit code 1)");
}

TEST(PtxCompilerTest, CompilesOpenCL) {
  if (findClang().empty())
    GTEST_SKIP() << "clang is not installed";
  PtxCompileResult R = compileToPtx(input("flag.cl"));
  ASSERT_TRUE(R.ok()) << R.Message << "\n" << R.Log;
  EXPECT_EQ(R.Compiler, "clang");
  EXPECT_EQ(R.PtxName, "flag.ptx");
  EXPECT_NE(R.Ptx.find(".entry handshake"), std::string::npos);
}

TEST(PtxCompilerTest, AMissingCompilerOrSourceIsSaidApart) {
  {
    ScopedEnv E("INCANT_NVCC", "/nonexistent/nvcc");
    EXPECT_EQ(findNvcc(), "");
    PtxCompileResult R = compileToPtx(input("kern.cu"));
    EXPECT_EQ(R.K, PtxCompileResult::NoCompiler);
    EXPECT_TRUE(R.Argv.empty());
  }
  {
    ScopedEnv E("INCANT_CLANG", "/nonexistent/clang");
    EXPECT_EQ(compileToPtx(input("flag.cl")).K, PtxCompileResult::NoCompiler);
  }
  // A program that exists stands in for the compiler: the missing source
  // is found before it would run.
  ScopedEnv E("INCANT_NVCC", "/bin/false");
  PtxCompileResult R = compileToPtx(input("no-such.cu"));
  EXPECT_EQ(R.K, PtxCompileResult::NoSource);
  EXPECT_EQ(R.Message, input("no-such.cu") + ": no such file");
  R = compileToPtx(input("kern.cu"));
  EXPECT_EQ(R.K, PtxCompileResult::Rejected);
  EXPECT_EQ(R.Message, input("kern.cu") + ": nvcc failed (exit code 1)");
  EXPECT_EQ(compileToPtx(input("kern.ptx")).K, PtxCompileResult::NotRun);
}

TEST(PtxCompilerTest, ACompilerThatHangsTimesOut) {
  std::string Fake = ::testing::TempDir() + "incant-fake-nvcc";
  {
    std::ofstream F(Fake);
    F << "#!/bin/sh\nsleep 30\n";
  }
  ASSERT_EQ(::chmod(Fake.c_str(), 0755), 0);
  ScopedEnv E("INCANT_NVCC", Fake.c_str());
  PtxCompileOptions O;
  O.TimeoutSeconds = 0.2;
  PtxCompileResult R = compileToPtx(input("kern.cu"), O);
  EXPECT_EQ(R.K, PtxCompileResult::NotRun);
  EXPECT_NE(R.Message.find("nvcc timed out after"), std::string::npos)
      << R.Message;
  std::remove(Fake.c_str());
}

} // namespace
