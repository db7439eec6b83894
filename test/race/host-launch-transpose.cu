// A shared-memory transpose whose width n main fixes (a const int, and the
// grid computed from it): checked with that launch, it is race-free; with
// n and the geometry left open (--any-launch) it is not proved so.
// host-launch-transpose-racy.cu is the racy twin.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s | FileCheck %s
// RUN: %incant race %s --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t

#define TILE 16
__global__ void transpose(float *out, const float *in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int n = 256;
  float *in, *out;
  cudaMalloc(&in, n * n * sizeof(float));
  cudaMalloc(&out, n * n * sizeof(float));
  dim3 block(TILE, TILE), grid(n / TILE, n / TILE);
  transpose<<<grid, block>>>(out, in, n);
  cudaDeviceSynchronize();
  return 0;
}

// CHECK: launch: host-launch-transpose.cu:26:3 (transpose<<<...>>>): gridDim (16,16,1), blockDim (16,16,1), n = 256
// CHECK: summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
// ANY-NOT: launch:
// ANY: race: write-write on global memory, parameter 0, between threads of one warp
// ANY: parameter 2 = -2
