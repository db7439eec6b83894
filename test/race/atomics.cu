// Atomics: two atomic accesses do not race when their scope includes both
// threads; an atomic and a plain access do.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z5countPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__global__ void count(int *n) { atomicAdd(n, 1); }

// CHECK-LABEL: kernel _Z5mixedPi
// CHECK:       race: write-write on global memory, parameter 0, between threads of one block
// CHECK-NEXT:    write at atomics.cu:[[@LINE+15]]  atom.global.add.u32
// CHECK-NEXT:          [[@LINE+14]] | atomicAdd(n, 1);
// CHECK-NEXT:    write at atomics.cu:[[@LINE+11]]  st.global.u32
// CHECK-NEXT:          [[@LINE+10]] | *n = blockIdx.x;
// CHECK-NEXT:    witness: thread ([[#]],0,0) of block ([[#B:]],0,0)
// CHECK-NEXT:         and thread (0,0,0) of block ([[#B]],0,0)
// CHECK:         hint: an atomic and a plain access to the same location race
// CHECK:       race: write-write on global memory, parameter 0, between threads of different blocks
// CHECK:         witness: thread (0,0,0) of block
// CHECK-NEXT:         and thread (0,0,0) of block
// CHECK:       summary: 2 races
__global__ void mixed(int *n) {
  if (threadIdx.x == 0)
    *n = blockIdx.x;
  else
    atomicAdd(n, 1);
}

// atomicAdd_block is atomic within a block only.
// CHECK-LABEL: kernel _Z6scopedPi
// CHECK:       race: write-write on global memory, parameter 0, between threads of different blocks
// CHECK:         hint: both accesses are atomic or strong, but a .cta scope does not include threads of other blocks
// CHECK:       summary: 1 race
__global__ void scoped(int *n) { atomicAdd_block(n, 1); }

// A shared-memory histogram: atomics within the block.
// The bin index is loaded, but two atomics race with nothing.
// CHECK-LABEL: kernel _Z4histPKiPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 6 safe, 0 unknown
__global__ void hist(const int *in, int *out) {
  __shared__ int bins[16];
  if (threadIdx.x < 16)
    bins[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&bins[in[blockIdx.x * blockDim.x + threadIdx.x] & 15], 1);
  __syncthreads();
  if (threadIdx.x < 16)
    atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}
