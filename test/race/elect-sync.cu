// elect.sync elects the same lane of a membermask every time (PTX ISA), so
// in each warp exactly one thread's predicate is set: the elected thread
// of each warp writing its warp's slot is race-free, while the elected
// threads of two warps writing one slot race (warps 0 and 1 each elect a
// leader). Before, the predicate was any value per thread, so two lanes of
// one warp could both be "elected": a race that cannot happen.
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 64 --grid-dim 1 --kernel per_warp %s > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=SAFE < %t
// RUN: %incant race --optimized --block-dim 64 --grid-dim 1 --kernel one_slot %s > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=RACE < %t

__device__ bool elect_one() {
  unsigned elected;
  asm volatile("{\n\t.reg .pred e;\n\telect.sync _|e, 0xffffffff;\n\t"
               "selp.u32 %0, 1, 0, e;\n\t}"
               : "=r"(elected));
  return elected != 0;
}

// SAFE: 0 races
__global__ void per_warp(int *out) {
  if (elect_one())
    out[threadIdx.x / 32] = threadIdx.x;
}

// RACE: race: write-write
// RACE: witness: thread ({{[0-9]+}},0,0) of block (0,0,0) (warp [[W:[01]]]
// RACE-NOT: (warp [[W]],
// RACE: 1 race
__global__ void one_slot(int *out) {
  if (elect_one())
    out[0] = threadIdx.x;
}
