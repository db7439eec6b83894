//===- FenceReport.cpp - What `incant fences` found, for people -----------===//
//
// Each fence of the result is shown where a programmer would put it: after
// the source line of the access it follows (from -lineinfo), with that
// line's text, the PTX position, the kind kept, a patch, and the access a
// release or acquire form would make the fence unnecessary on. The
// orderings the application already had (its own, or a reference build's)
// are compared with the result by place: a fence "after access A" and an
// existing ordering whose equivalent fence follows the same access (the
// same file, line and column) are at the same place.
//
//===----------------------------------------------------------------------===//
#include "incant/Fences/FenceReport.h"
#include "incant/Intercept/Fences.h"

#include "incant/IR/Summary.h"
#include "incant/Support/Json.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace incant::fences {

namespace {

namespace fs = std::filesystem;
using intercept::ExistingOrder;
using intercept::Site;
using intercept::UnitManifest;

std::string baseName(const std::string &P) {
  return P.empty() ? "?" : fs::path(P).filename().string();
}

std::string displayName(const std::string &Mangled) {
  std::string D = ir::demangle(Mangled);
  if (D.empty())
    return Mangled;
  // A long name without its parameters ("(anonymous namespace)::dot").
  return D.size() > 60 ? ir::qualifiedKernelName(Mangled) : D;
}

/// Source lines of the files the report shows, read once.
class Sources {
public:
  /// Line \p N of \p File, or nullopt if it cannot be read.
  const std::string *line(const std::string &File, uint32_t N) {
    auto [It, New] = Files.try_emplace(File);
    if (New) {
      std::ifstream In(File);
      std::string L;
      while (In && std::getline(In, L))
        It->second.push_back(L);
    }
    if (N == 0 || N > It->second.size())
      return nullptr;
    return &It->second[N - 1];
  }

private:
  std::map<std::string, std::vector<std::string>> Files;
};

/// A place in the source: the access a fence follows.
struct Place {
  std::string File;
  uint32_t Line = 0, Col = 0;
  bool operator<(const Place &O) const {
    return std::tie(File, Line, Col) < std::tie(O.File, O.Line, O.Col);
  }
  bool operator==(const Place &O) const = default;
  std::string str() const {
    return Line ? fmt::format("{}:{}:{}", File, Line, Col) : "the start";
  }
};

Place placeOf(const Site &S) { return {baseName(S.File), S.Line, S.Col}; }

/// The access a site follows: "atom.global.cas.b32".
std::string accessOf(const Site &S) {
  return S.Kind.rfind("after ", 0) == 0 ? S.Kind.substr(6) : S.Kind;
}

struct Fence {
  uint32_t Index = 0;
  unsigned Kind = 0;
  const Candidate *C = nullptr;
  const UnitManifest *U = nullptr;
  const Site *Next = nullptr; ///< The next access of its function.
};

const UnitManifest *unitOf(const CandidateList &L, const std::string &Id) {
  for (const UnitManifest &U : L.Units)
    if (U.Id == Id)
      return &U;
  return nullptr;
}

std::vector<Fence> fencesOf(const FenceReportInput &In, const FenceSet &Set) {
  std::vector<Fence> Out;
  for (const auto &[Index, Kind] : Set) {
    Fence F;
    F.Index = Index;
    F.Kind = Kind;
    F.C = &In.Candidates->Fences[Index];
    F.U = unitOf(*In.Candidates, F.C->Unit);
    if (F.U)
      for (const Site &S : F.U->Sites)
        if (S.Pass == "fences" && S.Function == F.C->S.Function &&
            S.PtxLine > F.C->S.PtxLine &&
            (!F.Next || S.PtxLine < F.Next->PtxLine))
          F.Next = &S;
    Out.push_back(F);
  }
  return Out;
}

/// Functions the candidates come from (the launched kernels and what they
/// call), by name.
std::set<std::string> reachedFunctions(const CandidateList &L) {
  std::set<std::string> Out;
  for (const Candidate &C : L.Fences)
    Out.insert(C.S.Function);
  return Out;
}

struct Existing {
  std::string Kind;
  Place At;    ///< Its own place.
  Place After; ///< The place of the equivalent fence.
};

/// The orderings of \p Units in functions named in \p Fns, once per
/// source place (inlining repeats them in the PTX).
std::vector<Existing> existingOrders(const std::vector<UnitManifest> &Units,
                                     const std::set<std::string> &Fns,
                                     const std::string &Target) {
  std::set<std::tuple<std::string, Place, Place>> Seen;
  std::vector<Existing> Out;
  for (const UnitManifest &U : Units) {
    if (!Target.empty() && !U.Target.empty() && U.Target != Target)
      continue;
    for (const ExistingOrder &O : U.Orders) {
      if (!Fns.count(O.Function))
        continue;
      Existing E{O.Kind,
                 {baseName(O.File), O.Line, O.Col},
                 {baseName(O.AfterFile), O.AfterLine, O.AfterCol}};
      if (Seen.insert({E.Kind, E.At, E.After}).second)
        Out.push_back(E);
    }
  }
  return Out;
}

struct Comparison {
  std::string With;          ///< "its own" or the reference's name.
  std::vector<Existing> Orders;
  std::set<Place> Reduced, Had;
  std::string Verdict;       ///< "same", "subset", "superset", "different"
};

Comparison compare(const FenceReportInput &In, const std::vector<Fence> &Fs) {
  Comparison C;
  std::set<std::string> Fns = reachedFunctions(*In.Candidates);
  std::string Target =
      In.Candidates->Units.empty() ? "" : In.Candidates->Units[0].Target;
  if (In.Reference) {
    C.With = In.ReferenceName;
    C.Orders = existingOrders(*In.Reference, Fns, Target);
  } else {
    C.With = "the application itself";
    C.Orders = existingOrders(In.Candidates->Units, Fns, "");
  }
  for (const Fence &F : Fs)
    C.Reduced.insert(placeOf(F.C->S));
  for (const Existing &E : C.Orders)
    C.Had.insert(E.After);
  bool Sub = std::includes(C.Had.begin(), C.Had.end(), C.Reduced.begin(),
                           C.Reduced.end());
  bool Super = std::includes(C.Reduced.begin(), C.Reduced.end(),
                             C.Had.begin(), C.Had.end());
  C.Verdict = Sub && Super ? "same"
              : Sub        ? "subset"
              : Super      ? "superset"
                           : "different";
  return C;
}

/// Where a release or acquire access would order what fence \p F orders.
std::vector<std::string> accessAdvice(const Fence &F) {
  std::vector<std::string> Out;
  std::string A = accessOf(F.C->S);
  std::string Op = A.substr(0, A.find('.'));
  bool AtomicA = Op == "atom" || A.find(".volatile") != std::string::npos ||
                 A.find(".relaxed") != std::string::npos;
  if (Op == "ld" || Op == "atom")
    Out.push_back(fmt::format(
        "make the {} at {} an acquire ({}.acquire.gpu; in CUDA C++ "
        "cuda::atomic_ref with cuda::memory_order_acquire){}",
        Op == "ld" ? "load" : "atomic", placeOf(F.C->S).str(), Op,
        AtomicA ? ": it reads a synchronisation variable" : ""));
  if (F.Next) {
    std::string B = accessOf(*F.Next);
    std::string OpB = B.substr(0, B.find('.'));
    bool AtomicB = OpB == "atom" || OpB == "red" ||
                   B.find(".volatile") != std::string::npos ||
                   B.find(".relaxed") != std::string::npos;
    if (OpB == "st" || OpB == "atom" || OpB == "red")
      Out.push_back(fmt::format(
          "make the {} at {} a release ({}.release.gpu; in CUDA C++ "
          "cuda::atomic_ref with cuda::memory_order_release){}",
          OpB == "st" ? "store" : "atomic", placeOf(*F.Next).str(), OpB,
          AtomicB ? ": it writes a synchronisation variable" : ""));
  }
  return Out;
}

std::string kindName(unsigned K) {
  return "fence." + intercept::fenceKindNames()[K];
}

} // namespace

