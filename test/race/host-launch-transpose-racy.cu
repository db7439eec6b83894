// The racy twin of host-launch-transpose.cu: main launches blocks twice
// as wide as the tile, so two threads of a block write one tile element.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

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
  dim3 block(2 * TILE, TILE), grid(n / TILE, n / TILE);
  transpose<<<grid, block>>>(out, in, n);
  cudaDeviceSynchronize();
  return 0;
}

// CHECK: launch: host-launch-transpose-racy.cu:{{[0-9]+}}:3 (transpose<<<...>>>): gridDim (16,16,1), blockDim (32,16,1), n = 256
// CHECK: race: write-write on shared memory, tile, between threads of one {{block|warp}}
