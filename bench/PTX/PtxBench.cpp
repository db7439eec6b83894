//===- PtxBench.cpp - PTX parser and printer throughput ---------------------===//
//
// Reads every module of the PTX corpus (the build's corpus/ptx/*.ptx, made
// by the ptx-corpus target, and corpus/ptx/handwritten/*.ptx) into memory,
// then measures, per iteration over the whole corpus:
//   BM_Parse       parseModule
//   BM_Print       printModule (of modules parsed once beforehand)
//   BM_ParsePrint  both, one after the other
// bytes_per_second counts the bytes of PTX source read (for BM_Print too),
// so the three figures compare directly. Run it on one core
// (taskset -c 0) from a Release build; docs/ptx-parser.md has the numbers.
//
//===----------------------------------------------------------------------===//
#include "incant/PTX/Module.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

using namespace incant;
namespace fs = std::filesystem;

namespace {

struct Corpus {
  std::vector<std::shared_ptr<SourceFile>> Files;
  std::vector<ptx::Module> Modules;
  int64_t Bytes = 0;
};

const Corpus &corpus() {
  static Corpus C = [] {
    Corpus C;
    std::vector<fs::path> Paths;
    for (const char *Dir :
         {INCANT_PTX_CORPUS_DIR, INCANT_SOURCE_DIR "/corpus/ptx/handwritten"}) {
      std::error_code EC;
      for (const fs::directory_entry &E : fs::directory_iterator(Dir, EC))
        if (E.is_regular_file() && E.path().extension() == ".ptx")
          Paths.push_back(E.path());
    }
    std::sort(Paths.begin(), Paths.end());
    for (const fs::path &P : Paths) {
      std::string Error;
      auto F = SourceFile::read(P.string(), Error);
      if (!F)
        continue;
      DiagnosticEngine D;
      std::optional<ptx::Module> M = ptx::parseModule(F, D);
      if (!M) {
        std::cerr << P << ": does not parse; left out\n";
        continue;
      }
      C.Bytes += static_cast<int64_t>(F->text().size());
      C.Files.push_back(std::move(F));
      C.Modules.push_back(std::move(*M));
    }
    std::cerr << "PTX corpus: " << C.Files.size() << " modules, " << C.Bytes
              << " bytes\n";
    return C;
  }();
  return C;
}

void BM_Parse(benchmark::State &S) {
  const Corpus &C = corpus();
  for (auto _ : S) {
    for (const auto &F : C.Files) {
      DiagnosticEngine D;
      std::optional<ptx::Module> M = ptx::parseModule(F, D);
      benchmark::DoNotOptimize(M);
    }
  }
  S.SetBytesProcessed(S.iterations() * C.Bytes);
}

void BM_Print(benchmark::State &S) {
  const Corpus &C = corpus();
  std::string Out;
  for (auto _ : S) {
    for (const ptx::Module &M : C.Modules) {
      Out.clear();
      ptx::printModule(M, Out);
      benchmark::DoNotOptimize(Out.data());
    }
  }
  S.SetBytesProcessed(S.iterations() * C.Bytes);
}

void BM_ParsePrint(benchmark::State &S) {
  const Corpus &C = corpus();
  std::string Out;
  for (auto _ : S) {
    for (const auto &F : C.Files) {
      DiagnosticEngine D;
      std::optional<ptx::Module> M = ptx::parseModule(F, D);
      Out.clear();
      ptx::printModule(*M, Out);
      benchmark::DoNotOptimize(Out.data());
    }
  }
  S.SetBytesProcessed(S.iterations() * C.Bytes);
}

BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParsePrint)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
