// A memcpy of two records into one thread's slot: each thread's last six
// bytes are its neighbour's first six, copied from other records (so other
// values). nvcc copies byte by byte, and the repair's barrier goes after the
// first six stores; in the source the copy is split there, in two memcpy
// calls around the barrier.
// REQUIRES: nvcc
// RUN: %incant repair %s --block-dim 64 --grid-dim 1 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff

// CHECK:      add block barrier before memcpy.cu:[[@LINE+11]]
// CHECK-NEXT:   source: split the copy at line [[@LINE+10]] after its first 6 bytes around '__syncthreads();'
// CHECK:      source patch (compiled again and checked by incant race):
// DIFF:       +  memcpy(&out[threadIdx.x], &in[2 * threadIdx.x], 6);
// DIFF-NEXT:  +  __syncthreads();
// DIFF-NEXT:  +  memcpy((char *)(&out[threadIdx.x]) + 6, (const char *)(&in[2 * threadIdx.x]) + 6, (2 * sizeof(rec)) - 6);
// DIFF-NEXT:  -  memcpy(&out[threadIdx.x], &in[2 * threadIdx.x], 2 * sizeof(rec));
struct rec {
  short a, b, c;
};
__global__ void widen(const rec *in, rec *out) {
  memcpy(&out[threadIdx.x], &in[2 * threadIdx.x], 2 * sizeof(rec));
}
