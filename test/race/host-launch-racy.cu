// The racy twin of host-launch.cu: main launches the kernel with two
// blocks (a dim3 grid and a constexpr block size), and the race between
// them is reported for that launch.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

constexpr int Threads = 64;

__global__ void fill(int *out) { out[threadIdx.x] = blockIdx.x; }

int main() {
  int *d;
  cudaMalloc(&d, 2 * Threads * sizeof(int));
  dim3 grid(2), block(Threads);
  fill<<<grid, block>>>(d);
  return 0;
}

// CHECK: launch: host-launch-racy.cu:16:3 (fill<<<...>>>): gridDim (2,1,1), blockDim (64,1,1)
// CHECK: race: write-write on global memory, {{.*}} between threads of different blocks
// CHECK: gridDim (2,1,1)
