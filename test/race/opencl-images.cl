// OpenCL C's images: write_image* writes the texel at its integer
// coordinates of the image argument; a read_only image is not written
// while the kernel runs, so its reads race with nothing; a read_write
// image's reads (integer coordinates, no sampler) are accesses.
// REQUIRES: clang
// RUN: %incant race %s --block-dim 8,8 --grid-dim 4,4 -v > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel copy
// CHECK:       assuming a read_only image is not written while the kernel runs
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__kernel void copy(__write_only image2d_t dst, __read_only image2d_t src) {
  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                      CLK_FILTER_NEAREST;
  int2 at = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(dst, at, read_imagef(src, s, at) * 2.0f);
}

// Every work-item of a row writes its first texel.
// CHECK-LABEL: kernel column
// CHECK:       race: write-write on global memory, parameter 0
// CHECK-NEXT:    write at {{.*}}write_image (texel)
__kernel void column(__write_only image2d_t dst, __read_only image2d_t src) {
  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_FILTER_NEAREST;
  write_imagef(dst, (int2)(0, get_global_id(1)),
               read_imagef(src, s, (int2)(get_global_id(0), get_global_id(1))));
}

// A read_write image: each work-item reads the texel its left neighbour
// writes, with no barrier between.
// CHECK-LABEL: kernel shift
// CHECK:       race: read-write on global memory, parameter 0
// CHECK:       summary: 1 race,
__kernel void shift(__read_write image1d_t img) {
  int x = get_global_id(1) * 32 + get_global_id(0);
  int4 v = read_imagei(img, x + 1);
  write_imagei(img, x, v);
}

// An image array: the texel is (x, y, layer); layers apart, never the same.
// CHECK-LABEL: kernel slices
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__kernel void slices(__write_only image2d_array_t dst) {
  write_imagef(dst, (int4)(get_local_id(0), 0, get_global_id(0) / 8 * 64 + get_global_id(1), 0),
               (float4)(1.0f));
}
