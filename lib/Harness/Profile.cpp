//===- Profile.cpp - Chip profiles: JSON schema, read, write, apply ---------===//
//
// The JSON layout (docs/tune.md):
//   { "incant_profile": 1, "chip": ..., "backend": ..., "arch": "sm_90",
//     "driver": ...,
//     "date": ..., "tool": ..., "seed": N, "budget_s": X, "tests": [...],
//     "params": { "<run option>": number | bool | "st0 ld1" },
//     "findings": [ { "mode": ..., "seconds": X, "measurements": N,
//                     "summary": { name: text }, "data": any } ] }
//
//===----------------------------------------------------------------------===//
#include "incant/Harness/Profile.h"
#include "incant/Harness/ParamRanges.h"
#include "incant/Support/DataFiles.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"

#include <nlohmann/json.hpp>

#include <cassert>

namespace incant::harness {

namespace {

using Json = nlohmann::json;

/// How a parameter maps onto RunParams.
struct ParamDesc {
  const char *Name;
  ProfileValue::Kind K;
  uint32_t RunParams::*U32 = nullptr;
  uint32_t Incantations::*IncU32 = nullptr;
  bool Incantations::*IncBool = nullptr;
};

const std::vector<ParamDesc> &descs() {
  using K = ProfileValue::Kind;
  using I = Incantations;
  static const std::vector<ParamDesc> D = {
      {"mem-stress", K::Bool, nullptr, nullptr, &I::MemStress},
      {"stress-seq", K::Sequence},
      {"stress-locs", K::Number, nullptr, &I::StressLocs},
      {"stress-patch", K::Number, nullptr, &I::StressPatch},
      {"stress-iterations", K::Number, nullptr, &I::StressIterations},
      {"stress-groups", K::Number, nullptr, &I::StressGroups},
      {"stress-in-test", K::Bool, nullptr, nullptr, &I::StressInTest},
      {"stress-offset", K::Number, nullptr, &I::StressOffset},
      {"bank-conflicts", K::Bool, nullptr, nullptr, &I::BankConflicts},
      {"randomise", K::Bool, nullptr, nullptr, &I::Randomise},
      {"barrier", K::Bool, nullptr, nullptr, &I::SpinBarrier},
      {"barrier-polls", K::Number, nullptr, &I::BarrierPolls},
      {"pre-stress", K::Bool, nullptr, nullptr, &I::PreStress},
      {"pre-stress-iterations", K::Number, nullptr, &I::PreStressIterations},
      {"instances", K::Number, &RunParams::Instances},
      {"group-size", K::Number, &RunParams::GroupSize},
      {"stride", K::Number, &RunParams::Stride},
      {"loc-distance", K::Number, &RunParams::LocDistance},
  };
  return D;
}

const ParamDesc *findDesc(const std::string &Name) {
  for (const ParamDesc &D : descs())
    if (Name == D.Name)
      return &D;
  return nullptr;
}

Json valueToJson(const ProfileValue &V) {
  switch (V.K) {
  case ProfileValue::Bool:
    return V.Flag;
  case ProfileValue::Sequence:
    return formatStressSeq(V.Seq);
  case ProfileValue::Number:
    break;
  }
  return V.Num;
}

/// The offset of the first occurrence of "Key" in the text, for locating
/// a diagnostic about that key (nlohmann::json keeps no positions).
SourceRange keyRange(const SourceFile &F, const std::string &Key) {
  std::string Quoted = '"' + Key + '"';
  size_t At = F.text().find(Quoted);
  if (At == std::string::npos)
    At = 0;
  SourceRange R;
  R.Begin = F.locAt(uint32_t(At));
  R.End = F.locAt(uint32_t(std::min(At + Quoted.size(), F.text().size())));
  return R;
}

} // namespace

const std::vector<std::string> &profileParamNames() {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> N;
    for (const ParamDesc &D : descs())
      N.push_back(D.Name);
    return N;
  }();
  return Names;
}

std::optional<ProfileValue> paramValue(const RunParams &P,
                                       const std::string &Name) {
  const ParamDesc *D = findDesc(Name);
  if (!D)
    return std::nullopt;
  ProfileValue V;
  V.K = D->K;
  if (D->K == ProfileValue::Sequence)
    V.Seq = P.Inc.StressSeq;
  else if (D->U32)
    V.Num = P.*(D->U32);
  else if (D->IncU32)
    V.Num = P.Inc.*(D->IncU32);
  else
    V.Flag = P.Inc.*(D->IncBool);
  return V;
}

