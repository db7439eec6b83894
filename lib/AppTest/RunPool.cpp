//===- RunPool.cpp - Runs of one application, several at once -------------===//
#include "incant/AppTest/RunPool.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

namespace incant::apptest {

Expected<std::unique_ptr<RunPool>>
RunPool::make(std::unique_ptr<AppRunner> First, const AppUnderTest &App,
              unsigned Jobs, DiagnosticEngine &Diags) {
  std::unique_ptr<RunPool> P(new RunPool());
  P->Runners.push_back(std::move(First));
  for (unsigned K = 1; K < Jobs; ++K) {
    auto R = AppRunner::make(App, Diags);
    if (!R)
      return R.error();
    P->Runners.push_back(std::move(*R));
  }
  if (Jobs > 1) {
    const char *T = std::getenv("TMPDIR");
    static std::atomic<unsigned> Next{0};
    P->LockFile = fmt::format("{}/incant-gpu-{}-{}.lock", T && *T ? T : "/tmp",
                              getpid(), Next++);
    for (std::unique_ptr<AppRunner> &R : P->Runners)
      R->setGpuLock(P->LockFile);
  }
  return P;
}

RunPool::~RunPool() {
  if (!LockFile.empty())
    std::remove(LockFile.c_str());
}

void RunPool::forEach(
    const std::function<bool(uint64_t, AppRunner &)> &Body) {
  std::atomic<uint64_t> Next{0};
  std::atomic<bool> Stop{false};
  auto Work = [&](AppRunner &R) {
    while (!Stop) {
      uint64_t I = Next++;
      if (!Body(I, R)) {
        Stop = true;
        return;
      }
    }
  };
  std::vector<std::thread> Threads;
  for (size_t K = 1; K < Runners.size(); ++K)
    Threads.emplace_back(Work, std::ref(*Runners[K]));
  Work(*Runners[0]);
  for (std::thread &T : Threads)
    T.join();
}

} // namespace incant::apptest
