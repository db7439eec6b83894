// A reduction loop with a constant trip count: nvcc unrolls it, so the
// PTX repair needs one barrier per copy of the body (eight: a block barrier
// where stride >= 32, a warp barrier where the threads that race, t and
// t + stride, are lanes of one warp). Each copy's
// barrier comes before the copy's `if`, and the code of that line in the
// earlier copies follows their own barriers: in the source one barrier at
// the start of the loop body (the block barrier, which orders the warps
// too), where a programmer would put it.
// REQUIRES: nvcc
// RUN: %incant repair %s --block-dim 256 --grid-dim 4 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff

// CHECK-COUNT-3: add block barrier before unrolled.cu:[[@LINE+12]] {{.*}}
// CHECK-COUNT-5: add warp barrier before unrolled.cu:[[@LINE+11]] {{.*}}
// CHECK-NOT:     add {{block|warp}} barrier
// CHECK:         source patch (compiled again and checked by incant race):
// DIFF:          for (unsigned stride = 128; stride > 0; stride >>= 1) {
// DIFF-NEXT:     +    __syncthreads();
// DIFF-NEXT:          if (threadIdx.x < stride)
// DIFF-NOT:      __syncthreads
__global__ void merge(unsigned *out) {
  __shared__ unsigned data[256];
  data[threadIdx.x] = threadIdx.x * blockIdx.x;
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = data[0];
}
