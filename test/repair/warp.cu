// A warp-synchronous reduction written without __syncwarp: under
// independent thread scheduling the lanes of warp 0 race (a lane reads its
// neighbour's partial sum before or while it is written). Only warp 0
// runs that code (t < 32), so a block barrier there would diverge: the
// repair orders the lanes with warp barriers (__syncwarp() in the source),
// cheaper than block barriers. main launches it <<<4, 64>>>, which the
// repair reads and names.
// REQUIRES: nvcc, libclang
// RUN: %incant repair %s --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff

// CHECK:      kernel _Z4wsumPiPKi (wsum(int*, int const*)): repaired
// CHECK-NEXT:   launch: warp.cu:{{[0-9]+}}:3 (wsum<<<...>>>): gridDim (4,1,1), blockDim (64,1,1)
// CHECK:        add warp barrier before warp.cu:{{[0-9]+}} ({{.*}}), loop depth 0, cost 1
// CHECK-NOT:    add block barrier
// CHECK:      repaired PTX: checked again by incant race: no race, no divergent barrier
// CHECK:      source patch (compiled again and checked by incant race):
// DIFF:       +    __syncwarp();
// DIFF-NOT:   __syncthreads
__global__ void wsum(int *out, const int *in) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    volatile int *w = s; // every access in order, as written
    int v = w[t] + w[t + 32];
    w[t] = v;
    v = w[t] + w[t + 16];
    w[t] = v;
    v = w[t] + w[t + 8];
    w[t] = v;
    v = w[t] + w[t + 4];
    w[t] = v;
    v = w[t] + w[t + 2];
    w[t] = v;
    v = w[t] + w[t + 1];
    w[t] = v;
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 256 * sizeof(int));
  cudaMalloc(&out, 4 * sizeof(int));
  wsum<<<4, 64>>>(out, in);
  cudaDeviceSynchronize();
  return 0;
}
