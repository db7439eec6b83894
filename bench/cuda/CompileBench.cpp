//===- CompileBench.cpp - CPU cost of preparing CUDA tests by batch size --===//
//
// What a cold campaign pays per test on the CPU before the GPU runs it:
// CudaBackend::prepare (code generation, one NVRTC compile per batch, the
// SASS listing and optcheck where cuobjdump or nvdisasm is found) over the
// same tests in batches of each size given, on --threads threads as a
// campaign's --jobs. Prints, per batch size, the CPU seconds per test (this
// process and the programs it ran), the wall time, and the share of its
// time inside prepare() that a thread was on a CPU, and how often a thread
// gave its CPU up to wait (voluntary context switches, per test): with
// several threads, many more waits than with one mean the threads wait
// for each other (a lock in NVRTC), not for a busy machine. With several
// threads, "together" is the share of 5 ms windows, among those in which
// two or more threads were inside prepare() throughout, in which two or
// more of them ran (their CPU clocks advanced): near 0 % means prepare()
// runs one thread at a time, whatever the load. Needs NVRTC (libnvrtc),
// not a GPU: --arch names the target. "sys" is the share of that CPU spent
// in the kernel (page faults, mmap, the children's start). --keep-memory
// makes malloc keep what is freed, as a campaign with several --jobs does
// (Support/Memory.h). The first line says how many skeletons the tests
// share (CUDA/Splice.h: NVRTC compiles each once).
//
// --compare-whole checks instead that splicing (CUDA/Splice.h, the
// default) makes the code NVRTC makes of the whole batch: for each batch of
// the first size, one thread, each test's kernel and histogram kernel must
// have the same bytes (cubin .text sections) and the same optcheck line
// both ways; prints the tests that differ and a count.
//
//   incant-cuda-compile [--arch sm_90] [--batch 1,4,16,64] [--threads T]
//                       [--tests N] [--keep-memory] [--compare-whole] PATH...
//
// Exit codes: 0 measured (or the same code), 1 some code differs, 2 usage
// or input error, 3 no NVRTC.
//
//===----------------------------------------------------------------------===//
#include "incant/CUDA/Codegen.h"
#include "incant/CUDA/CudaBackend.h"
#include "incant/CUDA/Splice.h"
#include "incant/Litmus/Load.h"
#include "incant/Support/Memory.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <set>
#include <sys/resource.h>
#include <thread>

using namespace incant;

