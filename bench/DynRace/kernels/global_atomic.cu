// label: race-free (a histogram with atomicAdd; the input read by
// everyone, written by no one)
#include "common.cuh"

__global__ void histogram(const unsigned *In, unsigned *Bins, int N) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N;
       I += gridDim.x * blockDim.x)
    atomicAdd(&Bins[In[I] % 64], 1u);
}

int main(int argc, char **argv) {
  int B = 1024, T = 256;
  geometry(argc, argv, B, T);
  int N = B * T * 4;
  unsigned *In, *Bins, H[64];
  CHECK(cudaMalloc(&In, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&Bins, sizeof H));
  CHECK(cudaMemset(In, 7, N * sizeof(unsigned)));
  CHECK(cudaMemset(Bins, 0, sizeof H));
  histogram<<<B, T>>>(In, Bins, N);
  CHECK(cudaMemcpy(H, Bins, sizeof H, cudaMemcpyDeviceToHost));
  unsigned S = 0;
  for (unsigned V : H)
    S += V;
  std::printf("counted %u of %d\n", S, N);
  return 0;
}
