//===- FakeCuda.cpp - A stand-in libcuda.so.1 for the hook tests ----------===//
//
// Just enough of the driver for the injected library's hooks to be tested
// without a GPU: cuGetProcAddress_v2 hands out the functions below (and an
// error stub for everything else); a library is "loaded" from any image,
// has one kernel, and a launch is counted and printed. Built as
// <build>/test-bin/fakecuda/libcuda.so.1; put that folder first in
// LD_LIBRARY_PATH.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdio>
#include <cstring>

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {
int Launches = 0;
char Ctx, Lib, Kern, Func, Mod, Stream;

int notSupported() { return 801; }
int cuInit(unsigned) { return 0; }
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
int cuLibraryLoadData(void **L, const void *, void *, void *, unsigned, void *,
                      void *, unsigned) {
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
int cuModuleGetGlobal(unsigned long long *, size_t *, void *, const char *) {
  return 500; // CUDA_ERROR_NOT_FOUND
}
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
    {"cuInit", (void *)&cuInit},
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

EXPORT int fakecuda_launches() { return Launches; }
/// The driver's own cuGetProcAddress_v2 (a name the injected library does
/// not wrap), to tell it from what dlsym returns.
EXPORT void *fakecuda_getproc() { return (void *)&cuGetProcAddress_v2; }
