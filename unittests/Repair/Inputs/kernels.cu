// Kernels for the Repair unit tests, with their barriers taken out (or
// misplaced). kernels.ptx is nvcc 13's output:
//   nvcc -arch=sm_90 -ptx -lineinfo kernels.cu -o kernels.ptx
#include <cooperative_groups.h>

// Each thread reads its neighbour's element: a barrier between.
__global__ void neighbor(int *out, const int *in) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = in[t];
  out[t] = s[(t + 1) % blockDim.x];
}

// Tree reduction without its barriers.
__global__ void reduce(float *out, const float *in) {
  __shared__ float s[1024];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// A barrier nothing needs: each thread reads back its own element.
__global__ void own(int *out, const int *in) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  out[t] = s[t] + 1;
}

// A barrier inside a thread-dependent branch: divergent.
__global__ void divergent(int *out, const int *in) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  if (t < 16) {
    s[t] = in[t];
    __syncthreads();
  }
  out[t] = s[t ^ 1];
}

// Blocks exchange data through global memory: a grid barrier.
__global__ void exchange(int *a, int *b) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned n = gridDim.x * blockDim.x;
  a[g] = g;
  b[g] = a[(g + blockDim.x) % n];
}

// Every thread writes one location: no barrier helps.
__global__ void same(int *out) { out[0] = threadIdx.x; }
