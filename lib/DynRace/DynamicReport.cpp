//===- DynamicReport.cpp - Folding and printing the races a run found -----===//
#include "incant/DynRace/DynamicReport.h"

#include "incant/IR/Summary.h"
#include "incant/Intercept/Protocol.h"
#include "incant/Support/Diagnostic.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace incant::dynrace {

using nlohmann::json;

std::optional<RawRun> parseRawRun(std::string_view Text, std::string &Error) {
  json J = json::parse(Text, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object()) {
    Error = "the checker's output is not a JSON object";
    return std::nullopt;
  }
  RawRun R;
  try {
    R.Scheme = J.at(INCANT_RACE_REPORT_SCHEME).get<std::string>();
    R.CheckedLaunches = J.value(INCANT_RACE_REPORT_CHECKED, uint64_t(0));
    R.UncheckedLaunches = J.value(INCANT_RACE_REPORT_UNCHECKED, uint64_t(0));
    R.Lost = J.value(INCANT_RACE_REPORT_LOST, std::string());
    R.FailedLaunches = J.value(INCANT_RACE_REPORT_FAILED, uint64_t(0));
    R.FailedError = J.value(INCANT_RACE_REPORT_FAILED_ERROR, 0);
    R.FailedKernel = J.value(INCANT_RACE_REPORT_FAILED_KERNEL, std::string());
    json Counters = J.value(INCANT_RACE_REPORT_COUNTERS, json::object());
    for (auto &[K, V] : Counters.items())
      R.Counters[K] = V.get<uint64_t>();
    R.Units = J.value(INCANT_RACE_REPORT_UNITS, std::vector<std::string>{});
    json Kernels = J.value(INCANT_RACE_REPORT_KERNELS, json::array());
    for (const json &K : Kernels)
      R.Kernels.emplace_back(K.at(INCANT_RACE_REPORT_KERNEL_NAME).get<std::string>(),
                             K.at(INCANT_RACE_REPORT_KERNEL_LAUNCHES).get<uint64_t>());
    for (const json &X : J.at(INCANT_RACE_REPORT_RACES)) {
      RawRace Rc;
      Rc.Hazard = X.at(INCANT_RACE_HAZARD).get<std::string>();
      Rc.Space = X.at(INCANT_RACE_SPACE).get<std::string>();
      Rc.Count = X.at(INCANT_RACE_COUNT).get<uint64_t>();
      Rc.Address = X.value(INCANT_RACE_ADDRESS, uint64_t(0));
      for (auto [Side, Out] : {std::pair<const char *, RawSide *>{INCANT_RACE_A, &Rc.A},
                               {INCANT_RACE_B, &Rc.B}}) {
        const json &S = X.at(Side);
        Out->Unit = S.at(INCANT_RACE_SIDE_UNIT).get<std::string>();
        Out->Site = S.at(INCANT_RACE_SIDE_SITE).get<uint32_t>();
        Out->Tid = S.at(INCANT_RACE_SIDE_TID).get<uint32_t>();
      }
      auto Nt = X.value(INCANT_RACE_NTID, std::vector<uint32_t>{1, 1, 1});
      auto Nc = X.value(INCANT_RACE_NCTAID, std::vector<uint32_t>{1, 1});
      for (size_t I = 0; I < 3 && I < Nt.size(); ++I)
        Rc.Ntid[I] = Nt[I] ? Nt[I] : 1;
      for (size_t I = 0; I < 2 && I < Nc.size(); ++I)
        Rc.Nctaid[I] = Nc[I] ? Nc[I] : 1;
      Rc.Kernel = X.value(INCANT_RACE_KERNEL, "");
      R.Races.push_back(std::move(Rc));
    }
  } catch (const json::exception &E) {
    Error = std::string("malformed checker output: ") + E.what();
    return std::nullopt;
  }
  return R;
}

