//===- Range.cpp - The range of a number read from a user -----------------===//
#include "incant/Support/Range.h"
#include "incant/Support/Diagnostic.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace incant {

namespace {

/// Big round numbers read better as powers: 1000000000 is "10^9".
std::string number(uint64_t V) {
  if (V == UINT64_MAX)
    return "2^64-1";
  for (unsigned P = 63; P >= 20; --P)
    if (V == (uint64_t(1) << P))
      return "2^" + std::to_string(P);
  unsigned Zeros = 0;
  uint64_t W = V;
  while (W >= 10 && W % 10 == 0) {
    W /= 10;
    ++Zeros;
  }
  if (W == 1 && Zeros >= 6)
    return "10^" + std::to_string(Zeros);
  return std::to_string(V);
}

std::string real(double V) {
  if (V >= 0 && V < 1.8e19 && V == double(uint64_t(V)))
    return number(uint64_t(V));
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%g", V);
  return Buf;
}

/// The text as it is quoted in a message: never all of a 5 MB argument.
std::string quoted(std::string_view Text) {
  return "'" + DiagnosticEngine::capped(Text, 40) + "'";
}

} // namespace

std::string IntRange::describe() const {
  return number(Min) + " to " + number(Max);
}

std::string RealRange::describe() const { return real(Min) + " to " + real(Max); }

std::optional<uint64_t> parseInRange(std::string_view Text, IntRange R,
                                     std::string &Error) {
  uint64_t V = 0;
  bool Digits = !Text.empty() &&
                Text.find_first_not_of("0123456789") == std::string_view::npos;
  auto [P, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), V);
  if (!Digits || Ec != std::errc() || P != Text.data() + Text.size() ||
      !R.contains(V)) {
    Error = "expected a whole number from " + R.describe() + ", got " +
            quoted(Text);
    return std::nullopt;
  }
  return V;
}

std::optional<double> parseInRange(std::string_view Text, RealRange R,
                                   std::string &Error) {
  std::string S(Text);
  char *End = nullptr;
  double V = S.empty() || S.find_first_not_of("0123456789.eE+-") !=
                              std::string::npos
                 ? NAN
                 : std::strtod(S.c_str(), &End);
  if (!End || *End != '\0' || !std::isfinite(V) || !R.contains(V)) {
    Error = "expected a number from " + R.describe() + ", got " + quoted(Text);
    return std::nullopt;
  }
  return V;
}

std::string outOfRange(IntRange R, uint64_t V) {
  return "must be from " + R.describe() + ", not " + std::to_string(V);
}

} // namespace incant
