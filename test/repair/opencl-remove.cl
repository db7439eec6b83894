// OpenCL C's barrier() is a call (clang leaves it to a library; incant
// inlines its own definition): a divergent one and an unnecessary one are
// taken out by deleting the call, in the PTX and as the source line.
// REQUIRES: clang, ptxas
// RUN: %incant repair %s --kernel diverge --block-dim 64 --grid-dim 2 --patch %t.diff -o %t.ptx > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=DIV < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -c -arch=sm_86 %t.ptx -o %t.cubin
// RUN: %incant repair %s --kernel own --block-dim 64 --grid-dim 2 > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=OWN < %t2

// DIV:       kernel diverge: repaired
// DIV-NEXT:    remove barrier at opencl-remove.cl:[[@LINE+14]] (PTX line {{[1-9][0-9]*}}): divergent (threads of a block disagree on reaching it)
// DIV-NEXT:      source: delete line [[@LINE+13]]
// DIV:       after: 0 races, 0 divergent barriers, 0 unknown pairs
// DIFF:      -    barrier(CLK_GLOBAL_MEM_FENCE);
// PTX-LABEL: .entry diverge
// PTX-NOT:   _Z7barrierj,
// PTX:       ret;
// OWN:       kernel own: repaired
// OWN-NEXT:    remove barrier at opencl-remove.cl:[[@LINE+15]] ({{.*}}): unnecessary
// OWN-NEXT:      source: delete line [[@LINE+14]]

__kernel void diverge(__local int *a, __global int *out) {
  size_t t = get_local_id(0);
  if (t == 3) {
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  a[t] = t;
  out[get_global_id(0)] = a[t];
}

__kernel void own(__global int *out) {
  size_t g = get_global_id(0);
  int v = out[g] + 1;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[g] = v;
}