ThreadIds threadIds(uint32_t Tid, const std::array<uint32_t, 3> &Ntid,
                    const std::array<uint32_t, 2> &Nctaid) {
  uint64_t Tpb = uint64_t(Ntid[0]) * Ntid[1] * Ntid[2];
  uint64_t Blk = Tid / Tpb, T = Tid % Tpb;
  ThreadIds I;
  I.Thread = {uint32_t(T % Ntid[0]), uint32_t(T / Ntid[0] % Ntid[1]),
              uint32_t(T / (uint64_t(Ntid[0]) * Ntid[1]))};
  I.Block = {uint32_t(Blk % Nctaid[0]), uint32_t(Blk / Nctaid[0] % Nctaid[1]),
             uint32_t(Blk / (uint64_t(Nctaid[0]) * Nctaid[1]))};
  return I;
}

namespace {

const intercept::Site *
findSite(const std::map<std::string, intercept::UnitManifest> &Units,
         const std::string &Unit, uint32_t Site) {
  auto It = Units.find(Unit);
  if (It == Units.end() || Site >= It->second.Sites.size())
    return nullptr;
  const intercept::Site &S = It->second.Sites[Site];
  return S.Id == Site && S.Pass == "race" ? &S : nullptr;
}

std::string accessWord(const intercept::Site *S) {
  if (!S)
    return "access";
  return S->Kind.substr(0, S->Kind.find(' '));
}

/// The variable as the user wrote it: a parameter as "parameter N of F",
/// a C++ variable demangled.
std::string variableName(const std::string &Object) {
  if (Object.empty())
    return "";
  if (size_t P = Object.rfind("_param_"); P != std::string::npos) {
    return fmt::format("parameter {} of {}", Object.substr(P + 7),
                       ir::qualifiedKernelName(Object.substr(0, P)));
  }
  std::string D = ir::demangle(Object);
  return D.empty() ? Object : D;
}

/// Source position key of a side: file, line (0 when unknown: then the
/// PTX site itself).
std::tuple<std::string, uint32_t, uint32_t> sourceKey(const RaceSide &S) {
  if (S.S && S.S->Line)
    return {S.S->File, S.S->Line, 0};
  return {S.Unit, 0, S.SiteId};
}

} // namespace

std::string failedLaunchesNote(const RawRun &Run) {
  // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: most often the registers that pass
  // race's code adds, which a block that fits the plain build may exceed.
  constexpr int LaunchOutOfResources = 701;
  bool Resources = Run.FailedError == LaunchOutOfResources;
  return fmt::format(
      "{} launch{} of instrumented kernels did not start (CUDA error {} "
      "launching {}{}): nothing of them was checked{}",
      Run.FailedLaunches, Run.FailedLaunches == 1 ? "" : "es",
      Run.FailedError, Run.FailedKernel,
      Run.FailedLaunches == 1 ? "" : ", the first",
      Resources ? ". Pass race's code needs more registers than the plain "
                  "build's, so a block that fits the plain build may not "
                  "(cap them with nvcc -maxrregcount, or launch smaller "
                  "blocks)"
                : "");
}

