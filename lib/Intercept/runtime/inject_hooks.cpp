//===- inject_hooks.cpp - Where the injected library enters the process ---===//
//
// The CUDA runtime (static by default in nvcc's link) reaches the driver by
// dlopen("libcuda.so.1"), dlsym("cuGetProcAddress_v2") and then hundreds of
// cuGetProcAddress lookups; its own cudaLaunchKernel is a local symbol that
// no preloaded library can replace. So the library exports dlsym: when the
// runtime asks for cuGetProcAddress it gets ours, which returns our
// wrappers for the few entry points that load modules or launch kernels.
// Only dlsym is exported: a preloaded library that exported driver entry
// points would also catch libcuda's own calls to them (it calls its public
// symbols through the PLT) and recurse. So programs that link libcuda and
// call the driver API by name are not reached; programs that use the CUDA
// runtime (static or shared) or cuGetProcAddress are.
//
// Each entry point with a per-thread-default-stream variant (_ptsz) gets
// one wrapper per variant, each calling its own real function.
//
//===----------------------------------------------------------------------===//
#include "inject_core.h"

#include <cstring>
#include <dlfcn.h>

using namespace incant_inject;

#define INCANT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using DlsymFn = void *(*)(void *, const char *);

DlsymFn realDlsym() {
  static DlsymFn Fn = [] {
    for (const char *V : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"})
      if (void *P = dlvsym(RTLD_NEXT, "dlsym", V))
        return reinterpret_cast<DlsymFn>(P);
    return static_cast<DlsymFn>(nullptr);
  }();
  return Fn;
}

// The real cuGetProcAddress of libcuda, as the runtime's dlsym found it, or
// (for programs that never ask) from our own dlopen of libcuda.so.1.
GetProcAddressV2Fn RealGetProcV2;
GetProcAddressV1Fn RealGetProcV1;

// Real entry points per variant (0: default, 1: _ptsz).
LaunchKernelFn RealLaunch[2];
LaunchKernelExFn RealLaunchEx[2];
LaunchCooperativeFn RealCoop[2];
ModuleLoadDataFn RealModuleLoadData, RealModuleLoadFatBinary;
ModuleLoadDataExFn RealModuleLoadDataEx;
ModuleLoadFn RealModuleLoad;
ModuleUnloadFn RealModuleUnload;
LibraryLoadDataFn RealLibraryLoadData;
LibraryLoadFromFileFn RealLibraryLoadFromFile;
LibraryUnloadFn RealLibraryUnload;
LibraryGetKernelFn RealLibraryGetKernel;
LibraryEnumerateKernelsFn RealLibraryEnumerateKernels;
ModuleGetFunctionFn RealModuleGetFunction;
DevicePrimaryCtxResetFn RealPrimaryCtxReset, RealPrimaryCtxRelease;
CtxDestroyFn RealCtxDestroy;

template <int PT>
CUresult hookLaunchKernel(CUfunction F, unsigned Gx, unsigned Gy, unsigned Gz,
                          unsigned Bx, unsigned By, unsigned Bz, unsigned Smem,
                          CUstream S, void **Params, void **Extra) {
  Launch L;
  L.F = F;
  L.Grid[0] = Gx, L.Grid[1] = Gy, L.Grid[2] = Gz;
  L.Block[0] = Bx, L.Block[1] = By, L.Block[2] = Bz;
  L.Smem = Smem;
  L.Stream = S;
  L.PerThread = PT == 1;
  return launch(L, [&](const Launch &M) {
    return RealLaunch[PT](M.F, Gx, Gy, Gz, Bx, By, Bz, M.Smem, S, Params,
                          Extra);
  });
}

template <int PT>
CUresult hookLaunchKernelEx(const CUlaunchConfig *C, CUfunction F,
                            void **Params, void **Extra) {
  if (!C)
    return RealLaunchEx[PT](C, F, Params, Extra);
  Launch L;
  L.F = F;
  L.Grid[0] = C->gridDimX, L.Grid[1] = C->gridDimY, L.Grid[2] = C->gridDimZ;
  L.Block[0] = C->blockDimX, L.Block[1] = C->blockDimY,
  L.Block[2] = C->blockDimZ;
  L.Smem = C->sharedMemBytes;
  L.Stream = C->hStream;
  L.PerThread = PT == 1;
  for (unsigned I = 0; C->attrs && I < C->numAttrs; ++I) {
    if (C->attrs[I].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
        C->attrs[I].value.cooperative)
      L.Cooperative = true;
    if (C->attrs[I].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
        C->attrs[I].value.clusterDim.x * C->attrs[I].value.clusterDim.y *
                C->attrs[I].value.clusterDim.z > 1)
      L.Cluster = true;
  }
  return launch(L, [&](const Launch &M) {
    if (M.Smem == C->sharedMemBytes)
      return RealLaunchEx[PT](C, F, Params, Extra);
    CUlaunchConfig Copy = *C;
    Copy.sharedMemBytes = M.Smem;
    return RealLaunchEx[PT](&Copy, F, Params, Extra);
  });
}

template <int PT>
CUresult hookLaunchCooperative(CUfunction F, unsigned Gx, unsigned Gy,
                               unsigned Gz, unsigned Bx, unsigned By,
                               unsigned Bz, unsigned Smem, CUstream S,
                               void **Params) {
  Launch L;
  L.F = F;
  L.Grid[0] = Gx, L.Grid[1] = Gy, L.Grid[2] = Gz;
  L.Block[0] = Bx, L.Block[1] = By, L.Block[2] = Bz;
  L.Smem = Smem;
  L.Stream = S;
  L.PerThread = PT == 1;
  L.Cooperative = true;
  return launch(L, [&](const Launch &M) {
    return RealCoop[PT](M.F, Gx, Gy, Gz, Bx, By, Bz, M.Smem, S, Params);
  });
}

CUresult hookModuleLoadData(CUmodule *M, const void *Image) {
  CUresult R = RealModuleLoadData(M, imageFor(Image));
  trace("cuModuleLoadData -> %d", R);
  if (R == CUDA_SUCCESS)
    onImage(Image);
  return R;
}
CUresult hookModuleLoadFatBinary(CUmodule *M, const void *Image) {
  CUresult R = RealModuleLoadFatBinary(M, imageFor(Image));
  trace("cuModuleLoadFatBinary -> %d", R);
  if (R == CUDA_SUCCESS)
    onImage(Image);
  return R;
}
CUresult hookModuleLoadDataEx(CUmodule *M, const void *Image, unsigned N,
                              CUjit_option *O, void **V) {
  CUresult R = RealModuleLoadDataEx(M, imageFor(Image), N, O, V);
  trace("cuModuleLoadDataEx -> %d", R);
  if (R == CUDA_SUCCESS)
    onImage(Image);
  return R;
}
CUresult hookModuleLoad(CUmodule *M, const char *Path) {
  CUresult R = RealModuleLoad(M, Path);
  if (R == CUDA_SUCCESS)
    onImageFile(Path);
  return R;
}
CUresult hookModuleUnload(CUmodule M) {
  onUnload();
  return RealModuleUnload(M);
}
CUresult hookLibraryLoadData(CUlibrary *L, const void *Code, CUjit_option *JO,
                             void **JV, unsigned NJ, CUlibraryOption *LO,
                             void **LV, unsigned NL) {
  CUresult R = RealLibraryLoadData(L, imageFor(Code), JO, JV, NJ, LO, LV, NL);
  trace("cuLibraryLoadData %p -> %d", Code, R);
  if (R == CUDA_SUCCESS)
    onImage(Code);
  return R;
}
CUresult hookLibraryLoadFromFile(CUlibrary *L, const char *Path,
                                 CUjit_option *JO, void **JV, unsigned NJ,
                                 CUlibraryOption *LO, void **LV, unsigned NL) {
  CUresult R = RealLibraryLoadFromFile(L, Path, JO, JV, NJ, LO, LV, NL);
  if (R == CUDA_SUCCESS)
    onImageFile(Path);
  return R;
}
CUresult hookLibraryGetKernel(CUkernel *K, CUlibrary L, const char *Name) {
  CUresult R = RealLibraryGetKernel(K, L, Name);
  trace("cuLibraryGetKernel %s -> %d", Name ? Name : "?", R);
  if (R == CUDA_SUCCESS && K)
    onKernelHandle(*K, true, Name);
  return R;
}
CUresult hookLibraryEnumerateKernels(CUkernel *K, unsigned N, CUlibrary L) {
  CUresult R = RealLibraryEnumerateKernels(K, N, L);
  trace("cuLibraryEnumerateKernels %u -> %d", N, R);
  for (unsigned I = 0; R == CUDA_SUCCESS && K && I < N; ++I)
    onKernelHandle(K[I], true, nullptr);
  return R;
}
CUresult hookModuleGetFunction(CUfunction *F, CUmodule M, const char *Name) {
  CUresult R = RealModuleGetFunction(F, M, Name);
  trace("cuModuleGetFunction %s -> %d", Name ? Name : "?", R);
  if (R == CUDA_SUCCESS && F)
    onKernelHandle(*F, false, Name);
  return R;
}
CUresult hookLibraryUnload(CUlibrary L) {
  onUnload();
  return RealLibraryUnload(L);
}
// cudaDeviceReset and the runtime's exit end contexts: what the library
// keeps in device memory is read back first.
CUresult hookPrimaryCtxReset(CUdevice D) {
  onContextGone();
  return RealPrimaryCtxReset(D);
}
CUresult hookPrimaryCtxRelease(CUdevice D) {
  onContextGone();
  return RealPrimaryCtxRelease(D);
}
CUresult hookCtxDestroy(CUcontext C) {
  onContextGone();
  return RealCtxDestroy(C);
}

/// Our wrapper for the driver function \p Real that cuGetProcAddress
/// returned for \p Symbol (with \p Flags), saving \p Real; or \p Real
/// itself if the library does not hook it.
void *substitute(const char *Symbol, void *Real, cuuint64_t Flags);

CUresult hookGetProcAddressV2(const char *Symbol, void **Fn, int Version,
                              cuuint64_t Flags, int *Status) {
  GetProcAddressV2Fn Real = realGetProcAddressV2();
  if (!Real)
    return 34; // CUDA_ERROR_STUB_LIBRARY: no driver behind us
  CUresult R = Real(Symbol, Fn, Version, Flags, Status);
  if (R == CUDA_SUCCESS && Fn && *Fn && Symbol)
    *Fn = substitute(Symbol, *Fn, Flags);
  return R;
}

CUresult hookGetProcAddressV1(const char *Symbol, void **Fn, int Version,
                              cuuint64_t Flags) {
  GetProcAddressV1Fn Real = realGetProcAddressV1();
  if (!Real)
    return 34;
  CUresult R = Real(Symbol, Fn, Version, Flags);
  if (R == CUDA_SUCCESS && Fn && *Fn && Symbol)
    *Fn = substitute(Symbol, *Fn, Flags);
  return R;
}

template <typename T> void *keep(T &Slot, void *Real, T Hook) {
  Slot = reinterpret_cast<T>(Real);
  return reinterpret_cast<void *>(Hook);
}

void *substitute(const char *S, void *Real, cuuint64_t Flags) {
  int PT = (Flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) ? 1 : 0;
  if (Real == reinterpret_cast<void *>(realGetProcAddressV2()))
    return reinterpret_cast<void *>(&hookGetProcAddressV2);
  if (Real == reinterpret_cast<void *>(realGetProcAddressV1()))
    return reinterpret_cast<void *>(&hookGetProcAddressV1);
  if (!std::strcmp(S, "cuLaunchKernel"))
    return PT ? keep(RealLaunch[1], Real, &hookLaunchKernel<1>)
              : keep(RealLaunch[0], Real, &hookLaunchKernel<0>);
  if (!std::strcmp(S, "cuLaunchKernelEx"))
    return PT ? keep(RealLaunchEx[1], Real, &hookLaunchKernelEx<1>)
              : keep(RealLaunchEx[0], Real, &hookLaunchKernelEx<0>);
  if (!std::strcmp(S, "cuLaunchCooperativeKernel"))
    return PT ? keep(RealCoop[1], Real, &hookLaunchCooperative<1>)
              : keep(RealCoop[0], Real, &hookLaunchCooperative<0>);
  if (!std::strcmp(S, "cuModuleLoadData"))
    return keep(RealModuleLoadData, Real, &hookModuleLoadData);
  if (!std::strcmp(S, "cuModuleLoadFatBinary"))
    return keep(RealModuleLoadFatBinary, Real, &hookModuleLoadFatBinary);
  if (!std::strcmp(S, "cuModuleLoadDataEx"))
    return keep(RealModuleLoadDataEx, Real, &hookModuleLoadDataEx);
  if (!std::strcmp(S, "cuModuleLoad"))
    return keep(RealModuleLoad, Real, &hookModuleLoad);
  if (!std::strcmp(S, "cuModuleUnload"))
    return keep(RealModuleUnload, Real, &hookModuleUnload);
  if (!std::strcmp(S, "cuLibraryLoadData"))
    return keep(RealLibraryLoadData, Real, &hookLibraryLoadData);
  if (!std::strcmp(S, "cuLibraryLoadFromFile"))
    return keep(RealLibraryLoadFromFile, Real, &hookLibraryLoadFromFile);
  if (!std::strcmp(S, "cuLibraryUnload"))
    return keep(RealLibraryUnload, Real, &hookLibraryUnload);
  if (!std::strcmp(S, "cuLibraryGetKernel"))
    return keep(RealLibraryGetKernel, Real, &hookLibraryGetKernel);
  if (!std::strcmp(S, "cuLibraryEnumerateKernels"))
    return keep(RealLibraryEnumerateKernels, Real,
                &hookLibraryEnumerateKernels);
  if (!std::strcmp(S, "cuModuleGetFunction"))
    return keep(RealModuleGetFunction, Real, &hookModuleGetFunction);
  if (!std::strcmp(S, "cuDevicePrimaryCtxReset"))
    return keep(RealPrimaryCtxReset, Real, &hookPrimaryCtxReset);
  if (!std::strcmp(S, "cuDevicePrimaryCtxRelease"))
    return keep(RealPrimaryCtxRelease, Real, &hookPrimaryCtxRelease);
  if (!std::strcmp(S, "cuCtxDestroy"))
    return keep(RealCtxDestroy, Real, &hookCtxDestroy);
  return Real;
}

/// libcuda's own symbol \p Name, found with the real dlsym.
void *libcudaSymbol(const char *Name) {
  static void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  DlsymFn D = realDlsym();
  return Lib && D ? D(Lib, Name) : nullptr;
}

} // namespace

