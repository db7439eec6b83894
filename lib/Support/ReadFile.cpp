//===- ReadFile.cpp - A whole file as bytes -------------------------------===//
#include "incant/Support/ReadFile.h"

#include <fstream>
#include <sstream>

namespace incant {

bool readFile(const std::string &Path, std::string &Bytes) {
  Bytes.clear();
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::ostringstream S;
  S << In.rdbuf();
  if (In.bad())
    return false;
  Bytes = std::move(S).str();
  return true;
}

} // namespace incant
