// label: race-free (shared tree reduction with __syncthreads, one atomic
// per block)
#include "common.cuh"

__global__ void reduce(const int *In, unsigned long long *Sum) {
  __shared__ int S[1024];
  int T = threadIdx.x;
  S[T] = In[blockIdx.x * blockDim.x + T];
  __syncthreads();
  for (int D = blockDim.x / 2; D > 0; D /= 2) {
    if (T < D)
      S[T] += S[T + D];
    __syncthreads();
  }
  if (T == 0)
    atomicAdd(Sum, (unsigned long long)S[0]);
}

int main(int argc, char **argv) {
  int B = 1024, T = 256;
  geometry(argc, argv, B, T);
  int N = B * T, *In;
  unsigned long long *Sum, H = 0;
  CHECK(cudaMalloc(&In, N * sizeof(int)));
  CHECK(cudaMalloc(&Sum, sizeof *Sum));
  CHECK(cudaMemset(In, 0, N * sizeof(int)));
  CHECK(cudaMemset(Sum, 0, sizeof *Sum));
  reduce<<<B, T>>>(In, Sum);
  CHECK(cudaMemcpy(&H, Sum, sizeof H, cudaMemcpyDeviceToHost));
  std::printf("sum %llu\n", H);
  return 0;
}
