// A flag in memory a parameter points to (its value at launch is not
// known) and fences of block scope between blocks: the pairs a fence or
// atomic may order are unknown, never safe (sync-memory.cu has the proofs). A
// fence of block scope orders threads of two blocks only through a third
// thread of the same block (when some fence in the kernel has gpu scope);
// with one thread per block there is none, and the pairs race.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 4
// RUN: FileCheck %s --check-prefix=ANY < %t
// RUN: %incant race %s --block-dim 1 --grid-dim 2 > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ONE < %t

// ANY-LABEL: kernel _Z7messagePViS0_
// ANY:       unknown: 1 pair: may be ordered through the fence or atomic at lock.cu:31 and lock.cu:34
// ANY-NEXT:    lock.cu:37 and lock.cu:30
// ANY:       unknown: 1 pair: may be ordered through the fence or atomic at lock.cu:36 and lock.cu:31
// ANY-NEXT:    lock.cu:34 and lock.cu:32
// ANY:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 5 safe, 2 unknown
// ONE-LABEL: kernel _Z7messagePViS0_
// ONE:       race: read-write on global memory, parameter 1, between threads of different blocks
// ONE:       race: read-write on global memory, parameter 0, between threads of different blocks
// ONE-NEXT:    read  at lock.cu:37
// ONE-NEXT:          37 | int d = data[0];
// ONE-NEXT:    write at lock.cu:30
// ONE:       summary: 2 races, 0 divergent barriers; pairs: 2 race, 5 safe, 0 unknown
__global__ void message(volatile int *data, volatile int *flag) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 1;
    __threadfence_block();
    flag[0] = 1;
  } else if (blockIdx.x == 1) {
    while (flag[0] == 0) {
    }
    __threadfence_block();
    int d = data[0];
    __threadfence();
    data[1] = d;
  }
}
