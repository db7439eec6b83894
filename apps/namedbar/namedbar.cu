// Warp-specialised producer/consumer on named barriers: in each block,
// warps 0-3 produce tiles into shared memory and warps 4-7 consume them,
// synchronised with `bar.arrive` / `bar.sync` on barriers 1-4 counting
// 256 threads (the producers' 128 and the consumers' 128), never a
// __syncthreads().
//
// Tiles go through two stages. Stage s has a "full" barrier (1 + s): the
// producers arrive once the tile is written, the consumers sync on it
// before they read; and an "empty" barrier (3 + s): the consumers arrive
// once they have read the tile, the producers sync on it before they write
// the stage again. The -nf build has the consumers arrive on "empty" before
// they read instead of after: the producers may overwrite a stage that is
// still being read, a race between the two roles.
//
// Post-condition: every output equals the CPU's (each consumer thread sums
// 8 values of a tile, weighted by position).
#include "../common/app.h"

namespace {

constexpr int kThreads = 256; // 128 producers, 128 consumers
constexpr unsigned kRole = 128;
constexpr unsigned kTile = 1024; // elements per tile
constexpr unsigned kPer = kTile / kRole;

__host__ __device__ unsigned produce(unsigned x, unsigned j) {
  return x * 2654435761u + j;
}

__device__ void bar_sync(unsigned id) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
__device__ void bar_arrive(unsigned id) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}

__global__ void specialised(const unsigned *in, unsigned tiles, unsigned *out) {
  __shared__ unsigned stage[2][kTile];
  unsigned t = threadIdx.x;
  unsigned mine = 0; // tiles of this block
  for (unsigned k = blockIdx.x; k < tiles; k += gridDim.x)
    ++mine;
  for (unsigned i = 0; i < mine; ++i) {
    unsigned tile = blockIdx.x + i * gridDim.x;
    unsigned s = i % 2;
    if (t < kRole) { // producer
      if (i >= 2)
        bar_sync(3 + s); // the consumers are done with this stage
      for (unsigned k = 0; k < kPer; ++k) {
        unsigned j = k * kRole + t;
        stage[s][j] = produce(in[tile * kTile + j], j);
      }
      bar_arrive(1 + s);
    } else { // consumer
      unsigned c = t - kRole;
      bar_sync(1 + s); // the tile is written
#ifdef APP_NF
      if (i + 2 < mine)
        bar_arrive(3 + s); // too early: the reads below are not done
#endif
      unsigned sum = 0;
      for (unsigned k = 0; k < kPer; ++k)
        sum += (k + 1) * stage[s][c * kPer + k];
#ifndef APP_NF
      if (i + 2 < mine)
        bar_arrive(3 + s);
#endif
      out[tile * kRole + c] = sum;
    }
  }
}

struct NamedBar {
  static constexpr const char *name = "namedbar";
  static constexpr unsigned long long default_size = 1ull << 22;
  static constexpr const char *size_meaning =
      "elements (a multiple of 1024, the tile)";

  explicit NamedBar(const app::Options &o)
      : tiles_(static_cast<unsigned>(o.size / kTile)),
        blocks_(std::min(tiles_, app::default_blocks(o, 2))), in_(o.size),
        out_(tiles_ * kRole) {
    if (o.size % kTile)
      app::setup_error("--size: a multiple of 1024 (the tile)");
    std::vector<unsigned> in = app::random_words(o.size, o.seed);
    in_.upload(in);
    expected_.assign(tiles_ * kRole, 0);
    for (unsigned tile = 0; tile < tiles_; ++tile)
      for (unsigned c = 0; c < kRole; ++c)
        for (unsigned k = 0; k < kPer; ++k) {
          unsigned j = c * kPer + k;
          expected_[tile * kRole + c] +=
              (k + 1) * produce(in[tile * kTile + j], j);
        }
  }

  app::Verdict run(app::Timer &t) {
    return app::run_checked(
        t, out_, expected_, kRole,
        app::format("%u tiles through 2 stages in %u blocks, "
                    "every output exact",
                    tiles_, blocks_),
        [&] {
          specialised<<<blocks_, kThreads>>>(in_.get(), tiles_, out_.get());
        });
  }

  unsigned tiles_, blocks_;
  std::vector<unsigned> expected_;
  app::DeviceArray<unsigned> in_;
  app::DeviceArray<unsigned> out_;
};

} // namespace

int main(int argc, char **argv) { return app::main<NamedBar>(argc, argv); }
