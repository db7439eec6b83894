//===- Report.h - `incant report`: what campaigns found ---------*- C++ -*-===//
//
// Reads one or more campaign databases (a result stored in several is
// counted once) and says, per test, how often the weak outcome (the
// condition's proposition) appeared and whether each model allows it; and
// the two lists that matter most: final states observed but forbidden by a
// model (the model is unsound for that chip) and states a model allows but
// no run ever showed (testing is weak there, or the chip is stronger).
// Text on stdout, or a self-contained HTML page (inline CSS and SVG).
//
// The command and its exit codes: ReportCommand.h.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAMPAIGN_REPORT_H
#define INCANT_CAMPAIGN_REPORT_H

#include "incant/Campaign/Store.h"

#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace incant::campaign {

/// Everything a report shows, computed once from the databases.
struct ReportData {
  struct Row {
    TestRecord Test;
    ResultRecord Result;
    std::vector<VerdictRecord> Verdicts;
    size_t Chip = 0;   ///< Index into Chips.
    size_t Params = 0; ///< Index into Params.
  };
  /// A final state of one row that a model forbids or never saw.
  struct Entry {
    size_t Row = 0;
    std::string Model;
    std::string State;
    bool Satisfies = false;
    uint64_t Count = 0; ///< Times observed (0 for a never-observed state).
  };
  /// The pooled weak rate of a family at a scope.
  struct Group {
    std::string Family, Scope;
    uint64_t Tests = 0, WeakTests = 0, Positive = 0, Instances = 0;
  };
  struct ModelSummary {
    std::string Model;
    uint64_t Tests = 0;      ///< Rows with this model's verdict.
    uint64_t Allows = 0;     ///< ... whose condition the model allows.
    uint64_t Unsound = 0;    ///< ... where it forbids an observed state.
    uint64_t Incomplete = 0; ///< ... whose enumeration stopped early.
  };

  std::vector<std::string> Dbs;
  std::vector<std::string> Chips;  ///< "name (backend, platform, driver)"
  std::vector<std::string> Params; ///< Distinct parameter texts.
  std::vector<std::string> Versions;
  std::vector<std::string> Models; ///< Every model with a verdict, sorted.
  uint64_t Duplicates = 0;         ///< Results stored in more than one db.
  /// Instances cut by the loop bound, and the results that had some: they
  /// did not finish, so they are in no histogram (never an outcome).
  uint64_t LoopBoundCut = 0, LoopBoundResults = 0;
  std::vector<Row> Rows;           ///< Runs and errors, by family and name.
  std::vector<Entry> ObservedForbidden;
  /// (row, model) pairs where the model forbids an observed state.
  std::set<std::pair<size_t, std::string>> Unsound;
  std::vector<Entry> AllowedUnseen;
  std::vector<Group> Groups;
  /// Results by optcheck status (CUDA: "ok", "FAILED", "skipped"; results
  /// of backends without optcheck are not counted) and the rows whose
  /// compiled code failed it (their outcomes are not the test's).
  std::map<std::string, uint64_t> OptCheck;
  std::vector<size_t> OptCheckFailed;
  std::vector<ModelSummary> Summaries;
};

/// Reads \p Dbs into \p Data; false with \p Error set on a bad database.
bool loadReport(const std::vector<std::string> &Dbs, ReportData &Data,
                std::string &Error);
void printTextReport(const ReportData &Data, size_t Limit, std::ostream &OS);
/// "Cut by the loop bound: N instance(s) in M result(s); ...", for both
/// reports (shown when N > 0).
std::string loopBoundNote(const ReportData &Data);
void printHtmlReport(const ReportData &Data, std::ostream &OS);

} // namespace incant::campaign

#endif // INCANT_CAMPAIGN_REPORT_H
