//===- BatchTest.cpp - Many tests in one CUDA module ----------------------===//
//
// A batch's source compiles (nvcc, NVRTC where installed) into one module
// holding every test's kernels under its own names; a disassembled module
// splits by kernel so each test's optcheck sees its own code; prepare()
// keeps a test that cannot be generated from spoiling its batch.
//
//===----------------------------------------------------------------------===//
#include "CudaTestSupport.h"
#include "Compile.h" // lib/CUDA: the compile cache
#include "incant/CUDA/Batch.h"
#include "incant/CUDA/CudaApi.h"
#include "incant/CUDA/CudaBackend.h"
#include "incant/CUDA/OptCheck.h"
#include "incant/Support/Process.h"
#include "incant/Support/PtxCompiler.h"
#include "incant/Testing/Programs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace incant;
using namespace incant::handbuilt;
namespace fs = std::filesystem;

namespace {

using cudatest::input;
using cudatest::generate;

/// An H100 listing as it reads when its test is test \p K of a batch.
std::string asBatchMember(std::string Sass, int K) {
  for (const char *Name : {"incant_test_kernel", "incant_hist_kernel"}) {
    std::string From = std::string("Function : ") + Name + "\n";
    size_t P = Sass.find(From);
    EXPECT_NE(P, std::string::npos) << Name;
    if (P != std::string::npos)
      Sass.replace(P, From.size(),
                   std::string("Function : ") + Name + "_" +
                       std::to_string(K) + "\n");
  }
  return Sass;
}

} // namespace

TEST(CudaBatch, KernelNames) {
  EXPECT_EQ(cuda::testKernelName(-1), "incant_test_kernel");
  EXPECT_EQ(cuda::histKernelName(-1), "incant_hist_kernel");
  EXPECT_EQ(cuda::testKernelName(0), "incant_test_kernel_0");
  EXPECT_EQ(cuda::histKernelName(12), "incant_hist_kernel_12");
}

TEST(CudaBatch, SourceHasEachTestInItsNamespace) {
  cuda::GeneratedTest A = generate(mp()), B = generate(sb());
  std::string S = cuda::batchSource({&A, &B});
  EXPECT_NE(S.find("namespace incant_batch_0 {\n#define INCANT_KERNEL_SUFFIX "
                   "_0\n"),
            std::string::npos);
  EXPECT_NE(S.find("namespace incant_batch_1 {\n#define INCANT_KERNEL_SUFFIX "
                   "_1\n"),
            std::string::npos);
  // Between the tests, their macros and the harness's guard go.
  size_t End0 = S.find("} // namespace incant_batch_0");
  ASSERT_NE(End0, std::string::npos);
  size_t Ns1 = S.find("namespace incant_batch_1");
  for (const char *M : {"#undef INCANT_NUM_ROLES", "#undef INCANT_NUM_OUT",
                        "#undef INCANT_HARNESS_CUH",
                        "#undef INCANT_KERNEL_SUFFIX"}) {
    size_t U = S.find(M, End0);
    EXPECT_TRUE(U != std::string::npos && U < Ns1) << M;
  }
}

TEST(CudaBatch, SplitsCuobjdumpListing) {
  auto F = cuda::splitSassByFunction(input("mp-h100.sass"));
  ASSERT_EQ(F.size(), 2u);
  ASSERT_TRUE(F.count("incant_test_kernel"));
  ASSERT_TRUE(F.count("incant_hist_kernel"));
  cuda::GeneratedTest G = generate(mp());
  EXPECT_EQ(cuda::checkSass(F["incant_test_kernel"], G.ExpectedMemOps).K,
            cuda::OptCheckResult::Ok);
  // The histogram kernel has no role markers.
  EXPECT_EQ(cuda::checkSass(F["incant_hist_kernel"], G.ExpectedMemOps).K,
            cuda::OptCheckResult::Skipped);
}

TEST(CudaBatch, EachTestIsCheckedOnItsOwnKernel) {
  std::string Module = asBatchMember(input("mp-h100.sass"), 0) +
                       asBatchMember(input("sb-fence-h100.sass"), 1);
  auto F = cuda::splitSassByFunction(Module);
  ASSERT_EQ(F.size(), 4u);
  cuda::GeneratedTest Mp = generate(mp());
  cuda::GeneratedTest Sb = generate(sb(Place::CTA, FenceSel::FenceScGpu));
  EXPECT_EQ(cuda::checkSass(F["incant_test_kernel_0"], Mp.ExpectedMemOps).K,
            cuda::OptCheckResult::Ok);
  EXPECT_EQ(cuda::checkSass(F["incant_test_kernel_1"], Sb.ExpectedMemOps).K,
            cuda::OptCheckResult::Ok);
  // The whole module would mix the two tests' markers up.
  EXPECT_EQ(cuda::checkSass(F["incant_test_kernel_1"], Mp.ExpectedMemOps).K,
            cuda::OptCheckResult::Failed);
}

