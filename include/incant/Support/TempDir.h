//===- TempDir.h - A private temporary folder ----------------*- C++ -*-===//
//
// A fresh folder under the system's temporary directory (mkdtemp, so only
// this user can enter it), removed with everything in it when the object
// goes out of scope.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_TEMPDIR_H
#define INCANT_SUPPORT_TEMPDIR_H

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
};

} // namespace incant

#endif // INCANT_SUPPORT_TEMPDIR_H
