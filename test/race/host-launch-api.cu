// Launches through the runtime API, each checked with its own values: a
// kernel in which only the first nblocks blocks write, launched with four
// blocks by cudaLaunchKernel (nblocks = 1 through the argument array:
// race-free) and by cudaLaunchKernelEx (a config struct with a cluster
// attribute, nblocks = 2: blocks 0 and 1 race). A kernel whose address is
// also used otherwise (a function pointer) is checked for any launch too.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

__global__ void first(int *out, int nblocks) {
  if (blockIdx.x < nblocks)
    out[threadIdx.x] = blockIdx.x;
}

__global__ void once(int *out) { out[threadIdx.x] = blockIdx.x; }

int main() {
  int *d;
  cudaMalloc(&d, 1024);
  int one = 1;
  void *args[] = {&d, &one};
  cudaLaunchKernel((void *)first, dim3(4), dim3(32), args, 0, 0);

  cudaLaunchConfig_t cfg = {0};
  cfg.gridDim = dim3(4);
  cfg.blockDim = 32;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cudaLaunchKernelEx(&cfg, first, d, 2);

  once<<<1, 32>>>(d);
  void (*f)(int *) = once;
  (void)f;
  return 0;
}

// CHECK: kernel _Z5firstPii
// CHECK-NEXT: launch: host-launch-api.cu:23:3 (cudaLaunchKernel): gridDim (4,1,1), blockDim (32,1,1), nblocks = 1
// CHECK: summary: 0 races
// CHECK: kernel _Z5firstPii
// CHECK-NEXT: launch: host-launch-api.cu:35:3 (cudaLaunchKernelEx): gridDim (4,1,1), blockDim (32,1,1), cluster (2,1,1), nblocks = 2
// CHECK: race: write-write on global memory, {{.*}} between threads of different blocks
// CHECK: kernel _Z4oncePi
// CHECK-NEXT: launch: host-launch-api.cu:37:3 (once<<<...>>>): gridDim (1,1,1), blockDim (32,1,1)
// CHECK: summary: 0 races
// CHECK: kernel _Z4oncePi
// CHECK-NEXT: launch: any launch: once is used at host-launch-api.cu:38 other than in a launch that incant reads
// CHECK: race: write-write on global memory, {{.*}} between threads of different blocks
