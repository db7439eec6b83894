//===- Libclang.cpp - libclang's C API, opened at run time ----------------===//
#include "Libclang.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace incant::source {

namespace {

struct Loaded {
  LibclangApi Api;
  std::string Why;
  bool Ok = false;
};

Loaded load() {
  Loaded L;
  void *H = nullptr;
  // $INCANT_LIBCLANG names the library (another version, another place).
  if (const char *Named = std::getenv("INCANT_LIBCLANG"); Named && *Named) {
    if (!(H = dlopen(Named, RTLD_NOW | RTLD_LOCAL))) {
      L.Why = std::string("libclang ($INCANT_LIBCLANG=") + Named +
              ") cannot be opened: " + dlerror();
      return L;
    }
  } else {
    for (const char *Name : {"libclang-14.so.1", "libclang.so.1", "libclang-14.so"})
      if ((H = dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
        break;
  }
  if (!H) {
    L.Why = "libclang (libclang-14.so.1, Debian's libclang1-14) is not installed";
    return L;
  }
#define INCANT_LIBCLANG_LOAD(F)                                                \
  L.Api.F = reinterpret_cast<decltype(&::F)>(dlsym(H, #F));                    \
  if (!L.Api.F) {                                                              \
    L.Why = "libclang has no " #F;                                             \
    return L;                                                                  \
  }
  INCANT_LIBCLANG_FUNCTIONS(INCANT_LIBCLANG_LOAD)
#undef INCANT_LIBCLANG_LOAD
  L.Ok = true;
  return L; // the library stays open for the process's life
}

} // namespace

const LibclangApi *libclang(std::string *Why) {
  static const Loaded L = load();
  if (!L.Ok && Why)
    *Why = L.Why;
  return L.Ok ? &L.Api : nullptr;
}

} // namespace incant::source
