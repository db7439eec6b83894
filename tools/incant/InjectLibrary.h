//===- InjectLibrary.h - Where the injected library is ---------*- C++ -*-===//
//
// The commands that run applications under libincant-inject.so (stress,
// fences, race --dynamic) find it the same way.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_INJECTLIBRARY_H
#define INCANT_TOOL_INJECTLIBRARY_H

#include <cstdlib>
#include <filesystem>
#include <string>

namespace incant::tool {

/// libincant-inject.so: $INCANT_INJECT_LIB, the installed one beside the
/// binary, or the build tree's.
inline std::string injectLibrary() {
  if (const char *E = std::getenv("INCANT_INJECT_LIB"); E && *E)
    return E;
  std::error_code EC;
  auto Exe = std::filesystem::read_symlink("/proc/self/exe", EC);
  if (!EC) {
    auto P = Exe.parent_path() / ".." / "lib" / "incant" / "libincant-inject.so";
    if (std::filesystem::exists(P, EC))
      return P.lexically_normal().string();
  }
#ifdef INCANT_INJECT_BUILD_PATH
  if (std::filesystem::exists(INCANT_INJECT_BUILD_PATH, EC))
    return INCANT_INJECT_BUILD_PATH;
#endif
  return {};
}

} // namespace incant::tool

#endif // INCANT_TOOL_INJECTLIBRARY_H
