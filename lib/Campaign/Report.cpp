//===- Report.cpp - What campaign databases show: reading, the text summary ===//
#include "incant/Campaign/Report.h"
#include "incant/Harness/Stats.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace incant::campaign {

namespace {

size_t indexOf(std::vector<std::string> &V, const std::string &S) {
  auto It = std::find(V.begin(), V.end(), S);
  if (It != V.end())
    return static_cast<size_t>(It - V.begin());
  V.push_back(S);
  return V.size() - 1;
}

std::string chipLabel(const ResultRecord &R) {
  std::string L = R.Chip.empty() ? "(no device)" : R.Chip;
  std::vector<std::string> Parts;
  for (const std::string *P : {&R.Backend, &R.Platform, &R.Driver})
    if (!P->empty())
      Parts.push_back(*P);
  if (!Parts.empty())
    L += " (" + fmt::format("{}", fmt::join(Parts, ", ")) + ")";
  return L;
}

} // namespace

bool loadReport(const std::vector<std::string> &Dbs, ReportData &Data,
                std::string &Error) {
  Data = ReportData();
  Data.Dbs = Dbs;
  std::set<ResultKey> Seen;
  std::set<std::string> Versions, Models;
  for (const std::string &Path : Dbs) {
    std::unique_ptr<Store> S = Store::open(Path, Store::Mode::Read, Error);
    if (!S)
      return false;
    std::map<std::string, std::pair<TestRecord, std::vector<VerdictRecord>>>
        Tests;
    bool Ok = S->forEachResult([&](const ResultRecord &R) {
      if (!Seen.insert(keyOf(R)).second) {
        ++Data.Duplicates;
        return true;
      }
      auto It = Tests.find(R.TestHash);
      if (It == Tests.end()) {
        std::optional<TestRecord> T = S->test(R.TestHash);
        if (!T) {
          Error = Path + ": result " + std::to_string(R.Id) +
                  " is of test " + R.TestHash +
                  ", which is not in its tests table (the database is "
                  "damaged)";
          return false;
        }
        It = Tests
                 .emplace(R.TestHash,
                          std::make_pair(*T, S->verdicts(R.TestHash)))
                 .first;
      }
      ReportData::Row Row{It->second.first, R, It->second.second, 0, 0};
      Row.Chip = indexOf(Data.Chips, chipLabel(R));
      Row.Params = indexOf(Data.Params, R.Params);
      if (!R.IncantVersion.empty())
        Versions.insert(R.IncantVersion);
      Data.LoopBoundCut += R.LoopBoundHits;
      Data.LoopBoundResults += R.LoopBoundHits != 0;
      for (const VerdictRecord &V : Row.Verdicts)
        Models.insert(V.Model);
      Data.Rows.push_back(std::move(Row));
      return true;
    });
    if (!Ok) {
      if (Error.empty())
        Error = "cannot read " + Path + ": " + S->error();
      return false;
    }
  }
  Data.Versions.assign(Versions.begin(), Versions.end());
  // The shipped models in their order of strength, others after them.
  for (const char *M : {"sc", "ptx-rmo", "ptx"})
    if (Models.erase(M))
      Data.Models.push_back(M);
  Data.Models.insert(Data.Models.end(), Models.begin(), Models.end());

  std::stable_sort(
      Data.Rows.begin(), Data.Rows.end(),
      [](const ReportData::Row &A, const ReportData::Row &B) {
        return std::tie(A.Test.Family, A.Test.Name, A.Chip, A.Params) <
               std::tie(B.Test.Family, B.Test.Name, B.Chip, B.Params);
      });

  std::map<std::string, ReportData::ModelSummary> Sum;
  std::map<std::pair<std::string, std::string>, ReportData::Group> Groups;
  for (size_t I = 0; I < Data.Rows.size(); ++I) {
    const ReportData::Row &Row = Data.Rows[I];
    if (Row.Result.Error)
      continue;
    const std::string &Opt = Row.Result.OptCheck;
    if (Opt.rfind("optcheck: ", 0) == 0) {
      std::string Status = Opt.substr(10, Opt.find(' ', 10) - 10);
      ++Data.OptCheck[Status];
      if (Status == "FAILED")
        Data.OptCheckFailed.push_back(I);
    }
    ReportData::Group &G = Groups[{Row.Test.Family, Row.Test.Scope}];
    G.Family = Row.Test.Family;
    G.Scope = Row.Test.Scope;
    ++G.Tests;
    G.WeakTests += Row.Result.Positive != 0;
    G.Positive += Row.Result.Positive;
    G.Instances += Row.Result.Instances;
    std::map<std::string, uint64_t> Observed;
    for (const StateRecord &S : Row.Result.Histogram)
      Observed[S.State] += S.Count;
    for (const VerdictRecord &V : Row.Verdicts) {
      ReportData::ModelSummary &M = Sum[V.Model];
      M.Model = V.Model;
      ++M.Tests;
      M.Allows += V.Ok;
      M.Incomplete += V.Incomplete;
      std::set<std::string> Allowed;
      for (const StateRecord &S : V.Allowed) {
        Allowed.insert(S.State);
        if (!Observed.count(S.State))
          Data.AllowedUnseen.push_back({I, V.Model, S.State, S.Satisfies, 0});
      }
      // A partial enumeration cannot say what the model forbids.
      if (V.Incomplete)
        continue;
      bool Unsound = false;
      for (const StateRecord &S : Row.Result.Histogram)
        if (!Allowed.count(S.State)) {
          Data.ObservedForbidden.push_back(
              {I, V.Model, S.State, S.Satisfies, S.Count});
          Unsound = true;
        }
      if (Unsound)
        Data.Unsound.insert({I, V.Model});
      M.Unsound += Unsound;
    }
  }
  for (const std::string &M : Data.Models)
    if (Sum.count(M))
      Data.Summaries.push_back(Sum[M]);
  for (auto &[K, G] : Groups)
    Data.Groups.push_back(G);
  // Lists grouped by model, in the order of Data.Models.
  auto ByModel = [&](const ReportData::Entry &A, const ReportData::Entry &B) {
    auto Rank = [&](const std::string &M) {
      return std::find(Data.Models.begin(), Data.Models.end(), M) -
             Data.Models.begin();
    };
    // The weak outcome (the condition's) first: it is what a test is for.
    return std::make_tuple(Rank(A.Model), !A.Satisfies, A.Row) <
           std::make_tuple(Rank(B.Model), !B.Satisfies, B.Row);
  };
  std::stable_sort(Data.ObservedForbidden.begin(), Data.ObservedForbidden.end(),
                   ByModel);
  std::stable_sort(Data.AllowedUnseen.begin(), Data.AllowedUnseen.end(),
                   ByModel);
  return true;
}

