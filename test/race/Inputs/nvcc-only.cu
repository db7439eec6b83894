// Host code that only nvcc reads: clang stops at the #error.
#ifndef __NVCC__
#error "this file is built with nvcc only"
#endif
__global__ void first(int *out, int nblocks) {
  if (blockIdx.x < nblocks)
    out[threadIdx.x] = blockIdx.x;
}

int main() {
  first<<<4, 32>>>(nullptr, 1);
  return 0;
}
