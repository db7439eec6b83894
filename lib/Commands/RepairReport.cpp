//===- RepairReport.cpp - What `incant repair` prints ---------------------===//
#include "RepairReport.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <ostream>

namespace incant::repair {

namespace {

std::string where(const Change &C) {
  const ir::SourceFrame *Fr = C.Loc.userFrame();
  return Fr ? fmt::format("{}:{} (PTX line {})",
                          std::filesystem::path(Fr->File).filename().string(),
                          Fr->Line, C.PtxLine)
            : fmt::format("PTX line {}", C.PtxLine);
}

const SourceEdit *editOf(const RepairResult &Res, const Change &C) {
  for (const SourceEdit &E : Res.Edits)
    if (E.From == &C)
      return &E;
  return nullptr;
}

/// What a clean edit does, in words.
std::string editText(const SourceEdit &E) {
  if (!E.Insert)
    return fmt::format("delete line {}", E.Line);
  if (E.Split && E.CopyBytes)
    return fmt::format("split the copy at line {} after its first {} byte{} "
                       "around '{}'",
                       E.Line, E.CopyBytes, E.CopyBytes == 1 ? "" : "s", E.Text);
  return E.Split ? fmt::format("split the assignment at line {} around '{}'",
                               E.Line, E.Text)
                 : E.AlsoBefore
                     ? fmt::format("insert '{}' before line {} and before line {}",
                                   E.Text, E.AlsoBefore, E.Line)
                     : fmt::format("insert '{}' before line {}", E.Text, E.Line);
}

std::string counts(const race::KernelReport &K) {
  return fmt::format("{} race{}, {} divergent barrier{}, {} unknown pair{}",
                     K.Races, K.Races == 1 ? "" : "s", K.Divergent,
                     K.Divergent == 1 ? "" : "s", K.Unknown,
                     K.Unknown == 1 ? "" : "s");
}

nlohmann::json changeJson(const Change &C, const RepairResult &Res) {
  nlohmann::json J = {{"item", C.Item},
                      {"origin_function", C.OriginFunction},
                      {"origin_item", C.OriginItem},
                      {"ptx_line", C.PtxLine},
                      {"kind", ir::barrierKindName(C.Kind)},
                      {"loop_depth", C.LoopDepth},
                      {"cost", C.Cost}};
  if (const ir::SourceFrame *Fr = C.Loc.userFrame()) {
    J["file"] = Fr->File;
    J["line"] = Fr->Line;
  }
  if (!C.Why.empty())
    J["why"] = C.Why;
  if (C.GridStart)
    J["origin_grid_start"] = C.OriginGridStart;
  if (const SourceEdit *E = editOf(Res, C)) {
    J["source"] = {{"line", E->Line}, {"text", E->Text}, {"split", E->Split},
                   {"kept", E->Kept}};
    if (E->AlsoBefore)
      J["source"]["also_before"] = E->AlsoBefore;
    if (E->CopyBytes)
      J["source"]["copy_bytes"] = E->CopyBytes;
    if (!E->Problem.empty())
      J["source"]["problem"] = E->Problem;
  }
  return J;
}

nlohmann::json countsJson(const race::KernelReport &K) {
  return {{"races", K.Races},
          {"divergent", K.Divergent},
          {"unknown", K.Unknown},
          {"unknown_barriers", K.UnknownBarriers},
          {"safe", K.Safe}};
}

} // namespace

void printRepair(const ModuleRepair &R, const RepairResult &Res,
                 std::ostream &OS, bool Verbose, bool CompilerLines) {
  // An edit's line: compiler-style (FILE:LINE:1: note:) or indented.
  auto Edit = [&](const SourceEdit &E, const std::string &What) {
    if (CompilerLines && E.Problem.empty() && E.Line)
      return fmt::format("{}:{}:1: note: incant repair: {}\n", Res.File,
                         E.Line, What);
    return fmt::format("    source: {}\n", What);
  };
  if (Res.Build == "unoptimized")
    OS << "note: " << Res.BuildWhy << "; this is the repair of nvcc's "
          "unoptimised build (-Xcicc -O0)\n";
  for (const KernelRepair &K : R.Kernels) {
    OS << "kernel " << K.Name;
    if (!K.Demangled.empty())
      OS << " (" << K.Demangled << ")";
    switch (K.Result) {
    case Outcome::Clean:
      OS << ": nothing to repair\n";
      break;
    case Outcome::Repaired:
      OS << fmt::format(": repaired ({} round{}, {} check{})\n", K.Rounds,
                        K.Rounds == 1 ? "" : "s", K.Checks,
                        K.Checks == 1 ? "" : "s");
      break;
    case Outcome::Unrepairable:
      OS << ": cannot be repaired\n";
      break;
    }
    if (!K.Launch.empty())
      OS << "  launch: " << K.Launch << "\n";
    for (const Change &C : K.Added) {
      OS << fmt::format("  add {} barrier before {}, loop depth {}, cost {}\n",
                        C.Kind == ir::BarrierKind::Grid      ? "grid"
                        : C.Kind == ir::BarrierKind::Warp    ? "warp"
                        : C.Kind == ir::BarrierKind::Cluster ? "cluster"
                        : C.Kind == ir::BarrierKind::CopyWait
                            ? "cp.async wait and block"
                            : "block",
                        where(C), C.LoopDepth, C.Cost);
      if (const SourceEdit *E = editOf(Res, C))
        OS << Edit(*E, !E->Problem.empty() ? E->Problem : editText(*E));
    }
    for (const Change &C : K.Removed) {
      OS << fmt::format("  remove {}barrier at {}: {}\n",
                        C.GridStart ? "grid " : "", where(C),
                        C.Why == "divergent"
                            ? "divergent (threads of a block disagree on "
                              "reaching it)"
                            : "unnecessary");
      if (const SourceEdit *E = editOf(Res, C))
        OS << (!E->Problem.empty() || E->Kept
                   ? fmt::format("    source: {}\n",
                                 E->Kept ? fmt::format("line {} stays (a copy "
                                                       "of this barrier there "
                                                       "is kept)",
                                                       E->Line)
                                         : E->Problem)
                   : Edit(*E, fmt::format("delete line {}", E->Line)));
    }
    for (const std::string &P : K.Problems)
      OS << "  cannot repair: " << P << "\n";
    // Pairs the checker could not decide, by reason.
    std::map<std::string, unsigned> Unknown;
    for (const race::PairResult &P : K.After.Pairs)
      if (P.V == race::Verdict::Unknown)
        ++Unknown[P.Reason];
    for (const auto &[Why, N] : Unknown)
      OS << fmt::format("  not proved: {} pair{}: {}\n", N, N == 1 ? "" : "s",
                        Why);
    if (K.Result != Outcome::Clean || Verbose)
      OS << "  before: " << counts(K.Before) << "; after: " << counts(K.After)
         << "\n";
    if (Verbose)
      for (const Change &C : K.Existing)
        OS << fmt::format("  existing barrier at {}, loop depth {}, cost {}\n",
                          where(C), C.LoopDepth, C.Cost);
  }
  bool Changed = false;
  for (const KernelRepair &K : R.Kernels)
    Changed |= K.Result == Outcome::Repaired;
  if (!Changed)
    return;
  OS << (Res.PtxVerified
             ? "repaired PTX: checked again by incant race: no race, no "
               "divergent barrier\n"
             : "repaired PTX: NOT verified: " + Res.PtxProblem + "\n");
  if (Res.Edits.empty())
    return;
  if (Res.PatchVerified && Res.PatchRepair) {
    OS << "source patch: from the repair of nvcc's unoptimised build (-Xcicc "
          "-O0), which keeps the source's loops and statements, where the "
          "optimised build's changes had no place or did not verify:\n";
    for (const SourceEdit &E : Res.PatchEdits)
      if (E.Problem.empty() && !E.Kept)
        OS << "  " << editText(E) << "\n";
  }
  if (Res.PatchVerified)
    OS << "source patch (compiled again and checked by incant race):\n"
       << Res.Diff;
  else
    OS << "no source patch: " << Res.PatchProblem << "\n";
}

nlohmann::json repairToJson(const ModuleRepair &R, const RepairResult &Res) {
  nlohmann::json J = {{"file", Res.File}, {"seconds", Res.Seconds}};
  if (!Res.Build.empty())
    J["build"] = Res.Build;
  nlohmann::json Ks = nlohmann::json::array();
  for (const KernelRepair &K : R.Kernels) {
    nlohmann::json KJ = {{"name", K.Name},
                         {"demangled", K.Demangled},
                         {"launch", K.Launch},
                         {"result", outcomeName(K.Result)},
                         {"rounds", K.Rounds},
                         {"checks", K.Checks},
                         {"added_cost", K.AddedCost},
                         {"before", countsJson(K.Before)},
                         {"after", countsJson(K.After)},
                         {"problems", K.Problems}};
    for (const char *Key : {"added", "removed", "existing"}) {
      const std::vector<Change> &Cs = std::string(Key) == "added" ? K.Added
                                      : std::string(Key) == "removed"
                                          ? K.Removed
                                          : K.Existing;
      KJ[Key] = nlohmann::json::array();
      for (const Change &C : Cs)
        KJ[Key].push_back(changeJson(C, Res));
    }
    nlohmann::json U = nlohmann::json::array();
    for (const race::PairResult &P : K.After.Pairs)
      if (P.V == race::Verdict::Unknown)
        U.push_back({{"first", K.After.Accesses[P.First].PtxLine},
                     {"second", K.After.Accesses[P.Second].PtxLine},
                     {"reason", P.Reason}});
    KJ["unknown_pairs"] = U;
    Ks.push_back(KJ);
  }
  J["kernels"] = Ks;
  J["ptx_verified"] = Res.PtxVerified;
  if (!Res.PtxProblem.empty())
    J["ptx_problem"] = Res.PtxProblem;
  J["patch"] = {{"complete", Res.PatchComplete},
                {"verified", Res.PatchVerified},
                {"diff", Res.Diff}};
  if (!Res.PatchProblem.empty())
    J["patch"]["problem"] = Res.PatchProblem;
  if (Res.PatchRepair) {
    J["patch"]["build"] = "unoptimized";
    nlohmann::json Es = nlohmann::json::array();
    for (const SourceEdit &E : Res.PatchEdits)
      if (E.Problem.empty() && !E.Kept)
        Es.push_back({{"line", E.Line}, {"text", E.Text},
                      {"insert", E.Insert}, {"split", E.Split},
                      {"also_before", E.AlsoBefore}});
    J["patch"]["edits"] = Es;
  }
  return J;
}

} // namespace incant::repair
