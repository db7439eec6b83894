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

bool parseDuration(const std::string &Text, double &Seconds) {
  if (Text.empty())
    return false;
  size_t Used = 0;
  double V = 0;
  try {
    V = std::stod(Text, &Used);
  } catch (...) {
    return false;
  }
  std::string Unit = Text.substr(Used);
  double Scale = Unit.empty() || Unit == "s" ? 1
                 : Unit == "m" || Unit == "min" ? 60
                 : Unit == "h"                  ? 3600
                                                : -1;
  if (Scale < 0 || !(V >= 0) || V > 1e7)
    return false;
  Seconds = V * Scale;
  return true;
}

} // namespace incant
