// GPUVerify's __requires(sz == blockDim.x) in a kernel: where the launch
// fixes the block's size, sz takes that value, and the strided loop is
// race-free (thread t touches t, t+sz, ...); the report says where the
// value came from. With no block size fixed, sz stays open: sz = 0 (or
// any sz other than the block's size) makes two threads meet.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s --block-dim 1024 --grid-dim 1 > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=FIXED < %t
// RUN: %incant race %s --block-dim 1024 --grid-dim 1 --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t
// RUN: %incant race %s --grid-dim 1 > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=OPEN < %t
#define __requires(...) ((void)0)

// FIXED: launch: any launch with sz = 1024 (__requires(sz == blockDim.x) at requires-blockdim.cu:[[@LINE+3]])
// FIXED: 0 races
__global__ void scale(float *A, int sz) {
  __requires(sz == blockDim.x);
  for (int i = threadIdx.x; i < 100 * sz; i += sz)
    A[i] *= 2.0f;
}

// ANY: race
// OPEN: race
