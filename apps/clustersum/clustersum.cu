// Cluster reduction through distributed shared memory: blocks launched in
// clusters of two (__cluster_dims__) add their partial sums by reading
// each other's shared memory.
//
// Each block of a cluster sums its slice into its own shared `partial`
// (poisoned first, so that a read that comes too early shows). Then
// cluster.sync(), and the block of rank 0 reads its partner's `partial`
// through cluster.map_shared_rank (PTX: mapa, ld.shared::cluster) and
// writes the pair's sum. A second cluster.sync() keeps the partner's shared
// memory alive until it has been read. The -nf build drops the first
// cluster.sync(): rank 0 may read its partner's partial before the partner
// wrote it, a race between the blocks of a cluster.
//
// Post-condition: every cluster's sum equals the CPU's exactly (64-bit).
#include "../common/app.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 8; // per thread
constexpr unsigned kSlice = kThreads * kItems;
constexpr unsigned kCluster = 2; // blocks per cluster

__global__ void __cluster_dims__(kCluster, 1, 1)
    cluster_sums(const unsigned *in, unsigned n, unsigned long long *out) {
  __shared__ unsigned long long s[kThreads];
  __shared__ unsigned long long partial;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned t = threadIdx.x;
  if (t == 0)
    partial = ~0ull; // what a read that comes too early finds
  unsigned long long mine = 0;
  for (unsigned k = 0; k < kItems; ++k) {
    unsigned i = blockIdx.x * kSlice + k * kThreads + t;
    if (i < n)
      mine += in[i];
  }
  s[t] = mine;
  __syncthreads();
  for (unsigned k = kThreads / 2; k > 0; k /= 2) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0)
    partial = s[0];
#ifndef APP_NF
  cluster.sync(); // the partners' partial sums before they are read
#endif
  if (cluster.block_rank() == 0 && t == 0) {
    unsigned long long sum = partial;
    for (unsigned r = 1; r < kCluster; ++r)
      sum += *cluster.map_shared_rank(&partial, r);
    out[blockIdx.x / kCluster] = sum;
  }
  cluster.sync(); // no block leaves while its partial may still be read
}

struct ClusterSum {
  static constexpr const char *name = "clustersum";
  static constexpr unsigned long long default_size = 1ull << 22;
  static constexpr const char *size_meaning = "elements summed";

  explicit ClusterSum(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)),
        clusters_((n_ + kCluster * kSlice - 1) / (kCluster * kSlice)), in_(n_),
        out_(clusters_) {
    if (o.blocks)
      app::setup_error("--blocks: the grid follows --size (one block per " +
                       std::to_string(kSlice) + " elements)");
    app::require_sm90("thread-block clusters");
    app::Random rng(o.seed);
    std::vector<unsigned> in(n_);
    expected_.assign(clusters_, 0);
    for (unsigned i = 0; i < n_; ++i) {
      in[i] = static_cast<unsigned>(rng.next());
      expected_[i / (kCluster * kSlice)] += in[i];
    }
    in_.upload(in);
  }

  app::Verdict run(app::Timer &t) {
    out_.fill_bytes(0xff);
    t.start();
    cluster_sums<<<clusters_ * kCluster, kThreads>>>(in_.get(), n_, out_.get());
    t.stop();
    std::vector<unsigned long long> got = out_.download();
    for (unsigned c = 0; c < clusters_; ++c)
      if (got[c] != expected_[c])
        return app::wrong(app::format("cluster %u of %u sums to %llu, "
                                      "expected %llu",
                                      c, clusters_, got[c], expected_[c]));
    return app::pass(
        app::format("%u cluster sums of %u blocks exact", clusters_, kCluster));
  }

  unsigned n_, clusters_;
  std::vector<unsigned long long> expected_;
  app::DeviceArray<unsigned> in_;
  app::DeviceArray<unsigned long long> out_;
};

} // namespace

int main(int argc, char **argv) { return app::main<ClusterSum>(argc, argv); }
