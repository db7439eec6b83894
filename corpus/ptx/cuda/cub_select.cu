// CUB device-wide stream compaction (select with a predicate, unique) and
// a Thrust transform-reduce, for the parser corpus.
#include <cub/device/device_select.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/transform_reduce.h>
#include <thrust/functional.h>

struct IsEven {
  __host__ __device__ bool operator()(int x) const { return (x & 1) == 0; }
};

struct Square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

void selectEven(void *temp, size_t &bytes, const int *in, int *out,
                int *numOut, int n) {
  cub::DeviceSelect::If(temp, bytes, in, out, numOut, n, IsEven());
}

void uniqueInts(void *temp, size_t &bytes, const int *in, int *out,
                int *numOut, int n) {
  cub::DeviceSelect::Unique(temp, bytes, in, out, numOut, n);
}

float sumSquares(const float *data, int n) {
  thrust::device_ptr<const float> p(data);
  return thrust::transform_reduce(thrust::device, p, p + n, Square(), 0.0f,
                                  thrust::plus<float>());
}