namespace {

std::string verdictCell(const ReportData &D, size_t RowIndex,
                        const std::string &Model) {
  const ReportData::Row &Row = D.Rows[RowIndex];
  for (const VerdictRecord &V : Row.Verdicts)
    if (V.Model == Model) {
      bool Unsound = D.Unsound.count({RowIndex, Model}) != 0;
      return std::string(V.Ok ? "Ok" : "No") + (V.Incomplete ? "?" : "") +
             (Unsound ? "!" : "");
    }
  return "-";
}

void printList(const ReportData &D, const std::vector<ReportData::Entry> &L,
               bool Counts, size_t Limit, std::ostream &OS) {
  if (L.empty()) {
    OS << "  (none)\n";
    return;
  }
  std::map<std::string, size_t> Shown;
  std::map<std::string, size_t> Total;
  for (const ReportData::Entry &E : L)
    ++Total[E.Model];
  for (const ReportData::Entry &E : L) {
    size_t &N = Shown[E.Model];
    if (Limit && N == Limit)
      OS << fmt::format("  {}: ... and {} more (the HTML report lists all)\n",
                        E.Model, Total[E.Model] - Limit);
    if (Limit && N++ >= Limit)
      continue;
    const ReportData::Row &R = D.Rows[E.Row];
    std::string Where = R.Test.Name;
    if (D.Chips.size() > 1)
      Where += fmt::format(" [C{}]", R.Chip + 1);
    if (D.Params.size() > 1)
      Where += fmt::format(" [P{}]", R.Params + 1);
    OS << fmt::format("  {}: {}: {}{}", E.Model, Where, E.State,
                      E.Satisfies ? " (weak)" : "");
    if (Counts)
      OS << fmt::format(" seen {} of {}", E.Count, R.Result.Instances);
    OS << '\n';
  }
}

} // namespace

std::string loopBoundNote(const ReportData &D) {
  return fmt::format("Cut by the loop bound: {} instance(s) in {} result(s); "
                     "they did not finish, so they are in no histogram",
                     D.LoopBoundCut, D.LoopBoundResults);
}

