//===- CudaDevice.h - Is there a CUDA device to run on? ---------*- C++ -*-===//
//
// Commands that run a program on the GPU (stress, fences, race --dynamic)
// ask before the first run, so that a machine without a driver or device
// is said to be one (exit code 3), never read as a program that fails.
// The driver is opened with dlopen (libcuda.so.1, or $INCANT_LIBCUDA), as
// the CUDA backend opens it: the tool itself never links it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_CUDADEVICE_H
#define INCANT_SUPPORT_CUDADEVICE_H

#include <string>

namespace incant {

/// Why no CUDA device can run kernels in this process, or "" where one
/// can: the driver opens, cuInit(0) succeeds and cuDeviceGetCount counts
/// at least one device. The reason names what is missing ("no CUDA driver
/// (libcuda.so.1): ...", "cuInit failed: CUDA_ERROR_NO_DEVICE ..."). Asked
/// once per process; later calls give the first answer.
const std::string &missingCudaDevice();

} // namespace incant

#endif // INCANT_SUPPORT_CUDADEVICE_H
