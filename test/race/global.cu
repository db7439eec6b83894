// Global memory: threads of different blocks are ordered by no barrier.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// Every block writes the same elements.
// CHECK-LABEL: kernel _Z7noblockPi
// CHECK:       race: write-write on global memory, parameter 0, between threads of different blocks
// CHECK:         witness: thread ([[T:[0-9]+]],0,0) of block ({{[0-9]+}},0,0)
// CHECK-NEXT:         and thread ([[T]],0,0) of block ({{[0-9]+}},0,0)
// CHECK:         hint: no barrier orders threads of different blocks
// CHECK:       summary: 1 race
__global__ void noblock(int *A) { A[threadIdx.x] = blockIdx.x; }

// CHECK-LABEL: kernel _Z3gidPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__global__ void gid(int *A) { A[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

// A grid-stride loop: every thread its own elements, whatever the grid.
// CHECK-LABEL: kernel _Z6stridePii
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 2 safe, 0 unknown
__global__ void stride(int *A, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    A[i] += 1;
}

// The stride is the block, not the grid: blocks overlap.
// CHECK-LABEL: kernel _Z9badstridePii
// CHECK:       race: {{read-write|write-read|write-write}} on global memory, parameter 0, between threads of different blocks
// CHECK-NEXT:    {{read|write}} at global.cu:[[@LINE+10]]  {{ld|st}}.global.u32
// CHECK-NEXT:          [[@LINE+9]] | A[i] += 1;
// CHECK-NEXT:    {{read|write}} at global.cu:[[@LINE+8]]  {{ld|st}}.global.u32
// CHECK-NEXT:          [[@LINE+7]] | A[i] += 1;
// CHECK-NEXT:    witness: thread ({{[0-9]+}},0,0) of block ([[#]],0,0) (warp [[#]], lane [[#]]), iteration [[#]] of the loop at PTX line [[#L:]]
// CHECK-NEXT:         and thread ({{[0-9]+}},0,0) of block ([[#]],0,0) (warp [[#]], lane [[#]]), iteration [[#]] of the loop at PTX line [[#L]]
// CHECK-NEXT:             blockDim ([[#]],1,1), gridDim ([[#]],1,1), parameter 1 = [[#]]
// CHECK:       summary: {{[1-9]}} race
__global__ void badstride(int *A, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    A[i] += 1;
}

// A loop with a constant stride of 16 over a block of any size: threads t
// and t + 16 meet.
// CHECK-LABEL: kernel _Z6strip4Pi
// CHECK:       race: write-write on global memory, parameter 0, between threads of one {{block|warp}}
// CHECK-NEXT:    write at global.cu:[[@LINE+8]]  st.global.u32
// CHECK-NEXT:          [[@LINE+7]] | A[blockIdx.x * 256 + i] = i;
// CHECK-NEXT:    write at global.cu:[[@LINE+6]]  st.global.u32
// CHECK:         witness: thread ([[#]],0,0) of block ([[#B:]],0,0) {{.*}}, iteration [[#]] of the loop
// CHECK-NEXT:         and thread ([[#]],0,0) of block ([[#B]],0,0) {{.*}}, iteration [[#]] of the loop
// CHECK:       summary: 1 race
__global__ void strip4(int *A) {
  for (int i = threadIdx.x; i < 256; i += 16)
    A[blockIdx.x * 256 + i] = i;
}

// Each thread its own row of 64 elements.
// CHECK-LABEL: kernel _Z4rowsPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void rows(int *A) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 64; ++i)
    A[g * 64 + i] = i;
}
