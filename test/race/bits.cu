// Bitwise index arithmetic is encoded exactly, and every witness is
// replayed on the kernel's values before a race is printed. nvcc compiles
// the row-major index (j + t/32)*32 + t%32 to (x & 0x3FFFFFE0) | (t & 31).
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z4rowsPfPKfi
// CHECK-NOT:   race:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void rows(float *out, const float *in, int j) {
  __shared__ float s[64 * 32];
  unsigned t = threadIdx.x;
  s[(j + t / 32) * 32 + t % 32] = in[t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[t];
}

// Half as many rows: threads t and t + 32 of a block write one element.
// CHECK-LABEL: kernel _Z5rows2PfPKfi
// CHECK:       race: write-write on shared memory, {{.*}}, between threads of one block
// CHECK:       witness: thread ([[A:[0-9]+]],0,0) of block ([[B:[0-9]+]],0,0)
// CHECK-NEXT:  and thread ([[C:[0-9]+]],0,0) of block ([[B]],0,0)
// CHECK:       both touch byte [[O:[0-9]+]] of {{.*}} (offsets [[O]] and [[O]])
__global__ void rows2(float *out, const float *in, int j) {
  __shared__ float s[64 * 32];
  unsigned t = threadIdx.x;
  s[(j + t / 64) * 32 + t % 32] = in[t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[t];
}

// t ^ q is a permutation of the threads of a block, whatever q is.
// CHECK-LABEL: kernel _Z7xorpermPii
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void xorperm(int *out, int q) {
  __shared__ int s[2048];
  unsigned t = threadIdx.x;
  s[t ^ q] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[t];
}

// t | q is not: with q = 1, threads 0 and 1 write one element.
// CHECK-LABEL: kernel _Z6orpermPii
// CHECK:       race: write-write on shared memory
// CHECK:       witness: thread
// CHECK:       both touch byte
__global__ void orperm(int *out, int q) {
  __shared__ int s[2048];
  unsigned t = threadIdx.x;
  s[t | q] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[t];
}

// A 32-bit global id, zero-extended and masked to a word index (nvcc's
// shl.b64 and and.b64 with 2^34 - 4): each thread its own word.
// CHECK-LABEL: kernel _Z4maskPj
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__global__ void mask(unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  *(unsigned *)((char *)out + (((unsigned long long)i << 2) & ((1ull << 34) - 4))) = 1;
}
