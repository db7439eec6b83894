// OpenCL C kernels, compiled by clang to NVPTX: local memory within a
// work-group, global memory across work-groups.
// REQUIRES: clang
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel rotate
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__kernel void rotate(__global int *a) {
  __local int tmp[256];
  size_t l = get_local_id(0), n = get_local_size(0);
  tmp[l] = a[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  a[get_global_id(0)] = tmp[(l + 1) % n];
}

// The same without the barrier.
// CHECK-LABEL: kernel rotate_racy
// CHECK:       race: write-read on shared memory, {{.*}}, between threads of one {{block|warp}}
// CHECK:       summary: 1 race
__kernel void rotate_racy(__global int *a) {
  __local int tmp[256];
  size_t l = get_local_id(0), n = get_local_size(0);
  tmp[l] = a[get_global_id(0)];
  a[get_global_id(0)] = tmp[(l + 1) % n];
}

// Every work-group adds into the same counter without an atomic.
// CHECK-LABEL: kernel total
// CHECK:       race: {{.*}} on global memory, parameter 1, between threads of different blocks
// CHECK:       summary: {{[1-9]}} race
__kernel void total(__global const int *in, __global int *sum) {
  if (get_local_id(0) == 0)
    sum[0] += in[get_group_id(0)];
}

// A barrier inside a branch on the work-item id.
// CHECK-LABEL: kernel diverge
// CHECK:       barrier divergence: bar.sync 0
// CHECK:       summary: 0 races, 1 divergent barrier
__kernel void diverge(__global int *a) {
  if (get_local_id(0) < 8)
    barrier(CLK_GLOBAL_MEM_FENCE);
  a[get_global_id(0)] = 1;
}
