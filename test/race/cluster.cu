// Thread-block clusters: a CTA's shared memory read by the other CTA of
// its cluster through cluster.map_shared_rank (mapa, then a generic load),
// ordered by cluster.sync() (barrier.cluster.arrive; barrier.cluster.wait)
// or not; and a relaxed arrival, which orders no memory.
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 64 %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// CHECK-LABEL: kernel _Z6synced
// CHECK-NOT:   race:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void __cluster_dims__(2, 1, 1) synced(int *out) {
  __shared__ int tile[64];
  cg::cluster_group cluster = cg::this_cluster();
  tile[threadIdx.x] = threadIdx.x + blockIdx.x;
  cluster.sync();
  int *other = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = other[63 - threadIdx.x];
  cluster.sync();
}

// CHECK-LABEL: kernel _Z8unsynced
// CHECK:       race: write-read on shared memory, tile, between threads of different blocks
// CHECK:         witness: thread ({{[0-9]+}},0,0) of block ([[A:[0-9]+]],0,0)
// CHECK-NEXT:         and thread ({{[0-9]+}},0,0) of block ({{[0-9]+}},0,0)
__global__ void __cluster_dims__(2, 1, 1) unsynced(int *out) {
  __shared__ int tile[64];
  cg::cluster_group cluster = cg::this_cluster();
  tile[threadIdx.x] = threadIdx.x + blockIdx.x;
  int *other = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = other[63 - threadIdx.x];
  cluster.sync();
}

// Each CTA writes the half of its tile its rank names and reads the other
// half of its partner's, which the partner never writes: no two accesses
// meet, no barrier needed.
// CHECK-LABEL: kernel _Z8disjoint
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void __cluster_dims__(2, 1, 1) disjoint(int *out) {
  __shared__ int tile[128];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned r = cluster.block_rank();
  tile[r * 64 + threadIdx.x] = threadIdx.x;
  int *other = cluster.map_shared_rank(tile, r ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = other[r * 64 + 63 - threadIdx.x];
  cluster.sync();
}

// barrier.cluster.arrive.relaxed has no release: the write before it is
// not ordered with the partner's read after the wait.
// CHECK-LABEL: kernel _Z7relaxed
// CHECK:       race: write-read on shared memory, tile, between threads of different blocks
__global__ void __cluster_dims__(2, 1, 1) relaxed(int *out) {
  __shared__ int tile[64];
  cg::cluster_group cluster = cg::this_cluster();
  tile[threadIdx.x] = threadIdx.x + blockIdx.x;
  asm volatile("barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;" ::
                   : "memory");
  int *other = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = other[63 - threadIdx.x];
  cluster.sync();
}
