//===- RaceBench.cpp - incant race's analysis time per kernel -------------===//
//
//   build/bench/Race/RaceBench [--ptx-list=FILE] [Google Benchmark flags]
//
// One benchmark per kernel of the PTX files CMake prepared (the kernel
// library of test/race and the IR tests' kernels), or of the PTX files
// FILE names (one path a line: kernels of a suite compiled outside the
// repository, docs/race.md says how): checkModule with the
// launch symbolic, as `incant race FILE.ptx --kernel NAME` does, in one
// process (the Z3 context is made once, as in one incant run). At the end,
// the median wall and CPU time per kernel over all of them (on a shared
// machine the wall time grows with its load; the CPU time does not).
// Numbers go to docs/race.md.
//
//===----------------------------------------------------------------------===//
#include "incant/IR/Inliner.h"
#include "incant/Race/Race.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>

using namespace incant;

namespace {

struct Loaded {
  std::string File;
  std::unique_ptr<ptx::Module> M;
  std::vector<std::string> Kernels;
};

std::vector<Loaded> &modules() {
  static std::vector<Loaded> Ms;
  return Ms;
}

/// Keeps each benchmark's real time per iteration.
class Collect : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &Runs) override {
    for (const Run &R : Runs)
      if (R.run_type == Run::RT_Iteration && R.iterations > 0) {
        Real.push_back(R.GetAdjustedRealTime()); // in the run's unit (ms)
        Cpu.push_back(R.GetAdjustedCPUTime());
      }
    ConsoleReporter::ReportRuns(Runs);
  }
  std::vector<double> Real, Cpu;
};

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> Paths;
  std::stringstream Builtin(INCANT_RACE_BENCH_FILES);
  for (std::string Path; std::getline(Builtin, Path, ',');)
    Paths.push_back(Path);
  // --ptx-list=FILE replaces the built-in files; the rest of the
  // arguments are Google Benchmark's.
  int Kept = 1;
  bool FromList = false;
  for (int I = 1; I < argc; ++I) {
    std::string_view A = argv[I];
    if (A.substr(0, 11) != "--ptx-list=") {
      argv[Kept++] = argv[I];
      continue;
    }
    std::ifstream In{std::string(A.substr(11))};
    if (!In) {
      std::fprintf(stderr, "RaceBench: cannot read %s\n", argv[I] + 11);
      return 2;
    }
    Paths.clear();
    FromList = true;
    for (std::string Line; std::getline(In, Line);)
      if (!Line.empty())
        Paths.push_back(Line);
  }
  argc = Kept;
  for (const std::string &Path : Paths) {
    std::string Error;
    auto File = SourceFile::read(Path, Error);
    if (!File) {
      std::fprintf(stderr, "RaceBench: %s: %s\n", Path.c_str(), Error.c_str());
      continue;
    }
    DiagnosticEngine Diags;
    std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
    if (!M)
      continue;
    Loaded L;
    // A suite's files may share a name (kernel.ptx): name them by path.
    L.File = FromList ? Path : Path.substr(Path.find_last_of('/') + 1);
    L.M = std::make_unique<ptx::Module>(std::move(*M));
    for (const ptx::ModuleItem &I : L.M->Items)
      if (const auto *F = std::get_if<ptx::Function>(&I); F && F->IsEntry)
        L.Kernels.push_back(F->Name);
    modules().push_back(std::move(L));
  }
  for (const Loaded &L : modules())
    for (const std::string &K : L.Kernels) {
      const ptx::Module *M = L.M.get();
      benchmark::RegisterBenchmark(
          (L.File + "/" + K).c_str(),
          [M, K](benchmark::State &S) {
            race::Options O;
            O.Kernel = K;
            for (auto _ : S) {
              race::ModuleReport R = race::checkModule(*M, O);
              benchmark::DoNotOptimize(R);
            }
          })
          ->Unit(benchmark::kMillisecond);
    }
  benchmark::Initialize(&argc, argv);
  Collect Reporter;
  benchmark::RunSpecifiedBenchmarks(&Reporter);
  for (auto [What, T] : {std::pair{"wall", &Reporter.Real},
                         std::pair{"cpu", &Reporter.Cpu}}) {
    if (T->empty())
      continue;
    std::sort(T->begin(), T->end());
    size_t N = T->size();
    double Median = N % 2 ? (*T)[N / 2] : ((*T)[N / 2 - 1] + (*T)[N / 2]) / 2;
    std::printf("%zu kernels, %s time: median %.1f ms, min %.1f ms, max "
                "%.1f ms per kernel\n",
                N, What, Median, T->front(), T->back());
  }
  benchmark::Shutdown();
  return 0;
}
