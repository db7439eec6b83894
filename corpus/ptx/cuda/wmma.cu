// Tensor cores through the wmma API (half inputs, float accumulators).
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void tileGemm(const half *a, const half *b, float *c, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int k = 0; k < ld; k += 16) {
    wmma::load_matrix_sync(fa, a + k, ld);
    wmma::load_matrix_sync(fb, b + k, ld);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  for (int e = 0; e < fc.num_elements; ++e)
    fc.x[e] *= 0.5f;
  wmma::store_matrix_sync(c, fc, ld, wmma::mem_row_major);
}

__global__ void halfMath(const __half2 *x, __half2 *y, __nv_bfloat16 *z) {
  int i = threadIdx.x;
  __half2 v = __hfma2(x[i], x[i], __float2half2_rn(1.0f));
  y[i] = __hmax2(v, __float2half2_rn(-2.0f));
  z[i] = __float2bfloat16(__low2float(v) * 3.0f);
}
