__global__ void k(int *A) {
  A[threadIdx.x] = 1
}
