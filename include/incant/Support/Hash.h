//===- Hash.h - A stable 64-bit hash of text -------------------*- C++ -*-===//
#ifndef INCANT_SUPPORT_HASH_H
#define INCANT_SUPPORT_HASH_H

#include <cstdint>
#include <string>
#include <string_view>

namespace incant {

/// FNV-1a, 64 bits: stable across builds and machines. \p Seed continues a
/// hash (pass the result of an earlier call to hash several pieces).
uint64_t fnv1a64(std::string_view Text, uint64_t Seed = 14695981039346656037ull);

/// \p V as 16 lowercase hex digits.
std::string hex16(uint64_t V);

} // namespace incant

#endif // INCANT_SUPPORT_HASH_H
