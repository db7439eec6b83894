// Lanes of one warp and warps of one block: under independent thread
// scheduling (sm_70 and later) __syncwarp() orders the lanes of a warp and
// nothing else; __syncthreads() orders the whole block.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// Neighbouring lanes exchange values with no barrier at all: an intra-warp
// race, between lanes t and t ^ 1 of one warp.
// CHECK-LABEL: kernel _Z5intraPi
// CHECK:       race: write-read on shared memory, s, between threads of one warp
// CHECK-NEXT:    write at warps.cu:[[@LINE+11]]  st.shared.u32
// CHECK-NEXT:          [[@LINE+10]] | s[t] = t;
// CHECK-NEXT:    read  at warps.cu:[[@LINE+10]]  ld.shared.u32
// CHECK-NEXT:          [[@LINE+9]] | out[blockIdx.x * blockDim.x + t] = s[t ^ 1];
// CHECK-NEXT:    witness: thread ([[#]],0,0) of block ([[#B:]],0,0) (warp [[#W:]], lane [[#]])
// CHECK-NEXT:         and thread ([[#]],0,0) of block ([[#B]],0,0) (warp [[#W]], lane [[#]])
// CHECK:         hint: the two threads are lanes of one warp
// CHECK:       summary: 1 race, 0 divergent barriers; pairs: 1 race, 2 safe, 0 unknown; 2 of 3 accesses not proved safe
__global__ void intra(int *out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  out[blockIdx.x * blockDim.x + t] = s[t ^ 1];
}

// The same with __syncwarp() between: safe.
// CHECK-LABEL: kernel _Z6warpokPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 0 unknown; 0 of 3 accesses not proved safe
__global__ void warpok(int *out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncwarp();
  out[blockIdx.x * blockDim.x + t] = s[t ^ 1];
}

// __syncwarp() does not order two warps: an inter-warp race, between
// threads 32 apart (the same lane of two warps, or around the end of the
// block).
// CHECK-LABEL: kernel _Z5interPi
// CHECK:       race: write-read on shared memory, s, between threads of one block
// CHECK-NEXT:    write at warps.cu:[[@LINE+11]]  st.shared.u32
// CHECK-NEXT:          [[@LINE+10]] | s[t] = t;
// CHECK-NEXT:    read  at warps.cu:[[@LINE+11]]  ld.shared.u32
// CHECK-NEXT:          [[@LINE+10]] | out[blockIdx.x * blockDim.x + t] = s[(t + 32) % blockDim.x];
// CHECK-NEXT:    witness: thread ([[#]],0,0) of block ([[#B:]],0,0) (warp [[#]], lane [[#]])
// CHECK-NEXT:         and thread ([[#]],0,0) of block ([[#B]],0,0) (warp [[#]], lane [[#]])
// CHECK-NOT:     hint
// CHECK:       summary: 1 race, 0 divergent barriers
__global__ void inter(int *out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncwarp();
  out[blockIdx.x * blockDim.x + t] = s[(t + 32) % blockDim.x];
}

// With __syncthreads() instead: safe.
// CHECK-LABEL: kernel _Z7blockokPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 0 unknown
__global__ void blockok(int *out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[(t + 32) % blockDim.x];
}
