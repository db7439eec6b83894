//===- Compile.h - NVRTC, optcheck, compile cache (private) -----*- C++ -*-===//
//
// The CUDA libraries are opened once per process and shared by every
// backend object (`incant campaign` runs one per worker thread); compiled
// modules are cached per architecture and source, since stress and layout
// parameters are kernel arguments and `incant tune` runs one source
// hundreds of times. A campaign compiles tests in batches, one module per
// batch (Batch.h), on several threads while the GPU runs earlier ones.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_CUDA_COMPILE_H
#define INCANT_LIB_CUDA_COMPILE_H

#include "incant/CUDA/Codegen.h"
#include "incant/CUDA/CudaApi.h"
#include "incant/CUDA/OptCheck.h"

#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

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

/// A compiled module, shared by the tests compiled into it.
struct CompiledModule {
  std::string Cubin;
  std::string Arch;
};

/// Where one test's kernels are: its module, their names, its optcheck.
struct CompiledKernels {
  std::shared_ptr<const CompiledModule> Module;
  std::string TestKernel;
  std::string HistKernel;
  OptCheckResult Opt;
};

/// compileChecked through a bounded cache keyed by architecture and source
/// (PTX and SASS are not kept). Compiling happens outside the cache's lock,
/// so workers compile in parallel. The kernels have their bare names. With
/// \p CacheDir, the module and its optcheck result are also kept there
/// (as compileBatch keeps batches) and taken from there by later commands.
/// compileChecked, its module and optcheck result kept in \p CacheDir and
/// taken from there when the same test (source, architecture, NVRTC,
/// harness, disassembler) comes again; "" compiles every time. An entry
/// that cannot be read whole is compiled again; one that cannot be written
/// only makes the next command slower.
bool compileThroughDisk(CudaLibraries &L, const GeneratedTest &G,
                        const std::string &Arch, const std::string &CacheDir,
                        CompiledKernels &Out, std::string &Log);

bool compileCached(CudaLibraries &L, const GeneratedTest &G,
                   const std::string &Arch, CompiledKernels &Out,
                   std::string &Log, const std::string &CacheDir = "");

/// Compiles \p Tests as one module (batchSource) for \p Arch and checks
/// each test's kernel in the module's SASS. A test whose optcheck fails,
/// and every test when the batch does not compile, is compiled alone
/// (compileChecked, with its lower ptxas levels), so one test cannot
/// spoil the others. Per test: its kernels, or nullopt with NVRTC's log
/// in \p Logs[i]. With \p CacheDir, the module and the optcheck results
/// are kept there under a hash of everything they depend on (NVRTC's
/// version, the options, the harness, the batch's source) and taken from
/// there when the same batch comes again.
std::vector<std::optional<CompiledKernels>>
compileBatch(CudaLibraries &L, const std::vector<const GeneratedTest *> &Tests,
             const std::string &Arch, std::vector<std::string> &Logs,
             const std::string &CacheDir = "");

} // namespace incant::cuda

#endif // INCANT_LIB_CUDA_COMPILE_H
