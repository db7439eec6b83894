// OpenCL C's work-group copies: a barrier after the wait orders the copied
// tile before the other work-items' reads, and one before the copy out
// orders their writes before it; a read before any wait cannot be
// repaired with barriers.
// REQUIRES: clang
// RUN: %incant repair %s --kernel scale --block-dim 64 --grid-dim 4 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=SCALE < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: %incant repair %s --kernel unwaited --block-dim 64 --grid-dim 4 > %t2; test $? -eq 1
// RUN: FileCheck %s --check-prefix=UNWAITED < %t2

// SCALE:      kernel scale: repaired
// SCALE:          source: insert 'barrier(CLK_LOCAL_MEM_FENCE);' before line [[@LINE+14]]
// SCALE:          source: split the assignment at line [[@LINE+13]] around 'barrier(CLK_LOCAL_MEM_FENCE);'
// SCALE:          source: insert 'barrier(CLK_LOCAL_MEM_FENCE);' before line [[@LINE+13]]
// SCALE:        after: 0 races, 0 divergent barriers, 0 unknown pairs
// DIFF:          wait_group_events(1, &e);
// DIFF-NEXT:   + barrier(CLK_LOCAL_MEM_FENCE);
// DIFF-NEXT:   + float incant_split[[@LINE+8]] = (2 * tile[63 - get_local_id(0)]);
// DIFF-NEXT:   + barrier(CLK_LOCAL_MEM_FENCE);
// DIFF-NEXT:   + tile[get_local_id(0)] = incant_split[[@LINE+6]];
// DIFF-NEXT:   + barrier(CLK_LOCAL_MEM_FENCE);
__kernel void scale(__global float *in, __global float *out) {
  __local float tile[64];
  event_t e = async_work_group_copy(tile, in + 64 * get_group_id(0), 64, 0);
  wait_group_events(1, &e);
  tile[get_local_id(0)] = 2 * tile[63 - get_local_id(0)];
  e = async_work_group_copy(out + 64 * get_group_id(0), tile, 64, 0);
  wait_group_events(1, &e);
}

// UNWAITED:      kernel unwaited: cannot be repaired
// UNWAITED:        cannot repair: write-read on shared memory, {{.*}}: the work-group copy may still be in flight at the other access: a wait_group_events on its event (and a barrier after it) is needed before that access
__kernel void unwaited(__global float *in, __global float *out) {
  __local float tile[64];
  event_t e = async_work_group_copy(tile, in + 64 * get_group_id(0), 64, 0);
  out[get_global_id(0)] = tile[get_local_id(0)];
  wait_group_events(1, &e);
}
