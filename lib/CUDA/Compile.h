//===- Compile.h - NVRTC, optcheck, compile cache (private) -----*- C++ -*-===//
//
// The CUDA libraries are opened once per process and shared by every
// backend object (`incant campaign` runs one per worker thread); compiled
// modules are cached per architecture and source, since stress and layout
// parameters are kernel arguments and `incant tune` runs one source
// hundreds of times.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_CUDA_COMPILE_H
#define INCANT_LIB_CUDA_COMPILE_H

#include "incant/CUDA/Codegen.h"
#include "incant/CUDA/CudaApi.h"
#include "incant/CUDA/OptCheck.h"

#include <mutex>
#include <string>

namespace incant::cuda {

/// The process's CUDA libraries; Mutex guards loading them and NVML.
struct SharedLibraries {
  CudaLibraries Libs;
  std::mutex Mutex;
};
SharedLibraries &sharedLibraries();

/// NVRTC's version ("13.0"), or "" if unknown.
std::string nvrtcVersion(CudaLibraries &L);

struct CompiledTest {
  std::string Ptx;
  std::string Cubin;
  std::string Sass; ///< Empty when no disassembler was found.
  OptCheckResult Opt;
};

/// Compiles \p G with NVRTC for \p Arch and runs optcheck on the SASS. When
/// ptxas's default optimisation merged or moved a test's access (optcheck
/// FAILED), compiles again with lower ptxas levels (the PTX, hence the
/// test's instructions, stays the same) and keeps the first level whose
/// SASS passes, saying so in Opt; if none passes, the default level's
/// failure is the result. False (with NVRTC's log) if NVRTC fails.
bool compileChecked(CudaLibraries &L, const GeneratedTest &G,
                    const std::string &Arch, CompiledTest &Out,
                    std::string &Log);

/// compileChecked through a bounded cache keyed by architecture and source
/// (PTX and SASS are not kept). Compiling happens outside the cache's lock,
/// so workers compile in parallel.
bool compileCached(CudaLibraries &L, const GeneratedTest &G,
                   const std::string &Arch, std::string &Cubin,
                   OptCheckResult &Opt, std::string &Log);

} // namespace incant::cuda

#endif // INCANT_LIB_CUDA_COMPILE_H
