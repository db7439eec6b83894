// The host code's launches: every block writes out[threadIdx.x], a race
// between blocks unless one block runs. main launches it <<<1, N>>> with N
// #defined, so the check is about that launch (and says so); the command
// line wins over the host code, and --any-launch ignores it.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s | FileCheck %s --check-prefix=ONE
// RUN: %incant race %s --grid-dim 2 > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=CLI < %t
// RUN: %incant race %s --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t
// RUN: %incant race %s --json | FileCheck %s --check-prefix=JSON
// Without libclang: a note naming it, and any launch.
// RUN: env INCANT_LIBCLANG=%t.none.so %incant race %s > %t 2> %t.err; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t
// RUN: FileCheck %s --check-prefix=NOLIB < %t.err

#include <cstdio>
#define N 128

__global__ void fill(int *out) { out[threadIdx.x] = blockIdx.x; }

int main() {
  int *d;
  cudaMalloc(&d, N * sizeof(int));
  fill<<<1, N>>>(d);
  cudaDeviceSynchronize();
  return 0;
}

// ONE: kernel _Z4fillPi
// ONE-NEXT: launch: host-launch.cu:25:3 (fill<<<...>>>): gridDim (1,1,1), blockDim (128,1,1)
// ONE: summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
// CLI: launch: host-launch.cu:25:3 (fill<<<...>>>): gridDim (2,1,1), blockDim (128,1,1)
// CLI: race: write-write on global memory, {{.*}} between threads of different blocks
// ANY-NOT: launch:
// ANY: race: write-write on global memory, {{.*}} between threads of different blocks
// NOLIB: incant race: note: libclang ($INCANT_LIBCLANG={{.*}}none.so) cannot be opened: {{.*}}; every kernel is checked for any launch
// JSON: "launch":"host-launch.cu:25:3 (fill<<<...>>>): gridDim (1,1,1), blockDim (128,1,1)"