void printFenceReport(const FenceReportInput &In, std::ostream &OS) {
  const SearchResult &S = *In.Search;
  const CandidateList &L = *In.Candidates;
  fmt::print(OS, "incant fences: {} ({})\n", In.Label, In.Envs);
  std::set<std::string> Kernels;
  for (const Candidate &C : L.Fences)
    Kernels.insert(displayName(C.S.Function));
  fmt::print(OS, "candidates: {} fence sites in {} function{} of {} unit{}: "
                 "{}\n",
             L.Fences.size(), Kernels.size(), Kernels.size() == 1 ? "" : "s",
             L.Units.size(), L.Units.size() == 1 ? "" : "s",
             fmt::join(Kernels, ", "));
  for (const std::string &K : L.Uncovered)
    fmt::print(OS, "note: kernel {} has no switchable fences (its module "
                   "was not built with the pass \"fences\")\n",
               displayName(K));
  std::map<std::string, unsigned> ByPurpose;
  uint64_t Runs = 0, Stored = 0, Implied = 0, Reused = 0;
  for (const CheckRecord &C : S.Checks) {
    ++ByPurpose[purposeName(C.P)];
    Runs += C.Out.Runs;
    Stored += C.Replayed;
    Implied += C.ImpliedBy.has_value();
    Reused += C.PriorRuns;
  }
  std::string Counts;
  for (const auto &[P, N] : ByPurpose)
    Counts += fmt::format("{}{} {}", Counts.empty() ? "" : ", ", P, N);
  fmt::print(OS, "checks: {} ({}), {} runs, {} round{} (last: {} runs per "
                 "check), {:.1f} s{}\n",
             S.Checks.size(), Counts, Runs, S.Rounds,
             S.Rounds == 1 ? "" : "s", S.FinalIterations, S.Seconds,
             Stored ? fmt::format(" ({} checks from the store, {:.1f} s now)",
                                  Stored, S.NewSeconds)
                    : "");
  if (Implied || Reused)
    fmt::print(OS, "evidence: {} checks failed without running (their sets "
                   "are within a failed one's), {} earlier runs that passed "
                   "counted again\n",
               Implied, Reused);
  if (!In.NoFences.empty())
    fmt::print(OS, "without fences it fails: {}\n", In.NoFences);

  if (S.Status == SearchStatus::Unstable) {
    std::string Why;
    for (const CheckRecord &C : S.Checks)
      if (C.P == Purpose::All)
        Why = C.Out.FirstFailure;
    fmt::print(OS, "\nnot stable even with all {} fences on: {}\n",
               L.Fences.size(), Why);
    if (S.UnstableAfterRound)
      fmt::print(OS,
                 "Every fence on passed its first check, and failed when it "
                 "was checked again after round {}'s stability check had "
                 "failed: the failures that ended the rounds are not (only) "
                 "the missing fences' doing.\n",
                 S.UnstableAfterRound);
    fmt::print(OS, "The application fails for a reason fences do not remove "
                   "(a bug that is not about memory order, a hang, or an "
                   "access the pass does not fence).\n");
    return;
  }
  if (S.Status == SearchStatus::OutOfBudget)
    fmt::print(OS, "\nthe budget ran out before the search finished; the "
                   "last set that passed its checks ({} fences) is below, "
                   "not yet shown stable. Run the same command again to go "
                   "on from the store.\n",
               S.Result.size());

  std::vector<Fence> Fs = fencesOf(In, S.Result);
  fmt::print(OS, "\n{}: {} of {} fences\n",
             S.Status == SearchStatus::Reduced ? "reduced" : "so far",
             Fs.size(), L.Fences.size());
  if (Fs.empty())
    fmt::print(OS, "  no fence was needed empirically\n");
  if (S.WeakenedUnstable)
    fmt::print(OS, "  (weaker kinds passed their checks but not the "
                   "stability check: all kept at fence.sc.gpu)\n");
  Sources Src;
  for (const Fence &F : Fs) {
    const Site &X = F.C->S;
    fmt::print(OS, "\n  fence after {} in {}\n", placeOf(X).str(),
               displayName(X.Function));
    fmt::print(OS, "    access: {}; unit {}, site {}, {} line {}\n",
               accessOf(X), F.C->Unit, X.Id,
               F.U ? baseName(F.U->PtxFile) : "ptx", X.PtxLine);
    auto Strong = S.Strong.find(F.Index);
    fmt::print(OS, "    kind: {}{}\n", kindName(F.Kind),
               Strong != S.Strong.end() && Strong->second != F.Kind
                   ? " (weaker than fence.sc.gpu, and stable)"
                   : "");
    if (F.Kind == 2 || F.Kind == 3)
      fmt::print(OS, "    note: the PTX memory model asks for .gpu scope "
                     "between threads of different blocks; .cta passed the "
                     "tests only\n");
    if (const std::string *Text = Src.line(X.File, X.Line)) {
      fmt::print(OS, "    {:>5} | {}\n", X.Line, *Text);
      fmt::print(OS, "    patch: add `{}` after line {} of {}\n",
                 intercept::fenceKindCuda(F.Kind), X.Line, X.File);
    } else if (X.Line) {
      fmt::print(OS, "    patch: add `{}` after line {} of {} (not "
                     "readable here)\n",
                 intercept::fenceKindCuda(F.Kind), X.Line, X.File);
    } else {
      fmt::print(OS, "    (no source line: build with -lineinfo)\n");
    }
    for (const std::string &A : accessAdvice(F))
      fmt::print(OS, "    or: {}\n", A);
  }

  Comparison Cmp = compare(In, Fs);
  fmt::print(OS, "\nthe orderings of {}: {}\n", Cmp.With, Cmp.Orders.size());
  for (const Existing &E : Cmp.Orders) {
    bool Hit = Cmp.Reduced.count(E.After);
    fmt::print(OS, "  {} at {} (as a fence after {}){}\n", E.Kind,
               E.At.str(), E.After.str(), Hit ? ": found" : ": not found");
  }
  if (Cmp.Orders.empty() && Fs.empty())
    fmt::print(OS, "it had none and none was needed\n");
  else if (Cmp.Verdict == "same")
    fmt::print(OS, "the reduced set is at the same places\n");
  else if (Cmp.Verdict == "subset")
    fmt::print(OS, "the reduced set is a subset: the tests needed only some "
                   "of them\n");
  else if (Cmp.Verdict == "superset")
    fmt::print(OS, "the reduced set is a superset: it has fences where {} "
                   "has none\n",
               Cmp.With);
  else
    fmt::print(OS, "the reduced set is elsewhere\n");
}

