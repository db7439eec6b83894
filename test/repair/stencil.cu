// A 1D stencil with a halo: each block loads its elements and one on each
// side into shared memory, then every thread reads its two neighbours. One
// barrier between the loads and the reads. The halo's right cell is read
// only by the thread that writes it, so the barrier may come before that
// write: the PTX position is at the second if, and so is the source one
// (a line without accesses whose code all comes after the position; the
// patch is checked by the race checker).
// REQUIRES: nvcc
// RUN: %incant repair %s --block-dim 128 --grid-dim 4 > %t; test $? -eq 0
// RUN: FileCheck %s < %t

// CHECK:      kernel _Z7stencilPfPKf (stencil(float*, float const*)): repaired
// CHECK-NEXT:   add block barrier before stencil.cu:[[@LINE+12]] ({{.*}}), loop depth 0, cost 2
// CHECK-NEXT:     source: insert '__syncthreads();' before line [[@LINE+11]]
// CHECK-NOT:    add
// CHECK:        before: {{[0-9]+}} races, 0 divergent barriers, 0 unknown pairs; after: 0 races, 0 divergent barriers, 0 unknown pairs
// CHECK:      source patch (compiled again and checked by incant race):
__global__ void stencil(float *out, const float *in) {
  __shared__ float s[130];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * blockDim.x + t + 1; // in has a cell on each side
  s[t + 1] = in[g];
  if (t == 0)
    s[0] = in[g - 1];
  if (t == blockDim.x - 1)
    s[t + 2] = in[g + 1];
  out[g - 1] = (s[t] + s[t + 1] + s[t + 2]) / 3;
}
