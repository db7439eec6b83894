//===- SassCheckBench.cpp - CPU cost of reading a batch's SASS listing ----===//
//
// What a cold campaign pays per batch after the disassembler has run:
// splitSassByFunction over the module's listing, then checkSass on each
// test's kernel. The listing is unittests/CUDA/Inputs/mp-h100.sass (the MP
// harness as cuobjdump -sass writes it on the H100) repeated for tests
// 0..N-1 of a batch, as one module of N tests would list it. The counter
// lines/s is the figure to report (docs/campaign.md); run it on one core
// (taskset -c 0).
//
//===----------------------------------------------------------------------===//
#include "incant/CUDA/Batch.h"
#include "incant/CUDA/OptCheck.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace incant;

namespace {

std::string readInput(const char *Name) {
  std::ifstream F(std::string(INCANT_SOURCE_DIR) + "/unittests/CUDA/Inputs/" +
                  Name);
  std::stringstream S;
  S << F.rdbuf();
  return S.str();
}

/// mp-h100.sass as test \p K of a batch: its kernels renamed _K.
std::string asBatchMember(std::string Sass, int K) {
  for (const char *Name : {"incant_test_kernel", "incant_hist_kernel"}) {
    std::string From = std::string("Function : ") + Name + "\n";
    size_t P = Sass.find(From);
    if (P != std::string::npos)
      Sass.replace(P, From.size(), std::string("Function : ") + Name + "_" +
                                       std::to_string(K) + "\n");
  }
  return Sass;
}

/// MP's expected accesses: role 0 two stores, role 1 two loads.
const std::vector<std::vector<std::string>> &mpExpected() {
  static const std::vector<std::vector<std::string>> E = {{"ST", "ST"},
                                                          {"LD", "LD"}};
  return E;
}

void BM_SplitAndCheck(benchmark::State &St) {
  const int N = static_cast<int>(St.range(0));
  std::string One = readInput("mp-h100.sass");
  std::string Module;
  for (int K = 0; K < N; ++K)
    Module += asBatchMember(One, K);
  size_t Lines = static_cast<size_t>(
      std::count(Module.begin(), Module.end(), '\n'));
  size_t Ok = 0;
  for (auto _ : St) {
    auto F = cuda::splitSassByFunction(Module);
    for (int K = 0; K < N; ++K)
      Ok += cuda::checkSass(F[cuda::testKernelName(K)], mpExpected()).K ==
            cuda::OptCheckResult::Ok;
    benchmark::DoNotOptimize(Ok);
  }
  if (Ok != size_t(St.iterations()) * size_t(N))
    St.SkipWithError("a test's optcheck did not pass");
  St.counters["lines/s"] = benchmark::Counter(
      double(Lines) * double(St.iterations()), benchmark::Counter::kIsRate);
  St.counters["lines"] = double(Lines);
}
BENCHMARK(BM_SplitAndCheck)->Arg(16)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
