//===- CompileDatabaseTest.cpp - compile_commands.json flags --------------===//
#include "incant/Race/CompileDatabase.h"
#include "incant/IR/Summary.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::race;

TEST(CompileDatabaseTest, SplitsAsAShellDoes) {
  EXPECT_EQ(splitCommandLine("nvcc -DA=1  -I'my dir' \"-DB=\\\"x y\\\"\" a\\ b.cu"),
            (std::vector<std::string>{"nvcc", "-DA=1", "-Imy dir",
                                      "-DB=\"x y\"", "a b.cu"}));
  EXPECT_TRUE(splitCommandLine("   ").empty());
  EXPECT_EQ(splitCommandLine("''"), (std::vector<std::string>{""}));
}

TEST(CompileDatabaseTest, KeepsWhatChangesTheKernel) {
  CompileCommand C;
  C.Directory = "/build";
  C.File = "/src/k.cu";
  C.Arguments = {"/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler",
                 "-DN=64", "-D", "M", "-I../include", "-isystem", "/opt/x",
                 "-O3", "--generate-code=arch=compute_80,code=[compute_80,sm_80]",
                 "-std=c++17", "--expt-relaxed-constexpr", "-Xcompiler=-fPIC",
                 "-x", "cu", "-c", "/src/k.cu", "-o", "k.o", "-MD", "-MF", "k.d"};
  std::string Arch;
  std::vector<std::string> F = ptxFlagsOf(C, Arch);
  EXPECT_EQ(F, (std::vector<std::string>{"-DN=64", "-DM", "-I", "/include",
                                         "-isystem", "/opt/x", "-std=c++17",
                                         "--expt-relaxed-constexpr"}));
  EXPECT_EQ(Arch, "sm_80");
  C.Arguments = {"nvcc", "-arch", "sm_90a", "-c", "k.cu"};
  ptxFlagsOf(C, Arch);
  EXPECT_EQ(Arch, "sm_90a");
  C.Arguments = {"nvcc", "-gencode", "arch=compute_75,code=compute_75", "k.cu"};
  ptxFlagsOf(C, Arch);
  EXPECT_EQ(Arch, "sm_75");
  C.Arguments = {"nvcc", "-arch=native", "k.cu"};
  ptxFlagsOf(C, Arch);
  EXPECT_EQ(Arch, "");
}

TEST(KernelNameTest, PlainQualifiedAndNamespacedNames) {
  // app::(anonymous namespace)::reduce(float*)
  const std::string K = "_ZN3app12_GLOBAL__N_16reduceEPf";
  ASSERT_EQ(ir::qualifiedKernelName(K), "app::(anonymous namespace)::reduce");
  for (const char *W : {"reduce", "app::reduce", "(anonymous namespace)::reduce",
                        "app::(anonymous namespace)::reduce", "reduce(float*)",
                        "app::(anonymous namespace)::reduce(float*)", K.c_str()})
    EXPECT_TRUE(ir::kernelNameMatches(K, W)) << W;
  for (const char *W : {"educe", "p::reduce", "reduce(int*)", "other::reduce", ""})
    EXPECT_FALSE(ir::kernelNameMatches(K, W)) << W;
  // A template instance: with and without its arguments.
  const std::string T = "_Z7reduce2IiEvPT_S1_j";
  EXPECT_EQ(ir::qualifiedKernelName(T), "reduce2<int>");
  EXPECT_TRUE(ir::kernelNameMatches(T, "reduce2"));
  EXPECT_TRUE(ir::kernelNameMatches(T, "reduce2<int>"));
  EXPECT_FALSE(ir::kernelNameMatches(T, "reduce2<float>"));
  // A PTX name that is not mangled.
  EXPECT_TRUE(ir::kernelNameMatches("relaxed", "relaxed"));
  EXPECT_FALSE(ir::kernelNameMatches("relaxed", "relax"));
}
