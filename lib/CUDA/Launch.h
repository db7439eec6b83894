//===- Launch.h - Run a generated test on a GPU (private) -------*- C++ -*-===//
#ifndef INCANT_LIB_CUDA_LAUNCH_H
#define INCANT_LIB_CUDA_LAUNCH_H

#include "incant/CUDA/Codegen.h"
#include "incant/CUDA/CudaBackend.h"
#include "incant/Harness/Backend.h"

namespace incant::cuda {

/// Compiles (through the cache) and runs \p G, the code generated for a
/// test, on device \p Device: the launch shape from the device's occupancy
/// and \p Params, the incantations as kernel parameters, Params.Iterations
/// launches, and the histogram the GPU counted, decoded into the test's
/// values (decodeOutcome).
/// The driver and NVRTC must be loaded. Failures are reported to \p Diags:
/// a CUDA call (Device), NVRTC rejecting the generated code (Internal), a
/// test or parameters the launch cannot hold (Input).
Expected<harness::RunResult>
runOnDevice(const GeneratedTest &G, const harness::RunParams &Params,
            const CudaTuning &Tuning, uint32_t Device, DiagnosticEngine &Diags);

} // namespace incant::cuda

#endif // INCANT_LIB_CUDA_LAUNCH_H
