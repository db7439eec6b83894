//===- CudaHeaderTest.cpp - Our driver API declarations match cuda.h ------===//

#include "incant/CUDA/CudaApi.h"

#include <cuda.h>
#include <nvrtc.h>

#include <gtest/gtest.h>

#include <type_traits>

using namespace incant;

TEST(CudaHeader, AttributesMatch) {
  EXPECT_EQ(cuda::CU_ATTR_MAX_THREADS_PER_BLOCK,
            CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  EXPECT_EQ(cuda::CU_ATTR_MULTIPROCESSOR_COUNT,
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  EXPECT_EQ(cuda::CU_ATTR_COMPUTE_CAPABILITY_MAJOR,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  EXPECT_EQ(cuda::CU_ATTR_COMPUTE_CAPABILITY_MINOR,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  EXPECT_EQ(CUDA_ERROR_NO_DEVICE, 100);
}

TEST(CudaHeader, TypesMatch) {
  static_assert(sizeof(cuda::CUdeviceptr) == sizeof(::CUdeviceptr));
  static_assert(sizeof(cuda::CUdevice) == sizeof(::CUdevice));
  static_assert(sizeof(cuda::CUresult) == sizeof(::CUresult));
  static_assert(sizeof(cuda::nvrtcResult) == sizeof(::nvrtcResult));
  // The versioned entry points we dlsym are the ones cuda.h maps to.
  // cuda.h maps cuMemAlloc to cuMemAlloc_v2, the symbol we dlsym.
#define INCANT_STR2(X) #X
#define INCANT_STR(X) INCANT_STR2(X)
  EXPECT_STREQ(INCANT_STR(cuMemAlloc), "cuMemAlloc_v2");
  EXPECT_STREQ(INCANT_STR(cuMemFree), "cuMemFree_v2");
  EXPECT_STREQ(INCANT_STR(cuMemcpyHtoD), "cuMemcpyHtoD_v2");
  EXPECT_STREQ(INCANT_STR(cuMemcpyDtoH), "cuMemcpyDtoH_v2");
  EXPECT_STREQ(INCANT_STR(cuMemsetD8), "cuMemsetD8_v2");
  EXPECT_STREQ(INCANT_STR(cuDevicePrimaryCtxRelease),
               "cuDevicePrimaryCtxRelease_v2");
}