std::string fenceReportJson(const FenceReportInput &In) {
  using nlohmann::json;
  const SearchResult &S = *In.Search;
  static const char *Status[] = {"reduced", "unstable", "out-of-budget",
                                 "error"};
  json Checks = json::array();
  for (const CheckRecord &C : S.Checks)
    Checks.push_back({{"seq", C.Seq},
                      {"purpose", purposeName(C.P)},
                      {"round", C.Round},
                      {"set", formatSet(C.Set)},
                      {"fences", C.Set.size()},
                      {"runs", C.Out.Runs},
                      {"failures", C.Out.Failures},
                      {"seconds", C.Out.Seconds},
                      {"first_failure", C.Out.FirstFailure},
                      {"stored", C.Replayed},
                      {"prior_runs", C.PriorRuns},
                      {"implied_by", C.ImpliedBy ? json(*C.ImpliedBy)
                                                 : json(nullptr)}});
  std::vector<Fence> Fs = fencesOf(In, S.Result);
  json Result = json::array();
  Sources Src;
  for (const Fence &F : Fs) {
    const Site &X = F.C->S;
    const std::string *Text = Src.line(X.File, X.Line);
    Result.push_back({{"index", F.Index},
                      {"unit", F.C->Unit},
                      {"site", X.Id},
                      {"function", X.Function},
                      {"access", accessOf(X)},
                      {"ptx_line", X.PtxLine},
                      {"file", X.File},
                      {"line", X.Line},
                      {"col", X.Col},
                      {"source", Text ? *Text : ""},
                      {"kind", kindName(F.Kind)},
                      {"cuda", intercept::fenceKindCuda(F.Kind)},
                      {"instead", accessAdvice(F)}});
  }
  Comparison Cmp = compare(In, Fs);
  json Orders = json::array();
  for (const Existing &E : Cmp.Orders)
    Orders.push_back({{"kind", E.Kind},
                      {"at", E.At.str()},
                      {"after", E.After.str()},
                      {"found", Cmp.Reduced.count(E.After) > 0}});
  json J = {{"app", In.Label},
            {"env", In.Envs},
            {"status", Status[int(S.Status)]},
            {"candidates", In.Candidates->Fences.size()},
            {"rounds", S.Rounds},
            {"iterations", S.FinalIterations},
            {"seconds", S.Seconds},
            {"new_seconds", S.NewSeconds},
            {"without_fences", In.NoFences},
            {"fences", Result},
            {"weakened_unstable", S.WeakenedUnstable},
            {"unstable_after_round", S.UnstableAfterRound},
            {"compared_with", Cmp.With},
            {"orders", Orders},
            {"match", Cmp.Verdict},
            {"checks", Checks}};
  return dumpJson(J);
}

