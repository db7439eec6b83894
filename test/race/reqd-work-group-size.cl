// OpenCL C's reqd_work_group_size fixes the work-group as CUDA's .reqntid
// does: a kernel that needs one warp's worth of work-items is checked for
// that size, and a launch of another size is refused.
// REQUIRES: clang
// RUN: %incant race %s -v > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: %incant race %s --block-dim 64 > %t2; test $? -eq 1
// RUN: FileCheck %s --check-prefix=OTHER < %t2

#define WG 32

// CHECK-LABEL: kernel pairs
// CHECK:       assuming blockDim = (32,1,1): the kernel's reqd_work_group_size
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[1-9][0-9]*}} safe, 0 unknown
// OTHER:       note: the block given differs from the kernel's .reqntid 32,1,1 (reqd_work_group_size): such a launch is refused
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pairs(__global int *out) {
  __local int s[WG];
  s[get_local_id(0)] = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  // Only in-bounds for 32 work-items: with more, two write one word.
  out[get_group_id(0) * WG + get_local_id(0) % WG] = s[WG - 1 - get_local_id(0) % WG];
}
