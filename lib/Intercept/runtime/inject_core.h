//===- inject_core.h - The injected library, behind its hooks -*- C++ -*-===//
//
// inject_hooks.cpp intercepts the driver entry points (through dlsym and
// cuGetProcAddress, or as exported symbols) and calls in here; this part
// keeps the state: the units seen in loaded images, the modules and kernels
// whose control variables are set, the stressing kernel per context,
// kernel timing and the report written at exit.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INJECT_CORE_H
#define INCANT_INJECT_CORE_H

#include "inject_cuda.h"

#include <functional>
#include <nlohmann/json.hpp>

#include <string>

namespace incant_inject {

struct Config;

/// The real driver entry points (filled on first use).
const Driver &driver();
/// What the environment asks for (inject_config.h).
const Config &config();
/// A note for the report (each text once; on stderr with INCANT_VERBOSE).
void addNote(const std::string &Note);
/// JSON text of \p J, one line; bytes that are not UTF-8 (a kernel or file
/// name as the program gave it) become U+FFFD, as the host's reader expects.
std::string jsonText(const nlohmann::ordered_json &J);
/// The real cuGetProcAddress_v2 / cuGetProcAddress of libcuda.so.1.
GetProcAddressV2Fn realGetProcAddressV2();
GetProcAddressV1Fn realGetProcAddressV1();

/// Device memory for the library's own tables, in a virtual address range
/// of its own with unmapped guard ranges on each side (cuMemAddressReserve,
/// cuMemCreate, cuMemMap), so the application's allocations lie where they
/// would lie without the library and a stray access of the application
/// (an index out of bounds) does not land in the library's tables. Uses
/// cuMemAlloc where the driver lacks those entry points.
CUresult memAllocApart(CUdeviceptr *P, size_t Bytes);
/// Frees what memAllocApart gave.
CUresult memFreeApart(CUdeviceptr P);

/// A module image was loaded (cubin, fatbinary, fatbinary wrapper or PTX).
void onImage(const void *Image);
/// The image to load in place of \p Image: a file of INCANT_FENCE_IMAGES
/// where \p Image carries its unit, else \p Image.
const void *imageFor(const void *Image);
/// A module or library file was loaded.
void onImageFile(const char *Path);
/// A module or library was unloaded: cached handles may be reused.
void onUnload();
/// A context is about to be reset or destroyed.
void onContextGone();
/// The driver handed out a kernel handle: a CUkernel (\p IsKernel) or a
/// CUfunction, with its name if known. Only handles seen here are looked
/// into at launch: the driver may not survive a CUkernel passed where a
/// CUfunction is expected.
void onKernelHandle(void *Handle, bool IsKernel, const char *Name);
/// INCANT_TRACE=1: one line on stderr per hook and step.
void trace(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

/// One kernel launch as the hooks see it; launch() may change Smem.
struct Launch {
  CUfunction F = nullptr; ///< A CUfunction or a CUkernel.
  unsigned Grid[3] = {1, 1, 1};
  unsigned Block[3] = {1, 1, 1};
  unsigned Smem = 0;
  CUstream Stream = nullptr;
  bool PerThread = false;   ///< The _ptsz entry point (NULL = per-thread).
  bool Cooperative = false; ///< Needs all blocks resident at once.
  bool Cluster = false;     ///< Launched with cluster dimensions.
};

/// Sets the launch's kernel up (control variables), adds the stressing
/// work beside it, times it, and calls \p Real to make the launch.
CUresult launch(Launch &L, const std::function<CUresult(const Launch &)> &Real);

} // namespace incant_inject

#endif // INCANT_INJECT_CORE_H
