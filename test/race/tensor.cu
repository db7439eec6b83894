// Warp-level matrix and surface accesses are memory accesses: a wmma
// tile is its rows (stride apart), a surface element its coordinates. The
// lanes of one warp in one wmma instruction do not race with each other.
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 128 --grid-dim 2 > %t; test $? -eq 1
// RUN: FileCheck %s < %t
// RUN: %incant race %s --block-dim 128 --grid-dim 4 --kernel tile_own > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=WIDE < %t
#include <mma.h>
using namespace nvcuda;

// Every warp stores its tile to one place.
// CHECK-LABEL: kernel _Z9tile_samePfPK6__halfS2_
// CHECK:       race: write-write on global memory, parameter 0, between threads of one block
// CHECK-NEXT:    write at tensor.cu:{{[0-9]+}}  wmma.store.d.sync.aligned.row.m16n16k16.global.f32
// CHECK:         witness: thread ({{[0-9]+}},0,0) of block (0,0,0) (warp [[W:[0-9]+]],
// CHECK-NOT:     (warp [[W]],
// CHECK:         both touch byte
__global__ void tile_same(float *out, const half *a, const half *b) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(out, fc, 16, wmma::mem_row_major);
}

// Each warp its own tile, side by side in rows of 128 floats: disjoint for
// the 8 warps of 2 blocks of 128 threads; with 4 blocks, warp 8's tile is
// row 1 of warp 0's.
// CHECK-LABEL: kernel _Z8tile_ownPfPK6__halfS2_
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
// WIDE:        race: write-write on global memory, parameter 0, between threads of different blocks
// WIDE:        witness: thread (0,0,0) of block (0,0,0) (warp 0, lane 0)
// WIDE-NEXT:   and thread (0,0,0) of block (2,0,0) (warp 0, lane 0)
// WIDE:        both touch byte 512 of parameter 0 (offsets 512 and 512)
// WIDE:        assuming line of the wmma tile at tensor.cu:{{[0-9]+}} is 1
__global__ void tile_own(float *out, const half *a, const half *b) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  unsigned w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(out + 16 * w, fc, 16 * 8, wmma::mem_row_major);
}

// Two warps store one shared tile that thread 0 reads with no barrier.
// CHECK-LABEL: kernel _Z11tile_sharedPfPK6__halfS2_
// CHECK:       race: write-write on shared memory, tile, between threads of one block
// CHECK:       race: write-read on shared memory, tile, between threads of one block
__global__ void tile_shared(float *out, const half *a, const half *b) {
  __shared__ float tile[16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(tile, fc, 16, wmma::mem_row_major);
  if (threadIdx.x == 0)
    out[blockIdx.x] = tile[5];
}

// Every thread writes one texel.
// CHECK-LABEL: kernel _Z10texel_samey
// CHECK:       race: write-write on global memory, parameter 0, between threads of one block
// CHECK:       both touch byte 0 of parameter 0
__global__ void texel_same(cudaSurfaceObject_t s) {
  surf2Dwrite(1.0f, s, 0, 0);
}

// Each thread its own texel: x in bytes, y the block.
// CHECK-LABEL: kernel _Z9texel_owny
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__global__ void texel_own(cudaSurfaceObject_t s) {
  surf2Dwrite(1.0f, s, threadIdx.x * 4, blockIdx.x);
}
