// label: racy, but its racy launch never starts: a block of 2,048 threads
// is more than CUDA allows, so the driver refuses it (the application goes
// on, and exits 0). `incant race --dynamic` must say the launch was not
// checked and exit 3, never report a clean run; the second, legal launch
// is race-free.
#include "common.cuh"

__global__ void everyone(int *Out) { Out[0] = threadIdx.x; }
__global__ void own(int *Out) { Out[threadIdx.x] = threadIdx.x; }

int main() {
  int *Out;
  CHECK(cudaMalloc(&Out, 256 * sizeof(int)));
  everyone<<<1, 2048>>>(Out);
  cudaError_t E = cudaGetLastError();
  std::printf("the 2048-thread launch: %s\n", cudaGetErrorName(E));
  own<<<1, 256>>>(Out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return E != cudaSuccess ? 0 : 1; // refused, as it should be
}
