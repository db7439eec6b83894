//===- CheckBench.cpp - Tests checked per second: parse + lower + check ---===//
//
// BM_Library/<model>: every .litmus file under litmus/ with a shipped model.
// BM_Shapes/<model>:  the 3- and 4-thread tests in bench/Model/Inputs/.
// One iteration checks every test of its set once, from text (the files are
// read into memory first); the counter tests/s is the figure to report
// (docs/checker.md). Run it on one core (taskset -c 0).
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Model.h"
#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"
#include "incant/Model/Check.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace incant;
namespace fs = std::filesystem;

namespace {

struct Input {
  std::string Path;
  std::string Text;
};

std::vector<Input> readTests(const fs::path &Dir) {
  std::vector<Input> Out;
  std::error_code EC;
  if (!fs::is_directory(Dir, EC))
    return Out;
  for (const fs::directory_entry &E :
       fs::recursive_directory_iterator(Dir, EC)) {
    if (!E.is_regular_file() || E.path().extension() != ".litmus")
      continue;
    std::ifstream In(E.path());
    std::stringstream SS;
    SS << In.rdbuf();
    Out.push_back({E.path().string(), SS.str()});
  }
  std::sort(Out.begin(), Out.end(),
            [](const Input &A, const Input &B) { return A.Path < B.Path; });
  return Out;
}

/// Parses and lowers once to drop the tests that do not load (reported).
std::vector<Input> loadable(std::vector<Input> Tests) {
  std::vector<Input> Out;
  for (Input &T : Tests) {
    DiagnosticEngine Diags;
    auto F = std::make_shared<SourceFile>(T.Path, T.Text);
    std::optional<litmus::Test> Parsed = litmus::parseTest(F, Diags);
    if (Parsed && litmus::lower(*Parsed, Diags))
      Out.push_back(std::move(T));
    else
      std::cerr << "CheckBench: skipping " << T.Path << " (does not load)\n";
  }
  return Out;
}

void runChecks(benchmark::State &St, const std::vector<Input> &Tests,
               const std::string &ModelPath) {
  DiagnosticEngine Diags(&std::cerr);
  std::optional<cat::Model> M = cat::Model::load(ModelPath, Diags);
  if (!M || Tests.empty()) {
    St.SkipWithError(!M ? "model does not load" : "no tests");
    return;
  }
  uint64_t Candidates = 0, Checked = 0;
  for (auto _ : St) {
    for (const Input &T : Tests) {
      DiagnosticEngine D;
      auto F = std::make_shared<SourceFile>(T.Path, T.Text);
      std::optional<litmus::Test> Parsed = litmus::parseTest(F, D);
      if (!Parsed)
        continue;
      std::optional<litmus::Program> P = litmus::lower(*Parsed, D);
      if (!P)
        continue;
      model::CheckResult R = model::check(*P, *M);
      benchmark::DoNotOptimize(R.Ok);
      Candidates += R.Candidates;
      ++Checked;
    }
  }
  St.counters["tests/s"] =
      benchmark::Counter(double(Checked), benchmark::Counter::kIsRate);
  St.counters["candidates/test"] =
      Checked ? double(Candidates) / double(Checked) : 0.0;
  St.counters["tests"] = double(Tests.size());
}

const fs::path SourceDir = INCANT_SOURCE_DIR;

void registerAll() {
  static std::vector<Input> Library =
      loadable(readTests(SourceDir / "litmus"));
  static std::vector<Input> Shapes =
      loadable(readTests(SourceDir / "bench" / "Model" / "Inputs"));
  std::vector<fs::path> Models;
  std::error_code EC;
  for (const fs::directory_entry &E :
       fs::directory_iterator(SourceDir / "models", EC))
    if (E.path().extension() == ".cat")
      Models.push_back(E.path());
  std::sort(Models.begin(), Models.end());
  for (const fs::path &M : Models) {
    std::string Name = M.stem().string();
    benchmark::RegisterBenchmark(("BM_Library/" + Name).c_str(),
                                 [M](benchmark::State &St) {
                                   runChecks(St, Library, M.string());
                                 })
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Shapes/" + Name).c_str(),
                                 [M](benchmark::State &St) {
                                   runChecks(St, Shapes, M.string());
                                 })
        ->Unit(benchmark::kMillisecond);
  }
}

} // namespace

int main(int Argc, char **Argv) {
  benchmark::Initialize(&Argc, Argv);
  registerAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
