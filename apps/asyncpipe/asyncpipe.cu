// Two-stage pipeline on cuda::barrier and cuda::memcpy_async, the way the
// CUDA Programming Guide's asynchronous-copy examples are written.
//
// Each block walks its tiles of the input. While it computes on tile i in
// stage i % 2, the copy of tile i + 1 into the other stage is in flight:
// every thread issues cuda::memcpy_async of its element, completed on the
// stage's barrier (PTX: cp.async.ca.shared.global and
// cp.async.mbarrier.arrive.noinc on an mbarrier), and before it reads a stage
// it waits on that barrier (arrive_and_wait: mbarrier.arrive and
// mbarrier.try_wait). A thread reads its own element and its neighbour's,
// so the wait is what makes the other threads' copies visible; a
// __syncthreads() at the end of each tile frees the stage for the next copy.
// The -nf build reads the stage before waiting on its barrier: the read
// races with the copy into it.
//
// Post-condition: every output equals the CPU's.
#include "../common/app.h"

#include <cuda/barrier>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kTile = kThreads; // one element per thread

using Barrier = cuda::barrier<cuda::thread_scope_block>;

__host__ __device__ unsigned combine(unsigned a, unsigned b) {
  return a * 3u + (b ^ (b >> 7));
}

__device__ void copy_tile(unsigned *stage, const unsigned *in, unsigned tile,
                          Barrier &bar) {
  unsigned t = threadIdx.x;
  cuda::memcpy_async(&stage[t], &in[tile * kTile + t],
                     cuda::aligned_size_t<4>(sizeof(unsigned)), bar);
}

__global__ void pipelined(const unsigned *in, unsigned tiles, unsigned *out) {
  __shared__ unsigned stage[2][kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ Barrier bar[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    init(&bar[0], blockDim.x);
    init(&bar[1], blockDim.x);
  }
  __syncthreads();
  unsigned first = blockIdx.x;
  if (first < tiles)
    copy_tile(stage[0], in, first, bar[0]);
  for (unsigned i = 0, tile = first; tile < tiles; ++i, tile += gridDim.x) {
    unsigned s = i % 2;
    if (tile + gridDim.x < tiles)
      copy_tile(stage[1 - s], in, tile + gridDim.x, bar[1 - s]);
#ifdef APP_NF
    unsigned a = stage[s][t], b = stage[s][(t + 1) % kTile];
    bar[s].arrive_and_wait();
#else
    bar[s].arrive_and_wait(); // this stage's copies have landed
    unsigned a = stage[s][t], b = stage[s][(t + 1) % kTile];
#endif
    out[tile * kTile + t] = combine(a, b);
    __syncthreads(); // every thread read stage s before it is refilled
  }
}

struct AsyncPipe {
  static constexpr const char *name = "asyncpipe";
  static constexpr unsigned long long default_size = 1ull << 22;
  static constexpr const char *size_meaning =
      "elements (a multiple of 256, the tile)";

  explicit AsyncPipe(const app::Options &o)
      : tiles_(static_cast<unsigned>(o.size / kTile)),
        blocks_(std::min(tiles_, app::default_blocks(o, 4))), in_(o.size),
        out_(o.size) {
    if (o.size % kTile)
      app::setup_error("--size: a multiple of 256 (the tile)");
    std::vector<unsigned> in = app::random_words(o.size, o.seed);
    in_.upload(in);
    expected_.resize(o.size);
    for (size_t i = 0; i < in.size(); ++i)
      expected_[i] = combine(in[i], in[i - i % kTile + (i + 1) % kTile]);
  }

  app::Verdict run(app::Timer &t) {
    return app::run_checked(
        t, out_, expected_, kTile,
        app::format("%u tiles through 2 stages in %u blocks, "
                    "every output exact",
                    tiles_, blocks_),
        [&] {
          pipelined<<<blocks_, kThreads>>>(in_.get(), tiles_, out_.get());
        });
  }

  unsigned tiles_, blocks_;
  std::vector<unsigned> expected_;
  app::DeviceArray<unsigned> in_;
  app::DeviceArray<unsigned> out_;
};

} // namespace

int main(int argc, char **argv) { return app::main<AsyncPipe>(argc, argv); }
