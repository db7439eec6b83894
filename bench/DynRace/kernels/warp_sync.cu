// label: race-free (the exchange of warp_nosync.cu with __syncwarp
// between the store and the load)
#include "common.cuh"

__global__ void swap(const int *In, int *Out) {
  __shared__ int S[1024];
  int T = threadIdx.x, I = blockIdx.x * blockDim.x + T;
  S[T] = In[I];
  __syncwarp();
  Out[I] = S[T ^ 1];
}

int main(int argc, char **argv) {
  int B = 1024, T = 256;
  geometry(argc, argv, B, T);
  int N = B * T, *In, *Out;
  CHECK(cudaMalloc(&In, N * sizeof(int)));
  CHECK(cudaMalloc(&Out, N * sizeof(int)));
  CHECK(cudaMemset(In, 2, N * sizeof(int)));
  swap<<<B, T>>>(In, Out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
