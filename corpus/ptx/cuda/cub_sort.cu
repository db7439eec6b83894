// CUB device-wide radix sort of keys for the parser corpus.
#include <cub/device/device_radix_sort.cuh>

void sortKeys(void *temp, size_t &bytes, const unsigned *in, unsigned *out,
              int n) {
  cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, n);
}
