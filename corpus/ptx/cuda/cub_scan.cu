// CUB device-wide prefix sums, instantiated for two types: real library
// PTX (thousands of lines) for the parser corpus.
#include <cub/device/device_scan.cuh>

void scanInts(void *temp, size_t &bytes, const int *in, int *out, int n) {
  cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n);
}

void scanFloatsExclusive(void *temp, size_t &bytes, const float *in, float *out,
                         int n) {
  cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n);
}
