// Small kernels for incant ptx tests.
#include <cuda/atomic>

__device__ int flag;
__device__ int data[64];

__device__ __forceinline__ void publish(int *p, int v) {
  *p = v;
  __threadfence();
  atomicExch(&flag, 1);
}

__global__ void producer(int *out, int n) {
  __shared__ int tile[128];
  int t = threadIdx.x;
  tile[t] = out[t];
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      out[i * n + j] += tile[(i + j) & 127];
  }
  if (t == 0)
    publish(&data[0], 42);
}

__global__ void consumer(int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(flag);
  while (f.load(cuda::memory_order_acquire) == 0) {
  }
  out[threadIdx.x] = data[0];
  atomicAdd_block(out + 1, 2);
}