TEST(CudaBatch, SplitsNvdisasmListing) {
  std::string Sass = "\t.headerflags @\"EF_CUDA_SM90\"\n"
                     ".text.incant_test_kernel_3:\n"
                     "        /*0000*/   PMTRIG 0x100 ;\n"
                     ".text.incant_hist_kernel_3:\n"
                     "        /*0000*/   EXIT ;\n";
  auto F = cuda::splitSassByFunction(Sass);
  ASSERT_EQ(F.size(), 2u);
  EXPECT_EQ(F["incant_test_kernel_3"], "        /*0000*/   PMTRIG 0x100 ;\n");
  EXPECT_EQ(F["incant_hist_kernel_3"], "        /*0000*/   EXIT ;\n");
}

// Header lines, blanks around allowed; anything else belongs to the
// function before it.
TEST(CudaBatch, SplitsOnlyOnWholeHeaders) {
  std::string Sass = "  Function :k$1.x  \n"
                     "A ;\n"
                     "\t\tFunction : 9k\n"
                     "Function : k 2\n"
                     "\t.text.m.n:\t\n"
                     "B ;\n"
                     ".text.p:q\n"
                     ".text.:\n";
  auto F = cuda::splitSassByFunction(Sass);
  ASSERT_EQ(F.size(), 2u);
  EXPECT_EQ(F["k$1.x"], "A ;\n\t\tFunction : 9k\nFunction : k 2\n");
  EXPECT_EQ(F["m.n"], "B ;\n.text.p:q\n.text.:\n");
}

TEST(CudaBatch, BatchCompilesWithNvcc) {
  std::string Nvcc = findNvcc();
  if (Nvcc.empty())
    GTEST_SKIP() << "nvcc is not installed";
  cuda::GeneratedTest A = generate(mp()), B = generate(sb(Place::Warp)),
                      C = generate(mp(Place::Cluster));
  fs::path Dir = fs::path(::testing::TempDir()) / "incant-nvcc-batch";
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  std::ofstream(Dir / "batch.cu") << cuda::batchSource({&A, &B, &C});
  for (const auto &F : cuda::harnessFiles())
    std::ofstream(Dir / F.Name) << F.Text;
  ProcessResult R = cudatest::nvcc(Nvcc, "-cubin", (Dir / "batch.cu").string(),
                                   (Dir / "batch.cubin").string());
  ASSERT_TRUE(R.succeeded()) << R.describe() << "\n" << R.Out;
  std::ifstream In(Dir / "batch.cubin", std::ios::binary);
  std::string Cubin((std::istreambuf_iterator<char>(In)), {});
  for (int K = 0; K < 3; ++K) {
    EXPECT_NE(Cubin.find(cuda::testKernelName(K) + '\0'), std::string::npos);
    EXPECT_NE(Cubin.find(cuda::histKernelName(K) + '\0'), std::string::npos);
  }
  fs::remove_all(Dir);
}

TEST(CudaBatch, PrepareCompilesOneModuleThroughNvrtc) {
  cuda::CudaLibraries L;
  std::string Why;
  if (!L.loadNvrtc(Why))
    GTEST_SKIP() << Why;
  cuda::CudaTuning T;
  T.PrepareArch = "sm_90";
  auto B = cuda::createCudaBackend(T);
  litmus::Program Mp = mp(), Sb = sb(Place::Warp, FenceSel::MembarGl),
                  Two = mp();
  Two.Threads[1].Where.Device = 1; // no CUDA form: an input error
  std::vector<harness::RunRequest> Reqs(3);
  Reqs[0].Prog = &Mp;
  Reqs[1].Prog = &Two;
  Reqs[2].Prog = &Sb;
  std::vector<DiagnosticEngine> D(3);
  auto P = B->prepare(Reqs, {&D[0], &D[1], &D[2]});
  ASSERT_EQ(P.size(), 3u);
  ASSERT_TRUE(P[0]) << (D[0].diagnostics().empty()
                            ? ""
                            : D[0].diagnostics()[0].Message);
  ASSERT_TRUE(P[2]);
  ASSERT_FALSE(P[1]);
  EXPECT_EQ(P[1].error(), ErrorKind::Input);
  ASSERT_EQ(D[1].diagnostics().size(), 1u);
  EXPECT_TRUE(D[0].diagnostics().empty());
  auto S0 = cuda::summarisePrepared(**P[0]);
  auto S2 = cuda::summarisePrepared(**P[2]);
  ASSERT_TRUE(S0 && S2);
  EXPECT_EQ(S0->Arch, "sm_90");
  EXPECT_EQ(S0->Module, S2->Module);
  EXPECT_GT(S0->ModuleBytes, 0u);
  EXPECT_EQ(S0->TestKernel, "incant_test_kernel_0");
  EXPECT_EQ(S2->TestKernel, "incant_test_kernel_1");
  EXPECT_EQ(S0->OptCheck.rfind("optcheck: ", 0), 0u);
}

