// Double-buffered tile pipeline on the Tensor Memory Accelerator's bulk
// copies (cp.async.bulk) and transaction-counting mbarriers, the structure
// of a Hopper GEMM's main loop.
//
// Each block walks its tiles of the input. One thread initialises a "full"
// mbarrier per stage (count 1) and, for each tile, announces the bytes to
// come (mbarrier.arrive.expect_tx) and issues one bulk copy of the tile
// from global into the stage, which completes its bytes on that barrier
// (.mbarrier::complete_tx::bytes). Every thread waits for the stage's
// phase (mbarrier.try_wait.parity with the phase parity of that use of the
// stage) before it reads it; a __syncthreads() at the end of each tile
// frees the stage for the copy two tiles later. The copy of tile i + 1 is
// in flight while tile i is computed on. The -nf build reads the stage
// before waiting: the reads race with the bulk copy into it.
//
// Post-condition: every output equals the CPU's (each thread sums 8 values
// of a tile, weighted by position).
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr unsigned kTile = 2048; // elements (8 KiB) per tile
constexpr unsigned kPer = kTile / kThreads;
constexpr unsigned kBytes = kTile * sizeof(unsigned);

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void barrier_init(unsigned long long *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)),
               "r"(count)
               : "memory");
}

// One thread: expect the tile's bytes on `bar`, then copy it into `dst`.
__device__ void copy_tile(unsigned *dst, const unsigned *src,
                          unsigned long long *bar) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)),
      "r"(kBytes)
      : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
               "l"(src), "r"(kBytes), "r"(smem(bar))
               : "memory");
}

// Every thread: until the phase of `bar` with this parity completed (a
// spin on try_wait, as cuda::barrier's wait is: a thread that gave up would
// go on into a phase that did not come).
__device__ void wait_phase(unsigned long long *bar, unsigned parity) {
  for (;;) {
    unsigned done = 0;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem(bar)), "r"(parity)
                 : "memory");
    if (done)
      return;
  }
}

__global__ void pipelined(const unsigned *in, unsigned tiles, unsigned *out) {
  __shared__ alignas(128) unsigned stage[2][kTile];
  __shared__ alignas(8) unsigned long long full[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    barrier_init(&full[0], 1);
    barrier_init(&full[1], 1);
    // The initialisation before the async proxy's complete_tx.
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  unsigned first = blockIdx.x;
  if (t == 0 && first < tiles)
    copy_tile(stage[0], in + size_t(first) * kTile, &full[0]);
  for (unsigned i = 0, tile = first; tile < tiles; ++i, tile += gridDim.x) {
    unsigned s = i % 2;
    if (t == 0 && tile + gridDim.x < tiles)
      copy_tile(stage[1 - s], in + size_t(tile + gridDim.x) * kTile,
                &full[1 - s]);
    unsigned sum = 0;
#ifdef APP_NF
    for (unsigned k = 0; k < kPer; ++k)
      sum += (k + 1) * stage[s][k * kThreads + t];
    wait_phase(&full[s], (i / 2) % 2);
#else
    wait_phase(&full[s], (i / 2) % 2); // the tile has landed
    for (unsigned k = 0; k < kPer; ++k)
      sum += (k + 1) * stage[s][k * kThreads + t];
#endif
    out[size_t(tile) * kThreads + t] = sum;
    __syncthreads(); // every thread read stage s before it is refilled
  }
}

struct TmaPipe {
  static constexpr const char *name = "tmapipe";
  static constexpr unsigned long long default_size = 1ull << 22;
  static constexpr const char *size_meaning =
      "elements (a multiple of 2048, the tile)";

  explicit TmaPipe(const app::Options &o)
      : tiles_(static_cast<unsigned>(o.size / kTile)),
        blocks_(std::min(tiles_, app::default_blocks(o, 2))), in_(o.size),
        out_(size_t(tiles_) * kThreads) {
    if (o.size % kTile)
      app::setup_error("--size: a multiple of 2048 (the tile)");
    app::require_sm90("bulk copies (cp.async.bulk)");
    std::vector<unsigned> in = app::random_words(o.size, o.seed);
    in_.upload(in);
    expected_.assign(size_t(tiles_) * kThreads, 0);
    for (size_t tile = 0; tile < tiles_; ++tile)
      for (unsigned t = 0; t < kThreads; ++t)
        for (unsigned k = 0; k < kPer; ++k)
          expected_[tile * kThreads + t] +=
              (k + 1) * in[tile * kTile + k * kThreads + t];
  }

  app::Verdict run(app::Timer &t) {
    return app::run_checked(
        t, out_, expected_, kThreads,
        app::format("%u tiles of 8 KiB through 2 stages in %u "
                    "blocks, every output exact",
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

int main(int argc, char **argv) { return app::main<TmaPipe>(argc, argv); }
