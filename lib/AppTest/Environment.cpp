//===- Environment.cpp - The testing environments of `incant stress` ------===//
#include "incant/AppTest/Environment.h"
#include "incant/Intercept/Protocol.h"

#include <fmt/format.h>

namespace incant::apptest {

const char *stressKindName(StressKind K) {
  switch (K) {
  case StressKind::None:
    return "none";
  case StressKind::Sys:
    return "sys";
  case StressKind::Rand:
    return "rand";
  case StressKind::Cache:
    return "cache";
  }
  return "?";
}

std::string Environment::name() const {
  std::string N = std::string(stressKindName(Stress)) + (Randomise ? "+" : "-");
  if (Spread)
    N += fmt::format(":spread{}", Spread);
  return N;
}

std::optional<std::vector<Environment>>
parseEnvironments(const std::string &Text, bool Randomise, std::string &Error) {
  std::vector<Environment> Out;
  size_t B = 0;
  while (B <= Text.size()) {
    size_t E = Text.find(',', B);
    if (E == std::string::npos)
      E = Text.size();
    std::string Name = Text.substr(B, E - B);
    B = E + 1;
    if (Name.empty())
      continue;
    if (Name == "all") {
      for (StressKind K : {StressKind::None, StressKind::Sys, StressKind::Rand,
                           StressKind::Cache})
        for (bool R : {false, true})
          Out.push_back({K, R, 0});
      continue;
    }
    Environment Env;
    std::string Rest = Name;
    size_t Colon = Rest.find(':');
    std::string Opts = Colon == std::string::npos ? "" : Rest.substr(Colon + 1);
    Rest = Rest.substr(0, Colon);
    Env.Randomise = Randomise;
    if (!Rest.empty() && (Rest.back() == '+' || Rest.back() == '-')) {
      Env.Randomise = Rest.back() == '+';
      Rest.pop_back();
    }
    if (Rest == "none")
      Env.Stress = StressKind::None;
    else if (Rest == "sys")
      Env.Stress = StressKind::Sys;
    else if (Rest == "rand")
      Env.Stress = StressKind::Rand;
    else if (Rest == "cache")
      Env.Stress = StressKind::Cache;
    else {
      Error = fmt::format("unknown environment '{}' (expected none, sys, rand "
                          "or cache, with + or - for thread randomisation, "
                          "or all)",
                          Name);
      return std::nullopt;
    }
    if (!Opts.empty()) {
      unsigned K = 0;
      if (Opts.rfind("spread", 0) != 0 ||
          std::sscanf(Opts.c_str() + 6, "%u", &K) != 1 || K < 1 || K > 64 ||
          fmt::format("spread{}", K) != Opts) {
        Error = fmt::format("unknown placement '{}' in '{}' (expected "
                            "spreadK, 1 <= K <= 64)",
                            Opts, Name);
        return std::nullopt;
      }
      Env.Spread = K;
    }
    Out.push_back(Env);
  }
  if (Out.empty()) {
    Error = "no environment given";
    return std::nullopt;
  }
  return Out;
}

SysStress sysStressFrom(const harness::Incantations &Inc) {
  SysStress S;
  S.Seq = Inc.StressSeq;
  if (S.Seq.size() > 16)
    S.Seq.resize(16);
  S.Locs = Inc.StressLocs ? Inc.StressLocs : 1;
  S.Patch = Inc.StressPatch ? Inc.StressPatch : 1;
  return S;
}

std::vector<std::string> libraryVariables(const Environment &E,
                                          const StressKnobs &K,
                                          uint64_t Seed) {
  std::vector<std::string> V;
  V.push_back(std::string(INCANT_ENV_STRESS "=") + stressKindName(E.Stress));
  V.push_back(std::string(INCANT_ENV_RANDOMISE "=") + (E.Randomise ? "1" : "0"));
  V.push_back(fmt::format(INCANT_ENV_SEED "={}", Seed));
  unsigned Pattern = 0;
  for (size_t I = 0; I < K.Sys.Seq.size() && I < 16; ++I)
    Pattern |= (K.Sys.Seq[I].IsStore ? 2u : 1u) << (2 * I);
  V.push_back(fmt::format(INCANT_ENV_STRESS_PATTERN "={}", Pattern ? Pattern : 1u));
  V.push_back(fmt::format(INCANT_ENV_STRESS_LINES "={}",
                          std::min<uint32_t>(std::max<uint32_t>(K.Sys.Locs, 1), 16)));
  V.push_back(fmt::format(INCANT_ENV_STRESS_PATCH "={}", K.Sys.Patch));
  V.push_back(fmt::format(INCANT_ENV_STRESS_MIN_PCT "={}", K.MinPercent));
  V.push_back(fmt::format(INCANT_ENV_STRESS_MAX_PCT "={}", K.MaxPercent));
  if (K.MaxStressMs)
    V.push_back(fmt::format(INCANT_ENV_STRESS_MAX_MS "={}", K.MaxStressMs));
  V.push_back(fmt::format(INCANT_ENV_SPREAD "={}", E.Spread));
  if (!K.KeepIds.empty()) {
    std::string L;
    for (const std::string &N : K.KeepIds)
      L += (L.empty() ? "" : ",") + N;
    V.push_back(INCANT_ENV_RANDOMISE_SKIP "=" + L);
  }
  return V;
}

} // namespace incant::apptest