namespace {

/// CPU seconds of this process and the programs it ran: user and system.
std::pair<double, double> cpuSeconds() {
  double User = 0, Sys = 0;
  for (int Who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage U{};
    getrusage(Who, &U);
    User += double(U.ru_utime.tv_sec) + double(U.ru_utime.tv_usec) / 1e6;
    Sys += double(U.ru_stime.tv_sec) + double(U.ru_stime.tv_usec) / 1e6;
  }
  return {User, Sys};
}

/// Times this thread gave up its CPU to wait (a lock, I/O), not counting
/// preemption by other work on the machine.
long threadWaits() {
  rusage U{};
  getrusage(RUSAGE_THREAD, &U);
  return U.ru_nvcsw;
}

double threadCpuSeconds() {
  timespec T{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return double(T.tv_sec) + double(T.tv_nsec) / 1e9;
}

/// Prepares \p Tests in batches of \p B, spliced and whole, and compares
/// each test's kernels and optcheck line. The exit code.
int compareWhole(const cuda::CudaTuning &Tuning,
                 const std::vector<litmus::LoadedTest> &Tests, unsigned B) {
  size_t Same = 0, Differ = 0, Failed = 0, NotPrepared = 0;
  for (size_t I = 0; I < Tests.size(); I += B) {
    size_t N = std::min<size_t>(B, Tests.size() - I);
    std::vector<harness::RunRequest> Reqs(N);
    for (size_t J = 0; J < N; ++J) {
      Reqs[J].Prog = &Tests[I + J].Prog;
      Reqs[J].File = Tests[I + J].File;
    }
    // A fresh backend each way: nothing compiled before is reused.
    auto Prepare = [&](bool Spliced) {
      if (Spliced)
        unsetenv("INCANT_CUDA_SPLICE");
      else
        setenv("INCANT_CUDA_SPLICE", "0", 1);
      std::vector<DiagnosticEngine> Ds(N);
      std::vector<DiagnosticEngine *> DPs;
      for (auto &D : Ds)
        DPs.push_back(&D);
      return cuda::createCudaBackend(Tuning)->prepare(Reqs, DPs);
    };
    auto S = Prepare(true), W = Prepare(false);
    unsetenv("INCANT_CUDA_SPLICE");
    for (size_t J = 0; J < N; ++J) {
      if (!S[J] && !W[J]) { // no CUDA form (an input error) either way
        ++NotPrepared;
        continue;
      }
      if (!S[J] || !W[J]) {
        ++Failed;
        fmt::print("differs: {}: prepared one way only\n",
                   Tests[I + J].File->name());
        continue;
      }
      auto A = cuda::summarisePrepared(**S[J]);
      auto C = cuda::summarisePrepared(**W[J]);
      auto TA = cuda::cubinTextSections(std::string(A->Cubin));
      auto TC = cuda::cubinTextSections(std::string(C->Cubin));
      std::vector<std::string> Why;
      if (!TA.count(A->TestKernel) || TA[A->TestKernel] != TC[C->TestKernel])
        Why.push_back("test kernel");
      if (!TA.count(A->HistKernel) || TA[A->HistKernel] != TC[C->HistKernel])
        Why.push_back("histogram kernel");
      if (A->OptCheck != C->OptCheck)
        Why.push_back(fmt::format("optcheck ({} / {})", A->OptCheck,
                                  C->OptCheck));
      if (Why.empty()) {
        ++Same;
        continue;
      }
      ++Differ;
      std::string What;
      for (const auto &X : Why)
        What += (What.empty() ? "" : ", ") + X;
      fmt::print("differs: {}: {}\n", Tests[I + J].File->name(), What);
    }
  }
  fmt::print("{} test(s) with the same code spliced and whole, {} differ, {} "
             "prepared one way only, {} prepared neither way\n",
             Same, Differ, Failed, NotPrepared);
  return Differ || Failed ? 1 : 0;
}

} // namespace

int main(int Argc, char **Argv) {
  CLI::App App("CPU cost of CudaBackend::prepare per test, by batch size");
  std::string Arch = "sm_90";
  std::vector<unsigned> Sizes = {1, 4, 16, 64};
  unsigned MaxTests = 64, Threads = 1;
  std::vector<std::string> Paths;
  App.add_option("--arch", Arch, "Target architecture")->capture_default_str();
  App.add_option("--batch", Sizes, "Batch sizes, comma-separated")
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false)
      ->check(CLI::Range(1u, 4096u));
  App.add_option("--tests", MaxTests, "Tests taken (the first, sorted)")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  App.add_option("--threads", Threads, "Threads preparing batches at once")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  bool KeepMemory = false;
  App.add_flag("--keep-memory", KeepMemory,
               "malloc keeps freed memory, as a campaign does");
  bool Compare = false;
  App.add_flag("--compare-whole", Compare,
               "compare spliced and whole modules' code instead");
  App.add_option("paths", Paths, ".litmus files or folders")->required();
  CLI11_PARSE(App, Argc, Argv);
  if (KeepMemory && !keepFreedMemory())
    std::cerr << "incant-cuda-compile: --keep-memory: not glibc's malloc\n";

