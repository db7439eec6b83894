//===- FakeRuntime.h - The CUDA runtime's way to the driver, for tests ----===//
//
// What the static CUDA runtime does (DESIGN.md): dlopen("libcuda.so.1"),
// dlsym("cuGetProcAddress_v2"), entry points through it; then a library is
// loaded from an image that names incant unit 0123456789abcdef, its kernel
// got and launched once. Shared by the programs that stand in for CUDA
// applications against FakeCuda.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_UNITTESTS_FAKERUNTIME_H
#define INCANT_UNITTESTS_FAKERUNTIME_H

#include <cstdint>
#include <dlfcn.h>

namespace fakeruntime {

using GetProc = int (*)(const char *, void **, int, uint64_t, int *);

/// libcuda.so.1 and the cuGetProcAddress_v2 its dlsym gives (null if none).
struct Driver {
  void *Lib = nullptr;
  GetProc GP = nullptr;
  bool open() {
    Lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (Lib)
      GP = reinterpret_cast<GetProc>(dlsym(Lib, "cuGetProcAddress_v2"));
    return GP != nullptr;
  }
  template <typename T> T fn(const char *Name) {
    void *P = nullptr;
    GP(Name, &P, 12000, 0, nullptr);
    return reinterpret_cast<T>(P);
  }
};

/// Loads the unit's library, gets "fake_kernel", launches it with 8 blocks
/// of 64 threads; the launch's result.
inline int launchFakeKernel(Driver &D) {
  auto Load = D.fn<int (*)(void **, const void *, void *, void *, unsigned,
                           void *, void *, unsigned)>("cuLibraryLoadData");
  auto GetKernel =
      D.fn<int (*)(void **, void *, const char *)>("cuLibraryGetKernel");
  auto Launch = D.fn<int (*)(void *, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, void *, void **,
                             void **)>("cuLaunchKernel");
  static const char Image[] =
      ".version 9.0\n.visible .global .b8 __incant_unit_0123456789abcdef[1];\n";
  void *Lib = nullptr, *Kern = nullptr;
  Load(&Lib, Image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  GetKernel(&Kern, Lib, "fake_kernel");
  return Launch(Kern, 8, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr);
}

} // namespace fakeruntime

#endif // INCANT_UNITTESTS_FAKERUNTIME_H
