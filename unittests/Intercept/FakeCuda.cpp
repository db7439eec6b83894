//===- FakeCuda.cpp - A stand-in libcuda.so.1 for the hook tests ----------===//
//
// Just enough of the driver for the injected library's hooks to be tested
// without a GPU: cuGetProcAddress_v2 hands out the functions below (and an
// error stub for everything else); a library is "loaded" from any image
// (the start of a PTX image is printed), has one kernel, and a launch is
// counted and printed. The module has the variables of incant unit
// 0123456789abcdef (its control block, the kernel's control words and a
// fence mask of two words per kind), in host memory that the copy
// functions reach and fakecuda_global() shows. cuInit and cuDeviceGetCount
// are exported by name too (one device), as incant asks for a device that
// way before it runs a program (Support/CudaDevice.h). Built as
// <build>/test-bin/fakecuda/libcuda.so.1; put that folder first in
// LD_LIBRARY_PATH.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {
int Launches = 0;
char Ctx, Lib, Kern, Func, Mod, Stream;

int notSupported() { return 801; }
int init(unsigned) { return 0; }
int cuDriverGetVersion(int *V) {
  *V = 13000;
  return 0;
}
int cuCtxGetCurrent(void **C) {
  *C = &Ctx;
  return 0;
}
int cuCtxGetDevice(int *D) {
  *D = 0;
  return 0;
}
int cuDeviceGetAttribute(int *V, int, int) {
  *V = 4;
  return 0;
}
int cuStreamCreate(void **S, unsigned) {
  *S = &Stream;
  return 0;
}
int cuLibraryLoadData(void **L, const void *Image, void *, void *, unsigned,
                      void *, void *, unsigned) {
  const char *P = static_cast<const char *>(Image);
  if (P && P[0] == '.') { // PTX text: show its first line
    size_t N = 0;
    while (P[N] && P[N] != '\n' && N < 60)
      ++N;
    std::printf("fakecuda: library from PTX \"%.*s\"\n", int(N), P);
  }
  *L = &Lib;
  return 0;
}
int cuLibraryGetKernel(void **K, void *, const char *) {
  *K = &Kern;
  return 0;
}
int cuKernelGetFunction(void **F, void *K) {
  if (K != &Kern)
    return 400;
  *F = &Func;
  return 0;
}
int cuFuncGetModule(void **M, void *F) {
  if (F != &Func)
    return 400;
  *M = &Mod;
  return 0;
}
int cuFuncGetName(const char **N, void *) {
  *N = "fake_kernel";
  return 0;
}
int cuFuncGetAttribute(int *V, int, void *) {
  *V = 0;
  return 0;
}
// The unit's variables (runtime/incant_control.h).
unsigned char Ctl[64];
uint32_t KernelWords[4] = {1, 0, 0x89abcdefu, 0x01234567u};
uint32_t FenceMask[4 * 2];
struct Global {
  const char *Name;
  void *Data;
  size_t Size;
};
const Global Globals[] = {
    {"__incant_ctl_0123456789abcdef", Ctl, sizeof Ctl},
    {"__incant_k_fake_kernel", KernelWords, sizeof KernelWords},
    {"__incant_fmask_0123456789abcdef", FenceMask, sizeof FenceMask},
};
int cuModuleGetGlobal(unsigned long long *P, size_t *Size, void *,
                      const char *Name) {
  for (const Global &G : Globals)
    if (!std::strcmp(Name, G.Name)) {
      *P = reinterpret_cast<uintptr_t>(G.Data);
      *Size = G.Size;
      return 0;
    }
  return 500; // CUDA_ERROR_NOT_FOUND
}
int cuMemcpyHtoDAsync(unsigned long long Dst, const void *Src, size_t N,
                      void *) {
  std::memcpy(reinterpret_cast<void *>(uintptr_t(Dst)), Src, N);
  return 0;
}
int cuMemcpyDtoHAsync(void *Dst, unsigned long long Src, size_t N, void *) {
  std::memcpy(Dst, reinterpret_cast<const void *>(uintptr_t(Src)), N);
  return 0;
}
int cuStreamSynchronize(void *) { return 0; }
int cuLaunchKernel(void *F, unsigned Gx, unsigned, unsigned, unsigned Bx,
                   unsigned, unsigned, unsigned, void *, void **, void **) {
  ++Launches;
  std::printf("fakecuda: launch %s grid %u block %u\n",
              F == &Kern ? "kernel" : "other", Gx, Bx);
  return 0;
}

struct Entry {
  const char *Name;
  void *Fn;
};
const Entry Table[] = {
    {"cuInit", (void *)&init},
    {"cuDriverGetVersion", (void *)&cuDriverGetVersion},
    {"cuCtxGetCurrent", (void *)&cuCtxGetCurrent},
    {"cuCtxGetDevice", (void *)&cuCtxGetDevice},
    {"cuDeviceGetAttribute", (void *)&cuDeviceGetAttribute},
    {"cuStreamCreate", (void *)&cuStreamCreate},
    {"cuLibraryLoadData", (void *)&cuLibraryLoadData},
    {"cuLibraryGetKernel", (void *)&cuLibraryGetKernel},
    {"cuKernelGetFunction", (void *)&cuKernelGetFunction},
    {"cuFuncGetModule", (void *)&cuFuncGetModule},
    {"cuFuncGetName", (void *)&cuFuncGetName},
    {"cuFuncGetAttribute", (void *)&cuFuncGetAttribute},
    {"cuModuleGetGlobal", (void *)&cuModuleGetGlobal},
    {"cuMemcpyHtoDAsync", (void *)&cuMemcpyHtoDAsync},
    {"cuMemcpyDtoHAsync", (void *)&cuMemcpyDtoHAsync},
    {"cuStreamSynchronize", (void *)&cuStreamSynchronize},
    {"cuLaunchKernel", (void *)&cuLaunchKernel},
};
} // namespace

EXPORT int cuGetProcAddress_v2(const char *S, void **Fn, int, uint64_t,
                               int *Status) {
  if (Status)
    *Status = 0;
  for (const Entry &E : Table)
    if (!std::strcmp(S, E.Name)) {
      *Fn = E.Fn;
      return 0;
    }
  if (!std::strcmp(S, "cuGetProcAddress")) {
    *Fn = (void *)&cuGetProcAddress_v2;
    return 0;
  }
  *Fn = (void *)&notSupported;
  return 0;
}

EXPORT int cuInit(unsigned) { return 0; }
/// One device, or $FAKECUDA_DEVICES (0: a driver without a device).
EXPORT int cuDeviceGetCount(int *N) {
  const char *D = std::getenv("FAKECUDA_DEVICES");
  *N = D ? std::atoi(D) : 1;
  return 0;
}

EXPORT int fakecuda_launches() { return Launches; }
/// The host copy of the module variable \p Name (null if none), and its size.
EXPORT const void *fakecuda_global(const char *Name, size_t *Size) {
  for (const Global &G : Globals)
    if (!std::strcmp(Name, G.Name)) {
      *Size = G.Size;
      return G.Data;
    }
  return nullptr;
}
/// The driver's own cuGetProcAddress_v2 (a name the injected library does
/// not wrap), to tell it from what dlsym returns.
EXPORT void *fakecuda_getproc() { return (void *)&cuGetProcAddress_v2; }
