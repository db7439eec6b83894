//===- RunCommand.cpp - `incant run` --------------------------------------===//
//
// For each test: parse, lower, ask the model which final states it allows,
// run the test on the chosen backend and device, print litmus7's histogram
// with each state's model verdict, the rates, device and parameters.
//
//===----------------------------------------------------------------------===//
#include "incant/Commands/RunCommand.h"
#include "incant/Backends/BackendChoice.h"
#include "incant/Cat/ModelFinder.h"
#include "incant/Harness/Backend.h"
#include "incant/Harness/ParamsJson.h"
#include "incant/Harness/Profile.h"
#include "incant/Harness/Stats.h"
#include "incant/Litmus/Condition.h"
#include "incant/Litmus/Format.h"
#include "incant/Litmus/Load.h"
#include "incant/Model/Check.h"
#include "incant/Support/DataFiles.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Phases.h"
#include "incant/Support/Progress.h"

#include <fmt/format.h>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ostream>
#include <set>

namespace incant::driver {

namespace fs = std::filesystem;

namespace {

std::string incantationSummary(const harness::Incantations &I) {
  std::vector<std::string> On;
  if (I.MemStress)
    On.push_back(fmt::format("mem-stress(seq={}, locs={}, patch={}, "
                             "iterations={}, groups={}{})",
                             harness::formatStressSeq(I.StressSeq),
                             I.StressLocs, I.StressPatch, I.StressIterations,
                             I.StressGroups ? std::to_string(I.StressGroups)
                                            : "auto",
                             I.StressInTest ? fmt::format(", in-test offset={}",
                                                          I.StressOffset)
                                            : ""));
  if (I.BankConflicts)
    On.push_back("bank-conflicts");
  if (I.Randomise)
    On.push_back("randomise");
  if (I.SpinBarrier)
    On.push_back(fmt::format("barrier(polls={})", I.BarrierPolls));
  if (I.PreStress)
    On.push_back(fmt::format("pre-stress(iterations={})",
                             I.PreStressIterations));
  if (On.empty())
    return "none";
  std::string S;
  for (const std::string &O : On)
    S += (S.empty() ? "" : " ") + O;
  return S;
}

nlohmann::json stateJson(const litmus::Program &P, const harness::Outcome &O) {
  nlohmann::json J = nlohmann::json::object();
  for (size_t I = 0; I < O.size(); ++I)
    J[litmus::formatObserved(P, P.Observe[I])] = O[I].isAddress()
                                             ? nlohmann::json(litmus::formatValue(P, O[I]))
                                             : nlohmann::json(O[I].Int);
  return J;
}

struct TestRun {
  litmus::Program Prog;
  std::string Hash; ///< litmus::testHash of the test.
  harness::RunResult R;
  /// Seconds this test took in the command, from reading it (the first
  /// test: from the command's start) until its result was ready.
  double EndToEnd = 0;
  bool First = false;
  harness::Witnesses W;
  std::optional<model::CheckResult> Verdict;
  /// The final states Verdict allows (computed once, with Verdict).
  std::set<harness::Outcome> Allowed;
  std::string ModelName;
  std::vector<std::pair<harness::Outcome, uint64_t>> Forbidden;
};

/// litmus7's word for how often the condition held.
const char *observation(const harness::Witnesses &W) {
  return W.Positive == 0 ? "Never" : W.Negative == 0 ? "Always" : "Sometimes";
}

/// One test's report. A note (the device's choice, the backend's notes)
/// is printed with the first test that has it, not again with the others
/// of a command (\p Shown holds those printed).
void printText(std::ostream &OS, const TestRun &T, const RunCommand &Cmd,
               const std::string &Note, std::set<std::string> &Shown) {
  const litmus::Program &P = T.Prog;
  const harness::RunResult &R = T.R;
  OS << "Test " << P.Name << ' ' << litmus::conditionKind(P) << '\n';
  OS << "Histogram (" << R.Hist.outcomes().size() << " states)\n";
  std::vector<std::string> Lines = harness::histogramLines(P, R.Hist);
  size_t K = 0;
  for (const auto &Entry : R.Hist.outcomes()) {
    const harness::Outcome &O = Entry.first;
    std::string Line = Lines[K++];
    if (T.Verdict && !T.Allowed.count(O))
      Line += fmt::format("   <- forbidden by {}", T.ModelName);
    OS << Line << '\n';
  }
  OS << (T.W.Ok ? "Ok" : "No") << "\n\n";
  OS << "Witnesses\n";
  OS << "Positive: " << T.W.Positive << ", Negative: " << T.W.Negative << '\n';
  OS << "Condition " << litmus::formatCondition(P) << " is "
     << (T.W.Ok ? "validated" : "NOT validated") << '\n';
  OS << "Hash=" << T.Hash << '\n';
  OS << "Observation " << P.Name << ' ' << observation(T.W) << ' '
     << T.W.Positive << ' ' << T.W.Negative << '\n';
  if (T.Verdict)
    OS << "Model " << T.ModelName << ": " << (T.Verdict->Ok ? "Ok" : "No")
       << " (" << T.Verdict->States.size() << " allowed states"
       << (T.Verdict->Incomplete ? ", enumeration incomplete" : "") << ")\n";
  for (const auto &[O, N] : T.Forbidden)
    OS << "WARNING: observed " << N << " time(s) a final state that "
       << T.ModelName << " forbids: " << litmus::formatState(P, O) << '\n';
  harness::Proportion Pr = harness::wilson(T.W.Positive, R.Hist.total());
  OS << fmt::format("Device rate {:.3g} instances/s, {:.3g} positive/s "
                    "({:.3g} s of launches)\n",
                    harness::perSecond(R.Instances, R.Seconds),
                    harness::perSecond(T.W.Positive, R.Seconds), R.Seconds);
  OS << fmt::format("End-to-end rate {:.3g} instances/s, {:.3g} positive/s "
                    "({:.3g} s from reading the test to its result{})\n",
                    harness::perSecond(R.Instances, T.EndToEnd),
                    harness::perSecond(T.W.Positive, T.EndToEnd), T.EndToEnd,
                    T.First ? ", with the device's start" : "");
  OS << fmt::format("Positive rate {:.3g} (95% CI {:.3g} to {:.3g})\n",
                    Pr.Rate, Pr.Low, Pr.High);
  OS << "Device " << R.Device.Backend << ':' << R.Device.Index << ' '
     << R.Device.Name << " (" << R.Device.Platform << ", " << R.Device.Version
     << ")" << (Note.empty() || !Shown.insert(Note).second ? "" : "; " + Note)
     << '\n';
  if (!R.OptCheck.empty())
    OS << R.OptCheck << '\n';
  OS << fmt::format("Parameters iterations={} instances/launch={} "
                    "groups={}x{} warp={} stride={} seed={} loop-bound={}{}\n",
                    R.Launches, R.InstancesPerLaunch, R.Groups, R.GroupSize,
                    R.WarpSize, Cmd.Params.Stride, Cmd.Params.Seed,
                    Cmd.Params.LoopBound,
                    Cmd.Params.LocDistance
                        ? fmt::format(" loc-distance={}", Cmd.Params.LocDistance)
                        : "");
  OS << "Incantations " << incantationSummary(Cmd.Params.Inc) << '\n';
  if (R.BarrierWaits)
    OS << fmt::format("Barrier timeouts {} of {} waits\n", R.BarrierTimeouts,
                      R.BarrierWaits);
  if (R.LoopBoundHits)
    OS << "Cut by the loop bound " << R.LoopBoundHits
       << " instance(s): they did not finish, so they are no outcome and "
          "are not in the histogram"
       << (R.Hist.total() ? "" : " (none finished: raise --loop-bound)")
       << '\n';
  if (R.Lost)
    OS << "WARNING: " << R.Lost << " instance(s) could not be recorded\n";
  for (const std::string &N : R.Device.Notes)
    if (Shown.insert(N).second)
      OS << "Note " << N << '\n';
  OS << fmt::format("Time {} {:.2f}\n\n", P.Name, R.Seconds);
}

/// The line of one test in the summary of a run of several.
struct SummaryRow {
  std::string Test, Kind, Observation, Model;
  uint64_t Positive = 0, Total = 0, Forbidden = 0;
};

SummaryRow summaryRow(const TestRun &T) {
  SummaryRow Row{T.Prog.Name, litmus::conditionKind(T.Prog), "", "", 0, 0, 0};
  Row.Positive = T.W.Positive;
  Row.Total = T.W.Positive + T.W.Negative;
  Row.Observation = observation(T.W);
  if (T.Verdict)
    Row.Model = T.ModelName + (T.Verdict->Incomplete ? " incomplete"
                               : T.Verdict->Ok      ? " Ok"
                                                    : " No");
  for (const auto &[O, N] : T.Forbidden)
    Row.Forbidden += N;
  return Row;
}

/// The table after the reports of several tests: a line each (condition
/// kind, observation, positive of all outcomes, the model's verdict,
/// outcomes the model forbids), and the tests that did not run.
void printSummary(std::ostream &OS, const std::vector<SummaryRow> &Rows,
                  size_t NotRun) {
  size_t W = 4;
  for (const SummaryRow &R : Rows)
    W = std::max(W, R.Test.size());
  size_t Seen = 0, Forbidden = 0;
  for (const SummaryRow &R : Rows) {
    Seen += R.Positive > 0;
    Forbidden += R.Forbidden > 0;
  }
  OS << fmt::format("Summary: {} test{} run, {} observed their condition, {} "
                    "showed a state the model forbids{}\n",
                    Rows.size(), Rows.size() == 1 ? "" : "s", Seen, Forbidden,
                    NotRun ? fmt::format(", {} did not run (see above)", NotRun)
                           : "");
  OS << fmt::format("{:<{}}  {:<9}  {:<9}  {:>21}  {}\n", "Test", W,
                    "Condition", "Observed", "positive/outcomes", "Model");
  for (const SummaryRow &R : Rows)
    OS << fmt::format("{:<{}}  {:<9}  {:<9}  {:>21}  {}{}\n", R.Test, W,
                      R.Kind, R.Observation,
                      fmt::format("{}/{}", R.Positive, R.Total),
                      R.Model.empty() ? "-" : R.Model,
                      R.Forbidden ? fmt::format(" ({} forbidden)", R.Forbidden)
                                  : "");
}

nlohmann::json toJson(const TestRun &T, const RunCommand &Cmd,
                      const std::string &Note) {
  const litmus::Program &P = T.Prog;
  const harness::RunResult &R = T.R;
  nlohmann::json J;
  J["test"] = P.Name;
  J["hash"] = T.Hash;
  J["condition"] = litmus::formatCondition(P);
  nlohmann::json H = nlohmann::json::array();
  for (const auto &[O, N] : R.Hist.outcomes()) {
    nlohmann::json S;
    S["state"] = stateJson(P, O);
    S["count"] = N;
    S["satisfies"] = litmus::holds(P, P.Condition, O);
    if (T.Verdict)
      S["allowed"] = bool(T.Allowed.count(O));
    H.push_back(S);
  }
  J["histogram"] = H;
  J["ok"] = T.W.Ok;
  J["positive"] = T.W.Positive;
  J["negative"] = T.W.Negative;
  harness::Proportion Pr = harness::wilson(T.W.Positive, R.Hist.total());
  J["positive_rate"] = Pr.Rate;
  J["positive_rate_ci95"] = {Pr.Low, Pr.High};
  J["instances"] = R.Instances;
  // seconds, instances_per_s and positive_per_s are the device's (kept
  // for scripts); "rates" names each rate for what it measures.
  J["seconds"] = R.Seconds;
  J["instances_per_s"] = harness::perSecond(R.Instances, R.Seconds);
  J["positive_per_s"] = harness::perSecond(T.W.Positive, R.Seconds);
  auto Rate = [&](double Secs) {
    return nlohmann::json{
        {"seconds", Secs},
        {"instances_per_s", harness::perSecond(R.Instances, Secs)},
        {"positive_per_s", harness::perSecond(T.W.Positive, Secs)}};
  };
  J["rates"] = {{"device", Rate(R.Seconds)},
                {"end_to_end", Rate(T.EndToEnd)}};
  J["barrier_timeouts"] = R.BarrierTimeouts;
  J["barrier_waits"] = R.BarrierWaits;
  J["loop_bound_hits"] = R.LoopBoundHits;
  J["lost"] = R.Lost;
  if (T.Verdict) {
    nlohmann::json M;
    M["name"] = T.ModelName;
    M["ok"] = T.Verdict->Ok;
    M["allowed_states"] = T.Verdict->States.size();
    M["incomplete"] = T.Verdict->Incomplete;
    nlohmann::json F = nlohmann::json::array();
    for (const auto &[O, N] : T.Forbidden)
      F.push_back({{"state", stateJson(P, O)}, {"count", N}});
    M["forbidden_observed"] = F;
    J["model"] = M;
  }
  if (!R.OptCheck.empty())
    J["optcheck"] = R.OptCheck;
  J["device"] = {{"backend", R.Device.Backend}, {"index", R.Device.Index},
                 {"name", R.Device.Name},       {"platform", R.Device.Platform},
                 {"version", R.Device.Version}, {"driver", R.Device.Driver},
                 {"choice", Note}};
  J["parameters"] = {{"iterations", R.Launches},
                     {"instances_per_launch", R.InstancesPerLaunch},
                     {"groups", R.Groups},
                     {"group_size", R.GroupSize},
                     {"warp_size", R.WarpSize}};
  harness::addParamsJson(Cmd.Params, J["parameters"]);
  J["notes"] = R.Device.Notes;
  return J;
}

/// No --profile: applies the shipped profile of this chip or, failing that,
/// of its architecture family (CUDA: sm_90 for the H100 and the H200), and
/// says which; with neither, says how to make one. Returns the note for
/// the runs' notes.
std::string reportProfileChoice(const harness::DeviceInfo &Dev,
                                const char *Backend, RunCommand &C,
                                DiagnosticEngine &Diags) {
  std::string Arch = std::string(Backend) == "cuda" ? Dev.Version : "";
  std::optional<harness::ShippedProfile> S =
      harness::findShippedProfile(Dev.Name, Backend, Arch);
  const std::string Tune =
      "`incant tune --quick --out PROFILE.json` makes one for this chip in "
      "at most 5 minutes; then run with --profile PROFILE.json";
  std::string Note;
  if (!S) {
    if (std::string(Backend) != "cuda")
      return Note;
    Note = "no shipped profile fits " + Dev.Name + " (" + Arch +
           "): the built-in defaults; " + Tune;
  } else if (S->OwnChip) {
    Note = "using the shipped profile of this chip, " + S->Path +
           " (--profile none: the built-in defaults)";
  } else {
    Note = "profile: no shipped profile of " + Dev.Name + ", so the " + Arch +
           " family's, " + S->Path + " (made on " + S->Prof.Chip +
           "; --profile none: the built-in defaults; " + Tune + ")";
  }
  if (S)
    harness::applyProfile(S->Prof, C.Params, C.Explicit);
  Diags.report(Severity::Note, nullptr, {}, Note);
  return Note;
}

} // namespace

int runRun(const RunCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  // Each test's end-to-end time runs from the start of its turn; the first
  // to run also carries the command's start (the backend and device).
  auto Mark = std::chrono::steady_clock::now();
  bool FirstTest = true;
  DiagnosticEngine Diags(&Err);
  RunCommand C = Cmd;
  // --timings: printed last, whichever way the command ends.
  struct TimingsAtEnd {
    bool On;
    std::ostream &OS;
    std::chrono::steady_clock::time_point Start;
    ~TimingsAtEnd() {
      if (On)
        phases::print(OS, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - Start)
                              .count());
    }
  } Timings{C.Timings, Err, Mark};
  if (!C.StressSeq.empty()) {
    std::string E;
    if (!harness::parseStressSeq(C.StressSeq, C.Params.Inc.StressSeq, E)) {
      Diags.error("--stress-seq: " + E);
      return 2;
    }
  }
  if (!C.Profile.empty() && C.Profile != "none") {
    // The chip profile first; options given explicitly override it.
    std::optional<harness::Profile> Prof = harness::readProfile(C.Profile, Diags);
    if (!Prof)
      return 2;
    harness::applyProfile(*Prof, C.Params, C.Explicit);
  }
  if (C.Files.empty()) {
    Diags.error("no test given (expected one or more .litmus files)");
    return 2;
  }
  if (C.Params.Iterations == 0) {
    Diags.error("--iterations must be at least 1");
    return 2;
  }

