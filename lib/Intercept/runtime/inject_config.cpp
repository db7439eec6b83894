//===- inject_config.cpp - Reading the injected library's environment -----===//
#include "inject_config.h"
#include "incant/Intercept/Protocol.h"
#include "incant_race.h"
#include "incant_control.h"
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

/// Splits \p S at \p Sep (empty pieces dropped).
std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Out;
  size_t B = 0;
  while (B <= S.size()) {
    size_t E = S.find(Sep, B);
    if (E == std::string::npos)
      E = S.size();
    if (E > B)
      Out.push_back(S.substr(B, E - B));
    B = E + 1;
  }
  return Out;
}

bool readSite(const std::string &S, uint32_t &Out) {
  if (S.empty() || S.size() > 9)
    return false;
  uint32_t V = 0;
  for (char C : S) {
    if (C < '0' || C > '9')
      return false;
    V = V * 10 + uint32_t(C - '0');
  }
  Out = V;
  return true;
}

bool isUnitId(const std::string &S) {
  if (S.size() != INCANT_UNIT_ID_CHARS)
    return false;
  for (char C : S)
    if (!((C >= '0' && C <= '9') || (C >= 'a' && C <= 'f')))
      return false;
  return true;
}

} // namespace

bool parseFences(const std::string &Text, std::vector<FenceEntry> &Out,
                 std::string &Error) {
  static const char *const Kinds[] = INCANT_FENCE_KIND_NAMES;
  for (const std::string &Part : split(Text, ';')) {
    size_t Colon = Part.find(':');
    FenceEntry E;
    E.Unit = Part.substr(0, Colon);
    if (Colon == std::string::npos || (E.Unit != "*" && !isUnitId(E.Unit))) {
      Error = "'" + Part + "' is not UNIT:SITES (UNIT a unit id or *)";
      return false;
    }
    for (const std::string &Item : split(Part.substr(Colon + 1), ',')) {
      FenceRange R;
      std::string Sites = Item;
      if (size_t Slash = Item.find('/'); Slash != std::string::npos) {
        Sites = Item.substr(0, Slash);
        std::string K = Item.substr(Slash + 1);
        bool Found = false;
        for (unsigned I = 0; I < INCANT_FENCE_KINDS; ++I)
          if (K == Kinds[I]) {
            R.Kind = I;
            Found = true;
          }
        if (!Found) {
          Error = "unknown fence kind '" + K +
                  "' (sc.gpu, acq_rel.gpu, sc.cta or acq_rel.cta)";
          return false;
        }
      }
      size_t Dash = Sites.find('-');
      if (Sites == "all") {
        R.First = 0;
        R.Last = 0xffffffffu;
      } else if (!readSite(Sites.substr(0, Dash), R.First) ||
                 !readSite(Dash == std::string::npos ? Sites.substr(0, Dash)
                                                     : Sites.substr(Dash + 1),
                           R.Last) ||
                 R.Last < R.First) {
        Error = "'" + Item + "' is not all, S or S-T (site ids)";
        return false;
      }
      E.Ranges.push_back(R);
    }
    Out.push_back(std::move(E));
  }
  return true;
}

void addFenceBits(const FenceEntry &E, uint32_t Words,
                  std::vector<uint32_t> &Mask) {
  const uint64_t Sites = uint64_t(Words) * 32;
  for (const FenceRange &R : E.Ranges)
    for (uint64_t S = R.First; S <= R.Last && S < Sites; ++S)
      Mask[size_t(R.Kind) * Words + S / 32] |= 1u << (S % 32);
}

