//===- TempDir.h - A private temporary folder ----------------*- C++ -*-===//
//
// A fresh folder under the system's temporary directory (mkdtemp, so only
// this user can enter it), removed with everything in it when the object
// goes out of scope, or when a signal ends incant first (Process.h's
// endChildrenWithIncant calls removeLiveTempDirs from its handler).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_TEMPDIR_H
#define INCANT_SUPPORT_TEMPDIR_H

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace incant {

class TempDir {
public:
  /// Makes `TMP/PREFIX-XXXXXX`; ok() is false when it could not.
  explicit TempDir(std::string_view Prefix);
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  bool ok() const { return !Dir.empty(); }
  const std::filesystem::path &path() const { return Dir; }

private:
  std::filesystem::path Dir;
  size_t Slot = ~size_t(0); ///< Its place in the table of live folders.
};

/// Removes every TempDir that lives now, with what it holds. Safe in a
/// signal handler (system calls only, no allocation, no lock); the folders
/// stay registered, so their destructors find them gone.
void removeLiveTempDirs();

} // namespace incant

#endif // INCANT_SUPPORT_TEMPDIR_H
