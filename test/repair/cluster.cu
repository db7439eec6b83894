// Thread-block clusters: each CTA of a pair reads its partner's tile
// through distributed shared memory (cluster.map_shared_rank). Without a
// cluster.sync() between the writes and the reads the two CTAs race; a
// block barrier does not order them (they are different CTAs), a cluster
// barrier does (cost 2 + 12, below a grid barrier's 2 + 24), and the
// source patch calls cooperative_groups::this_cluster().sync(). The
// cluster.sync() at the end (no CTA may leave while its tile is read) is
// the programmer's and stays.
// REQUIRES: nvcc
// RUN: %incant repair %s --kernel unsynced --block-dim 64 --grid-dim 4 --patch %t.diff -o %t.ptx > %t.out; test $? -eq 0
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: FileCheck %s --check-prefix=ASM < %t.ptx
// RUN: %incant repair %s --kernel synced --block-dim 64 --grid-dim 4 > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=CLEAN < %t2

// CHECK:      kernel _Z8unsyncedPi (unsynced(int*)): repaired
// CHECK-NEXT:   add cluster barrier before cluster.cu:[[@LINE+18]] ({{.*}}), loop depth 0, cost 14
// CHECK-NEXT:     source: insert 'cooperative_groups::this_cluster().sync();' before line [[@LINE+17]]
// CHECK:        before: 1 race, 0 divergent barriers, 0 unknown pairs; after: 0 races, 0 divergent barriers, 0 unknown pairs
// CHECK:      repaired PTX: checked again by incant race: no race, no divergent barrier
// CHECK:      source patch (compiled again and checked by incant race):
// DIFF:          tile[threadIdx.x] = threadIdx.x + blockIdx.x;
// DIFF-NEXT:  +  cooperative_groups::this_cluster().sync();
// DIFF-NEXT:     int *other = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
// ASM:        barrier.cluster.arrive;
// ASM-NEXT:   barrier.cluster.wait;
// CLEAN:      kernel _Z6syncedPi (synced(int*)): nothing to repair
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) unsynced(int *out) {
  __shared__ int tile[64];
  cg::cluster_group cluster = cg::this_cluster();
  tile[threadIdx.x] = threadIdx.x + blockIdx.x;
  int *other = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = other[63 - threadIdx.x];
  cluster.sync();
}

__global__ void __cluster_dims__(2, 1, 1) synced(int *out) {
  __shared__ int tile[64];
  cg::cluster_group cluster = cg::this_cluster();
  tile[threadIdx.x] = threadIdx.x + blockIdx.x;
  cluster.sync();
  int *other = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = other[63 - threadIdx.x];
  cluster.sync();
}
