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
// CHECK:       race: write-read on shared memory, rotate_racy_$_tmp, between threads of one {{block|warp}}
// CHECK-NEXT:    write at opencl.cl:[[@LINE+12]]  st.shared.u32
// CHECK-NEXT:          [[@LINE+11]] | tmp[l] = a[get_global_id(0)];
// CHECK-NEXT:    read  at opencl.cl:[[@LINE+11]]  ld.shared.u32
// CHECK-NEXT:          [[@LINE+10]] | a[get_global_id(0)] = tmp[(l + 1) % n];
// CHECK-NEXT:    witness: thread ([[#]],0,0) of block ([[#B:]],0,0)
// CHECK-NEXT:         and thread ([[#]],0,0) of block ([[#B]],0,0)
// CHECK-NEXT:             blockDim ([[#]],1,1), gridDim ([[#]],1,1)
// CHECK-NEXT:             both touch byte [[#]] of rotate_racy_$_tmp
// CHECK:       summary: 1 race
__kernel void rotate_racy(__global int *a) {
  __local int tmp[256];
  size_t l = get_local_id(0), n = get_local_size(0);
  tmp[l] = a[get_global_id(0)];
  a[get_global_id(0)] = tmp[(l + 1) % n];
}

// Every work-group adds into the same counter without an atomic.
// CHECK-LABEL: kernel total
// CHECK:       race: read-write on global memory, parameter 1, between threads of different blocks
// CHECK-NEXT:    read  at opencl.cl:[[@LINE+9]]  ld.global.u32
// CHECK-NEXT:          [[@LINE+8]] | sum[0] += in[get_group_id(0)];
// CHECK-NEXT:    write at opencl.cl:[[@LINE+7]]  st.global.u32
// CHECK:         witness: thread (0,0,0) of block ([[#]],0,0)
// CHECK-NEXT:         and thread (0,0,0) of block ([[#]],0,0)
// CHECK:         hint: no barrier orders threads of different blocks
// CHECK:       summary: 2 races
__kernel void total(__global const int *in, __global int *sum) {
  if (get_local_id(0) == 0)
    sum[0] += in[get_group_id(0)];
}

// A barrier inside a branch on the work-item id.
// CHECK-LABEL: kernel diverge
// CHECK:       barrier divergence: bar.sync 0 at opencl.cl:[[@LINE+6]]
// CHECK-NEXT:          [[@LINE+5]] | barrier(CLK_GLOBAL_MEM_FENCE);
// CHECK-NEXT:    thread ([[#]],0,0) of block ([[#B:]],0,0) {{.*}} reaches it; thread ([[#]],0,0) of block ([[#B]],0,0) {{.*}} does not: it branches around the barrier at opencl.cl:[[@LINE+3]]
// CHECK:       summary: 0 races, 1 divergent barrier
__kernel void diverge(__global int *a) {
  if (get_local_id(0) < 8)
    barrier(CLK_GLOBAL_MEM_FENCE);
  a[get_global_id(0)] = 1;
}
