// Cooperative groups: grid-wide synchronisation, tiled partitions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void gridPhases(int *data, int *partial, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  int i = grid.thread_rank();
  if (i < n)
    data[i] *= 2;
  grid.sync();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int v = i < n ? data[(i + 1) % n] : 0;
  int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0)
    atomicAdd(&partial[blockIdx.x], s);
  block.sync();
  grid.sync();
  if (i == 0) {
    int total = 0;
    for (int b = 0; b < gridDim.x; ++b)
      total += partial[b];
    data[0] = total;
  }
}

__global__ void tiles(float *out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile16 = cg::tiled_partition<16>(block);
  float v = threadIdx.x;
  v += tile16.shfl_down(v, 1);
  auto active = cg::coalesced_threads();
  if (active.thread_rank() == 0)
    out[blockIdx.x] = v + active.size();
  tile16.sync();
}