  std::vector<std::string> Files;
  std::string E;
  if (!litmus::expandFolders(Paths, Files, E)) {
    std::cerr << "incant-cuda-compile: " << E << '\n';
    return 2;
  }
  if (Files.size() > MaxTests)
    Files.resize(MaxTests);
  DiagnosticEngine Diags(&std::cerr);
  std::vector<litmus::LoadedTest> Tests;
  for (const std::string &F : Files) {
    std::optional<litmus::LoadedTest> T = litmus::loadTest(F, Diags);
    if (!T)
      return 2;
    Tests.push_back(std::move(*T));
  }
  cuda::CudaTuning Tuning;
  Tuning.PrepareArch = Arch;
  if (Compare)
    return compareWhole(Tuning, Tests, Sizes.front());
  // How many skeletons (CUDA/Splice.h) the tests share: NVRTC compiles
  // each once when batches are spliced.
  std::set<std::string> Skeletons;
  for (const auto &T : Tests) {
    DiagnosticEngine Quiet;
    if (auto G = cuda::generateCuda(T.Prog, {}, T.File, Quiet))
      Skeletons.insert(cuda::skeletonOf(G->Source).Source);
  }
  fmt::print("{} tests ({} skeletons), {}, {} thread(s){}\n{:>6} {:>14} {:>6} "
             "{:>10} {:>12} {:>12} {:>8} {:>10}\n",
             Tests.size(), Skeletons.size(), Arch, Threads,
             KeepMemory ? ", --keep-memory" : "",
             "batch", "CPU s / test", "sys", "wall s", "on CPU", "waits/test",
             "failed", "together");
  for (unsigned B : Sizes) {
    // A fresh backend per size: nothing compiled before is reused.
    std::unique_ptr<harness::Backend> Be = cuda::createCudaBackend(Tuning);
    auto [User0, Sys0] = cpuSeconds();
    auto W0 = std::chrono::steady_clock::now();
    std::atomic<size_t> Next{0}, Failed{0};
    std::atomic<bool> NoNvrtc{false};
    std::mutex M;
    double InCpu = 0, InWall = 0; // summed over the threads, inside prepare()
    long InWaits = 0;
    auto Inside = std::make_unique<std::atomic<int>[]>(Threads);
    std::atomic<unsigned> Finished{0};
    std::atomic<bool> Release{false};
    auto Work = [&](unsigned Me) {
      for (size_t I; (I = Next.fetch_add(B)) < Tests.size();) {
        std::vector<harness::RunRequest> Reqs;
        std::vector<DiagnosticEngine> Ds(std::min<size_t>(B, Tests.size() - I));
        std::vector<DiagnosticEngine *> DPs;
        for (size_t J = I; J < I + Ds.size(); ++J) {
          harness::RunRequest R;
          R.Prog = &Tests[J].Prog;
          R.File = Tests[J].File;
          Reqs.push_back(R);
          DPs.push_back(&Ds[J - I]);
        }
        long V0 = threadWaits();
        double C0 = threadCpuSeconds();
        auto T0 = std::chrono::steady_clock::now();
        Inside[Me] = 1;
        auto Out = Be->prepare(Reqs, DPs);
        Inside[Me] = 0;
        double C = threadCpuSeconds() - C0;
        long V = threadWaits() - V0;
        double W = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - T0)
                       .count();
        std::lock_guard<std::mutex> L(M);
        InCpu += C;
        InWall += W;
        InWaits += V;
        for (size_t J = 0; J < Out.size(); ++J)
          if (!Out[J]) {
            if (Out[J].error() == ErrorKind::Device && !NoNvrtc.exchange(true))
              std::cerr << DiagnosticEngine::format(Ds[J].diagnostics()[0])
                        << '\n';
            ++Failed;
          }
      }
      // Alive until the sampler is done with this thread's clock.
      ++Finished;
      while (!Release)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    std::vector<std::thread> Pool;
    for (unsigned T = 0; T < Threads; ++T)
      Pool.emplace_back(Work, T);
    std::vector<clockid_t> Clocks(Threads);
    for (unsigned T = 0; T < Threads; ++T)
      pthread_getcpuclockid(Pool[T].native_handle(), &Clocks[T]);
    auto cpuOf = [&](unsigned T) {
      timespec X{};
      clock_gettime(Clocks[T], &X);
      return double(X.tv_sec) + double(X.tv_nsec) / 1e9;
    };
    size_t Windows = 0, Together = 0;
    while (Finished < Threads) {
      std::vector<double> C0(Threads);
      std::vector<int> In0(Threads);
      for (unsigned T = 0; T < Threads; ++T) {
        In0[T] = Inside[T];
        C0[T] = cpuOf(T);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      unsigned BothIn = 0, Ran = 0;
      for (unsigned T = 0; T < Threads; ++T)
        if (In0[T] && Inside[T]) {
          ++BothIn;
          Ran += cpuOf(T) - C0[T] > 0.0005;
        }
      if (BothIn >= 2) {
        ++Windows;
        Together += Ran >= 2;
      }
    }
    Release = true;
    for (std::thread &T : Pool)
      T.join();
    if (NoNvrtc)
      return 3;
    double Wall = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - W0)
                      .count();
    auto [User1, Sys1] = cpuSeconds();
    double Cpu = User1 - User0 + Sys1 - Sys0;
    fmt::print("{:>6} {:>14.4f} {:>5.0f}% {:>10.2f} {:>11.0f}% {:>12.1f} {:>8} "
               "{:>10}\n",
               B, Cpu / double(Tests.size()),
               100 * (Sys1 - Sys0) / std::max(Cpu, 1e-9), Wall,
               100 * InCpu / std::max(InWall, 1e-9),
               double(InWaits) / double(Tests.size()), Failed.load(),
               Windows ? fmt::format("{:.0f}% of {}",
                                     100.0 * double(Together) / double(Windows),
                                     Windows)
                       : std::string("-"));
  }
  return 0;
}
