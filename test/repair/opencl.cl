// OpenCL C: tiles of a loop (not unrolled) in local memory without their
// barriers,
// and a neighbour exchange through global memory within a work-group.
// REQUIRES: clang
// RUN: %incant repair %s --kernel tiles --block-dim 64 --grid-dim 4 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=REDUCE < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: %incant repair %s --kernel shift --grid-dim 1 > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=SHIFT < %t2

// REDUCE:      kernel tiles: repaired
// REDUCE-NEXT:   add block barrier before opencl.cl:{{[0-9]+}} ({{.*}}), loop depth 1, cost 20
// REDUCE-NEXT:     source: insert 'barrier(CLK_LOCAL_MEM_FENCE);' before line [[@LINE+15]]
// REDUCE-NEXT:   add block barrier before opencl.cl:{{[0-9]+}} ({{.*}}), loop depth 1, cost 20
// REDUCE-NEXT:     source: insert 'barrier(CLK_LOCAL_MEM_FENCE);' before line [[@LINE+14]]
// REDUCE-NOT:    add
// REDUCE:        after: 0 races, 0 divergent barriers, 0 unknown pairs
// REDUCE:      source patch (compiled again and checked by incant race):
// DIFF:        +    barrier(CLK_LOCAL_MEM_FENCE);
// DIFF-NEXT:        s[t] = in[i * 64 + t];
// DIFF-NEXT:   +    barrier(CLK_LOCAL_MEM_FENCE);
__kernel void tiles(__global float *out, __global const float *in, int n) {
  __local float s[64];
  unsigned t = get_local_id(0);
  float acc = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    s[t] = in[i * 64 + t];
    acc += s[(t + 1) % 64];
  }
  out[get_global_id(0)] = acc;
}

// SHIFT:      kernel shift: repaired
// SHIFT-NEXT:   add block barrier before opencl.cl:[[@LINE+6]] ({{.*}}), loop depth 0, cost 2
// SHIFT-NEXT:     source: insert 'barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);' before line [[@LINE+5]]
__kernel void shift(__global int *a, __global int *b) {
  unsigned t = get_local_id(0);
  unsigned n = get_local_size(0);
  a[t] = t;
  b[t] = a[(t + 1) % n];
}
