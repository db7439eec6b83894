// Templates, device calls kept out of line, function pointers, printf,
// local arrays and recursion: calls with prototypes, .local depots.
#include <cstdio>

template <typename T, int N> struct Ring {
  T Items[N];
  __device__ T sum(int from) const {
    T s = 0;
    for (int k = 0; k < N; ++k)
      s += Items[(from + k) % N];
    return s;
  }
};

__device__ __noinline__ int triple(int x) { return 3 * x; }
__device__ __noinline__ int negate(int x) { return -x; }
__device__ __noinline__ long long fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

typedef int (*UnaryFn)(int);
__device__ UnaryFn g_table[2] = {triple, negate};

template <typename T, int N>
__global__ void ringKernel(const T *in, T *out, int pick) {
  Ring<T, N> r;
  for (int k = 0; k < N; ++k)
    r.Items[k] = in[threadIdx.x * N + k];
  out[threadIdx.x] = r.sum(pick & (N - 1));
}

template __global__ void ringKernel<float, 8>(const float *, float *, int);
template __global__ void ringKernel<int, 4>(const int *, int *, int);
template __global__ void ringKernel<double, 2>(const double *, double *, int);

__global__ void __launch_bounds__(128, 2) calls(int *out, int which) {
  UnaryFn f = g_table[which & 1];
  int v = f(threadIdx.x);
  out[threadIdx.x] = triple(v) + static_cast<int>(fib(which & 7));
  if (threadIdx.x == 0)
    printf("block %d value %d %f\n", blockIdx.x, v, 1.5);
}

__global__ void __maxnreg__(40) limited(float *p) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  float local[16];
  for (int k = 0; k < 16; ++k)
    local[k] = p[(idx + k * 7) & 1023];
  p[idx] = local[p[idx] > 0 ? 3 : (idx & 15)];
  if (p[idx] < -1e30f)
    __trap();
}
