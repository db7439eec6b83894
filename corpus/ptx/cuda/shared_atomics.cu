// Shared-memory reduction, atomics at every scope, fences and volatile
// accesses: the memory operations incant's analyses look for.
#include <cuda/atomic>

__device__ unsigned int g_counter;
__device__ int g_flags[64];
__constant__ float c_weights[4] = {0.5f, 0.25f, 0.125f, 0.125f};

__global__ void blockSum(const float *in, float *out, int n) {
  extern __shared__ float buf[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + tid;
  float v = 0.0f;
  if (i < n)
    v = in[i] * c_weights[tid & 3];
  if (i + blockDim.x < n)
    v += in[i + blockDim.x];
  buf[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, buf[0]);
}

__global__ void scopedAtomics(int *data, unsigned long long *wide) {
  cuda::atomic_ref<int, cuda::thread_scope_block> blk(data[0]);
  cuda::atomic_ref<int, cuda::thread_scope_device> dev(data[1]);
  cuda::atomic_ref<int, cuda::thread_scope_system> sys(data[2]);
  blk.fetch_add(1, cuda::memory_order_relaxed);
  dev.fetch_or(threadIdx.x, cuda::memory_order_acq_rel);
  sys.store(5, cuda::memory_order_release);
  int seen = dev.load(cuda::memory_order_acquire);
  int expected = 0;
  dev.compare_exchange_strong(expected, seen + 1, cuda::memory_order_seq_cst);
  atomicMax_block(&data[3], seen);
  atomicMin_system(&data[4], seen);
  atomicCAS(wide, 0ull, 1ull);
  atomicExch(&g_counter, threadIdx.x);
  atomicInc(&g_counter, 100u);
  atomicSub(&data[5], 2);
  __threadfence_block();
  __threadfence();
  __threadfence_system();
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
}

__global__ void flagHandshake(volatile int *flag, int *payload) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    payload[0] = 42;
    __threadfence();
    *flag = 1;
  } else if (threadIdx.x == 0 && blockIdx.x == 1) {
    int polls = 0;
    while (*flag == 0 && polls < 1000000)
      ++polls;
    g_flags[polls & 63] = payload[0];
  }
  __syncthreads_count(payload[threadIdx.x] > 0);
  if (__syncthreads_or(payload[threadIdx.x] < 0))
    payload[1] = __syncthreads_and(payload[2] == 0);
}

__global__ void vectorCopy(const float4 *in, float4 *out, const int2 *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = __ldg(&in[i]);
    int2 j = idx[i];
    v.x += j.x;
    v.w -= j.y;
    out[i] = v;
    double d = static_cast<double>(v.y) * 1.5;
    out[i].z = static_cast<float>(d / (v.x + 1.0f));
  }
}
