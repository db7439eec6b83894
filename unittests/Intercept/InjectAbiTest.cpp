//===- InjectAbiTest.cpp - The injected library's driver ABI vs cuda.h ----===//
//
// runtime/inject_cuda.h declares the few driver types and constants the
// injected library needs, so that it builds without the toolkit; where
// cuda.h is installed, they must agree with it.
//
//===----------------------------------------------------------------------===//
#include "runtime/inject_cuda.h"

#include <cstddef>
#include <gtest/gtest.h>

#ifdef INCANT_HAVE_CUDA_H
#include <cuda.h>
#endif

namespace {

TEST(InjectAbi, MatchesCudaH) {
#ifndef INCANT_HAVE_CUDA_H
  GTEST_SKIP() << "cuda.h is not installed";
#else
  namespace I = incant_inject;
  EXPECT_EQ(sizeof(I::CUlaunchAttribute), sizeof(::CUlaunchAttribute));
  EXPECT_EQ(offsetof(I::CUlaunchAttribute, value),
            offsetof(::CUlaunchAttribute, value));
  EXPECT_EQ(sizeof(I::CUlaunchConfig), sizeof(::CUlaunchConfig));
  EXPECT_EQ(offsetof(I::CUlaunchConfig, sharedMemBytes),
            offsetof(::CUlaunchConfig, sharedMemBytes));
  EXPECT_EQ(offsetof(I::CUlaunchConfig, hStream),
            offsetof(::CUlaunchConfig, hStream));
  EXPECT_EQ(offsetof(I::CUlaunchConfig, attrs),
            offsetof(::CUlaunchConfig, attrs));
  EXPECT_EQ(offsetof(I::CUlaunchConfig, numAttrs),
            offsetof(::CUlaunchConfig, numAttrs));
  EXPECT_EQ(I::CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
            int(::CU_LAUNCH_ATTRIBUTE_COOPERATIVE));
  EXPECT_EQ(I::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
            int(::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION));
  EXPECT_EQ(I::CU_STREAM_NON_BLOCKING, unsigned(::CU_STREAM_NON_BLOCKING));
  EXPECT_EQ(I::CU_STREAM_PER_THREAD_HANDLE,
            reinterpret_cast<uintptr_t>(CU_STREAM_PER_THREAD));
  EXPECT_EQ(I::CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
            uint64_t(::CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM));
  EXPECT_EQ(I::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            int(::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  EXPECT_EQ(I::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
            int(::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  EXPECT_EQ(I::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            int(::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  EXPECT_EQ(I::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            int(::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  EXPECT_EQ(I::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            int(::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  EXPECT_EQ(I::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            int(::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
  // Virtual memory management (the library's tables, memAllocApart).
  EXPECT_EQ(sizeof(I::CUmemAllocationProp), sizeof(::CUmemAllocationProp));
  EXPECT_EQ(offsetof(I::CUmemAllocationProp, location),
            offsetof(::CUmemAllocationProp, location));
  EXPECT_EQ(offsetof(I::CUmemAllocationProp, win32HandleMetaData),
            offsetof(::CUmemAllocationProp, win32HandleMetaData));
  EXPECT_EQ(offsetof(I::CUmemAllocationProp, allocFlags),
            offsetof(::CUmemAllocationProp, allocFlags));
  EXPECT_EQ(sizeof(I::CUmemAccessDesc), sizeof(::CUmemAccessDesc));
  EXPECT_EQ(offsetof(I::CUmemAccessDesc, flags),
            offsetof(::CUmemAccessDesc, flags));
  EXPECT_EQ(sizeof(I::CUmemGenericAllocationHandle),
            sizeof(::CUmemGenericAllocationHandle));
  EXPECT_EQ(I::CU_MEM_ALLOCATION_TYPE_PINNED,
            int(::CU_MEM_ALLOCATION_TYPE_PINNED));
  EXPECT_EQ(I::CU_MEM_LOCATION_TYPE_DEVICE,
            int(::CU_MEM_LOCATION_TYPE_DEVICE));
  EXPECT_EQ(I::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            int(::CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
  EXPECT_EQ(I::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            int(::CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  // Signatures of the hooked entry points (their 12.0 versions).
  static_assert(sizeof(::CUresult) == sizeof(I::CUresult));
  I::LaunchKernelFn L = nullptr;
  decltype(&::cuLaunchKernel) Real = nullptr;
  EXPECT_EQ(sizeof(L), sizeof(Real));
#endif
}

} // namespace
