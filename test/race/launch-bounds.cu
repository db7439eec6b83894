// What the language fixes about a launch: __launch_bounds__ (.maxntid)
// bounds the block, so with at most 32 threads a block is one warp and
// __syncwarp() orders it.
// REQUIRES: nvcc
// RUN: %incant race %s -v > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z7onewarpPi
// CHECK:       at most 32 threads per block: the kernel's .maxntid (__launch_bounds__)
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void __launch_bounds__(32) onewarp(int *out) {
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  out[blockIdx.x * 32 + threadIdx.x] = s[(threadIdx.x + 1) % 32];
}

// Two warps: __syncwarp() does not order them.
// CHECK-LABEL: kernel _Z7twowarpPi
// CHECK:       race: write-read on shared memory, {{.*}}, between threads of one block
// CHECK:       witness: thread ({{[0-9]+}},0,0) of block ([[B:[0-9]+]],0,0) (warp [[W:[0-9]]], lane {{[0-9]+}})
// CHECK-NOT:   (warp [[W]],
// CHECK:       and thread ({{[0-9]+}},0,0) of block ([[B]],0,0) (warp {{[0-9]}}, lane {{[0-9]+}})
__global__ void __launch_bounds__(64) twowarp(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
