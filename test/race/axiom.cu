// GPUVerify's file-wide __axiom(blockIdx.x == c): every launch runs only
// with that block index, so a write that every other block makes never
// runs. The report says where the value came from. Without the axiom
// (--any-launch ignores the host code and the axioms) blocks 0 and 1 both
// write out[0]. An axiom incant cannot read is named, and the kernel is
// checked without it (the race stays). An axiom no launch can meet
// (block 3 of a grid of 2) leaves every pair safe only vacuously: unknown.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s --kernel only_block > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=AXIOM < %t
// RUN: %incant race %s --kernel only_block --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t
// RUN: %incant race %s -X -DUNREAD --kernel only_block > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=UNREAD < %t
// RUN: %incant race %s --kernel only_block --grid-dim 2 > %t; test $? -eq 4
// RUN: FileCheck %s --check-prefix=VACUOUS < %t
// A block size given on the command line runs as given, the axiom named:
// RUN: %incant race %s --kernel only_block --block-dim 32 > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=GIVEN < %t
#define __axiom(x) static_assert(true, "")

#ifndef UNREAD
__axiom(blockIdx.x == 3 && blockDim.x == 64);
#else
__axiom(blockIdx.x < 3);
#endif

// AXIOM: launch: any launch with blockIdx.x = 3 (__axiom at axiom.cu:23), blockDim.x = 64 (__axiom at axiom.cu:23)
// AXIOM: 0 races
// ANY: race
// VACUOUS: blockIdx.x = 3 (__axiom at axiom.cu:23: no launch can have it)
// VACUOUS: safe only vacuously: no launch satisfies blockIdx.x == 3 (__axiom at axiom.cu:23) with gridDim.x = 2
// VACUOUS: 0 races
// GIVEN: blockDim.x == 64 (__axiom at axiom.cu:23) is not this launch's: checked without it
// UNREAD: __axiom(blockIdx . x < 3) at axiom.cu:25 not read
// UNREAD: race
__global__ void only_block(int *out) {
  if (blockIdx.x != 3)
    out[0] = threadIdx.x;
  else
    out[1 + threadIdx.x] = 1;
}
