// OpenCL C's async_work_group_copy: a copy of the whole work-group, each
// element moved by whichever work-item, in flight from the call until a
// work-item's wait_group_events names its event; a barrier after the wait
// orders it before the other work-items' accesses.
// REQUIRES: clang
// RUN: %incant race %s --block-dim 64 --grid-dim 4 > %t; test $? -eq 1
// RUN: FileCheck %s < %t

#define N 64

// CHECK-LABEL: kernel waited
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[1-9][0-9]*}} safe, 0 unknown
kernel void waited(global float *in, global float *out) {
  local float tile[N];
  event_t e = async_work_group_copy(tile, in + N * get_group_id(0), N, 0);
  wait_group_events(1, &e);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[N - 1 - get_local_id(0)];
}

// CHECK-LABEL: kernel early
// CHECK:       race: write-read on shared memory, early_$_tile, between threads of one block
// CHECK-NEXT:    write at {{.*}}async_work_group_copy (destination)
// CHECK:         assuming element of the work-group copy at {{.*}} is
kernel void early(global float *in, global float *out) {
  local float tile[N];
  event_t e = async_work_group_copy(tile, in + N * get_group_id(0), N, 0);
  out[get_global_id(0)] = tile[get_local_id(0)];
  wait_group_events(1, &e);
}

// The wait completes the copy for the work-item that waits; another
// work-item may have moved the element it reads.
// CHECK-LABEL: kernel no_barrier
// CHECK:       race: write-read on shared memory, no_barrier_$_tile
// CHECK:       summary: 1 race,
kernel void no_barrier(global float *in, global float *out) {
  local float tile[N];
  event_t e = async_work_group_copy(tile, in + N * get_group_id(0), N, 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = tile[get_local_id(0)];
}

// A barrier before the wait does not complete the copy.
// CHECK-LABEL: kernel barrier_before_wait
// CHECK:       race: write-read on shared memory, barrier_before_wait_$_tile
// CHECK:       summary: 1 race,
kernel void barrier_before_wait(global float *in, global float *out) {
  local float tile[N];
  event_t e = async_work_group_copy(tile, in + N * get_group_id(0), N, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[get_local_id(0)];
  wait_group_events(1, &e);
}

// Only the first of two events is waited for.
// CHECK-LABEL: kernel one_of_two
// CHECK:       race: write-read on shared memory, one_of_two_$_b
// CHECK-NOT:   race:
// CHECK:       summary: 1 race,
kernel void one_of_two(global float *in, global float *out) {
  local float a[N], b[N];
  event_t ev[2];
  ev[0] = async_work_group_copy(a, in + N * get_group_id(0), N, 0);
  ev[1] = async_work_group_copy(b, in + N * (get_group_id(0) + 4), N, 0);
  wait_group_events(1, ev);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[get_local_id(0)] + b[get_local_id(0)];
}

// A copy given an event joins it and returns it: waiting for that event
// completes all three.
// CHECK-LABEL: kernel joined
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[1-9][0-9]*}} safe, 0 unknown
kernel void joined(global float *in, global float *out) {
  local float a[N], b[N], c[N];
  event_t e = async_work_group_copy(a, in + N * get_group_id(0), N, 0);
  event_t f = async_work_group_copy(b, in + N * (get_group_id(0) + 4), N, e);
  async_work_group_copy(c, in + N * (get_group_id(0) + 8), N, f);
  wait_group_events(1, &e);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[get_local_id(0)] + b[get_local_id(0)] + c[get_local_id(0)];
}

// Every work-group copies into the same global range.
// CHECK-LABEL: kernel same_range
// CHECK:       race: write-write on global memory, parameter 1, between threads of different blocks
// CHECK-NEXT:    write at {{.*}}async_work_group_copy (destination)
kernel void same_range(global float *in, global float *out) {
  local float tile[N];
  tile[get_local_id(0)] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  event_t e = async_work_group_copy(out, tile, N, 0);
  wait_group_events(1, &e);
}

// Two strided copies of every other element: they never meet.
// CHECK-LABEL: kernel interleaved
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[1-9][0-9]*}} safe, 0 unknown
kernel void interleaved(global float *in, global float *out) {
  local float a[N], b[N];
  a[get_local_id(0)] = in[get_global_id(0)];
  b[get_local_id(0)] = 2 * in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  global float *base = out + 2 * N * get_group_id(0);
  event_t e = async_work_group_strided_copy(base, a, N, 2, 0);
  async_work_group_strided_copy(base + 1, b, N, 2, e);
  wait_group_events(1, &e);
}

// OpenCL C requires the same arguments in every work-item of the group.
// CHECK-LABEL: kernel per_item
// CHECK:       unknown: 1 pair: the arguments of async_work_group_copy at {{.*}} may differ between the work-items of one work-group
kernel void per_item(global float *in, global float *out) {
  local float tile[N];
  event_t e = async_work_group_copy(tile, in + get_local_id(0), N, 0);
  wait_group_events(1, &e);
}

// ... and that all of them or none reach it.
// CHECK-LABEL: kernel some_items
// CHECK:       unknown: 1 pair: the work-items of one work-group may disagree on reaching async_work_group_copy
kernel void some_items(global float *in, global float *out) {
  local float tile[N];
  if (get_local_id(0) < 7) {
    event_t e = async_work_group_copy(tile, in, N, 0);
    wait_group_events(1, &e);
  }
}

// Which event the wait names comes through a pointer chosen per group:
// not known, so the read after it is unknown, neither safe nor a race.
// CHECK-LABEL: kernel chosen_list
// CHECK:       unknown: {{.*}} which events that wait names is not known
// CHECK-NOT:   race:
// CHECK:       summary: 0 races,
kernel void chosen_list(global float *in, global float *out) {
  local float a[N], b[N];
  event_t ea = async_work_group_copy(a, in + N * get_group_id(0), N, 0);
  event_t eb = async_work_group_copy(b, in + N * (get_group_id(0) + 4), N, 0);
  event_t *which = (get_group_id(0) & 1) ? &ea : &eb;
  wait_group_events(1, which);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[get_local_id(0)];
}
