// Kernels for the CI outputs (test/race/ci-*.test): a race in an anonymous
// namespace (as the applications write their kernels), a divergent barrier
// and a race-free kernel in a named namespace.
namespace {
__global__ void neighbor(int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  s[t] = t;
  out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
}
} // namespace

namespace app {
__global__ void diverge(int *out) {
  __shared__ int s[256];
  if (threadIdx.x < 16)
    __syncthreads();
  s[threadIdx.x] = 1;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

__global__ void clean(int *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
} // namespace app

// The host refers to the kernels, as a program does.
void launch(int *p) {
  neighbor<<<1, 64>>>(p);
  app::diverge<<<1, 64>>>(p);
  app::clean<<<1, 64>>>(p);
}
