// A barrier inside a thread-dependent branch is divergent: the repair
// takes it out and puts one where every thread passes (a hoist): a warp
// barrier, since t and t ^ 1 are lanes of one warp. An
// unnecessary barrier is removed, unless --no-remove.
// REQUIRES: nvcc
// RUN: %incant repair %s --grid-dim 1 --kernel divergent --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=DIV < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: %incant repair %s --grid-dim 1 --kernel own > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=OWN < %t2
// RUN: %incant repair %s --grid-dim 1 --kernel own --no-remove > %t3; test $? -eq 0
// RUN: FileCheck %s --check-prefix=KEEP < %t3

// DIV:      kernel _Z9divergentPiPKi (divergent(int*, int const*)): repaired
// DIV-NEXT:   add warp barrier before divergence.cu:[[@LINE+16]] ({{.*}}), loop depth 0, cost 1
// DIV-NEXT:     source: insert '__syncwarp();' before line [[@LINE+15]]
// DIV-NEXT:   remove barrier at divergence.cu:[[@LINE+12]] ({{.*}}): divergent (threads of a block disagree on reaching it)
// DIV-NEXT:     source: delete line [[@LINE+11]]
// DIV:        before: 1 race, 1 divergent barrier, 0 unknown pairs; after: 0 races, 0 divergent barriers, 0 unknown pairs
// DIFF:           s[t] = in[t];
// DIFF-NEXT:  -    __syncthreads();
// DIFF-NEXT:     }
// DIFF-NEXT:  +  __syncwarp();
__global__ void divergent(int *out, const int *in) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  if (t < 16) {
    s[t] = in[t];
    __syncthreads();
  }
  out[t] = s[t ^ 1];
}

// OWN:      kernel _Z3ownPiPKi (own(int*, int const*)): repaired
// OWN-NEXT:   remove barrier at divergence.cu:[[@LINE+8]] ({{.*}}): unnecessary
// OWN-NEXT:     source: delete line [[@LINE+7]]
// KEEP:     kernel _Z3ownPiPKi (own(int*, int const*)): nothing to repair
// KEEP-NOT: remove
__global__ void own(int *out, const int *in) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  out[t] = s[t] + 1;
}
