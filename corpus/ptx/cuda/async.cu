// Asynchronous copies and split barriers: cp.async, mbarrier, pipelines.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Block-scope barriers in shared memory are initialised by one thread, as
// the CUDA programming guide does it.
#pragma nv_diag_suppress static_var_with_dynamic_init

__global__ void pipelined(const float *in, float *out, int tiles) {
  __shared__ float stage[2][256];
  for (int t = 0; t < tiles; ++t) {
    __pipeline_memcpy_async(&stage[t & 1][threadIdx.x],
                            &in[t * 256 + threadIdx.x], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t * 256 + threadIdx.x] = stage[t & 1][255 - threadIdx.x];
    __syncthreads();
  }
}

__global__ void withBarrier(const int4 *in, int4 *out) {
  __shared__ int4 tile[128];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 128, sizeof(tile), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 128 + threadIdx.x] = tile[127 - threadIdx.x];
  auto token = bar.arrive();
  bar.wait(std::move(token));
}

__global__ void twoStage(const double *in, double *out, int n) {
  __shared__ double buf[2][64];
  auto block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block, &state);
  for (int s = 0; s < 2; ++s) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[s], in + s * 64, sizeof(double) * 64, pipe);
    pipe.producer_commit();
  }
  for (int s = 0; s < 2; ++s) {
    pipe.consumer_wait();
    if (threadIdx.x < 64 && s * 64 + threadIdx.x < n)
      out[s * 64 + threadIdx.x] = buf[s][threadIdx.x] * 2.0;
    pipe.consumer_release();
  }
}
