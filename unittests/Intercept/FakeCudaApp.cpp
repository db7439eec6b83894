//===- FakeCudaApp.cpp - The CUDA runtime's way to the driver, for tests --===//
//
// Does what the static CUDA runtime does (DESIGN.md): dlopen("libcuda.so.1"),
// dlsym("cuGetProcAddress_v2"), then looks entry points up through it; then
// loads a "library" whose image names one incant unit, gets its kernel and
// launches it once. Prints whether each pointer it got is the driver's own
// or another one (the injected library's wrapper). Run against FakeCuda.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdio>
#include <dlfcn.h>

using GetProc = int (*)(const char *, void **, int, uint64_t, int *);

int main() {
  void *H = dlopen("libcuda.so.1", RTLD_NOW);
  if (!H) {
    std::printf("no libcuda.so.1\n");
    return 2;
  }
  auto GP = reinterpret_cast<GetProc>(dlsym(H, "cuGetProcAddress_v2"));
  void *Own = reinterpret_cast<void *(*)()>(dlsym(H, "fakecuda_getproc"))();
  std::printf("cuGetProcAddress_v2: %s\n", (void *)GP == Own ? "driver" : "wrapped");
  void *Load = nullptr, *GetKernel = nullptr, *Launch = nullptr;
  GP("cuLibraryLoadData", &Load, 12000, 0, nullptr);
  GP("cuLibraryGetKernel", &GetKernel, 12000, 0, nullptr);
  GP("cuLaunchKernel", &Launch, 12000, 0, nullptr);
  static const char Image[] =
      ".version 9.0\n.visible .global .b8 __incant_unit_0123456789abcdef[1];\n";
  void *Lib = nullptr, *Kern = nullptr;
  reinterpret_cast<int (*)(void **, const void *, void *, void *, unsigned,
                           void *, void *, unsigned)>(Load)(
      &Lib, Image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  reinterpret_cast<int (*)(void **, void *, const char *)>(GetKernel)(
      &Kern, Lib, "fake_kernel");
  int R = reinterpret_cast<int (*)(void *, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, unsigned,
                                   void *, void **, void **)>(Launch)(
      Kern, 8, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr);
  int Seen = reinterpret_cast<int (*)()>(dlsym(H, "fakecuda_launches"))();
  std::printf("launch returned %d; the driver saw %d launch%s\n", R, Seen,
              Seen == 1 ? "" : "es");
  return R == 0 ? 0 : 1;
}
