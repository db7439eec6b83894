// Split-phase grid barrier in a cooperative launch: an idiom the PLDI'16
// study left out because its applications' barriers relied on occupancy;
// a cooperative launch guarantees that every block is resident.
//
// A ring of cells evolves for kSteps steps; each cell's next value depends
// on itself and its two neighbours. Each block owns a segment of the ring,
// double-buffered. In each step a block first computes its two boundary
// cells (which read the neighbouring blocks' cells), arrives at the
// barrier, computes its interior (which reads only its own cells) while the
// others arrive, and then waits. Arriving is an atomicAdd on a counter; the
// last block to arrive resets it and bumps a generation number that the
// waiters poll. An arrival needs a fence before it (release: this block's
// boundary cells before the count), the last arriver one between the reset
// and the new generation, and a waiter one after it sees the generation
// change (acquire: the neighbours' cells after the barrier). Without them a
// block may read a neighbour's cell from the step before.
//
// Post-condition: after kSteps steps every cell equals the CPU's.
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr unsigned kSteps = 32;

struct Barrier {
  unsigned count, generation;
};

__host__ __device__ unsigned rule(unsigned left, unsigned self,
                                  unsigned right, unsigned step) {
  return ((left << 5) | (left >> 27)) ^ self ^ (right + step * 0x9e3779b9u);
}

// Thread 0, after __syncthreads(): the generation to wait on.
__device__ unsigned arrive(Barrier *b) {
  unsigned g = app::load_volatile(&b->generation);
  APP_FENCE(); // release: the block's cells before its arrival
  if (atomicAdd(&b->count, 1) == gridDim.x - 1) {
    app::store_volatile(&b->count, 0u);
    APP_FENCE(); // the reset before the next generation
    app::store_volatile(&b->generation, g + 1);
  }
  return g;
}

// Thread 0, before __syncthreads(): false if the barrier never opened.
__device__ bool wait(Barrier *b, unsigned g) {
  APP_WAIT(w);
  while (app::load_volatile(&b->generation) == g)
    if (!w.more())
      return false;
  APP_FENCE(); // acquire: the other blocks' cells after the barrier
  return true;
}

__global__ void evolve(unsigned *a, unsigned *b, unsigned n, Barrier *bar) {
  __shared__ unsigned generation;
  __shared__ bool failed;
  unsigned per = (n + gridDim.x - 1) / gridDim.x;
  unsigned lo = min(n, blockIdx.x * per), hi = min(n, lo + per);
  for (unsigned step = 0; step < kSteps; ++step) {
    const unsigned *src = step % 2 ? b : a;
    unsigned *dst = step % 2 ? a : b;
    // Phase 1: the boundary cells, which read the neighbouring segments.
    if (lo < hi) {
      if (threadIdx.x == 0)
        dst[lo] = rule(src[(lo + n - 1) % n], src[lo], src[(lo + 1) % n],
                       step);
      if (threadIdx.x == 1 && hi - 1 > lo)
        dst[hi - 1] = rule(src[hi - 2], src[hi - 1], src[hi % n], step);
    }
    __syncthreads();
    if (threadIdx.x == 0)
      generation = arrive(bar);
    // Phase 2, while the others arrive: the interior, our cells only.
    for (unsigned i = lo + 1 + threadIdx.x; i + 1 < hi; i += kThreads)
      dst[i] = rule(src[i - 1], src[i], src[i + 1], step);
    if (threadIdx.x == 0)
      failed = !wait(bar, generation);
    __syncthreads();
    if (failed)
      return; // reported as a hang by the host
  }
}

struct GridBarrier {
  static constexpr const char *name = "gridbarrier";
  static constexpr unsigned long long default_size = 1ull << 19;
  static constexpr const char *size_meaning = "cells in the ring";

  explicit GridBarrier(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)), start_(n_), a_(n_), b_(n_),
        bar_(1) {
    int cooperative = 0, per_sm = 0;
    APP_CUDA(cudaDeviceGetAttribute(&cooperative,
                                    cudaDevAttrCooperativeLaunch, 0));
    if (!cooperative)
      app::setup_error("the device cannot launch cooperative kernels");
    APP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, evolve,
                                                           kThreads, 0));
    unsigned resident = static_cast<unsigned>(per_sm * o.sms);
    blocks_ = std::min(o.blocks ? o.blocks : resident, n_);
    if (blocks_ > resident)
      app::setup_error(app::format("--blocks: at most %u blocks can be "
                                   "resident at once",
                                   resident));
    app::Random rng(o.seed);
    std::vector<unsigned> cells(n_), next(n_);
    for (unsigned &c : cells)
      c = static_cast<unsigned>(rng.next());
    start_.upload(cells);
    for (unsigned step = 0; step < kSteps; ++step) {
      for (unsigned i = 0; i < n_; ++i)
        next[i] = rule(cells[(i + n_ - 1) % n_], cells[i],
                       cells[(i + 1) % n_], step);
      cells.swap(next);
    }
    expected_ = cells;
  }

  app::Verdict run(app::Timer &t) {
    APP_CUDA(cudaMemcpy(a_.get(), start_.get(), n_ * sizeof(unsigned),
                        cudaMemcpyDeviceToDevice));
    b_.fill_bytes(0xff);
    bar_.fill_bytes(0);
    unsigned *a = a_.get(), *b = b_.get(), n = n_;
    Barrier *bar = bar_.get();
    void *args[] = {&a, &b, &n, &bar};
    t.start();
    APP_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(evolve),
                                         blocks_, kThreads, args));
    t.stop();
    std::vector<unsigned> got = (kSteps % 2 ? b_ : a_).download();
    for (unsigned i = 0; i < n_; ++i)
      if (got[i] != expected_[i])
        return app::wrong(app::format(
            "cell %u (block %u) is %08x after %u steps, expected %08x", i,
            i / ((n_ + blocks_ - 1) / blocks_), got[i], kSteps, expected_[i]));
    return app::pass(app::format("%u cells, %u steps, %u barriers across %u "
                                 "blocks, every cell exact",
                                 n_, kSteps, kSteps, blocks_));
  }

  unsigned n_, blocks_ = 0;
  std::vector<unsigned> expected_;
  app::DeviceArray<unsigned> start_, a_, b_;
  app::DeviceArray<Barrier> bar_;
};

} // namespace

int main(int argc, char **argv) { return app::main<GridBarrier>(argc, argv); }
