// A tile loop on the pipeline primitives (cuda_pipeline.h: cp.async,
// cp.async.commit_group, cp.async.wait_group) whose twin reads the tile
// before the wait, with no barrier between: the repair adds
// cp.async.wait_all before a block
// barrier in the loop (cost 2·10 + 1) and the patch has it before the
// read; the race-free twin has nothing to repair.
// REQUIRES: nvcc
// RUN: %incant repair %s --kernel stage_early --block-dim 128 --grid-dim 1 --patch %t.diff > %t.out; test $? -eq 0
// RUN: FileCheck %s --check-prefix=LOOP < %t.out
// RUN: FileCheck %s --check-prefix=LOOP-DIFF < %t.diff
// RUN: %incant repair %s --kernel stage --block-dim 128 --grid-dim 1 > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=CLEAN < %t2

// LOOP:       kernel _Z11stage_earlyPiPKii (stage_early(int*, int const*, int)): repaired
// LOOP:         add cp.async wait and block barrier before async-stage.cu:{{[0-9]+}} ({{.*}}), loop depth 1, cost 21
// LOOP:         before: {{[1-9][0-9]*}} races, 0 divergent barriers, 0 unknown pairs; after: 0 races, 0 divergent barriers, 0 unknown pairs
// LOOP:       repaired PTX: checked again by incant race: no race, no divergent barrier
// LOOP:       source patch (compiled again and checked by incant race):
// LOOP-DIFF:  +    asm volatile("cp.async.wait_all;" ::: "memory"); __syncthreads();
// CLEAN:      kernel _Z5stagePiPKii (stage(int*, int const*, int)): nothing to repair
#include <cuda_pipeline.h>

// A tile loop on the pipeline primitives: each thread copies its word,
// commits the group, waits for it and the block reads its neighbours'.
__global__ void stage(int *out, const int *in, int n) {
  __shared__ int tile[128];
  unsigned t = threadIdx.x;
  for (int i = 0; i < n; ++i) {
    __pipeline_memcpy_async(&tile[t], &in[i * 128 + t], sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[i * 128 + t] = tile[(t + 1) % 128];
    __syncthreads();
  }
}

// The same with the wait after the read.
__global__ void stage_early(int *out, const int *in, int n) {
  __shared__ int tile[128];
  unsigned t = threadIdx.x;
  for (int i = 0; i < n; ++i) {
    __pipeline_memcpy_async(&tile[t], &in[i * 128 + t], sizeof(int));
    __pipeline_commit();
    out[i * 128 + t] = tile[(t + 1) % 128];
    __pipeline_wait_prior(0);
    __syncthreads();
  }
}
