// A barrier inside one statement: in `s[t] = s[t + 1]` (and in the
// warp-synchronous step `s[t] = v = v + s[t + 16]`) a lane reads what
// another lane of its warp writes in the same statement, so the barrier
// goes between the statement's reads and its store. The source patch
// splits the assignment: the value into a temporary, the barrier, the
// store. Where the target has an effect of its own (a call), it is not
// split: the PTX is repaired, and --patch says why there is no patch
// (exit 1).
// REQUIRES: nvcc, libclang
// RUN: %incant repair %s --kernel shift --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=SHIFT < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: %incant repair %s --kernel step --patch %t.step.diff > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=STEP < %t
// RUN: FileCheck %s --check-prefix=STEPDIFF < %t.step.diff
// RUN: %incant repair %s --kernel accumulate --patch %t.acc.diff > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=ACCDIFF < %t.acc.diff
// RUN: %incant repair %s --kernel called --patch %t.called.diff > %t 2> %t.err; test $? -eq 1
// RUN: FileCheck %s --check-prefix=CALLED < %t
// RUN: FileCheck %s --check-prefix=CALLEDERR < %t.err
// RUN: test ! -e %t.called.diff

// SHIFT:      kernel _Z5shiftPi (shift(int*)): repaired
// SHIFT:        add warp barrier before split.cu:[[L:[0-9]+]] ({{.*}}), loop depth 0, cost 1
// SHIFT-NEXT:     source: split the assignment at line [[L]] around '__syncwarp();'
// SHIFT:      repaired PTX: checked again by incant race: no race, no divergent barrier
// SHIFT:      source patch (compiled again and checked by incant race):
// DIFF:       +  auto incant_split[[N:[0-9]+]] = (s[t + 1]);
// DIFF-NEXT:  +  __syncwarp();
// DIFF-NEXT:  +  s[t] = incant_split[[N]];
// DIFF-NEXT:  -  s[t] = s[t + 1];
__global__ void shift(int *out) {
  __shared__ int s[33];
  unsigned t = threadIdx.x;
  s[t] = t;
  if (t == 0)
    s[32] = 0;
  __syncthreads();
  s[t] = s[t + 1];
  out[t] = s[t];
}

// STEP:      kernel _Z4stepPiPKi (step(int*, int const*)): repaired
// STEP:        source: split the assignment at line {{[0-9]+}} around '__syncwarp();'
// STEP:      source patch (compiled again and checked by incant race):
// STEPDIFF:       +    auto incant_split[[M:[0-9]+]] = (v = v + w[t + 16]);
// STEPDIFF-NEXT:  +    __syncwarp();
// STEPDIFF-NEXT:  +    w[t] = incant_split[[M]];
// STEPDIFF-NEXT:  -    w[t] = v = v + w[t + 16];
__global__ void step(int *out, const int *in) {
  __shared__ int s[48];
  unsigned t = threadIdx.x;
  s[t] = in[t];
  if (t < 16)
    s[t + 32] = 0;
  __syncthreads();
  volatile int *w = s;
  int v = w[t];
  if (t < 32) {
    w[t] = v = v + w[t + 16];
  }
  out[t] = v;
}

// A compound assignment reads its target too: both reads before the
// barrier, the store after it.
// ACCDIFF:       +  auto incant_split[[A:[0-9]+]] = s[t] + (s[t + 1]);
// ACCDIFF-NEXT:  +  __syncwarp();
// ACCDIFF-NEXT:  +  s[t] = incant_split[[A]];
// ACCDIFF-NEXT:  -  s[t] += s[t + 1];
__global__ void accumulate(int *out) {
  __shared__ int s[33];
  unsigned t = threadIdx.x;
  s[t] = t;
  if (t == 0)
    s[32] = 0;
  __syncthreads();
  s[t] += s[t + 1];
  out[t] = s[t];
}

// CALLED:      kernel _Z6calledPi (called(int*)): repaired
// CALLED:        source: the barrier goes between the reads and the store of the statement at line {{[0-9]+}}, which is no assignment alone on its line with a target free of effects
// CALLED:      repaired PTX: checked again by incant race: no race, no divergent barrier
// CALLEDERR:   incant repair: no source patch written to {{.*}}: some changes have no clean statement boundary
__device__ unsigned same(unsigned t) { return t; }
__global__ void called(int *out) {
  __shared__ int s[33];
  unsigned t = threadIdx.x;
  s[t] = t;
  if (t == 0)
    s[32] = 0;
  __syncthreads();
  s[same(t)] = s[t + 1];
  out[t] = s[t];
}

int main() {
  int *d, *e;
  cudaMalloc(&d, 64 * sizeof(int));
  cudaMalloc(&e, 64 * sizeof(int));
  shift<<<1, 32>>>(d);
  step<<<1, 32>>>(d, e);
  accumulate<<<1, 32>>>(d);
  called<<<1, 32>>>(d);
  return 0;
}
