// OpenCL C's built-in functions of values only (ceil, fmax, native_sqrt,
// dot, clamp, ...) are calls clang leaves to declared functions: they touch
// no memory, so the pairs around them are decided. One that writes through
// a pointer (sincos) stays a call of unknown effect.
// REQUIRES: clang
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel scale
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
kernel void scale(global float *p, global float *q) {
  int i = get_global_id(0);
  float4 v = (float4)(p[i], 1.0f, 2.0f, 3.0f);
  q[i] = ceil(p[i]) + fmax(p[i], 1.0f) + native_sqrt(p[i]) + dot(v, v) +
         clamp(p[i], 0.0f, 1.0f);
}

// Every work-item writes q[0].
// CHECK-LABEL: kernel first
// CHECK:       race: write-write on global memory, parameter 1
kernel void first(global float *p, global float *q) {
  q[0] = floor(p[get_global_id(0)]);
}

// CHECK-LABEL: kernel angle
// CHECK:       unknown: {{[0-9]+}} pair{{s?}}: a call to _Z6sincosfPf
kernel void angle(global float *p, global float *q) {
  int i = get_global_id(0);
  float c;
  q[i] = sincos(p[i], &c) + c;
}

// Vector shuffles and conversions are values too; atomic_xchg takes a
// float as well.
// CHECK-LABEL: kernel lanes
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
kernel void lanes(global int4 *p, global float *f, global int *flag) {
  int i = get_global_id(0);
  int4 v = shuffle(p[i], (uint4)(3, 2, 1, 0));
  int8 w = shuffle2(v, p[i], (uint8)(0, 4, 1, 5, 2, 6, 3, 7));
  p[i] = v + convert_int4_sat(convert_float4(w.lo));
  atomic_xchg(f, 1.0f);
}
