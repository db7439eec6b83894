// First writer wins: atomicCAS(&f, E, N) with N != E finds E at most once
// at an address whose every write is such a compare-and-swap (nothing
// stores E back), so the one thread that finds it may write alone. A reset
// of the flag, or a write outside the winner's branch, races.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

struct Status {
  unsigned line;
  long long value;
};
__device__ Status status;

// CHECK-LABEL: kernel _Z6recordPi
// CHECK-NEXT:  summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void record(int *in) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (v < 0 && atomicCAS(&status.line, 0u, 7u) == 0u)
    status.value = v;
}

// Two call sites, two lines: still one winner.
// CHECK-LABEL: kernel _Z7recordsPi
// CHECK-NEXT:  summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void records(int *in) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (v < 0 && atomicCAS(&status.line, 0u, 1u) == 0u)
    status.value = v;
  if (v > 100 && atomicCAS(&status.line, 0u, 2u) == 0u)
    status.value = v;
}

// The flag is put back: two threads may win.
// CHECK-LABEL: kernel _Z5resetPi
// CHECK:       race: write-write on global memory, status, between threads
// CHECK:       witness: thread
__global__ void reset(int *in) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (v < 0 && atomicCAS(&status.line, 0u, 7u) == 0u) {
    status.value = v;
    atomicExch(&status.line, 0u);
  }
}

// The losers write too.
// CHECK-LABEL: kernel _Z6losersPi
// CHECK:       race: write-write on global memory, status, between threads
// CHECK:       witness: thread
__global__ void losers(int *in) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (v < 0 && atomicCAS(&status.line, 0u, 7u) != 0u)
    status.value = v;
}
