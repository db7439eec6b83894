// --kernel with a function template's name selects all its instances
// (the demangled names read "void tile<int>(int*)"), with its template
// arguments one instance; each gets its repair.
// REQUIRES: nvcc
// RUN: %incant repair %s --kernel tile --block-dim 64 --grid-dim 1 | FileCheck %s
// RUN: %incant repair %s --kernel 'tile<float>' --block-dim 64 --grid-dim 1 | FileCheck %s --check-prefix=ONE
// RUN: %incant repair %s --kernel til --block-dim 64 --grid-dim 1 > %t 2>&1; test $? -eq 2
// RUN: FileCheck %s --check-prefix=NONE < %t

// CHECK:      kernel _Z4tileIiEvPT_ (void tile<int>(int*)): repaired
// CHECK-NEXT:   add block barrier before template.cu:[[@LINE+11]] {{.*}}, loop depth 0, cost 2
// CHECK:      kernel _Z4tileIfEvPT_ (void tile<float>(float*)): repaired
// CHECK-NEXT:   add block barrier before template.cu:[[@LINE+9]] {{.*}}, loop depth 0, cost 2
// ONE-NOT:    tile<int>
// ONE:        kernel _Z4tileIfEvPT_ (void tile<float>(float*)): repaired
// ONE-NOT:    tile<int>
// NONE:       no kernel named 'til'
template <class T> __global__ void tile(T *out) {
  __shared__ T s[64];
  unsigned t = threadIdx.x;
  s[t] = out[t];
  out[t] = s[63 - t];
}

template __global__ void tile<int>(int *);
template __global__ void tile<float>(float *);
