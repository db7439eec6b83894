// Spin-lock dot product (the idiom of CUDA by Example's dot product).
//
// Each block reduces chunks of a . b in shared memory; thread 0 then adds
// the chunk's partial sum to one global accumulator inside a critical
// section guarded by a spin lock (atomicCAS to take it, atomicExch to give
// it back). The accumulator is read and written with ordinary loads and
// stores, so the lock must order them: a fence after taking the lock
// (acquire) and one before giving it back (release). Without them a block
// may read an old accumulator value (from its SM's L1 or a store still in
// flight) and lose another block's addition.
//
// Post-condition: the accumulated sum and the number of additions equal the
// CPU's exactly (64-bit integers).
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4; // per thread and chunk
constexpr int kChunk = kThreads * kItems;

struct Accumulator {
  long long sum;
  unsigned long long additions;
};

__device__ bool lock(int *mutex) {
  APP_WAIT(wait);
  while (atomicCAS(mutex, 0, 1) != 0)
    if (!wait.more())
      return false;
  APP_FENCE(); // acquire: see the last holder's writes
  return true;
}

__device__ void unlock(int *mutex) {
  APP_FENCE(); // release: our writes before the lock is seen free
  atomicExch(mutex, 0);
}

__global__ void dot(const int *a, const int *b, unsigned n, int *mutex,
                    Accumulator *acc) {
  __shared__ long long partial[kThreads];
  __shared__ bool hung;
  unsigned chunks = (n + kChunk - 1) / kChunk;
  for (unsigned c = blockIdx.x; c < chunks; c += gridDim.x) {
    long long mine = 0;
    for (unsigned k = 0; k < kItems; ++k) {
      unsigned i = c * kChunk + k * kThreads + threadIdx.x;
      if (i < n)
        mine += static_cast<long long>(a[i]) * b[i];
    }
    partial[threadIdx.x] = mine;
    __syncthreads();
    for (unsigned s = kThreads / 2; s > 0; s /= 2) {
      if (threadIdx.x < s)
        partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      hung = !lock(mutex);
      if (!hung) {
        acc->sum += partial[0];
        acc->additions += 1;
        unlock(mutex);
      }
    }
    __syncthreads(); // partial[] is reused by the next chunk
    if (hung)
      return; // reported as a hang by the host
  }
}

struct Dot {
  static constexpr const char *name = "dot";
  static constexpr unsigned long long default_size = 1ull << 20;
  static constexpr const char *size_meaning = "elements per vector";

  explicit Dot(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)),
        blocks_(app::default_blocks(o, 8)), a_(n_), b_(n_), mutex_(1),
        acc_(1) {
    app::Random rng(o.seed);
    std::vector<int> a(n_), b(n_);
    for (unsigned i = 0; i < n_; ++i) {
      a[i] = static_cast<int>(rng.below(2001)) - 1000;
      b[i] = static_cast<int>(rng.below(2001)) - 1000;
      expected_ += static_cast<long long>(a[i]) * b[i];
    }
    a_.upload(a);
    b_.upload(b);
    chunks_ = (n_ + kChunk - 1) / kChunk;
  }

  app::Verdict run(app::Timer &t) {
    mutex_.fill_bytes(0);
    acc_.fill_bytes(0);
    t.start();
    dot<<<blocks_, kThreads>>>(a_.get(), b_.get(), n_, mutex_.get(),
                               acc_.get());
    t.stop();
    Accumulator got = acc_.download()[0];
    if (got.sum != expected_ || got.additions != chunks_)
      return app::wrong(app::format(
          "sum %lld from %llu additions, expected %lld from %u", got.sum,
          got.additions, expected_, chunks_));
    return app::pass(app::format("sum %lld from %u locked additions, %u blocks",
                                 got.sum, chunks_, blocks_));
  }

  unsigned n_, blocks_, chunks_ = 0;
  long long expected_ = 0;
  app::DeviceArray<int> a_, b_, mutex_;
  app::DeviceArray<Accumulator> acc_;
};

} // namespace

int main(int argc, char **argv) { return app::main<Dot>(argc, argv); }
