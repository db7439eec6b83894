// label: racy (global WAW and RAW across blocks: every block's thread 0
// adds to one counter with plain loads and stores)
#include "common.cuh"

__global__ void count(int *Counter, int *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  Out[I] = I;
  if (threadIdx.x == 0)
    *Counter = *Counter + 1;
}

int main(int argc, char **argv) {
  int B = 1024, T = 256;
  geometry(argc, argv, B, T);
  int *Counter, *Out, H = 0;
  CHECK(cudaMalloc(&Counter, sizeof(int)));
  CHECK(cudaMalloc(&Out, B * T * sizeof(int)));
  CHECK(cudaMemset(Counter, 0, sizeof(int)));
  count<<<B, T>>>(Counter, Out);
  CHECK(cudaMemcpy(&H, Counter, sizeof H, cudaMemcpyDeviceToHost));
  std::printf("counter %d of %d\n", H, B);
  return 0;
}
