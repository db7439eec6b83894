// label: racy (global WAW: each thread stores 16 bytes with a vector store
// (even threads one int4 store, odd ones two int2 stores) at an 8-byte
// stride, so neighbours overlap by 8 bytes)
#include "common.cuh"

__global__ void fill(char *Buf) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  // 16-byte aligned for even I; odd I starts 8 bytes later (two int2s).
  if (I % 2 == 0) {
    *reinterpret_cast<int4 *>(Buf + 8 * I) = make_int4(I, I, I, I);
  } else {
    reinterpret_cast<int2 *>(Buf + 8 * I)[0] = make_int2(I, I);
    reinterpret_cast<int2 *>(Buf + 8 * I)[1] = make_int2(I, I);
  }
}

int main(int argc, char **argv) {
  int B = 1024, T = 256;
  geometry(argc, argv, B, T);
  char *Buf;
  size_t Bytes = size_t(B) * T * 16 + 16;
  CHECK(cudaMalloc(&Buf, Bytes));
  fill<<<B, T>>>(Buf);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