TEST(CudaBatch, CompileCacheServesTheSameBatchAgain) {
  cuda::CudaLibraries L;
  std::string Why;
  if (!L.loadNvrtc(Why))
    GTEST_SKIP() << Why;
  fs::path Dir = fs::path(::testing::TempDir()) / "incant-compile-cache";
  fs::remove_all(Dir);
  cuda::CudaTuning T;
  T.PrepareArch = "sm_90";
  auto B = cuda::createCudaBackend(T);
  litmus::Program Mp = mp(), Lb = lb(Place::Warp);
  std::vector<harness::RunRequest> Reqs(2);
  Reqs[0].Prog = &Mp;
  Reqs[1].Prog = &Lb;
  for (auto &R : Reqs)
    R.CompileCache = Dir.string();
  auto Prepare = [&] {
    std::vector<DiagnosticEngine> D(2);
    auto P = B->prepare(Reqs, {&D[0], &D[1]});
    std::vector<cuda::PreparedSummary> S;
    for (auto &X : P) {
      EXPECT_TRUE(X);
      if (X)
        S.push_back(*cuda::summarisePrepared(**X));
    }
    return S;
  };
  std::vector<cuda::PreparedSummary> First = Prepare();
  ASSERT_EQ(First.size(), 2u);
  size_t Cubins = 0, Opts = 0;
  fs::path Opt;
  for (const auto &E : fs::directory_iterator(Dir)) {
    Cubins += E.path().extension() == ".cubin";
    if (E.path().extension() == ".opt") {
      ++Opts;
      Opt = E.path();
    }
  }
  EXPECT_EQ(Cubins, 1u);
  ASSERT_EQ(Opts, 1u);
  std::vector<cuda::PreparedSummary> Again = Prepare();
  ASSERT_EQ(Again.size(), 2u);
  for (size_t K = 0; K < 2; ++K) {
    EXPECT_EQ(Again[K].ModuleBytes, First[K].ModuleBytes);
    EXPECT_EQ(Again[K].TestKernel, First[K].TestKernel);
    EXPECT_EQ(Again[K].OptCheck, First[K].OptCheck);
  }
  // A damaged entry is compiled again, not trusted.
  std::ofstream(Opt) << "ok 0\n";
  std::vector<cuda::PreparedSummary> Rebuilt = Prepare();
  ASSERT_EQ(Rebuilt.size(), 2u);
  EXPECT_EQ(Rebuilt[1].TestKernel, "incant_test_kernel_1");
  std::ifstream In(Opt);
  std::string Text((std::istreambuf_iterator<char>(In)), {});
  EXPECT_EQ(std::count(Text.begin(), Text.end(), '\n'), 2);
  fs::remove_all(Dir);
}

TEST(CudaBatch, DiskCacheServesATestCompiledAlone) {
  cuda::CudaLibraries L;
  std::string Why;
  if (!L.loadNvrtc(Why))
    GTEST_SKIP() << Why;
  fs::path Dir = fs::path(::testing::TempDir()) / "incant-alone-cache";
  fs::remove_all(Dir);
  cuda::GeneratedTest G = generate(mp());
  cuda::CompiledKernels First;
  std::string Log;
  ASSERT_TRUE(
      cuda::compileThroughDisk(L, G, "sm_90", Dir.string(), First, Log))
      << Log;
  ASSERT_TRUE(First.Module);
  EXPECT_EQ(First.TestKernel, "incant_test_kernel");
  fs::path Opt;
  size_t Cubins = 0;
  for (const auto &E : fs::directory_iterator(Dir)) {
    Cubins += E.path().extension() == ".cubin";
    if (E.path().extension() == ".opt")
      Opt = E.path();
  }
  EXPECT_EQ(Cubins, 1u);
  ASSERT_FALSE(Opt.empty());
  // The entry is what a later command takes: change its recorded detail
  // and the next compile returns it (no NVRTC run).
  std::ofstream(Opt) << "skipped 0 incant_hist_kernel from the cache\n";
  cuda::CompiledKernels Again;
  ASSERT_TRUE(
      cuda::compileThroughDisk(L, G, "sm_90", Dir.string(), Again, Log));
  EXPECT_EQ(Again.Module->Cubin, First.Module->Cubin);
  EXPECT_EQ(Again.Opt.K, cuda::OptCheckResult::Skipped);
  EXPECT_EQ(Again.Opt.Detail, "from the cache");
  // A damaged entry is compiled again and rewritten.
  std::ofstream(Opt) << "ok\n";
  cuda::CompiledKernels Rebuilt;
  ASSERT_TRUE(
      cuda::compileThroughDisk(L, G, "sm_90", Dir.string(), Rebuilt, Log));
  EXPECT_EQ(Rebuilt.Opt.K, First.Opt.K);
  EXPECT_EQ(Rebuilt.Opt.Detail, First.Opt.Detail);
  // Another test is another entry.
  cuda::GeneratedTest S = generate(sb());
  cuda::CompiledKernels Other;
  ASSERT_TRUE(
      cuda::compileThroughDisk(L, S, "sm_90", Dir.string(), Other, Log));
  EXPECT_NE(Other.Module->Cubin, First.Module->Cubin);
  fs::remove_all(Dir);
}
