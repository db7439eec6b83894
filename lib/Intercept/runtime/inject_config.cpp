//===- inject_config.cpp - Reading the injected library's environment -----===//
#include "inject_config.h"
#include "incant_stress.h"

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace incant_inject {

namespace {

bool readU64(const char *Name, uint64_t &Out, Config &C) {
  const char *V = std::getenv(Name);
  if (!V || !*V)
    return false;
  char *End = nullptr;
  unsigned long long X = std::strtoull(V, &End, 0);
  if (*End) {
    C.Errors.push_back(std::string(Name) + "='" + V + "' is not a number");
    return false;
  }
  Out = X;
  return true;
}

bool readU32(const char *Name, unsigned &Out, Config &C, unsigned Min,
             unsigned Max) {
  uint64_t X = 0;
  if (!readU64(Name, X, C))
    return false;
  if (X < Min || X > Max) {
    C.Errors.push_back(std::string(Name) + " must be in [" +
                       std::to_string(Min) + ", " + std::to_string(Max) + "]");
    return false;
  }
  Out = static_cast<unsigned>(X);
  return true;
}

bool flag(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V && std::strcmp(V, "0") != 0;
}

} // namespace

Config readConfig() {
  Config C;
  if (const char *S = std::getenv("INCANT_STRESS")) {
    if (!std::strcmp(S, "sys"))
      C.Stress = INCANT_STRESS_SYS;
    else if (!std::strcmp(S, "rand"))
      C.Stress = INCANT_STRESS_RAND;
    else if (!std::strcmp(S, "cache"))
      C.Stress = INCANT_STRESS_CACHE;
    else if (*S && std::strcmp(S, "none") != 0)
      C.Errors.push_back(std::string("INCANT_STRESS='") + S +
                         "' (expected none, sys, rand or cache)");
  }
  C.Randomise = flag("INCANT_RANDOMISE");
  if (const char *S = std::getenv("INCANT_RANDOMISE_SKIP")) {
    std::string L = S;
    size_t B = 0;
    while (B <= L.size()) {
      size_t E = L.find(',', B);
      if (E == std::string::npos)
        E = L.size();
      if (E > B)
        C.Skip.push_back(L.substr(B, E - B));
      B = E + 1;
    }
  }
  if (!readU64("INCANT_SEED", C.Seed, C))
    C.Seed = uint64_t(std::time(nullptr)) * 1000003u ^ uint64_t(getpid());
  readU32("INCANT_STRESS_PATTERN", C.Pattern, C, 1, 0xffffffffu);
  readU32("INCANT_STRESS_LINES", C.Lines, C, 1, INCANT_STRESS_MAX_LINES);
  readU32("INCANT_STRESS_PATCH", C.Patch, C, 1, 1u << 20);
  readU32("INCANT_STRESS_REGIONS", C.Regions, C, 1, 4096);
  if (C.Regions < C.Lines)
    C.Regions = C.Lines;
  unsigned Min = 15, Max = 50;
  readU32("INCANT_STRESS_MIN_PCT", Min, C, 0, 1000);
  readU32("INCANT_STRESS_MAX_PCT", Max, C, 0, 1000);
  if (Max < Min)
    Max = Min;
  C.MinFraction = Min / 100.0;
  C.MaxFraction = Max / 100.0;
  unsigned MaxMs = 10000;
  if (readU32("INCANT_STRESS_MAX_MS", MaxMs, C, 1, 3600000))
    C.MaxNs = uint64_t(MaxMs) * 1000000u;
  readU32("INCANT_SPREAD", C.Spread, C, 0, 64);
  C.Time = flag("INCANT_TIME");
  C.Verbose = flag("INCANT_VERBOSE");
  if (const char *R = std::getenv("INCANT_REPORT"))
    C.Report = R;
  return C;
}

} // namespace incant_inject