Config readConfig() {
  Config C;
  if (const char *S = std::getenv(INCANT_ENV_STRESS)) {
    if (!std::strcmp(S, "sys"))
      C.Stress = INCANT_STRESS_SYS;
    else if (!std::strcmp(S, "rand"))
      C.Stress = INCANT_STRESS_RAND;
    else if (!std::strcmp(S, "cache"))
      C.Stress = INCANT_STRESS_CACHE;
    else if (*S && std::strcmp(S, "none") != 0)
      C.Errors.push_back(std::string(INCANT_ENV_STRESS "='") + S +
                         "' (expected none, sys, rand or cache)");
  }
  C.Randomise = flag(INCANT_ENV_RANDOMISE);
  if (const char *S = std::getenv(INCANT_ENV_RANDOMISE_SKIP))
    C.Skip = split(S, ',');
  if (!readU64(INCANT_ENV_SEED, C.Seed, C))
    C.Seed = uint64_t(std::time(nullptr)) * 1000003u ^ uint64_t(getpid());
  readU32(INCANT_ENV_STRESS_PATTERN, C.Pattern, C, 1, 0xffffffffu);
  readU32(INCANT_ENV_STRESS_LINES, C.Lines, C, 1, INCANT_STRESS_MAX_LINES);
  readU32(INCANT_ENV_STRESS_PATCH, C.Patch, C, 1, 1u << 20);
  readU32(INCANT_ENV_STRESS_REGIONS, C.Regions, C, 1, 4096);
  if (C.Regions < C.Lines)
    C.Regions = C.Lines;
  unsigned Min = 15, Max = 50;
  readU32(INCANT_ENV_STRESS_MIN_PCT, Min, C, 0, 1000);
  readU32(INCANT_ENV_STRESS_MAX_PCT, Max, C, 0, 1000);
  if (Max < Min)
    Max = Min;
  C.MinFraction = Min / 100.0;
  C.MaxFraction = Max / 100.0;
  unsigned MaxMs = 10000;
  if (readU32(INCANT_ENV_STRESS_MAX_MS, MaxMs, C, 1, 3600000))
    C.MaxNs = uint64_t(MaxMs) * 1000000u;
  readU32(INCANT_ENV_SPREAD, C.Spread, C, 0, 64);
  C.Time = flag(INCANT_ENV_TIME);
  C.Energy = flag(INCANT_ENV_ENERGY);
  if (const char *L = std::getenv(INCANT_ENV_GPU_LOCK))
    C.GpuLock = L;
  if (const char *F = std::getenv(INCANT_ENV_FENCES); F && *F) {
    std::string Error;
    if (!parseFences(F, C.Fences, Error))
      C.Errors.push_back(std::string(INCANT_ENV_FENCES ": ") + Error);
  }
  if (const char *I = std::getenv(INCANT_ENV_FENCE_IMAGES); I && *I)
    for (const std::string &Part : split(I, ';')) {
      size_t Eq = Part.find('=');
      if (Eq == std::string::npos || !isUnitId(Part.substr(0, Eq)) ||
          Eq + 1 == Part.size())
        C.Errors.push_back(INCANT_ENV_FENCE_IMAGES ": '" + Part +
                           "' is not UNIT=FILE");
      else
        C.Images.emplace_back(Part.substr(0, Eq), Part.substr(Eq + 1));
    }
  C.Verbose = flag(INCANT_ENV_VERBOSE);
  if (const char *R = std::getenv(INCANT_ENV_REPORT))
    C.Report = R;
  if (const char *S = std::getenv(INCANT_ENV_RACE)) {
    if (!std::strcmp(S, "addr"))
      C.Race.Scheme = INCANT_RACE_SCHEME_ADDR;
    else if (!std::strcmp(S, "stmt"))
      C.Race.Scheme = INCANT_RACE_SCHEME_STMT;
    else if (*S && std::strcmp(S, "off") != 0)
      C.Errors.push_back(std::string(INCANT_ENV_RACE "='") + S +
                         "' (expected addr, stmt or off)");
  }
  if (const char *R = std::getenv(INCANT_ENV_RACE_OUT))
    C.Race.Out = R;
  readU32(INCANT_ENV_RACE_SHADOW_MB, C.Race.ShadowMB, C, 1, 65536);
  readU32(INCANT_ENV_RACE_LOG_MB, C.Race.LogMB, C, 1, 65536);
  readU32(INCANT_ENV_RACE_HITS, C.Race.Hits, C, 16, 1u << 20);
  readU32(INCANT_ENV_RACE_WALK, C.Race.Walk, C, 1, 1u << 24);
  readU32(INCANT_ENV_RACE_PROBE, C.Race.Probe, C, 1, 4096);
  return C;
}

} // namespace incant_inject