Report buildReport(const RawRun &Run,
                   const std::map<std::string, intercept::UnitManifest> &Units,
                   std::string App) {
  Report R;
  R.App = std::move(App);
  R.Scheme = Run.Scheme;
  R.CheckedLaunches = Run.CheckedLaunches;
  R.UncheckedLaunches = Run.UncheckedLaunches;
  R.Lost = Run.Lost;
  R.Kernels = Run.Kernels;
  R.Counters = Run.Counters;

  // Folded by both source positions, hazard and space; the races keep the
  // first occurrence of their most frequent site pair.
  std::map<std::tuple<std::tuple<std::string, uint32_t, uint32_t>,
                      std::tuple<std::string, uint32_t, uint32_t>, std::string,
                      std::string>,
           size_t>
      Index;
  std::map<size_t, uint64_t> Best;
  for (const RawRace &X : Run.Races) {
    Race Y;
    Y.Hazard = X.Hazard;
    Y.Space = X.Space;
    Y.Kernel = X.Kernel;
    Y.Address = X.Address;
    Y.Count = X.Count;
    Y.SitePairs = 1;
    for (auto [In, Out] : {std::pair<const RawSide *, RaceSide *>{&X.A, &Y.A},
                           {&X.B, &Y.B}}) {
      Out->Unit = In->Unit;
      Out->SiteId = In->Site;
      Out->S = findSite(Units, In->Unit, In->Site);
      Out->Ids = threadIds(In->Tid, X.Ntid, X.Nctaid);
      Out->Access = accessWord(Out->S);
    }
    const intercept::Site *V = Y.B.S ? Y.B.S : Y.A.S;
    if (V && !V->Object.empty())
      Y.Variable = variableName(V->Object);
    else if (Y.A.S && !Y.A.S->Object.empty())
      Y.Variable = variableName(Y.A.S->Object);
    R.Hazards += X.Count;
    auto Key = std::make_tuple(sourceKey(Y.A), sourceKey(Y.B), Y.Hazard, Y.Space);
    auto [It, New] = Index.try_emplace(Key, R.Races.size());
    if (New) {
      Best[It->second] = X.Count;
      R.Races.push_back(std::move(Y));
      continue;
    }
    Race &Z = R.Races[It->second];
    Z.Count += X.Count;
    ++Z.SitePairs;
    if (X.Count > Best[It->second]) {
      Best[It->second] = X.Count;
      uint64_t C = Z.Count;
      unsigned P = Z.SitePairs;
      Z = std::move(Y);
      Z.Count = C;
      Z.SitePairs = P;
    }
  }
  std::stable_sort(R.Races.begin(), R.Races.end(),
                   [](const Race &A, const Race &B) { return A.Count > B.Count; });

  // Table 3's counts from the manifests of the units the run used.
  std::set<std::pair<std::string, uint32_t>> Lines;
  for (const auto &[Id, M] : Units)
    for (const intercept::Site &S : M.Sites) {
      if (S.Pass != "race" || S.Kind.rfind("barrier", 0) == 0 ||
          S.Kind.rfind("warp barrier", 0) == 0 || S.Kind == "fence")
        continue;
      if (!S.Static.empty())
        R.C.Pruning = true;
      if (S.Static == "unchecked")
        ++R.C.UncheckedSites;
      if (S.Kind.find("not instrumented") != std::string::npos) {
        ++R.C.PrunedAccesses;
        continue;
      }
      ++R.C.StaticAccesses;
      Lines.insert({S.File, S.Line});
    }
  R.C.StaticLines = unsigned(Lines.size());
  auto Counter = [&](const char *K) {
    auto It = Run.Counters.find(K);
    return It == Run.Counters.end() ? uint64_t(0) : It->second;
  };
  R.C.DynamicAccesses = Counter(INCANT_RACE_COUNTER_ACCESSES);
  R.C.DynamicWarpAccesses = Counter(INCANT_RACE_COUNTER_WARP_ACCESSES);

  if (uint64_t N = Counter(INCANT_RACE_COUNTER_SHADOW_FULL))
    R.Notes.push_back(fmt::format(
        "{} accesses found no free shadow entry and were not checked (raise "
        "INCANT_RACE_SHADOW_MB)",
        N));
  if (uint64_t N = Counter(INCANT_RACE_COUNTER_BUSY))
    R.Notes.push_back(fmt::format(
        "{} accesses were not checked: their shadow entry stayed busy", N));
  if (uint64_t N = Counter(INCANT_RACE_COUNTER_LOG_FULL))
    R.Notes.push_back(fmt::format(
        "the statement log was full: {} accesses were not checked (raise "
        "INCANT_RACE_LOG_MB, or use --scheme addr)",
        N));
  if (uint64_t N = Counter(INCANT_RACE_COUNTER_NOT_FOLDED))
    R.Notes.push_back(fmt::format(
        "the race table was full: {} races were counted but not kept "
        "(raise INCANT_RACE_HITS)",
        N));
  if (uint64_t N = Counter(INCANT_RACE_COUNTER_CAPPED))
    R.Notes.push_back(fmt::format(
        "{} accesses were compared with only the first INCANT_RACE_WALK "
        "accesses of their address",
        N));
  // What pass race leaves out of the units that ran, and synchronisation
  // whose phases were lost: a clean run then proves nothing about them.
  const std::string Prefix = "race: not checked: ";
  for (const std::string &Unit : Run.Units) {
    auto It = Units.find(Unit);
    if (It == Units.end())
      continue;
    for (const std::string &N : It->second.Notes)
      if (N.rfind(Prefix, 0) == 0)
        R.NotChecked.push_back(fmt::format(
            "{}: {}",
            It->second.Source.empty() ? "unit " + Unit : It->second.Source,
            N.substr(Prefix.size())));
  }
  if (uint64_t N = Counter(INCANT_RACE_COUNTER_SYNC_LOST))
    R.NotChecked.push_back(fmt::format(
        "{} synchronisation operations on objects whose phases were lost "
        "(an mbarrier whose init was not seen, two mbarriers at one slot, "
        "arrive_drop, another block's mbarrier): the orders they make were "
        "taken as given",
        N));
  for (const std::string &N : R.NotChecked)
    R.Notes.push_back("not fully checked: " + N);
  if (!Run.Lost.empty())
    R.Notes.push_back(fmt::format(
        "the device failed ({}) before the checker read its tables back "
        "(a kernel of the application faulted, e.g. an access out of "
        "bounds): the accesses of the launches since were not checked",
        Run.Lost));
  if (Run.FailedLaunches)
    R.Notes.push_back(failedLaunchesNote(Run));
  if (R.UncheckedLaunches)
    R.Notes.push_back(fmt::format("{} launches were not checked",
                                  R.UncheckedLaunches));
  return R;
}

