// Scoped atomics, fences, warp operations, cp.async and a device function.
#include <cuda/atomic>
#include <cuda_pipeline.h>

__device__ __noinline__ int helper(int *p, int v) {
  return atomicAdd_system(p, v);
}

__global__ void scoped(int *counter, int *out, float *in) {
  __shared__ float buf[256];
  unsigned t = threadIdx.x;
  __pipeline_memcpy_async(&buf[t], &in[t], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncwarp();
  int v = __shfl_sync(0xffffffff, (int)buf[t], 0);
  cuda::atomic_ref<int, cuda::thread_scope_block> blk(counter[0]);
  blk.fetch_add(v, cuda::memory_order_release);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst,
                            cuda::thread_scope_device);
  int k = 0;
  while (atomicCAS(&counter[1], 0, 1) != 0) {
    if (++k > 1000)
      break;
  }
  __threadfence_block();
  out[t] = helper(&counter[2], v);
  __syncthreads_count(v > 0);
}
