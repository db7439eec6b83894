// Warp specialisation on named barriers in a loop: warps 0-1 produce a
// tile into one of two stages, warps 2-3 consume it. Stage s has a "full"
// barrier 1 + s (producers arrive, consumers wait) and an "empty" barrier
// 3 + s (consumers arrive once they have read, producers wait before they
// write the stage again), each counting the block's 128 threads. The
// barrier ids change with the iteration, and the producers' first wait on
// "empty" comes two iterations after the consumers' first arrival: the
// generations are matched by the iteration they belong to. (`#pragma
// unroll 1` keeps nvcc from peeling the first two iterations: copies of
// the barriers before the loop are not matched with those in it, and the
// pairs they might order are unknown.)
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 128 --grid-dim 1 --kernel pipeline > %t.ok; test $? -eq 0
// RUN: FileCheck %s --check-prefix=OK < %t.ok
// RUN: %incant race %s --block-dim 128 --grid-dim 1 --kernel early_release > %t.nf; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NF < %t.nf
// RUN: %incant race %s --block-dim 128 --grid-dim 1 --kernel one_stage > %t.one; test $? -eq 0
// RUN: FileCheck %s --check-prefix=ONE < %t.one
// RUN: %incant race %s --block-dim 128 --grid-dim 1 --kernel skip_wait > %t.skip; test $? -eq 1
// RUN: FileCheck %s --check-prefix=SKIP < %t.skip

__device__ void bar_sync(unsigned id) {
  asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}
__device__ void bar_arrive(unsigned id) {
  asm volatile("bar.arrive %0, 128;" ::"r"(id) : "memory");
}

// OK-LABEL: kernel _Z8pipelinePKjjPj
// OK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void pipeline(const unsigned *in, unsigned tiles, unsigned *out) {
  __shared__ unsigned stage[2][64];
  unsigned t = threadIdx.x;
  #pragma unroll 1
  for (unsigned i = 0; i < tiles; ++i) {
    unsigned s = i % 2;
    if (t < 64) {
      if (i >= 2)
        bar_sync(3 + s);
      stage[s][t] = in[i * 64 + t];
      bar_arrive(1 + s);
    } else {
      unsigned c = t - 64;
      bar_sync(1 + s);
      unsigned v = stage[s][63 - c];
      if (i + 2 < tiles)
        bar_arrive(3 + s);
      out[i * 64 + c] = v;
    }
  }
}

// The consumers hand the stage back before they read it: the producers'
// write two iterations later races with the read.
// NF-LABEL: kernel _Z13early_releasePKjjPj
// NF:       race: write-read on shared memory, stage, between threads of one block
// NF:         witness: thread ({{[0-9]+}},0,0) of block (0,0,0) (warp {{[01]}}, lane {{[0-9]+}}), iteration [[I:[0-9]+]] of the loop
// NF-NEXT:         and thread ({{[0-9]+}},0,0) of block (0,0,0) (warp {{[23]}}, lane {{[0-9]+}}), iteration {{[0-9]+}} of the loop
__global__ void early_release(const unsigned *in, unsigned tiles, unsigned *out) {
  __shared__ unsigned stage[2][64];
  unsigned t = threadIdx.x;
  #pragma unroll 1
  for (unsigned i = 0; i < tiles; ++i) {
    unsigned s = i % 2;
    if (t < 64) {
      if (i >= 2)
        bar_sync(3 + s);
      stage[s][t] = in[i * 64 + t];
      bar_arrive(1 + s);
    } else {
      unsigned c = t - 64;
      bar_sync(1 + s);
      if (i + 2 < tiles)
        bar_arrive(3 + s);
      unsigned v = stage[s][63 - c];
      out[i * 64 + c] = v;
    }
  }
}

// One stage: the producers wait on "empty" (2) before the next tile.
// ONE-LABEL: kernel _Z9one_stagePKjjPj
// ONE:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void one_stage(const unsigned *in, unsigned tiles, unsigned *out) {
  __shared__ unsigned stage[64];
  unsigned t = threadIdx.x;
  #pragma unroll 1
  for (unsigned i = 0; i < tiles; ++i) {
    if (t < 64) {
      stage[t] = in[i * 64 + t];
      bar_arrive(1);
      bar_sync(2);
    } else {
      unsigned c = t - 64;
      bar_sync(1);
      unsigned v = stage[63 - c];
      bar_arrive(2);
      out[i * 64 + c] = v;
    }
  }
}

// The same handing the stage back only after odd iterations: the write of
// an odd iteration races with the read of the even one before it.
// SKIP-LABEL: kernel _Z9skip_waitPKjjPj
// SKIP:       race: write-read on shared memory, stage, between threads of one block
__global__ void skip_wait(const unsigned *in, unsigned tiles, unsigned *out) {
  __shared__ unsigned stage[64];
  unsigned t = threadIdx.x;
  #pragma unroll 1
  for (unsigned i = 0; i < tiles; ++i) {
    if (t < 64) {
      stage[t] = in[i * 64 + t];
      bar_arrive(1);
      if (i % 2 == 1)
        bar_sync(2);
    } else {
      unsigned c = t - 64;
      bar_sync(1);
      unsigned v = stage[63 - c];
      if (i % 2 == 1)
        bar_arrive(2);
      out[i * 64 + c] = v;
    }
  }
}