namespace {

std::string ids(const std::array<uint32_t, 3> &V) {
  return fmt::format("({},{},{})", V[0], V[1], V[2]);
}

/// Line \p Line of \p File, or "".
std::string sourceLine(const std::string &File, uint32_t Line) {
  static std::map<std::string, std::vector<std::string>> Cache;
  auto [It, New] = Cache.try_emplace(File);
  if (New) {
    std::ifstream In(File);
    std::string L;
    while (std::getline(In, L))
      It->second.push_back(L);
  }
  return Line && Line <= It->second.size() ? It->second[Line - 1] : "";
}

std::string where(const RaceSide &S) {
  if (!S.S)
    return fmt::format("site {} of unit {}", S.SiteId, S.Unit);
  if (S.S->Line)
    return fmt::format("{}:{}:{}", S.S->File, S.S->Line, S.S->Col);
  return fmt::format("PTX line {} of {}", S.S->PtxLine, S.S->Function);
}

std::string address(const Race &R) {
  if (R.Space == "shared")
    return fmt::format("shared offset 0x{:x}", R.Address & 0x3ffffu);
  return fmt::format("0x{:x}", R.Address);
}

const char *hazardWords(const std::string &H) {
  if (H == "RAW")
    return "write then read";
  if (H == "WAR")
    return "read then write";
  return "write then write";
}

json sideJson(const RaceSide &S) {
  json J = {{"unit", S.Unit},
            {"site", S.SiteId},
            {"access", S.Access},
            {"thread", S.Ids.Thread},
            {"block", S.Ids.Block}};
  if (S.S) {
    J["file"] = S.S->File;
    J["line"] = S.S->Line;
    J["col"] = S.S->Col;
    J["ptx_line"] = S.S->PtxLine;
    J["instruction"] = S.S->Text;
    J["function"] = S.S->Function;
    if (S.S->Line)
      J["source"] = sourceLine(S.S->File, S.S->Line);
  }
  return J;
}

} // namespace

