// ids.cu - checks thread-id randomisation on a GPU (bench/intercept).
//
// Built through incant, run with and without INCANT_RANDOMISE=1: for
// several grid and block shapes (3D, partial last warps, device functions
// that read ids), every logical (block, thread) pair occurs exactly once,
// the threads of one physical block share one logical block, the lanes of
// one physical warp share one logical warp and keep their lane, and device
// functions see what their kernel sees. Prints the rank correlation between
// logical block id and the order blocks started in (near 1 when ids are
// not permuted). Exit 0 if every check holds, 1 if one fails.
#include <cmath>
#include <cstdio>
#include <vector>

__device__ __noinline__ unsigned blockFromFunc() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
__device__ __noinline__ unsigned threadFromFunc() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__global__ void ids(unsigned *Count, unsigned *Bad, unsigned *Order,
                    unsigned *Ticket) {
  __shared__ unsigned Blk;
  unsigned B = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned T = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned N = blockDim.x * blockDim.y * blockDim.z;
  if (blockFromFunc() != B || threadFromFunc() != T)
    atomicAdd(&Bad[0], 1);
  if (T == 0) {
    Blk = B;
    Order[B] = atomicAdd(Ticket, 1);
  }
  __syncthreads();
  if (Blk != B)
    atomicAdd(&Bad[1], 1);
  unsigned Lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(Lane));
  if ((T & 31) != Lane)
    atomicAdd(&Bad[2], 1);
  unsigned Mask = __activemask();
  unsigned W = T >> 5;
  if (__shfl_sync(Mask, W, __ffs(Mask) - 1) != W)
    atomicAdd(&Bad[3], 1);
  atomicAdd(&Count[(size_t)B * N + T], 1);
}

static double spearman(const std::vector<unsigned> &Order) {
  double N = double(Order.size()), S = 0;
  for (size_t I = 0; I < Order.size(); ++I)
    S += (double(I) - Order[I]) * (double(I) - Order[I]);
  return N > 1 ? 1 - 6 * S / (N * (N * N - 1)) : 1;
}

int main() {
  struct Shape { dim3 G, B; } Shapes[] = {
      {dim3(64), dim3(256)},      {dim3(7, 5, 3), dim3(8, 4, 3)},
      {dim3(10), dim3(48)},       {dim3(1000), dim3(1024)},
      {dim3(3, 300), dim3(33, 2)}};
  int Fails = 0;
  for (const Shape &S : Shapes) {
    unsigned NB = S.G.x * S.G.y * S.G.z, NT = S.B.x * S.B.y * S.B.z;
    unsigned *Count, *Bad, *Order, *Ticket;
    cudaMalloc(&Count, sizeof(unsigned) * NB * NT);
    cudaMalloc(&Bad, 4 * sizeof(unsigned));
    cudaMalloc(&Order, sizeof(unsigned) * NB);
    cudaMalloc(&Ticket, sizeof(unsigned));
    cudaMemset(Count, 0, sizeof(unsigned) * NB * NT);
    cudaMemset(Bad, 0, 4 * sizeof(unsigned));
    cudaMemset(Ticket, 0, sizeof(unsigned));
    ids<<<S.G, S.B>>>(Count, Bad, Order, Ticket);
    cudaError_t E = cudaDeviceSynchronize();
    std::vector<unsigned> C(size_t(NB) * NT), O(NB);
    unsigned HB[4];
    cudaMemcpy(C.data(), Count, C.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(O.data(), Order, O.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(HB, Bad, sizeof HB, cudaMemcpyDeviceToHost);
    size_t Wrong = 0;
    for (unsigned V : C)
      Wrong += V != 1;
    bool Ok = E == cudaSuccess && !Wrong && !HB[0] && !HB[1] && !HB[2] && !HB[3];
    std::printf("ids grid=(%u,%u,%u) block=(%u,%u,%u): %s coverage_errors=%zu "
                "func=%u block=%u lane=%u warp=%u order_rank_corr=%.3f\n",
                S.G.x, S.G.y, S.G.z, S.B.x, S.B.y, S.B.z,
                Ok ? "ok" : "FAIL", Wrong, HB[0], HB[1], HB[2], HB[3],
                spearman(O));
    Fails += !Ok;
    cudaFree(Count);
    cudaFree(Bad);
    cudaFree(Order);
    cudaFree(Ticket);
  }
  return Fails ? 1 : 0;
}
