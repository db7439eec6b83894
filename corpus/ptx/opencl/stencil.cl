// A 2-D stencil with vector types, constant memory, a private array and
// helper functions: typical OpenCL C for the parser corpus.
__constant float weights[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};

static float4 blend(float4 a, float4 b, float t) { return mix(a, b, t); }

__kernel void stencil(__global const float4 *src, __global float4 *dst,
                      int width, int height) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  float4 acc = (float4)(0.0f);
  float taps[5];
  for (int k = -2; k <= 2; ++k) {
    int xx = clamp(x + k, 0, width - 1);
    acc += src[y * width + xx] * weights[k + 2];
    taps[k + 2] = src[y * width + xx].x;
  }
  float m = taps[0];
  for (int k = 1; k < 5; ++k)
    m = fmax(m, taps[k]);
  dst[y * width + x] = blend(acc, (float4)(m), 0.25f) + native_sqrt(fabs(acc));
}

__kernel void convert(__global const double *in, __global int2 *out,
                      __global uchar *bytes) {
  size_t i = get_global_id(0);
  double v = in[i];
  out[i] = (int2)(convert_int_sat(v), convert_int_rte(v * 0.5));
  bytes[i] = convert_uchar_sat((int)v);
  vstore4(vload4(0, (__global const uchar *)bytes + i * 4), 1, bytes);
}
