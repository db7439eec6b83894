//===- Listing.h - Reading a disassembler's listing (private) ---*- C++ -*-===//
//
// What splitSassByFunction (Batch.cpp) and checkSass (OptCheck.cpp) share:
// a listing's lines and its blanks, read by hand (std::regex cost 13 times
// the CPU; docs/campaign.md).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_CUDA_LISTING_H
#define INCANT_LIB_CUDA_LISTING_H

#include <string_view>

namespace incant::cuda {

/// A blank as a regular expression's \s: space, tab, CR, LF, VT, FF.
inline bool isBlank(char C) {
  return C == ' ' || C == '\t' || C == '\r' || C == '\n' || C == '\v' ||
         C == '\f';
}

/// Calls \p Fn on each line of \p Text without its '\n', as std::getline
/// gives them (no empty line after a final '\n').
template <typename F> void forEachLine(std::string_view Text, F &&Fn) {
  for (size_t P = 0; P < Text.size();) {
    size_t E = Text.find('\n', P);
    Fn(Text.substr(P, E == std::string_view::npos ? E : E - P));
    P = E == std::string_view::npos ? Text.size() : E + 1;
  }
}

} // namespace incant::cuda

#endif // INCANT_LIB_CUDA_LISTING_H
