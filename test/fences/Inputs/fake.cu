// The source the fake application's manifest names (unittests/Fences/
// FakeFenceApp.cpp): a lock around a shared counter, as in apps/dot.
__device__ int lock_word, total;

__device__ void add(int v) {
  while (atomicCAS(&lock_word, 0, 1) != 0)
    ;
  int t = total;
  total = t + v;
  atomicExch(&lock_word, 0);
}

__global__ void fake_kernel(const int *in, int *out) {
  int v = in[threadIdx.x];
  add(v);
  out[threadIdx.x] = v;
  if (threadIdx.x == 0)
    out[blockDim.x] = total;
}

__global__ void unused_kernel(int *p) { p[0] = p[1]; }
