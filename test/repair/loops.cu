// Loops: a tree reduction without its barrier; a tiled loop without the
// barriers after its loads and at its end; nested loops (not unrolled, so
// that each PTX position has a statement of its own, the outer one's end
// the brace that closes its body), where the cheaper
// barriers are in the outer loop (cost 20 each, not 200 in the inner one).
// The tiled loop runs one warp a block (--block-dim 32): warp barriers
// order the whole block, at half a block barrier's cost.
// REQUIRES: nvcc
// RUN: %incant repair %s --kernel reduce > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=REDUCE < %t
// RUN: %incant repair %s --kernel tiled --block-dim 32 --grid-dim 1 --patch %t.diff > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=TILED < %t2
// RUN: FileCheck %s --check-prefix=TILEDDIFF < %t.diff
// RUN: %incant repair %s --kernel nested --block-dim 64 --grid-dim 1 > %t3; test $? -eq 0
// RUN: FileCheck %s --check-prefix=NESTED < %t3

// REDUCE:      kernel _Z6reducePfPKf (reduce(float*, float const*)): repaired
// REDUCE-NEXT:   add block barrier before loops.cu:[[@LINE+9]] ({{.*}}), loop depth 1, cost 20
// REDUCE-NEXT:     source: insert '__syncthreads();' before line [[@LINE+8]]
// REDUCE-NOT:    add
// REDUCE:        after: 0 races, 0 divergent barriers, 0 unknown pairs
__global__ void reduce(float *out, const float *in) {
  __shared__ float s[1024];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// TILED:      kernel _Z5tiledPfPKfi (tiled(float*, float const*, int)): repaired
// TILED-NEXT:   add warp barrier before loops.cu:{{[0-9]+}} ({{.*}}), loop depth 1, cost 10
// TILED-NEXT:     source: insert '__syncwarp();' before line [[@LINE+17]]
// TILED-NEXT:   add warp barrier before loops.cu:{{[0-9]+}} ({{.*}}), loop depth 1, cost 10
// TILED-NEXT:     source: insert '__syncwarp();' before line [[@LINE+16]]
// TILED-NOT:    add
// TILED:        after: 0 races, 0 divergent barriers, 0 unknown pairs
// TILED:      source patch (compiled again and checked by incant race):
// TILEDDIFF:       for (int i = 0; i < n; i += 32) {
// TILEDDIFF-NEXT: +    __syncwarp();
// TILEDDIFF-NEXT:      s[t] = in[i + t];
// TILEDDIFF-NEXT: +    __syncwarp();
// TILEDDIFF-NEXT:  #pragma unroll 1
__global__ void tiled(float *out, const float *in, int n) {
  __shared__ float s[32];
  unsigned t = threadIdx.x;
  float acc = 0;
#pragma unroll 1
  for (int i = 0; i < n; i += 32) {
    s[t] = in[i + t];
#pragma unroll 1
    for (int j = 0; j < 32; ++j)
      acc += s[j];
  }
  out[t] = acc;
}

// Two barriers in the outer loop: one between the write of s and the
// inner loop's reads, one between those reads and the next round's write
// (at the end of the body, or at its start: both cost the same).
// NESTED:      kernel _Z6nestedPii (nested(int*, int)): repaired
// NESTED-NEXT:   add block barrier before {{.*}} loop depth 1, cost 20
// NESTED-NEXT:     source: insert '__syncthreads();' before line {{8[0-9]}}
// NESTED-NEXT:   add block barrier before {{.*}} loop depth 1, cost 20
// NESTED-NEXT:     source: insert '__syncthreads();' before line {{8[0-9]}}
// NESTED-NOT:    add
// NESTED:        after: 0 races, 0 divergent barriers, 0 unknown pairs
// NESTED:      repaired PTX: checked again by incant race: no race, no divergent barrier
// NESTED-NEXT: source patch (compiled again and checked by incant race):
// NESTED:           s[t] = acc + r;
// NESTED-NEXT: +    __syncthreads();
__global__ void nested(int *out, int rounds) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  int acc = 0;
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
    s[t] = acc + r;
#pragma unroll 1
    for (int j = 1; j < 8; ++j)
      acc += s[(t + j) % 64];
  }
  out[t] = acc;
}
