//===- Hash.cpp - A stable 64-bit hash of text ----------------------------===//
#include "incant/Support/Hash.h"

namespace incant {

uint64_t fnv1a64(std::string_view Text, uint64_t H) {
  for (unsigned char C : Text) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return H;
}

std::string hex16(uint64_t V) {
  static const char Hex[] = "0123456789abcdef";
  std::string S(16, '0');
  for (int I = 15; I >= 0; --I, V >>= 4)
    S[static_cast<size_t>(I)] = Hex[V & 15];
  return S;
}

} // namespace incant
