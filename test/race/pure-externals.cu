// Functions declared without a body: by default a call to one is an access
// of unknown address (an external function may do anything), so its pairs
// are unknown. --assume-pure-externals (GPUVerify's convention) takes such a
// function to touch no memory and reach no barrier, and to return any
// value: every report that relies on it says so, in the text, the JSON and
// the SARIF log; races stay races and a returned index stays unknown.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=HONEST < %t
// RUN: %incant race %s --optimized --assume-pure-externals > %t.pure; test $? -eq 1
// RUN: FileCheck %s < %t.pure
// RUN: %incant race %s --optimized --assume-pure-externals --kernel logged --json > %t.json; test $? -eq 0
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: %incant race %s --optimized --assume-pure-externals --kernel logged --sarif %t.sarif > /dev/null
// RUN: python3 %S/Inputs/check-sarif.py %t.sarif | FileCheck %s --check-prefix=VALID
// RUN: FileCheck %s --check-prefix=SARIF < %t.sarif
// RUN: %incant race %s --optimized --assume-pure-externals --kernel picked --sarif %t.picked.sarif > /dev/null; test $? -eq 4
// RUN: FileCheck %s --check-prefix=SARIF-RESULT < %t.picked.sarif

__device__ void note(int v);
__device__ int pick(int v);

// HONEST-LABEL: kernel _Z6loggedPi
// HONEST:       unknown: 2 pairs: a call to _Z4notei left a call (the callee is only declared), whose accesses are not followed
// HONEST-NOT:   assuming
// HONEST:       summary: 0 races
// CHECK-LABEL:  kernel _Z6loggedPi
// CHECK-NEXT:   assuming note(int) is declared without a body: assumed to touch no memory and to reach no barrier (--assume-pure-externals)
// CHECK-NEXT:   summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__global__ void logged(int *A) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  note(t);
  A[t] = t;
}

// What the function returns is any value, one per thread.
// CHECK-LABEL:  kernel _Z6pickedPi
// CHECK:        unknown: 1 pair: the offset depends on a loaded value
// CHECK:        assuming pick(int) is declared without a body
// CHECK-NEXT:   summary: 0 races, 0 divergent barriers; pairs: 0 race, 0 safe, 1 unknown
__global__ void picked(int *A) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  A[pick(t)] = t;
}

// The barrier after the call still orders the block.
// CHECK-LABEL:  kernel _Z11barrier_forPi
// CHECK-NEXT:   assuming note(int) is declared without a body
// CHECK-NEXT:   summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void barrier_for(int *A) {
  __shared__ int s[256];
  s[threadIdx.x] = threadIdx.x;
  note(threadIdx.x);
  __syncthreads();
  A[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

// The racy twin: the race is found with the assumption too.
// CHECK-LABEL:  kernel _Z4racyPi
// CHECK:        race: write-write on global memory, parameter 0, between threads of one block
// CHECK:        witness: thread
// CHECK:        both touch byte 0 of parameter 0
// CHECK:        assuming note(int) is declared without a body
// CHECK-NEXT:   summary: 1 race
__global__ void racy(int *A) {
  note(threadIdx.x);
  A[0] = threadIdx.x;
}

// JSON: "option_assumptions":["note(int) is declared without a body: assumed to touch no memory and to reach no barrier (--assume-pure-externals)"]
// VALID: sarif ok: 0 results
// SARIF:        "properties": {
// SARIF-NEXT:     "assumptions": [
// SARIF-NEXT:       "note(int) is declared without a body: assumed to touch no memory and to reach no barrier (--assume-pure-externals)"
// SARIF-RESULT: "properties": {
// SARIF-RESULT-NEXT: "assumptions": [
// SARIF-RESULT-NEXT:   "pick(int) is declared without a body
