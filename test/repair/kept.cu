// Copies of one barrier, some removed and some kept: nvcc unrolls the
// loop over `reps` four times, and with reps = 1 only the first copy of
// the barrier after the store to t orders anything, so the repair removes
// the others from the PTX. In the source all copies are one line, which
// stays (deleting it would remove the copy that is needed); the barrier
// at the end of the body, needed in no copy, is deleted.
// REQUIRES: nvcc
// RUN: %incant repair %s --block-dim 16,16 --grid-dim 1 --param 2=1 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff

// CHECK:      kernel _Z4tilePfPKfi (tile(float*, float const*, int)): repaired
// CHECK:        remove barrier at kept.cu:[[#@LINE+15]] (PTX line {{[0-9]+}}): unnecessary
// CHECK-NEXT:     source: line [[#@LINE+14]] stays (a copy of this barrier there is kept)
// CHECK:        remove barrier at kept.cu:[[#@LINE+15]] (PTX line {{[0-9]+}}): unnecessary
// CHECK-NEXT:     source: delete line [[#@LINE+14]]
// CHECK:      repaired PTX: checked again by incant race: no race, no divergent barrier
// CHECK:      source patch (compiled again and checked by incant race):
// DIFF:        out[threadIdx.y * 16 + threadIdx.x] = t[threadIdx.x][threadIdx.y];
// DIFF-NEXT:  -    __syncthreads();
// DIFF-NEXT:   }
// DIFF-NOT:   -

__global__ void tile(float *out, const float *in, int reps) {
  __shared__ float t[16][16];
  for (int r = 0; r < reps; r++) {
    t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 16 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 16 + threadIdx.x] = t[threadIdx.x][threadIdx.y];
    __syncthreads();
  }
}