  std::vector<std::string> Files;
  std::string FolderError;
  if (!litmus::expandFolders(C.Files, Files, FolderError)) {
    Diags.error(FolderError);
    return 2;
  }
  const std::string CacheDir =
      !C.CompileCache ? (userCacheDir().empty() ? "" : userCacheDir() + "/cuda")
      : *C.CompileCache == "none" ? ""
                                  : *C.CompileCache;
  std::optional<backends::ChosenBackend> Ch;
  if (C.EmitDir.empty()) {
    phases::Scope Timed("run: choose the backend");
    Expected<backends::ChosenBackend> Chosen =
        backends::chooseBackend(C.Backend, C.Device, Diags);
    if (!Chosen)
      return exitCodeOf(Chosen.error());
    Ch = std::move(*Chosen);
  } else {
    // Emitting needs no device; use one when there is one.
    Ch.emplace();
    Ch->B = backends::createBackend(C.Backend == "cuda" ? "cuda" : "opencl");
    Ch->Device = C.Device.value_or(0);
  }
  std::string ProfileNote;
  if (C.Profile.empty() && C.EmitDir.empty()) {
    // No --profile: the shipped profile of this chip, if there is one, is
    // the default (`--profile none` runs with the built-in defaults).
    phases::Scope Timed("run: device and profile");
    std::vector<harness::DeviceInfo> Devs = Ch->B->devices();
    if (Ch->Device < Devs.size())
      ProfileNote =
          reportProfileChoice(Devs[Ch->Device], Ch->B->name(), C, Diags);
  }
  if (std::string(Ch->B->name()) != "cuda" &&
      (C.Params.LocDistance || C.Params.Inc.StressInTest))
    Diags.report(Severity::Warning, nullptr, {},
                 std::string("--loc-distance and --stress-in-test are CUDA "
                             "harness parameters; the ") +
                     Ch->B->name() + " backend ignores them");

