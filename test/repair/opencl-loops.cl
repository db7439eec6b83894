// OpenCL C kernels whose barrier has a place in the source only through
// the loop around it or the code after it:
// - scan: the barrier the repair adds heads the while loop's rotated body
//   (clang checks the condition at the latch): it runs before every
//   iteration, so it goes at the start of the body, not before the `while`
//   line (which would be before the loop, once);
// - total: the barrier goes before an instruction clang gives no line
//   (`.loc` line 0, after the unrolled loop), whose next instruction in
//   its block, with no access between, is the store's line.
// REQUIRES: clang
// RUN: %incant repair %s --kernel scan --block-dim 256 --grid-dim 2 --patch %t.scan.diff > %t.scan; test $? -eq 0
// RUN: FileCheck %s --check-prefix=SCAN < %t.scan
// RUN: FileCheck %s --check-prefix=SCANDIFF < %t.scan.diff
// RUN: %incant repair %s --kernel total --block-dim 256 --grid-dim 2 --patch %t.total.diff > %t.total; test $? -eq 0
// RUN: FileCheck %s --check-prefix=TOTAL < %t.total
// RUN: FileCheck %s --check-prefix=TOTALDIFF < %t.total.diff

// SCAN:           add block barrier before opencl-loops.cl:[[@LINE+11]] {{.*}}loop depth 1
// SCAN-NEXT:        source: insert 'barrier(CLK_LOCAL_MEM_FENCE);' before line [[@LINE+11]]
// SCAN:           source patch (compiled again and checked by incant race):
// SCANDIFF:         while (i < get_local_size(0)) {
// SCANDIFF-NEXT:  +    barrier(CLK_LOCAL_MEM_FENCE);
// SCANDIFF-NEXT:       if (i <= t)
// SCANDIFF-NEXT:         v = a[t - i];
__kernel void scan(__local int *a) {
  int t = get_local_id(0);
  int v = 0;
  int i = 1;
  while (i < get_local_size(0)) {
    if (i <= t)
      v = a[t - i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i <= t)
      a[t] += v;
    i *= 2;
  }
}

// TOTAL:          add block barrier before PTX line
// TOTAL-NEXT:       source: insert 'barrier(CLK_LOCAL_MEM_FENCE);' before line [[@LINE+9]]
// TOTAL:          source patch (compiled again and checked by incant race):
// TOTALDIFF:          s += p[i];
// TOTALDIFF-NEXT: +  barrier(CLK_LOCAL_MEM_FENCE);
// TOTALDIFF-NEXT:    p[get_local_id(0)] = s;
__kernel void total(__local int *p, __global int *out) {
  int s = 0;
  for (int i = 0; i < 64; i++)
    s += p[i];
  p[get_local_id(0)] = s;
  out[get_global_id(0)] = s;
}
