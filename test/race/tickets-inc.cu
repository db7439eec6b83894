// atomicInc(p, b) (atom.inc) returns the old value and stores
// ((old >= b) ? 0 : old + 1): it wraps, so any b + 1 of its results in a
// row differ, and more may repeat. Its results are tickets when it runs at
// most b + 1 times at one address: once per thread, the threads there (or
// their blocks, at most one thread a block) numbered within b + 1.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// The last block's thread 0 (threadFenceReduction's ticket): one ticket
// per block, b + 1 = gridDim.x.
// CHECK-LABEL: kernel _Z10last_blockPjPi
// CHECK-NEXT:  summary: 0 races, 0 divergent barriers; pairs: 0 race, 2 safe, 0 unknown
__global__ void last_block(unsigned *count, int *out) {
  if (threadIdx.x == 0) {
    unsigned t = atomicInc(count, gridDim.x - 1);
    if (t == gridDim.x - 1)
      out[0] = 1;
  }
}

// One slot per thread of the grid.
// CHECK-LABEL: kernel _Z5slotsPjPi
// CHECK-NEXT:  summary: 0 races, 0 divergent barriers; pairs: 0 race, 2 safe, 0 unknown
__global__ void slots(unsigned *count, int *out) {
  unsigned t = atomicInc(count, gridDim.x * blockDim.x - 1);
  out[t] = threadIdx.x;
}

// A counter per group of 16 blocks, b + 1 = the group's size.
// CHECK-LABEL: kernel _Z7groupedPjPi
// CHECK-NEXT:  summary: 0 races, 0 divergent barriers; pairs: 0 race, 2 safe, 0 unknown
__global__ void grouped(unsigned *count, int *out) {
  unsigned g = blockIdx.x / 16;
  unsigned members = min(16u, gridDim.x - g * 16);
  if (threadIdx.x == 0) {
    unsigned t = atomicInc(&count[g], members - 1);
    if (t == members - 1)
      out[g] = 1;
  }
}

// b + 1 = gridDim.x - 1 for gridDim.x blocks: two blocks draw 0.
// CHECK-LABEL: kernel _Z7too_fewPjPi
// CHECK:       race: write-write on global memory, parameter 1, between threads of different blocks
// CHECK:       witness: thread (0,0,0) of block
// CHECK:       assuming atom at tickets-inc.cu:[[@LINE+5]] is 0 for thread
// CHECK-NEXT:  assuming atom at tickets-inc.cu:[[@LINE+4]] is 0 for thread
// CHECK:       summary: 1 race,
__global__ void too_few(unsigned *count, int *out) {
  if (threadIdx.x == 0) {
    unsigned t = atomicInc(count, gridDim.x - 2);
    if (t == 0)
      out[0] = blockIdx.x;
  }
}

// A block's worth of slots for the whole grid: they repeat.
// CHECK-LABEL: kernel _Z10wrap_slotsPjPi
// CHECK:       unknown: 1 pair: a race only for some values of atomic tickets
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 1 unknown
__global__ void wrap_slots(unsigned *count, int *out) {
  unsigned t = atomicInc(count, blockDim.x - 1);
  out[t] = threadIdx.x;
}

// In a loop, a thread draws many: not counted, not tickets.
// CHECK-LABEL: kernel _Z4loopPjPii
// CHECK-NOT:   safe, 0 unknown
// CHECK:       summary: 0 races
__global__ void loop(unsigned *count, int *out, int n) {
  for (int i = 0; i < n; ++i) {
    unsigned t = atomicInc(count, gridDim.x * blockDim.x - 1);
    out[t] = i;
  }
}