  cat::ModelFinder Finder(C.ModelDirs);
  const cat::Model *M = nullptr;
  bool WantModel = !C.Model.empty() && C.Model != "none" && C.EmitDir.empty();
  if (WantModel) {
    phases::Scope Timed("run: load the model");
    if (!(M = Finder.get(C.Model, Diags)))
      return 2;
  }

  bool InputError = false, ForbiddenSeen = false, DeviceError = false;
  std::map<std::string, std::string> EmittedBy; ///< File -> test that wrote it.
  std::set<std::string> NotesShown;
  std::vector<SummaryRow> Summary;
  size_t NotRun = 0;
  for (const std::string &Path : Files) {
    if (!FirstTest)
      Mark = std::chrono::steady_clock::now();
    std::optional<litmus::LoadedTest> Loaded;
    {
      phases::Scope Timed("run: read the test");
      Loaded = litmus::loadTest(Path, Diags);
    }
    if (!Loaded) {
      InputError = true;
      ++NotRun;
      continue;
    }
    TestRun T;
    T.Prog = std::move(Loaded->Prog);
    T.Hash = litmus::testHash(Loaded->AST);
    harness::RunRequest Req;
    Req.Prog = &T.Prog;
    Req.File = Loaded->File;
    Req.Params = C.Params;
    Req.Device = Ch->Device;
    Req.EmitDir = C.EmitDir;
    Req.CompileCache = CacheDir;
    // Where a long run is, on a terminal (after a second, as check's).
    ProgressLine Progress(Err);
    const uint64_t Total = std::max<uint64_t>(C.Params.Iterations, 1);
    Req.OnLaunch = [&](uint64_t Launched) {
      Progress.update([&] {
        double S = Progress.elapsed();
        return fmt::format("run: {}: {}/{} launches, {:.0f}s, about {:.0f}s "
                           "left",
                           T.Prog.Name, Launched, Total, S,
                           S * double(Total - std::min(Launched, Total)) /
                               double(Launched));
      });
    };
    Expected<harness::RunResult> R = Ch->B->run(Req, Diags);
    Progress.clear();
    if (!R) {
      // The test's fault, or the device's (or incant's): the other tests
      // still run.
      (R.error() == ErrorKind::Input ? InputError : DeviceError) = true;
      ++NotRun;
      continue;
    }
    if (!C.EmitDir.empty()) {
      // Two tests of one name would write one file: say so rather than
      // keep only the last.
      std::string Stem = safeFileName(T.Prog.Name);
      for (const std::string &F : R->EmittedFiles) {
        auto [It, New] = EmittedBy.try_emplace(F, Path);
        if (!New && fs::path(F).stem() == Stem) {
          Diags.error("--emit: " + Path + " and " + It->second +
                      " are both named '" + T.Prog.Name + "'; " + F +
                      " holds only the last (emit them to different "
                      "folders)");
          InputError = true;
        }
        Out << "wrote " << F << '\n';
      }
      if (!R->OptCheck.empty())
        Out << R->OptCheck << '\n';
      continue;
    }
    T.R = std::move(*R);
    if (!ProfileNote.empty())
      T.R.Device.Notes.push_back(ProfileNote);
    T.W = harness::witnesses(T.Prog, T.R.Hist);
    if (M) {
      T.ModelName = cat::ModelFinder::displayName(C.Model);
      phases::Scope Timed("run: the model's verdict");
      T.Verdict = model::check(T.Prog, *M);
      for (const model::State &S : T.Verdict->States)
        T.Allowed.insert(S.Values);
      if (!T.Verdict->Incomplete)
        for (const auto &[O, N] : T.R.Hist.outcomes())
          if (!T.Allowed.count(O))
            T.Forbidden.emplace_back(O, N);
      ForbiddenSeen |= !T.Forbidden.empty();
    }
    auto Now = std::chrono::steady_clock::now();
    T.EndToEnd = std::chrono::duration<double>(Now - Mark).count();
    T.First = FirstTest;
    if (C.Json)
      Out << dumpJson(toJson(T, C, Ch->Note)) << '\n';
    else
      printText(Out, T, C, Ch->Note, NotesShown);
    Summary.push_back(summaryRow(T));
    Out.flush();
    FirstTest = false;
  }
  if (!C.Json && C.EmitDir.empty() && Summary.size() + NotRun > 1)
    printSummary(Out, Summary, NotRun);
  if (InputError)
    return exitCodeOf(ErrorKind::Input);
  if (DeviceError)
    return exitCodeOf(ErrorKind::Device);
  return ForbiddenSeen ? 1 : 0;
}

} // namespace incant::driver
