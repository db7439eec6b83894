//===- TempDir.cpp - A private temporary folder ---------------------------===//
#include "incant/Support/TempDir.h"

#include <stdlib.h>
#include <string>

namespace incant {

TempDir::TempDir(std::string_view Prefix) {
  namespace fs = std::filesystem;
  std::error_code EC;
  fs::path Base = fs::temp_directory_path(EC);
  if (EC)
    Base = "/tmp";
  std::string T = (Base / (std::string(Prefix) + "-XXXXXX")).string();
  if (::mkdtemp(T.data()))
    Dir = T;
}

TempDir::~TempDir() {
  std::error_code EC;
  if (!Dir.empty())
    std::filesystem::remove_all(Dir, EC);
}

} // namespace incant
