// OpenCL tree reductions as clang compiles them without a library: the
// work-item functions are calls whose results come back through .param
// variables. A step count taken from get_local_size is the same for the
// whole work-group, so the loop's `k >>= 1` counter is too: no race and
// no divergent barrier (it was once taken for thread-dependent).
// REQUIRES: clang
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel reduce_size
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__kernel void reduce_size(__global const int *in, __global int *out,
                          __local int *s) {
  size_t lid = get_local_id(0);
  s[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t k = get_local_size(0) / 2; k > 0; k >>= 1) {
    if (lid < k)
      s[lid] += s[lid + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    out[get_group_id(0)] = s[0];
}

// CHECK-LABEL: kernel reduce_unsigned
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__kernel void reduce_unsigned(__global const int *in, __global int *out,
                              __local int *s) {
  unsigned lid = get_local_id(0);
  s[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned k = get_local_size(0) / 2; k > 0; k >>= 1) {
    if (lid < k)
      s[lid] += s[lid + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    out[get_group_id(0)] = s[0];
}

// A barrier inside the thread-dependent branch still diverges.
// CHECK-LABEL: kernel reduce_inside
// CHECK:       barrier divergence:
// CHECK:       summary: {{[0-9]+ races?}}, 1 divergent barrier
__kernel void reduce_inside(__global const int *in, __global int *out,
                            __local int *s) {
  size_t lid = get_local_id(0);
  s[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t k = get_local_size(0) / 2; k > 0; k >>= 1) {
    if (lid < k) {
      s[lid] += s[lid + k];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  if (lid == 0)
    out[get_group_id(0)] = s[0];
}

// A step count taken from get_local_id is still thread-dependent.
// CHECK-LABEL: kernel steps_by_id
// CHECK:       barrier divergence:
// CHECK:       summary: {{[0-9]+ races?}}, 1 divergent barrier
__kernel void steps_by_id(__global int *out) {
  for (size_t k = get_local_id(0); k > 0; k >>= 1)
    barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = 1;
}