std::string fencePatch(const FenceReportInput &In) {
  // Per file, the lines to add a fence after (and its kind), in order.
  std::map<std::string, std::map<uint32_t, unsigned>> ByFile;
  for (const Fence &F : fencesOf(In, In.Search->Result))
    if (F.C->S.Line && !F.C->S.File.empty())
      ByFile[F.C->S.File].emplace(F.C->S.Line, F.Kind);
  Sources Src;
  std::string Out;
  for (const auto &[File, Lines] : ByFile) {
    if (!Src.line(File, Lines.begin()->first))
      continue;
    std::error_code EC;
    fs::path Rel = fs::relative(File, fs::current_path(), EC);
    std::string Name = !EC && !Rel.empty() && *Rel.begin() != ".."
                           ? Rel.string()
                           : File;
    Out += fmt::format("--- a/{}\n+++ b/{}\n", Name, Name);
    unsigned Added = 0;
    for (const auto &[Line, Kind] : Lines) {
      const std::string *Text = Src.line(File, Line);
      if (!Text)
        continue;
      std::string Indent = Text->substr(0, Text->find_first_not_of(" \t"));
      Out += fmt::format("@@ -{},1 +{},2 @@\n {}\n+{}{}\n", Line,
                         Line + Added, *Text, Indent,
                         intercept::fenceKindCuda(Kind));
      ++Added;
    }
  }
  return Out;
}

std::string fenceSetJson(const FenceReportInput &In) {
  using nlohmann::json;
  std::map<std::string, FenceSet> Emp, Cons;
  for (const auto &[Index, Kind] : In.Search->Result)
    Emp[In.Candidates->Fences[Index].Unit][In.Candidates->Fences[Index].S.Id] =
        Kind;
  for (const Candidate &C : In.Candidates->Fences)
    Cons[C.Unit][C.S.Id] = 0;
  json Units = json::object();
  for (const auto &[Unit, Sites] : Cons)
    Units[Unit] = {{"cons", formatSet(Sites)}, {"emp", formatSet(Emp[Unit])}};
  return dumpJson(json{{"app", In.Label}, {"units", Units}});
}

} // namespace incant::fences
