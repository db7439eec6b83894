// label: racy (shared RAW: a neighbour's tile entry is read without
// __syncthreads, across warps)
#include "common.cuh"

__global__ void shift(const int *In, int *Out) {
  __shared__ int Tile[1024];
  int T = threadIdx.x, I = blockIdx.x * blockDim.x + T;
  Tile[T] = In[I];
  Out[I] = Tile[(T + 32) % blockDim.x];
}

int main(int argc, char **argv) {
  int B = 1024, T = 256;
  geometry(argc, argv, B, T);
  int N = B * T, *In, *Out;
  CHECK(cudaMalloc(&In, N * sizeof(int)));
  CHECK(cudaMalloc(&Out, N * sizeof(int)));
  CHECK(cudaMemset(In, 1, N * sizeof(int)));
  shift<<<B, T>>>(In, Out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
