// Thread-block clusters (sm_90): distributed shared memory, cluster sync.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) clusterHist(const int *in, int *bins, int n) {
  __shared__ int local[64];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  for (int k = threadIdx.x; k < 64; k += blockDim.x)
    local[k] = 0;
  cluster.sync();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = in[i] & 127;
    int *dst = cluster.map_shared_rank(local, v / 64);
    atomicAdd(dst + (v % 64), 1);
  }
  cluster.sync();
  if (threadIdx.x < 64)
    atomicAdd(&bins[rank * 64 + threadIdx.x], local[threadIdx.x]);
}

__global__ void __launch_bounds__(256) clusterInfo(unsigned *out) {
  cg::cluster_group cluster = cg::this_cluster();
  out[blockIdx.x] = cluster.num_blocks() * 1000 + cluster.block_rank() +
                    cluster.dim_blocks().x;
  cluster.sync();
}
