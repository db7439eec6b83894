// Worklist slots from an atomicAdd in a loop that nvcc unrolls: the
// copies are different instructions on one counter, and since every write
// of the counter adds a positive constant, no two return one value: the
// slots differ. With a reset of the counter beside them they can repeat
// (unknown: which values the atomics hand out is not known).
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z4pushPKiS0_PiS1_i
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
// CHECK-LABEL: kernel _Z10push_plainPKiS0_PiS1_i
// CHECK:       race: write-write on global memory, parameter 3
// CHECK:       unknown: 1 pair: a race only for some values of atomic tickets
__global__ void push(const int *index, const int *list, int *worklist,
                     int *size, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n)
    for (int j = index[i]; j < index[i + 1]; j++)
      if (i < list[j])
        worklist[atomicAdd(size, 1)] = j;
}

__global__ void push_plain(const int *index, const int *list, int *worklist,
                           int *size, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n)
    for (int j = index[i]; j < index[i + 1]; j++)
      if (i < list[j]) {
        worklist[atomicAdd(size, 1)] = j;
        if (j == 0)
          size[0] = 0;
      }
}