bool setParam(RunParams &P, const std::string &Name, const ProfileValue &V) {
  const ParamDesc *D = findDesc(Name);
  if (!D || D->K != V.K)
    return false;
  if (V.K == ProfileValue::Number && !paramRange(Name).contains(V.Num))
    return false;
  if (D->K == ProfileValue::Sequence)
    P.Inc.StressSeq = V.Seq;
  else if (D->U32)
    P.*(D->U32) = uint32_t(V.Num);
  else if (D->IncU32)
    P.Inc.*(D->IncU32) = uint32_t(V.Num);
  else
    P.Inc.*(D->IncBool) = V.Flag;
  return true;
}

void applyProfile(const Profile &Prof, RunParams &P,
                  const std::set<std::string> &Keep) {
  for (const auto &[Name, V] : Prof.Params)
    if (!Keep.count(Name)) {
      [[maybe_unused]] bool Ok = setParam(P, Name, V);
      assert(Ok && "profile values are checked when read");
      if (Name == "group-size")
        P.GroupSizeAtLeast = true;
    }
}

std::string profileToJson(const Profile &Prof) {
  Json J;
  J["incant_profile"] = Prof.Version;
  J["chip"] = Prof.Chip;
  J["backend"] = Prof.Backend;
  if (!Prof.Arch.empty())
    J["arch"] = Prof.Arch;
  J["driver"] = Prof.Driver;
  J["date"] = Prof.Date;
  J["tool"] = Prof.Tool;
  J["seed"] = Prof.Seed;
  J["budget_s"] = Prof.BudgetSeconds;
  J["tests"] = Prof.Tests;
  Json Params = Json::object();
  for (const auto &[Name, V] : Prof.Params)
    Params[Name] = valueToJson(V);
  J["params"] = Params;
  Json Fs = Json::array();
  for (const ProfileFinding &F : Prof.Findings) {
    Json Data = Json::parse(F.DataJson, nullptr, /*allow_exceptions=*/false);
    Fs.push_back({{"mode", F.Mode},
                  {"seconds", F.Seconds},
                  {"measurements", F.Measurements},
                  {"summary", F.Summary},
                  {"data", Data.is_discarded() ? Json() : Data}});
  }
  J["findings"] = Fs;
  return dumpJson(J, 2) + "\n";
}

