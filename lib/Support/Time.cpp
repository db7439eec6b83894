//===- Time.cpp - Wall-clock time as text ---------------------------------===//
#include "incant/Support/Time.h"

#include <ctime>

namespace incant {

std::string utcNowIso() {
  std::time_t T = std::time(nullptr);
  std::tm Tm{};
  gmtime_r(&T, &Tm);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", &Tm);
  return Buf;
}

} // namespace incant
