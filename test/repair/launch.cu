// The launch's values: a transpose whose width n main fixes. For any n
// the checker finds two threads writing one element (n = -2 folds rows
// onto each other), which no barrier orders; with the launch that main
// makes (read from the host code) the missing barrier is repaired. A
// kernel with GPUVerify's __requires(width == 64) gets that value too;
// --any-launch ignores both (blocks may then write one row: width = 0).
// REQUIRES: nvcc, libclang
// RUN: %incant repair %s --kernel transpose > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=HOST < %t
// RUN: %incant repair %s --kernel transpose --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t
// RUN: %incant repair %s --kernel rows --grid-dim 2 --block-dim 64 > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=REQ < %t
// RUN: %incant repair %s --kernel rows --grid-dim 2 --block-dim 64 --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=REQANY < %t

// HOST:      kernel _Z9transposePfPKfi (transpose(float*, float const*, int)): repaired
// HOST-NEXT:   launch: launch.cu:{{[0-9]+}}:3 (transpose<<<...>>>): gridDim (8,8,1), blockDim (16,16,1), n = 128
// HOST:        add block barrier before launch.cu:{{[0-9]+}}
// ANY:       kernel _Z9transposePfPKfi (transpose(float*, float const*, int)): cannot be repaired
// ANY-NOT:     launch:
#define TILE 16
#define __requires(...) ((void)0)

__global__ void transpose(float *out, const float *in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

// REQ:       kernel _Z4rowsPii (rows(int*, int)): repaired
// REQ-NEXT:    launch: any launch with width = 64 (__requires at launch.cu:[[@LINE+4]])
// REQ:         add block barrier before launch.cu:[[@LINE+7]]
// REQANY:    kernel _Z4rowsPii (rows(int*, int)): cannot be repaired
__global__ void rows(int *a, int width) {
  __requires(width == 64);
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = a[blockIdx.x * width + t];
  a[blockIdx.x * width + t] = s[(t + 1) % 64];
}

int main() {
  const int n = 128;
  float *in, *out;
  cudaMalloc(&in, n * n * sizeof(float));
  cudaMalloc(&out, n * n * sizeof(float));
  transpose<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(out, in, n);
  return 0;
}
