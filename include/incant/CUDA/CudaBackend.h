//===- CudaBackend.h - The CUDA backend behind harness::Backend -*- C++ -*-===//
//
// `incant run --backend cuda`: harness::RunParams become the CUDA runner's
// RunOptions (lib/CUDA/Runner.cpp), its histogram becomes a
// harness::Histogram. Without libcuda.so.1 or a device, available() says so
// and the tool exits with code 3.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_CUDABACKEND_H
#define INCANT_CUDA_CUDABACKEND_H

#include "incant/CUDA/Runner.h"
#include "incant/Harness/Backend.h"

#include <memory>

namespace incant::cuda {

/// The message for a machine without the driver or a device.
inline const char *noDriverMessage() {
  return "no CUDA driver (libcuda.so.1) / no CUDA device found";
}

/// Maps the backend-neutral parameters to the CUDA runner's options.
RunOptions toRunOptions(const harness::RunParams &P);

std::unique_ptr<harness::Backend> createCudaBackend();

} // namespace incant::cuda

#endif // INCANT_CUDA_CUDABACKEND_H