std::optional<Profile> profileFromJson(std::shared_ptr<const SourceFile> File,
                                       DiagnosticEngine &Diags) {
  const SourceFile &F = *File;
  Json J = Json::parse(F.text(), nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded()) {
    // Locate the error: nlohmann reports the byte in its exception, which
    // stays inside this function.
    size_t Byte = F.text().size();
    std::string What = "malformed JSON in chip profile";
    try {
      Json Again = Json::parse(F.text());
      (void)Again;
    } catch (const Json::parse_error &E) {
      Byte = E.byte ? E.byte - 1 : 0;
    } catch (const Json::exception &E) {
      // A number too large for a double (1e999) is no parse_error and has
      // no byte: its text is quoted in the message (found by the fuzzer;
      // uncaught, it ended incant).
      std::string M = E.what();
      size_t Q = M.find('\''), Q2 = M.rfind('\'');
      if (Q != std::string::npos && Q2 > Q) {
        size_t At = F.text().find(M.substr(Q + 1, Q2 - Q - 1));
        if (At != std::string::npos)
          Byte = At;
      }
      What = "number out of range in chip profile";
    }
    SourceRange R;
    R.Begin = F.locAt(uint32_t(std::min(Byte, F.text().size())));
    R.End = R.Begin;
    Diags.error(File, R, What);
    return std::nullopt;
  }
  auto Bad = [&](const std::string &Key, const std::string &Msg) {
    Diags.error(File, keyRange(F, Key), Msg);
    return std::nullopt;
  };
  if (!J.is_object() || !J.contains("incant_profile"))
    return Bad("incant_profile", "not a chip profile: expected an object "
                                 "with \"incant_profile\": 1");
  const Json &V = J["incant_profile"];
  if (!V.is_number_integer() || V.get<int64_t>() != Profile::CurrentVersion)
    return Bad("incant_profile",
               "unsupported profile version (this incant reads version 1)");
  Profile P;
  auto Str = [&](const char *Key, std::string &To) {
    if (!J.contains(Key))
      return true;
    if (!J[Key].is_string())
      return false;
    To = J[Key].get<std::string>();
    return true;
  };
  for (auto [Key, To] :
       {std::pair<const char *, std::string *>{"chip", &P.Chip},
        {"backend", &P.Backend},
        {"arch", &P.Arch},
        {"driver", &P.Driver},
        {"date", &P.Date},
        {"tool", &P.Tool}})
    if (!Str(Key, *To))
      return Bad(Key, std::string("\"") + Key + "\" must be a string");
  if (J.contains("seed")) {
    if (!J["seed"].is_number_unsigned())
      return Bad("seed", "\"seed\" must be an unsigned integer");
    P.Seed = J["seed"].get<uint64_t>();
  }
  if (J.contains("budget_s")) {
    if (!J["budget_s"].is_number() || !(J["budget_s"].get<double>() >= 0) ||
        J["budget_s"].get<double>() > Profile::MaxBudgetSeconds)
      return Bad("budget_s", "\"budget_s\" must be a number of seconds "
                             "from 0 to 10^7");
    P.BudgetSeconds = J["budget_s"].get<double>();
  }
  if (J.contains("tests")) {
    if (!J["tests"].is_array())
      return Bad("tests", "\"tests\" must be an array of names");
    for (const Json &T : J["tests"]) {
      if (!T.is_string())
        return Bad("tests", "\"tests\" must be an array of names");
      P.Tests.push_back(T.get<std::string>());
    }
  }
  if (J.contains("params")) {
    const Json &Ps = J["params"];
    if (!Ps.is_object())
      return Bad("params", "\"params\" must be an object");
    for (const auto &[Name, Val] : Ps.items()) {
      const ParamDesc *D = findDesc(Name);
      if (!D)
        return Bad(Name, "unknown profile parameter '" + Name + "'");
      ProfileValue PV;
      PV.K = D->K;
      if (D->K == ProfileValue::Bool) {
        if (!Val.is_boolean())
          return Bad(Name, "parameter '" + Name + "' must be true or false");
        PV.Flag = Val.get<bool>();
      } else if (D->K == ProfileValue::Number) {
        // The range of the `incant run` option of the same name.
        IntRange R = paramRange(Name);
        if (!Val.is_number_unsigned() || !R.contains(Val.get<uint64_t>()))
          return Bad(Name, "parameter '" + Name +
                               "' must be a whole number from " +
                               R.describe() +
                               (Val.is_number_unsigned()
                                    ? ", not " + std::to_string(
                                                     Val.get<uint64_t>())
                                    : std::string()));
        PV.Num = Val.get<uint64_t>();
      } else {
        std::string E;
        if (!Val.is_string() ||
            !parseStressSeq(Val.get<std::string>(), PV.Seq, E) ||
            PV.Seq.empty())
          return Bad(Name, "parameter '" + Name +
                               "' must be an access sequence like \"st0 ld1\"" +
                               (E.empty() ? "" : ": " + E));
      }
      P.Params[Name] = PV;
    }
  }
  if (J.contains("findings")) {
    if (!J["findings"].is_array())
      return Bad("findings", "\"findings\" must be an array");
    for (const Json &FJ : J["findings"]) {
      if (!FJ.is_object() || !FJ.contains("mode") || !FJ["mode"].is_string())
        return Bad("findings", "each finding needs a \"mode\" string");
      ProfileFinding Fd;
      Fd.Mode = FJ["mode"].get<std::string>();
      if (FJ.contains("seconds") && FJ["seconds"].is_number())
        Fd.Seconds = FJ["seconds"].get<double>();
      if (FJ.contains("measurements") && FJ["measurements"].is_number_unsigned())
        Fd.Measurements = FJ["measurements"].get<uint64_t>();
      if (FJ.contains("summary")) {
        if (!FJ["summary"].is_object())
          return Bad("summary", "\"summary\" must be an object of strings");
        for (const auto &[K, SV] : FJ["summary"].items()) {
          if (!SV.is_string())
            return Bad("summary", "\"summary\" must be an object of strings");
          Fd.Summary[K] = SV.get<std::string>();
        }
      }
      if (FJ.contains("data"))
        Fd.DataJson = dumpJson(FJ["data"]);
      P.Findings.push_back(std::move(Fd));
    }
  }
  return P;
}

std::optional<Profile> readProfile(const std::string &Path,
                                   DiagnosticEngine &Diags) {
  std::string Error;
  std::shared_ptr<SourceFile> F = SourceFile::read(Path, Error);
  if (!F) {
    Diags.error("cannot read profile " + Path + ": " + Error);
    return std::nullopt;
  }
  return profileFromJson(F, Diags);
}

bool writeProfile(const Profile &Prof, const std::string &Path,
                  std::string &Error) {
  return writeOutputFile(Path, profileToJson(Prof), Error);
}

std::optional<ShippedProfile> findShippedProfile(const std::string &Chip,
                                                 const std::string &Backend,
                                                 const std::string &Arch) {
  std::optional<ShippedProfile> Family;
  for (const std::string &F : shippedProfileFiles()) {
    DiagnosticEngine Quiet(nullptr);
    std::optional<Profile> P = readProfile(F, Quiet);
    if (!P || P->Backend != Backend)
      continue;
    if (P->Chip == Chip)
      return ShippedProfile{F, std::move(*P), true};
    if (!Family && !Arch.empty() && P->Arch == Arch)
      Family = ShippedProfile{F, std::move(*P), false};
  }
  return Family;
}

} // namespace incant::harness