void printReport(const Report &R, std::ostream &OS) {
  fmt::print(OS, "========= incant race --dynamic ({} scheme): {}\n", R.Scheme,
             R.App);
  for (const Race &X : R.Races) {
    std::string K = X.Kernel.empty() ? "" : ir::demangle(X.Kernel);
    fmt::print(OS, "race: {} hazard ({}) on {} memory{}{}\n", X.Hazard,
               hazardWords(X.Hazard), X.Space,
               X.Variable.empty() ? "" : ", " + X.Variable,
               K.empty() && X.Kernel.empty()
                   ? ""
                   : " in kernel " + (K.empty() ? X.Kernel : K));
    for (const RaceSide *S : {&X.A, &X.B}) {
      fmt::print(OS, "  {:<6} at {}{}\n", S->Access, where(*S),
                 S->S && !S->S->Text.empty() ? "  " + S->S->Text : "");
      if (S->S && S->S->Line)
        if (std::string L = sourceLine(S->S->File, S->S->Line); !L.empty())
          fmt::print(OS, "  {:>8} | {}\n", S->S->Line, L);
      fmt::print(OS, "         by thread {} of block {}\n", ids(S->Ids.Thread),
                 ids(S->Ids.Block));
    }
    fmt::print(OS, "  address {}; seen {} time{}{}\n", address(X), X.Count,
               X.Count == 1 ? "" : "s",
               X.SitePairs > 1
                   ? fmt::format(" ({} instruction pairs)", X.SitePairs)
                   : "");
  }
  for (const std::string &N : R.Notes)
    fmt::print(OS, "note: {}\n", N);
  fmt::print(OS,
             "summary: {} race{} ({} hazards); {} launch{} checked; {} "
             "thread accesses ({} warp accesses) checked; {} access sites "
             "instrumented on {} source lines",
             R.Races.size(), R.Races.size() == 1 ? "" : "s", R.Hazards,
             R.CheckedLaunches, R.CheckedLaunches == 1 ? "" : "es",
             R.C.DynamicAccesses, R.C.DynamicWarpAccesses, R.C.StaticAccesses,
             R.C.StaticLines);
  if (R.C.Pruning)
    fmt::print(OS, ", {} proved safe and left alone", R.C.PrunedAccesses);
  fmt::print(OS, "\n");
}

json reportToJson(const Report &R) {
  json Races = json::array();
  for (const Race &X : R.Races)
    Races.push_back({{"hazard", X.Hazard},
                     {"space", X.Space},
                     {"kernel", X.Kernel},
                     {"variable", X.Variable},
                     {"address", X.Address},
                     {"count", X.Count},
                     {"site_pairs", X.SitePairs},
                     {"a", sideJson(X.A)},
                     {"b", sideJson(X.B)}});
  json Kernels = json::array();
  for (const auto &[Name, N] : R.Kernels)
    Kernels.push_back({{"name", Name}, {"launches", N}});
  json J = {{"app", R.App},
          {"scheme", R.Scheme},
          {"races", std::move(Races)},
          {"hazards", R.Hazards},
          {"checked_launches", R.CheckedLaunches},
          {"unchecked_launches", R.UncheckedLaunches},
          {"kernels", std::move(Kernels)},
          {"counters", R.Counters},
          {"static",
           {{"instrumented_accesses", R.C.StaticAccesses},
            {"pruned_accesses", R.C.PrunedAccesses},
            {"source_lines", R.C.StaticLines},
            {"pruning", R.C.Pruning},
            {"unchecked_sites", R.C.UncheckedSites}}},
          {"dynamic",
           {{"thread_accesses", R.C.DynamicAccesses},
            {"warp_accesses", R.C.DynamicWarpAccesses}}},
          {"notes", R.Notes},
          {"not_checked", R.NotChecked}};
  if (!R.Lost.empty())
    J["lost"] = R.Lost;
  return J;
}

} // namespace incant::dynrace
