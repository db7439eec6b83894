//===- FakeCudaApp.cpp - The CUDA runtime's way to the driver, for tests --===//
//
// Reaches the driver as the static CUDA runtime does (FakeRuntime.h),
// loads a "library" whose image names one incant unit, gets its kernel and
// launches it once. Prints whether the cuGetProcAddress_v2 it got is the
// driver's own or another one (the injected library's wrapper). Run
// against FakeCuda.
//
//===----------------------------------------------------------------------===//
#include "FakeRuntime.h"

#include <cstdio>

int main() {
  fakeruntime::Driver D;
  if (!D.open()) {
    std::printf("no libcuda.so.1\n");
    return 2;
  }
  void *Own = reinterpret_cast<void *(*)()>(dlsym(D.Lib, "fakecuda_getproc"))();
  std::printf("cuGetProcAddress_v2: %s\n",
              reinterpret_cast<void *>(D.GP) == Own ? "driver" : "wrapped");
  int R = fakeruntime::launchFakeKernel(D);
  int Seen = reinterpret_cast<int (*)()>(dlsym(D.Lib, "fakecuda_launches"))();
  std::printf("launch returned %d; the driver saw %d launch%s\n", R, Seen,
              Seen == 1 ? "" : "es");
  return R == 0 ? 0 : 1;
}
