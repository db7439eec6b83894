// --assume-pure-externals in OpenCL C covers the kernel's own functions
// declared without a body (C names), never the language's built-ins
// (overloaded, with mangled names), some of which copy or write memory:
// vstore4 stays a call of unknown effect, never a clean kernel, and a
// work-group copy read before its wait is the race it is.
// REQUIRES: clang
// RUN: %incant race %s --block-dim 64 --grid-dim 2 --assume-pure-externals > %t; test $? -eq 1
// RUN: FileCheck %s < %t

int note(int x);

// CHECK-LABEL: kernel own
// CHECK:       assuming note is declared without a body: assumed to touch no memory
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[1-9][0-9]*}} safe, 0 unknown
kernel void own(global int *p) {
  int i = get_global_id(0);
  p[i] = note(p[i]);
}

// CHECK-LABEL: kernel early
// CHECK:       race: write-read on shared memory
// CHECK-NEXT:    write at {{.*}}async_work_group_copy (destination)
// CHECK:       summary: 2 races,
kernel void early(global float *p) {
  local float mine[64];
  event_t e = async_work_group_copy(mine, p + 64 * get_group_id(0), 64, 0);
  p[get_global_id(0)] = 2 * mine[get_local_id(0)];
  wait_group_events(1, &e);
}

// CHECK-LABEL: kernel stores
// CHECK:       unknown: {{.*}}a call to _Z7vstore4{{.*}}, whose accesses are not followed
// CHECK:       pairs: 0 race, {{[0-9]+}} safe, {{[1-9][0-9]*}} unknown
kernel void stores(global float *p) {
  vstore4((float4)(1.0f), get_global_id(0), p);
}