void printTextReport(const ReportData &D, size_t Limit, std::ostream &OS) {
  size_t Errors = 0;
  std::set<std::string> Tests;
  for (const ReportData::Row &R : D.Rows) {
    Errors += R.Result.Error;
    Tests.insert(R.Test.Hash);
  }
  OS << fmt::format("incant report: {} database(s), {} result(s) of {} "
                    "test(s), {} error(s)",
                    D.Dbs.size(), D.Rows.size(), Tests.size(), Errors);
  if (D.Duplicates)
    OS << fmt::format(", {} duplicate(s) counted once", D.Duplicates);
  OS << '\n';
  if (D.LoopBoundCut)
    OS << loopBoundNote(D) << '\n';
  for (size_t I = 0; I < D.Chips.size(); ++I)
    OS << fmt::format("Chip C{}: {}\n", I + 1, D.Chips[I]);
  for (size_t I = 0; I < D.Params.size(); ++I)
    OS << fmt::format("Parameters P{}: {}\n", I + 1, D.Params[I]);
  OS << fmt::format("incant version(s): {}\n",
                    D.Versions.empty()
                        ? "-"
                        : fmt::format("{}", fmt::join(D.Versions, ", ")));

  OS << "\nTests (weak = instances whose final state satisfies the condition; "
        "per model: Ok = allows it, No = forbids it, ! = forbids an "
        "observed state, ? = enumeration incomplete)\n";
  size_t NameW = 4, ScopeW = 5;
  for (const ReportData::Row &R : D.Rows) {
    NameW = std::max(NameW, R.Test.Name.size());
    ScopeW = std::max(ScopeW, R.Test.Scope.size());
  }
  std::string Head = fmt::format("  {:<{}} {:<{}} {:>4} {:>4} {:>12} {:>10} "
                                 "{:>9}",
                                 "test", NameW, "scope", ScopeW, "chip", "par",
                                 "instances", "weak", "rate");
  for (const std::string &M : D.Models)
    Head += fmt::format(" {:>7}", M);
  OS << Head << '\n';
  for (size_t I = 0; I < D.Rows.size(); ++I) {
    const ReportData::Row &R = D.Rows[I];
    std::string Line = fmt::format(
        "  {:<{}} {:<{}} {:>4} {:>4}", R.Test.Name, NameW, R.Test.Scope, ScopeW,
        fmt::format("C{}", R.Chip + 1), fmt::format("P{}", R.Params + 1));
    if (R.Result.Error) {
      Line += "  error (see Errors)";
    } else {
      harness::Proportion P =
          harness::wilson(R.Result.Positive, R.Result.Instances);
      Line += fmt::format(" {:>12} {:>10} {:>9.3g}", R.Result.Instances,
                          R.Result.Positive, P.Rate);
      for (const std::string &M : D.Models)
        Line += fmt::format(" {:>7}", verdictCell(D, I, M));
    }
    OS << Line << '\n';
  }

  OS << "\nModels\n";
  OS << fmt::format("  {:<10} {:>6} {:>14} {:>24} {:>11}\n", "model", "tests",
                    "allows weak", "forbids an observed state", "incomplete");
  for (const ReportData::ModelSummary &M : D.Summaries)
    OS << fmt::format("  {:<10} {:>6} {:>14} {:>24} {:>11}\n", M.Model, M.Tests,
                      M.Allows, M.Unsound, M.Incomplete);

  OS << fmt::format("\nObserved but forbidden by the model (unsound for this "
                    "chip): {}\n",
                    D.ObservedForbidden.size());
  printList(D, D.ObservedForbidden, true, Limit, OS);
  OS << fmt::format("\nAllowed by the model but never observed: {}\n",
                    D.AllowedUnseen.size());
  printList(D, D.AllowedUnseen, false, Limit, OS);

  OS << "\nWeak rate per family and scope (pooled over tests)\n";
  size_t FamW = 6;
  ScopeW = 5;
  for (const ReportData::Group &G : D.Groups) {
    FamW = std::max(FamW, G.Family.size());
    ScopeW = std::max(ScopeW, G.Scope.size());
  }
  for (const ReportData::Group &G : D.Groups) {
    harness::Proportion P = harness::wilson(G.Positive, G.Instances);
    OS << fmt::format("  {:<{}} {:<{}} {:>9.3g}  ({} of {} instances; {} of "
                      "{} test(s) showed it)\n",
                      G.Family, FamW, G.Scope, ScopeW, P.Rate, G.Positive,
                      G.Instances, G.WeakTests, G.Tests);
  }
  if (!D.OptCheck.empty()) {
    OS << "\nOptcheck (the compiled code keeps the test's accesses):";
    for (const auto &[Status, N] : D.OptCheck)
      OS << fmt::format(" {} {}", N, Status);
    OS << '\n';
    for (size_t I : D.OptCheckFailed)
      OS << "  " << D.Rows[I].Test.Name << ": " << D.Rows[I].Result.OptCheck
         << '\n';
  }
  if (Errors) {
    OS << "\nErrors\n";
    for (const ReportData::Row &R : D.Rows)
      if (R.Result.Error) {
        std::string First =
            R.Result.ErrorText.substr(0, R.Result.ErrorText.find('\n'));
        // A diagnostic names its file already.
        bool Named = First.compare(0, R.Test.Path.size(), R.Test.Path) == 0;
        OS << "  " << (Named ? "" : R.Test.Path + ": ") << First << '\n';
      }
  }
}

} // namespace incant::campaign
