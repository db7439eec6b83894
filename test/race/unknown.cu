// Addresses the analysis cannot follow (an index loaded from memory, a
// pointer read from memory) give unknown pairs, never safe ones: exit 4
// by default, 1 with --strict. The accesses not proved safe are the ones
// a dynamic checker must watch.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 4
// RUN: FileCheck %s < %t
// RUN: %incant race %s --strict > /dev/null; test $? -eq 1
// RUN: %incant race %s --json > %t.json; test $? -eq 4
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: %incant race %s -v > %t.v; test $? -eq 4
// RUN: FileCheck %s --check-prefix=VERBOSE < %t.v

// The load of idx[i] races with nothing (idx is never written); the store
// is what a dynamic checker must watch.
// VERBOSE-LABEL: kernel _Z7scatterPiPKi
// VERBOSE-NOT:   not proved safe: {{.*}} ld.global
// VERBOSE:       not proved safe: unknown.cu:[[@LINE+8]]  st.global.u32
// VERBOSE-NEXT:  summary:
// CHECK-LABEL: kernel _Z7scatterPiPKi
// CHECK:       unknown: 1 pair: the offset depends on a loaded value (an index read from memory)
// CHECK-NEXT:    unknown.cu:[[@LINE+4]] and unknown.cu:[[@LINE+4]]
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 0 safe, 1 unknown; 1 of 2 accesses not proved safe
__global__ void scatter(int *out, const int *idx) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[idx[i]] = i;
}

// CHECK-LABEL: kernel _Z5chasePPi
// CHECK:       unknown: {{[0-9]+}} pairs: the address is computed from a loaded value (a pointer read from memory)
__global__ void chase(int **lists) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  lists[i][0] = i;
}

// JSON: {"file":"{{.*}}unknown.cu","kernels":[{
// JSON-SAME: "name":"_Z7scatterPiPKi"
// JSON-SAME: "unproved":[1]
