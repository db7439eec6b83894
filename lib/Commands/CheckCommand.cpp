//===- CheckCommand.cpp - `incant check` ----------------------------------===//
//
// For each test: parse, lower, enumerate executions under the model, print
// herd7's report (or one JSON object per line). In manifest mode, compare
// each test's Ok/No under each model with the expected one.
//
//===----------------------------------------------------------------------===//
#include "incant/Commands/CheckCommand.h"
#include "incant/Cat/ModelFinder.h"
#include "incant/Litmus/Format.h"
#include "incant/Litmus/Load.h"
#include "incant/Litmus/Printer.h"
#include "incant/Model/Check.h"
#include "incant/Model/Ignored.h"
#include "incant/Support/Json.h"
#include "incant/Support/Progress.h"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

namespace fs = std::filesystem;

namespace incant::driver {

namespace {

/// A test read and lowered, with the digest herd prints.
struct LoadedTest {
  litmus::Program Prog;
  std::string Hash;
  std::shared_ptr<const SourceFile> File;
};

std::optional<LoadedTest> loadTest(const std::string &Path,
                                   DiagnosticEngine &Diags) {
  std::optional<litmus::LoadedTest> L = litmus::loadTest(Path, Diags);
  if (!L)
    return std::nullopt;
  return LoadedTest{std::move(L->Prog), litmus::testHash(L->AST),
                    std::move(L->File)};
}

const char *observation(const model::CheckResult &R) {
  if (R.Positive == 0)
    return "Never";
  if (R.Negative == 0)
    return "Always";
  return "Sometimes";
}

/// herd's report of one test, written at once (one stream call, not one
/// per field: a tenth of a small test's time).
void printHerd(std::ostream &OS, const LoadedTest &T,
               const model::CheckResult &R, double Seconds) {
  const litmus::Program &P = T.Prog;
  std::string S;
  auto Out = std::back_inserter(S);
  fmt::format_to(Out, "Test {} {}\nStates {}\n", P.Name,
                 litmus::conditionKind(P), R.States.size());
  for (const model::State &St : R.States) {
    S += litmus::formatState(P, St.Values);
    S += '\n';
  }
  S += R.Ok ? "Ok\n" : "No\n";
  // herd's witnesses count the executions that satisfy the test's
  // condition: for ~exists, those where the proposition is false.
  bool Negated = P.Q == litmus::Quantifier::NotExists;
  fmt::format_to(Out, "Witnesses\nPositive: {} Negative: {}\n",
                 Negated ? R.Negative : R.Positive,
                 Negated ? R.Positive : R.Negative);
  for (const std::string &F : R.Flags)
    fmt::format_to(Out, "Flag {}\n", F);
  if (R.Incomplete)
    fmt::format_to(Out,
                   "Warning: incomplete: {} ({} candidate executions); the "
                   "states above may be missing some\n",
                   R.IncompleteReason, R.Candidates);
  fmt::format_to(Out,
                 "Condition {}\nObservation {} {} {} {}\nTime {} {:.2f}\n"
                 "Hash={}\n\n",
                 litmus::formatCondition(P), P.Name, observation(R),
                 R.Positive, R.Negative, P.Name, Seconds, T.Hash);
  OS.write(S.data(), std::streamsize(S.size()));
}

nlohmann::json toJson(const LoadedTest &T, const std::string &Model,
                      const model::CheckResult &R, double Seconds) {
  const litmus::Program &P = T.Prog;
  nlohmann::json States = nlohmann::json::array();
  for (const model::State &S : R.States) {
    nlohmann::json Values = nlohmann::json::object();
    for (size_t I = 0; I != S.Values.size(); ++I) {
      const litmus::Value &V = S.Values[I];
      std::string Key = litmus::formatObserved(P, P.Observe[I]);
      if (V.isAddress())
        Values[Key] = litmus::formatValue(P, V);
      else
        Values[Key] = V.Int;
    }
    States.push_back({{"values", Values},
                      {"satisfies", S.Satisfies},
                      {"executions", S.Executions}});
  }
  return {{"test", P.Name},
          {"model", Model},
          {"kind", litmus::conditionKind(P)},
          {"states", States},
          {"ok", R.Ok},
          {"positive", R.Positive},
          {"negative", R.Negative},
          {"condition", litmus::formatCondition(P)},
          {"observation", observation(R)},
          {"candidates", R.Candidates},
          {"incomplete", R.Incomplete},
          {"incomplete_reason", R.IncompleteReason},
          {"steps", R.Steps},
          {"flags", R.Flags},
          {"time_s", Seconds},
          {"hash", T.Hash}};
}

/// Checks one test within the command's bounds, with a progress line on a
/// terminal; a search cut short by them is also reported on \p Diags.
model::CheckResult timedCheck(const CheckCommand &Cmd,
                              const litmus::Program &P, const cat::Model &M,
                              const std::string &ModelName,
                              DiagnosticEngine &Diags, std::ostream &Err,
                              double &Seconds) {
  auto Start = std::chrono::steady_clock::now();
  model::CheckOptions Opts;
  Opts.Unroll = Cmd.Unroll;
  Opts.MaxSteps = Cmd.MaxSteps;
  Opts.TimeLimit = Cmd.Timeout;
  ProgressLine Progress(Err);
  Opts.Progress = [&](uint64_t Steps, uint64_t Candidates) {
    Progress.update([&] {
      return fmt::format("check: {} candidates, {} steps, {:.0f}s: {} under "
                         "{}",
                         Candidates, Steps, Progress.elapsed(), ModelName,
                         P.Name);
    });
  };
  model::CheckResult R = model::check(P, M, Opts);
  Progress.clear();
  Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          Start)
                .count();
  if (R.StoppedByCaller)
    Diags.warning(nullptr, {},
                  fmt::format("{} under {}: incomplete: {}; raise --max-steps "
                              "or --timeout (0: no limit)",
                              P.Name, ModelName, R.IncompleteReason));
  return R;
}

/// A warning for each feature of the test's instructions that the model
/// cannot see (model::ignoredFeatures), at the first instruction with it.
void warnIgnored(const LoadedTest &T, const cat::Model &M,
                 const std::string &ModelName, DiagnosticEngine &Diags) {
  for (const model::IgnoredFeature &F : model::ignoredFeatures(T.Prog, M)) {
    std::string Names;
    for (const std::string &N : F.Through)
      Names += (Names.empty() ? "" : ", ") + N;
    const SourceRange &R = F.First->Range;
    std::string Text(T.File->text().substr(R.Begin.Offset,
                                           R.End.Offset - R.Begin.Offset));
    Diags.warning(T.File, R,
                  fmt::format("{} ignores {} of `{}` (it names none of {}): "
                              "the test is checked without it",
                              ModelName, F.What, Text, Names));
  }
}

int checkFiles(const CheckCommand &Cmd, std::ostream &Out, std::ostream &Err,
               DiagnosticEngine &Diags) {
  cat::ModelFinder Finder(Cmd.ModelDirs);
  const cat::Model *M = Finder.get(Cmd.Model, Diags);
  if (!M)
    return 2;
  std::string ModelName = cat::ModelFinder::displayName(Cmd.Model);
  std::vector<std::string> Files;
  std::string E;
  if (!litmus::expandFolders(Cmd.Files, Files, E)) {
    Diags.error(E);
    return 2;
  }
  // Reports are flushed once 50 ms have passed since the last flush, not
  // after every test (a write per test is a tenth of a small test's time).
  // The tool's diagnostics keep their place among them: std::cerr flushes
  // std::cout before it writes.
  auto LastFlush = std::chrono::steady_clock::now();
  for (const std::string &Path : Files) {
    std::optional<LoadedTest> T = loadTest(Path, Diags);
    if (!T)
      continue;
    warnIgnored(*T, *M, ModelName, Diags);
    double Seconds = 0;
    model::CheckResult R =
        timedCheck(Cmd, T->Prog, *M, ModelName, Diags, Err, Seconds);
    if (Cmd.Json)
      Out << dumpJson(toJson(*T, ModelName, R, Seconds)) << '\n';
    else
      printHerd(Out, *T, R, Seconds);
    auto Now = std::chrono::steady_clock::now();
    if (Now - LastFlush >= std::chrono::milliseconds(50)) {
      Out.flush();
      LastFlush = Now;
    }
  }
  Out.flush();
  return Diags.hasErrors() ? 2 : 0;
}

/// One row of a manifest: a test and its expected Ok/No per model column.
struct ManifestRow {
  std::string Path;
  std::vector<std::optional<bool>> Expected; ///< Parallel to the model columns.
  SourceRange Where;
};

struct Manifest {
  std::vector<std::string> Models;
  std::vector<ManifestRow> Rows;
};

/// Splits a line on tabs, keeping each field's column.
std::vector<std::pair<std::string, uint32_t>> splitTabs(std::string_view Line) {
  std::vector<std::pair<std::string, uint32_t>> Fields;
  size_t Start = 0;
  while (true) {
    size_t Tab = Line.find('\t', Start);
    std::string_view F = Line.substr(Start, Tab == std::string_view::npos
                                                ? std::string_view::npos
                                                : Tab - Start);
    Fields.emplace_back(std::string(F), Start + 1);
    if (Tab == std::string_view::npos)
      break;
    Start = Tab + 1;
  }
  return Fields;
}

std::optional<Manifest> readManifest(const std::string &Path,
                                     DiagnosticEngine &Diags) {
  std::string Error;
  std::shared_ptr<SourceFile> File = SourceFile::read(Path, Error);
  if (!File) {
    Diags.error("cannot read manifest '" + Path + "': " + Error);
    return std::nullopt;
  }
  Manifest Man;
  auto RangeAt = [&](uint32_t Line, uint32_t Col, size_t Len) {
    SourceLoc B{Line, Col, 0}, E{Line, uint32_t(Col + Len), 0};
    return SourceRange{B, E};
  };
  bool HaveHeader = false;
  uint32_t LastLine = File->locAt(File->text().size()).Line;
  for (uint32_t L = 1; L <= LastLine; ++L) {
    std::string_view Line = File->line(L);
    if (Line.find_first_not_of(" \t") == std::string_view::npos)
      continue;
    auto Fields = splitTabs(Line);
    if (Line[0] == '#') {
      if (HaveHeader)
        continue; // a later comment line
      // Header: "# path<TAB>model<TAB>model...".
      for (size_t I = 1; I < Fields.size(); ++I)
        Man.Models.push_back(Fields[I].first);
      if (Man.Models.empty()) {
        Diags.error(File, RangeAt(L, 1, Line.size()),
                    "expected a header '# path<TAB>MODEL<TAB>...' naming the "
                    "models");
        return std::nullopt;
      }
      HaveHeader = true;
      continue;
    }
    if (!HaveHeader) {
      Diags.error(File, RangeAt(L, 1, Line.size()),
                  "expected the header line '# path<TAB>MODEL...' before the "
                  "first test");
      return std::nullopt;
    }
    if (Fields.size() != Man.Models.size() + 1) {
      Diags.error(File, RangeAt(L, 1, Line.size()),
                  fmt::format("expected {} tab-separated fields (a path and "
                              "Ok/No for each model), found {}",
                              Man.Models.size() + 1, Fields.size()));
      continue;
    }
    ManifestRow Row;
    Row.Path = (fs::path(Path).parent_path() / Fields[0].first).string();
    Row.Where = RangeAt(L, 1, Fields[0].first.size());
    for (size_t I = 1; I < Fields.size(); ++I) {
      const auto &[Word, Col] = Fields[I];
      if (Word == "Ok")
        Row.Expected.push_back(true);
      else if (Word == "No")
        Row.Expected.push_back(false);
      else if (Word == "-")
        Row.Expected.push_back(std::nullopt);
      else {
        Diags.error(File, RangeAt(L, Col, Word.size()),
                    "expected 'Ok', 'No' or '-', found '" + Word + "'");
        Row.Expected.push_back(std::nullopt);
      }
    }
    Man.Rows.push_back(std::move(Row));
  }
  if (!HaveHeader) {
    Diags.error(File, {}, "empty manifest");
    return std::nullopt;
  }
  return Man;
}

int checkManifest(const CheckCommand &Cmd, std::ostream &Out,
                  std::ostream &Err, DiagnosticEngine &Diags) {
  std::optional<Manifest> Man = readManifest(Cmd.Manifest, Diags);
  if (!Man)
    return 2;
  cat::ModelFinder Finder(Cmd.ModelDirs);
  std::vector<const cat::Model *> Models;
  for (const std::string &Name : Man->Models)
    Models.push_back(Finder.get(Name, Diags));
  unsigned Passed = 0, Failed = 0, Skipped = 0;
  for (const ManifestRow &Row : Man->Rows) {
    std::optional<LoadedTest> T = loadTest(Row.Path, Diags);
    for (size_t I = 0; I != Models.size(); ++I) {
      if (!Row.Expected[I]) {
        ++Skipped;
        continue;
      }
      if (!T || !Models[I]) {
        ++Failed;
        Out << "ERROR " << Row.Path << " " << Man->Models[I] << '\n';
        continue;
      }
      double Seconds = 0;
      model::CheckResult R = timedCheck(Cmd, T->Prog, *Models[I],
                                        Man->Models[I], Diags, Err, Seconds);
      if (R.StoppedByCaller) {
        // Neither verdict is established: not a pass.
        ++Failed;
        Out << "INCOMPLETE " << Row.Path << " " << Man->Models[I] << ": "
            << R.IncompleteReason << '\n';
        continue;
      }
      if (R.Ok == *Row.Expected[I]) {
        ++Passed;
        continue;
      }
      ++Failed;
      Out << "MISMATCH " << Row.Path << " " << Man->Models[I] << ": expected "
          << (*Row.Expected[I] ? "Ok" : "No") << ", got " << (R.Ok ? "Ok" : "No")
          << '\n';
    }
  }
  Out << fmt::format("manifest: {} tests x {} models\n", Man->Rows.size(),
                     Man->Models.size());
  Out << fmt::format("{} passed, {} failed", Passed, Failed);
  if (Skipped)
    Out << fmt::format(", {} skipped", Skipped);
  Out << '\n';
  if (Diags.hasErrors())
    return 2;
  return Failed ? 1 : 0;
}

} // namespace

int runCheck(const CheckCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  if (!Cmd.Manifest.empty())
    return checkManifest(Cmd, Out, Err, Diags);
  if (Cmd.Files.empty()) {
    Diags.error("no litmus test given (try 'incant check litmus/MP/...')");
    return 2;
  }
  return checkFiles(Cmd, Out, Err, Diags);
}

} // namespace incant::driver