GetProcAddressV2Fn incant_inject::realGetProcAddressV2() {
  if (!RealGetProcV2)
    RealGetProcV2 = reinterpret_cast<GetProcAddressV2Fn>(
        libcudaSymbol("cuGetProcAddress_v2"));
  return RealGetProcV2;
}

GetProcAddressV1Fn incant_inject::realGetProcAddressV1() {
  if (!RealGetProcV1)
    RealGetProcV1 = reinterpret_cast<GetProcAddressV1Fn>(
        libcudaSymbol("cuGetProcAddress"));
  return RealGetProcV1;
}

//===-- Exported entry points ---------------------------------------------===//

INCANT_EXPORT void *dlsym(void *Handle, const char *Symbol) {
  DlsymFn Real = realDlsym();
  void *P = Real ? Real(Handle, Symbol) : nullptr;
  // (glibc declares Symbol non-null; a caller may still pass null.)
  const char *S = Symbol;
  if (!P || !S || S[0] != 'c' ||
      std::strncmp(S, "cuGetProcAddress", 16) != 0)
    return P;
  trace("dlsym %s", Symbol);
  if (!std::strcmp(Symbol, "cuGetProcAddress_v2")) {
    RealGetProcV2 = reinterpret_cast<GetProcAddressV2Fn>(P);
    return reinterpret_cast<void *>(&hookGetProcAddressV2);
  }
  if (!std::strcmp(Symbol, "cuGetProcAddress")) {
    RealGetProcV1 = reinterpret_cast<GetProcAddressV1Fn>(P);
    return reinterpret_cast<void *>(&hookGetProcAddressV1);
  }
  return P;
}
