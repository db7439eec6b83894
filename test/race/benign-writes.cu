// Two stores that race but always put the same value in the same bytes
// are a benign race: PTX does not require race freedom, and whichever of
// the two lands last leaves that value. They are safe, with that reason;
// --no-benign-tolerance reports them as races. Values that may differ
// (a thread's id, a loaded value, a loop counter of another iteration),
// different widths and overlapping but different bytes stay races.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized -v > %t; test $? -eq 1
// RUN: FileCheck %s < %t
// RUN: %incant race %s --optimized --kernel _Z4flagPi --no-benign-tolerance > %t.strict; test $? -eq 1
// RUN: FileCheck --check-prefix=STRICT %s < %t.strict

// CHECK-LABEL: kernel _Z4flagPi
// CHECK:       safe: {{.*}}a benign race: both store the same value to the same bytes
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
// STRICT:      race: write-write on global memory, parameter 0
__global__ void flag(int *found) { *found = 1; }

// Every thread stores blockDim.x - 1 (the same in every thread of the
// grid), and a float constant from two places.
// CHECK-LABEL: kernel _Z7uniformPiPf
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 2 safe, 0 unknown
__global__ void uniform(int *n, float *x) {
  *n = blockDim.x - 1;
  if (threadIdx.x & 1)
    *x = 2.5f;
  else
    *x = 2.5f;
}

// threadIdx.x / 64 is 0 in every thread of a block of 64.
// CHECK-LABEL: kernel _Z5div64Pi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__global__ void __launch_bounds__(64) div64(int *a) {
  if (blockDim.x == 64)
    a[blockIdx.x] = threadIdx.x / 64;
}

// CHECK-LABEL: kernel _Z3tidPi
// CHECK:       race: write-write
// CHECK:       summary: 1 race,
__global__ void tid(int *a) { a[0] = threadIdx.x; }

// A loaded value is each thread's own.
// CHECK-LABEL: kernel _Z6loadedPiPKi
// CHECK:       race: write-write
// CHECK:       summary: 1 race,
__global__ void loaded(int *a, const int *b) { a[0] = b[threadIdx.x]; }

// The same value, but as an int and as a short that overlaps it.
// CHECK-LABEL: kernel _Z5widthPi
// CHECK:       race: write-write
__global__ void width(int *a) {
  if (threadIdx.x == 0)
    a[0] = 0;
  else
    reinterpret_cast<short *>(a)[1] = 0;
}

// In a loop, two threads in different iterations store different values.
// CHECK-LABEL: kernel _Z4loopPii
// CHECK:       race: write-write
__global__ void loop(int *a, int n) {
  for (int i = 0; i < n; ++i)
    a[0] = i;
}

// Every thread copies A[i] to B[i]: the same word in every thread, but a
// loaded value, which the tolerance does not follow.
// CHECK-LABEL: kernel _Z4copyPiPKi
// CHECK:       race: write-write
__global__ void copy(int *b, const int *a) {
  for (int i = 0; i < 4; ++i)
    b[i] = a[i];
}
