// Kernels for the IR analyses' unit tests (AnalysesTest.cpp). The PTX beside
// it is nvcc 13.0's output, checked in so that the tests need no nvcc:
//   nvcc -arch=sm_90 -ptx -lineinfo analyses.cu -o analyses.ptx

__global__ void gid(int *A) {
  A[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void stride(int *A, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    A[i] += 1;
}

__global__ void reduce(float *out, const float *in) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void diverge(int *A) {
  if (threadIdx.x < 16)
    __syncthreads();
  A[threadIdx.x] = 0;
}

__global__ void tile(float *A, int width) {
  __shared__ float s[16][17];
  s[threadIdx.y][threadIdx.x] = A[threadIdx.y * width + threadIdx.x];
  __syncthreads();
  A[threadIdx.x * width + threadIdx.y] = s[threadIdx.x][threadIdx.y];
}

__device__ __noinline__ void put(int *A, int i, int v) { A[i] = v; }

__global__ void calls(int *A) { put(A, threadIdx.x, 7); }

__global__ void gather(int *A, const int *idx) {
  A[idx[threadIdx.x]] = threadIdx.x;
}

__global__ void atomics(int *A, int *B) {
  atomicAdd(A, 1);
  atomicAdd_block(B, 1);
}

__global__ void fixed(int *A) {
  for (int i = 0; i < 1000; ++i)
    A[threadIdx.x * 1000 + i] = i;
}
