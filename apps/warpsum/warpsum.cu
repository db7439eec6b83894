// Warp-synchronous block reduction: the last 64 partial sums of a block are
// folded by the 32 lanes of warp 0 alone, without __syncthreads().
//
// Each block sums its slice of the input: every thread adds kItems values,
// the block folds its 256 sums in shared memory down to 64 with
// __syncthreads(), and warp 0 folds those to one in six steps
// (s[t] += s[t + 32], ..., s[t] += s[t + 1]). Under independent thread
// scheduling (sm_70 and later) the lanes of a warp are not in lockstep: a
// lane may read s[t + k] before the lane that owns it wrote its sum of the
// step before. The fenced build reads each step's operand into a register,
// __syncwarp()s, writes, and __syncwarp()s again; the -nf build is the old
// idiom (a volatile array and no __syncwarp), a data race.
//
// Post-condition: every block's sum equals the CPU's exactly (64-bit).
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 8; // per thread
constexpr unsigned kSlice = kThreads * kItems;

__global__ void block_sums(const unsigned *in, unsigned n,
                           unsigned long long *out) {
  __shared__ unsigned long long s[kThreads];
  unsigned t = threadIdx.x;
  unsigned long long mine = 0;
  for (unsigned k = 0; k < kItems; ++k) {
    unsigned i = blockIdx.x * kSlice + k * kThreads + t;
    if (i < n)
      mine += in[i];
  }
  s[t] = mine;
  __syncthreads();
  for (unsigned k = kThreads / 2; k >= 64; k /= 2) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t >= 32)
    return;
#ifdef APP_NF
  volatile unsigned long long *v = s;
  v[t] += v[t + 32];
  v[t] += v[t + 16];
  v[t] += v[t + 8];
  v[t] += v[t + 4];
  v[t] += v[t + 2];
  v[t] += v[t + 1];
#else
  for (unsigned k = 32; k > 0; k /= 2) {
    unsigned long long x = s[t] + s[t + k];
    __syncwarp();
    s[t] = x;
    __syncwarp();
  }
#endif
  if (t == 0)
    out[blockIdx.x] = s[0];
}

struct WarpSum {
  static constexpr const char *name = "warpsum";
  static constexpr unsigned long long default_size = 1ull << 22;
  static constexpr const char *size_meaning = "elements summed";

  explicit WarpSum(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)), blocks_((n_ + kSlice - 1) / kSlice),
        in_(n_), out_(blocks_) {
    if (o.blocks)
      app::setup_error("--blocks: the grid follows --size (one block per " +
                       std::to_string(kSlice) + " elements)");
    app::Random rng(o.seed);
    std::vector<unsigned> in(n_);
    expected_.assign(blocks_, 0);
    for (unsigned i = 0; i < n_; ++i) {
      in[i] = static_cast<unsigned>(rng.next());
      expected_[i / kSlice] += in[i];
    }
    in_.upload(in);
  }

  app::Verdict run(app::Timer &t) {
    out_.fill_bytes(0xff);
    t.start();
    block_sums<<<blocks_, kThreads>>>(in_.get(), n_, out_.get());
    t.stop();
    std::vector<unsigned long long> got = out_.download();
    for (unsigned b = 0; b < blocks_; ++b)
      if (got[b] != expected_[b])
        return app::wrong(app::format("block %u of %u sums to %llu, "
                                      "expected %llu",
                                      b, blocks_, got[b], expected_[b]));
    return app::pass(app::format("%u block sums exact", blocks_));
  }

  unsigned n_, blocks_;
  std::vector<unsigned long long> expected_;
  app::DeviceArray<unsigned> in_;
  app::DeviceArray<unsigned long long> out_;
};

} // namespace

int main(int argc, char **argv) { return app::main<WarpSum>(argc, argv); }
