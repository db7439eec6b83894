// A reduction whose loop nvcc rotates (the condition at the latch, the
// first check before the loop): the repair's barrier heads the loop's
// header block, so it runs before every iteration, the first included.
// In the source that is the start of the loop body, not its end (a
// barrier there would miss the first iteration's read of the
// neighbour's store before the loop).
// REQUIRES: nvcc
// RUN: %incant repair %s --block-dim 256 --grid-dim 2 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff

// CHECK:     add block barrier before rotated.cu:[[@LINE+11]] {{.*}}loop depth 1
// CHECK-NEXT: source: insert '__syncthreads();' before line [[@LINE+11]]
// CHECK:     source patch (compiled again and checked by incant race):
// DIFF:      for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
// DIFF-NEXT: +    __syncthreads();
// DIFF-NEXT:       if (tid < k)
template <unsigned Size> __global__ void sum(const int *g, int *out) {
  __shared__ int s[Size];
  unsigned tid = threadIdx.x;
  int v = g[blockIdx.x * Size + tid];
  s[tid] = v;
  for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
    if (tid < k)
      s[tid] = v = v + s[tid + k];
  }
  if (tid == 0)
    out[blockIdx.x] = v;
}
template __global__ void sum<256>(const int *, int *);
