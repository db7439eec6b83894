// --assume-pure-externals in OpenCL C covers the kernel's own functions
// declared without a body (C names), never the language's built-ins
// (overloaded, with mangled names), some of which copy or write memory:
// a work-group copy read before its wait stays a call of unknown effect,
// never a clean kernel.
// REQUIRES: clang
// RUN: %incant race %s --block-dim 64 --grid-dim 2 --assume-pure-externals > %t; test $? -eq 4
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
// CHECK:       unknown: {{.*}}async_work_group_copy
// CHECK:       pairs: 0 race, {{[0-9]+}} safe, {{[1-9][0-9]*}} unknown
kernel void early(global float *p) {
  local float mine[64];
  event_t e = async_work_group_copy(mine, p + 64 * get_group_id(0), 64, 0);
  p[get_global_id(0)] = 2 * mine[get_local_id(0)];
  wait_group_events(1, &e);
}
