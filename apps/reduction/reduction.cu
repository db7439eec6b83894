// Threadfence reduction (the idiom of the CUDA samples' threadFenceReduction):
// the last block to finish sums the partial results of the others.
//
// The input is cut into groups of 16 blocks, each group one independent
// reduction. Every block reduces its slice in shared memory, thread 0
// stores the block's partial sum with an ordinary store, and takes a ticket
// from the group's counter (atomicInc). The block that draws the last ticket
// reads all the group's partial sums and adds them up. The writer needs a
// fence between its partial sum and its ticket (release) and the last block
// one between its ticket and its reads (acquire); without them the last
// block may add a partial sum that has not arrived yet.
//
// Post-condition: every group's sum equals the CPU's exactly (64-bit).
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 8; // per thread
constexpr unsigned kSlice = kThreads * kItems;
constexpr unsigned kGroup = 16; // blocks per reduction

__device__ unsigned long long block_sum(unsigned long long mine) {
  __shared__ unsigned long long s[kThreads];
  s[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned k = kThreads / 2; k > 0; k /= 2) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  unsigned long long total = s[0];
  __syncthreads(); // s[] is reused by the next call
  return total;
}

__global__ void reduce(const unsigned *in, unsigned n,
                       unsigned long long *partial, unsigned *tickets,
                       unsigned long long *group_sum) {
  __shared__ bool last;
  unsigned group = blockIdx.x / kGroup;
  unsigned first = group * kGroup;
  unsigned members = min(kGroup, gridDim.x - first);

  unsigned long long mine = 0;
  for (unsigned k = 0; k < kItems; ++k) {
    unsigned i = blockIdx.x * kSlice + k * kThreads + threadIdx.x;
    if (i < n)
      mine += in[i];
  }
  unsigned long long sum = block_sum(mine);

  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    APP_FENCE(); // release: the partial sum before the ticket
    // atomicInc wraps to 0 after the last ticket: ready for the next run.
    unsigned ticket = atomicInc(&tickets[group], members - 1);
    last = ticket == members - 1;
    if (last)
      APP_FENCE(); // acquire: the others' partial sums after their tickets
  }
  __syncthreads();
  if (!last)
    return;
  mine = threadIdx.x < members ? partial[first + threadIdx.x] : 0;
  sum = block_sum(mine);
  if (threadIdx.x == 0)
    group_sum[group] = sum;
}

struct Reduction {
  static constexpr const char *name = "reduction";
  static constexpr unsigned long long default_size = 1ull << 22;
  static constexpr const char *size_meaning = "elements summed";

  explicit Reduction(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)), blocks_((n_ + kSlice - 1) / kSlice),
        groups_((blocks_ + kGroup - 1) / kGroup), in_(n_), partial_(blocks_),
        tickets_(groups_), group_sum_(groups_) {
    static_assert(kGroup <= kThreads, "the last block reads one partial sum "
                                      "per thread");
    if (o.blocks)
      app::setup_error("--blocks: the grid follows --size (one block per " +
                       std::to_string(kSlice) + " elements)");
    app::Random rng(o.seed);
    std::vector<unsigned> in(n_);
    expected_.assign(groups_, 0);
    for (unsigned i = 0; i < n_; ++i) {
      in[i] = static_cast<unsigned>(rng.next());
      expected_[i / kSlice / kGroup] += in[i];
    }
    in_.upload(in);
  }

  app::Verdict run(app::Timer &t) {
    partial_.fill_bytes(0xff); // what a read that comes too early finds
    group_sum_.fill_bytes(0xff);
    tickets_.fill_bytes(0);
    t.start();
    reduce<<<blocks_, kThreads>>>(in_.get(), n_, partial_.get(),
                                  tickets_.get(), group_sum_.get());
    t.stop();
    std::vector<unsigned long long> got = group_sum_.download();
    for (unsigned g = 0; g < groups_; ++g)
      if (got[g] != expected_[g])
        return app::wrong(app::format("group %u of %u sums to %llu, "
                                      "expected %llu",
                                      g, groups_, got[g], expected_[g]));
    return app::pass(app::format("%u groups of up to %u blocks, every sum "
                                 "exact (%u blocks)",
                                 groups_, kGroup, blocks_));
  }

  unsigned n_, blocks_, groups_;
  std::vector<unsigned long long> expected_;
  app::DeviceArray<unsigned> in_;
  app::DeviceArray<unsigned long long> partial_;
  app::DeviceArray<unsigned> tickets_;
  app::DeviceArray<unsigned long long> group_sum_;
};

} // namespace

int main(int argc, char **argv) { return app::main<Reduction>(argc, argv); }
