// Warp-level primitives: shuffles, votes, match, redux, activemask.
__global__ void warpOps(const int *in, int *out, unsigned *masks) {
  int lane = threadIdx.x & 31;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned full = __activemask();
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(full, v, off);
  int b = __shfl_sync(0xffffffffu, v, 0);
  int x = __shfl_xor_sync(0xffffffffu, v, 1);
  int u = __shfl_up_sync(0xffffffffu, v, 2, 16);
  unsigned ballot = __ballot_sync(full, v > 0);
  int all = __all_sync(full, v != 0);
  int any = __any_sync(full, v < 0);
  unsigned same = __match_any_sync(full, v & 7);
  int pred;
  unsigned allSame = __match_all_sync(full, lane / 8, &pred);
  int sum = __reduce_add_sync(full, lane);
  unsigned mx = __reduce_max_sync(full, static_cast<unsigned>(v));
  unsigned orv = __reduce_or_sync(full, static_cast<unsigned>(v));
  __syncwarp(ballot | 1u);
  out[threadIdx.x] = b + x + u + all + any + sum + pred;
  masks[threadIdx.x] = ballot ^ same ^ allSame ^ mx ^ orv;
}

__device__ unsigned laneMaskLt() {
  unsigned m;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

__global__ void warpFloat(float *data) {
  float v = data[threadIdx.x];
  v = __shfl_xor_sync(0xffffffffu, v, 4);
  double d = __shfl_down_sync(0xffffffffu, static_cast<double>(v), 1);
  data[threadIdx.x] = v + static_cast<float>(d) + __popc(laneMaskLt());
}
