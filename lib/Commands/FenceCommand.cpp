//===- FenceCommand.cpp - `incant fences`: the search on an application ---===//
#include "incant/Commands/FenceCommand.h"
#include "incant/Fences/FenceReport.h"
#include "incant/Intercept/Protocol.h"
#include "incant/AppTest/AppRunner.h"
#include "incant/AppTest/RunPool.h"
#include "incant/Fences/FenceStore.h"
#include "incant/Intercept/ImageScan.h"

#include "incant/Support/CommandContext.h"
#include "incant/Support/Hash.h"
#include "incant/Support/InputFile.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Time.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <mutex>

namespace incant::fences {

namespace {

using apptest::AppRunner;
using apptest::Environment;
using apptest::RunRecord;
using apptest::Verdict;

/// What a failing run said, for the log: its verdict and the last line
/// of its output (where applications print their summary).
std::string failureText(const RunRecord &R) {
  std::string Out = R.Stdout;
  while (!Out.empty() && (Out.back() == '\n' || Out.back() == '\r'))
    Out.pop_back();
  std::string Line = Out.substr(Out.rfind('\n') + 1);
  if (Line.size() > 160)
    Line = Line.substr(0, 157) + "...";
  std::string V = apptest::verdictName(R.V);
  if (R.V == Verdict::Fail)
    V += fmt::format(" (exit {})", R.ExitCode);
  return Line.empty() ? V : V + ": " + Line;
}

/// The application with a fence set switched on, as the reduction's oracle;
/// with several runners, several runs of a check at once (the runs in
/// flight when one fails still count).
class AppOracle : public Oracle {
public:
  AppOracle(apptest::RunPool &Pool, const std::vector<Environment> &Envs,
            const CandidateList &C, uint64_t Seed)
      : Pool(Pool), Envs(Envs), C(C), Seed(Seed) {}

  bool check(uint64_t Seq, const FenceSet &F, const CheckSpec &Spec,
             CheckOutcome &Out, std::string &Error) override {
    Out = {};
    std::string Var = fenceVariable(C, F);
    auto T0 = std::chrono::steady_clock::now();
    auto Elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                           T0)
          .count();
    };
    std::mutex Mu;
    bool Broken = false;
    uint64_t FirstFailed = UINT64_MAX;
    Pool.forEach([&](uint64_t Run, AppRunner &Runner) {
      {
        std::lock_guard<std::mutex> G(Mu);
        if (Broken || Out.Failures || (Spec.Runs && Run >= Spec.Runs) ||
            (Spec.Seconds > 0 && Elapsed() >= Spec.Seconds))
          return false;
      }
      const Environment &E = Envs[Run % Envs.size()];
      RunRecord R;
      R.Env = E.name();
      R.Index = Run;
      R.Seed = fnv1a64(fmt::format("{}/fences/{}/{}", Seed, Seq, Run));
      std::string Why;
      bool Ok = Runner.run(E, R.Seed, {{INCANT_ENV_FENCES, Var}}, R, Why);
      if (Ok && !F.empty() && R.Reported && !R.FenceUnits) {
        Ok = false;
        Why = "the injected library set no fence mask in the application's "
              "modules (is it the binary the candidates came from?)";
      }
      std::lock_guard<std::mutex> G(Mu);
      if (!Ok) {
        if (!Broken)
          Error = Why;
        Broken = true;
        return false;
      }
      ++Out.Runs;
      Out.Seconds = Elapsed();
      if (R.V == Verdict::Pass)
        return true;
      ++Out.Failures;
      if (Run < FirstFailed) {
        FirstFailed = Run;
        Out.FirstFailure = E.name() + ": " + failureText(R);
      }
      return false;
    });
    return !Broken;
  }

private:
  apptest::RunPool &Pool;
  const std::vector<Environment> &Envs;
  const CandidateList &C;
  uint64_t Seed;
};

/// One line per check on the error stream.
class Progress : public ProgressSink {
public:
  Progress(std::ostream &Err, bool On) : Err(Err), On(On) {}
  void checked(const CheckRecord &C) override {
    if (!On)
      return;
    std::string What =
        C.ImpliedBy
            ? fmt::format("fails: its set is within check {}'s", *C.ImpliedBy)
            : fmt::format("{} of {} runs failed{}, {:.1f}s", C.Out.Failures,
                          C.Out.Runs,
                          C.PriorRuns ? fmt::format(" (after {} earlier "
                                                    "runs that passed)",
                                                    C.PriorRuns)
                                      : "",
                          C.Out.Seconds);
    fmt::print(Err, "fences: check {} ({}, round {}): {} fence{}: {}{}\n",
               C.Seq, purposeName(C.P), C.Round, C.Set.size(),
               C.Set.size() == 1 ? "" : "s", What,
               C.Replayed ? " (stored)" : "");
  }

private:
  std::ostream &Err;
  bool On;
};

std::vector<intercept::UnitManifest> manifestsOf(const std::string &Path,
                                                 std::string &Error) {
  std::string Bytes;
  if (!readInputFile(Path, Bytes, Error)) {
    Error = fmt::format("cannot read {}: {}", Path, Error);
    return {};
  }
  std::vector<intercept::UnitManifest> Out;
  for (intercept::FoundUnit &U : intercept::findUnits(Bytes))
    if (U.Manifest)
      Out.push_back(std::move(*U.Manifest));
  if (Out.empty())
    Error = fmt::format("{} was not built through incant (no instrumented "
                        "module in it)",
                        Path);
  return Out;
}

} // namespace

namespace {

/// The search's options from the command's; false with \p Error set.
bool reductionOptions(const FenceCommand &Cmd, ReductionOptions &Opts,
                      std::string &Error) {
  Opts.Iterations = Cmd.Iterations;
  Opts.Weaken = Cmd.Weaken;
  if (Cmd.PaperOnly) {
    Opts.Chunks = Opts.Evidence = Opts.Recheck = false;
    Opts.Confidence = 0;
  }
  if (Cmd.Iterations == 0) {
    Error = "--iterations must be at least 1";
    return false;
  }
  auto Duration = [&](const std::string &Name, const std::string &Text,
                      double &Seconds) {
    if (Text.empty())
      return true;
    if (!parseDuration(Text, Seconds) || Seconds <= 0) {
      Error = fmt::format("{} '{}' is not a duration (90s, 5m, 1h)", Name,
                          Text);
      return false;
    }
    return true;
  };
  double StableSeconds = 0;
  if (!Duration("--check-time", Cmd.CheckTime, Opts.CheckSeconds) ||
      !Duration("--stable-for", Cmd.StableFor, StableSeconds) ||
      !Duration("--budget", Cmd.Budget, Opts.Budget))
    return false;
  Opts.Stable = {Cmd.StableRuns, StableSeconds};
  if (!Opts.Stable.Runs && Opts.Stable.Seconds <= 0) {
    Error = "give --stable-for or --stable-runs";
    return false;
  }
  return true;
}

/// Why the first run with every fence on gives no candidate.
std::string noCandidates(const std::vector<intercept::UnitManifest> &Units,
                         const RunRecord &Probe, const std::string &Label) {
  bool AnyPass = false;
  for (const intercept::UnitManifest &U : Units)
    for (const std::string &P : U.Passes)
      AnyPass |= P == "fences";
  if (Probe.Kernels.empty())
    return fmt::format("{} launched no kernel (its run with every fence on: "
                       "{})",
                       Label, failureText(Probe));
  if (!AnyPass)
    return fmt::format("{} was not built with the pass \"fences\": build "
                       "it with `eval \"$(incant build-env --passes "
                       "randomise,fences)\"`",
                       Label);
  return fmt::format("the kernels {} launched have no fence site (no "
                     "global or generic access)",
                     Label);
}

/// What the store keys a search by: every option that changes it.
nlohmann::json searchOptions(const FenceCommand &Cmd,
                             const ReductionOptions &Opts) {
  return {{"app", Cmd.App.Argv},
          {"env", Cmd.App.Envs},
          {"randomise", Cmd.App.Randomise},
          {"timeout", Cmd.App.Timeout},
          {"check", Cmd.App.Check},
          {"expect_exit", Cmd.App.ExpectExit ? *Cmd.App.ExpectExit : 0},
          {"expect_stdout", Cmd.App.ExpectStdout},
          {"seed", Cmd.App.Seed},
          {"iterations", Cmd.Iterations},
          {"check_time", Opts.CheckSeconds},
          {"stable_runs", Opts.Stable.Runs},
          {"stable_seconds", Opts.Stable.Seconds},
          {"weaken", Cmd.Weaken},
          {"algorithm",
           Cmd.PaperOnly ? "paper" : "paper+chunks+evidence+recheck"},
          {"stress_blocks",
           {Cmd.App.Knobs.MinPercent, Cmd.App.Knobs.MaxPercent}},
          {"keep_ids", Cmd.App.Knobs.KeepIds},
          {"profile", Cmd.App.ProfileNote}};
}

/// The files the result goes to (--save, --patch, --report-json); false
/// with \p Error naming the one that could not be written.
bool writeResultFiles(const FenceCommand &Cmd, const FenceReportInput &In,
                      std::string &Error) {
  auto Write = [&](const std::string &Path, const std::string &Text) {
    return Path.empty() || writeOutputFile(Path, Text, Error);
  };
  return (Cmd.Save.empty() || Write(Cmd.Save, fenceSetJson(In) + "\n")) &&
         (Cmd.Patch.empty() || Write(Cmd.Patch, fencePatch(In))) &&
         (Cmd.ReportJson.empty() ||
          Write(Cmd.ReportJson, fenceReportJson(In) + "\n"));
}

} // namespace

int runFences(const FenceCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  CommandContext Ctx(Out, Err);
  std::string Error;
  auto Envs = apptest::parseEnvironments(Cmd.App.Envs, Cmd.App.Randomise,
                                         Error);
  if (!Envs)
    return Ctx.fail(ErrorKind::Input, Error);
  ReductionOptions Opts;
  if (!reductionOptions(Cmd, Opts, Error))
    return Ctx.fail(ErrorKind::Input, Error);
  auto Made = AppRunner::make(Cmd.App, Ctx.diags());
  if (!Made)
    return Ctx.failed(Made.error());
  std::unique_ptr<AppRunner> Runner = std::move(*Made);
  std::vector<intercept::UnitManifest> Units =
      manifestsOf(Runner->program(), Error);
  if (Units.empty())
    return Ctx.fail(ErrorKind::Input, Error);
  std::vector<intercept::UnitManifest> Reference;
  if (!Cmd.Reference.empty()) {
    Reference = manifestsOf(Cmd.Reference, Error);
    if (Reference.empty())
      return Ctx.fail(ErrorKind::Input, Error);
  }
  if (int Rc = Ctx.checkOutputs({Cmd.Save, Cmd.Patch, Cmd.ReportJson, Cmd.Db},
                                {Runner->program(), Cmd.Reference}))
    return Rc;
  const std::string &Label = Cmd.App.label();
  // Its units' kernels run on the device: without one, every run fails.
  if (int Rc = Ctx.requireCudaDevice(Cmd.App.Argv[0]))
    return Rc;
  // Which kernels does it launch? One run with every fence on.
  RunRecord Probe;
  Probe.Env = (*Envs)[0].name();
  Probe.Seed = fnv1a64(fmt::format("{}/fences/probe", Cmd.App.Seed));
  if (!Runner->run((*Envs)[0], Probe.Seed, {{INCANT_ENV_FENCES, "*:all"}},
                   Probe, Error))
    return Ctx.fail(ErrorKind::Input, Error);
  if (!Probe.Reported)
    return Ctx.fail(ErrorKind::Input,
                    fmt::format("{} ran without the injected library's report "
                                "(a static or setuid program, or one that "
                                "ends with _exit, is not reached)",
                                Label));
  CandidateList C = candidatesFor(Units, Probe.Kernels);
  if (C.Fences.empty())
    return Ctx.fail(ErrorKind::Input, noCandidates(Units, Probe, Label));
  Opts.Candidates = static_cast<uint32_t>(C.Fences.size());

  // The store: the same search resumes. An unusable database is the
  // user's; a write that fails is not.
  std::unique_ptr<FenceStore> Store;
  if (!Cmd.NoDb) {
    Store = FenceStore::open(Cmd.Db, Error);
    if (!Store && Cmd.DbGiven)
      return Ctx.fail(ErrorKind::Input, fmt::format("{}: {}", Cmd.Db, Error));
    if (!Store)
      fmt::print(Err, "incant fences: checks are not stored ({})\n", Error);
  }

  nlohmann::json Options = searchOptions(Cmd, Opts);
  nlohmann::json Cands = nlohmann::json::array();
  for (const Candidate &F : C.Fences)
    Cands.push_back(fmt::format("{}:{}", F.Unit, F.S.Id));
  std::string App;
  for (const std::string &A : Cmd.App.Argv)
    App += (App.empty() ? "" : " ") + A;
  std::string Fingerprint =
      hex16(fnv1a64(dumpJson(Options) + "|" + dumpJson(Cands)));
  if (Store) {
    uint64_t Stored = 0;
    Options["candidates"] = Cands;
    if (!Store->begin(Fingerprint, App, dumpJson(Options), Stored, Error))
      return Ctx.fail(ErrorKind::Internal,
                      fmt::format("{}: {}", Cmd.Db, Error));
    if (Stored && Cmd.App.Progress)
      fmt::print(Err, "incant fences: {} has {} checks of this search; "
                      "replaying them\n",
                 Cmd.Db, Stored);
  }

  if (Cmd.App.Progress)
    fmt::print(Err, "incant fences: {}: {} candidate fences; first run with "
                    "all on: {}\n",
               Label, C.Fences.size(), apptest::verdictName(Probe.V));
  auto Pool = apptest::RunPool::make(std::move(Runner), Cmd.App, Cmd.Jobs,
                                     Ctx.diags());
  if (!Pool)
    return Ctx.failed(Pool.error());
  AppOracle Oracle(**Pool, *Envs, C, Cmd.App.Seed);
  Progress P(Err, Cmd.App.Progress);
  SearchResult S = reduceFences(Opts, Oracle, Store.get(), &P);
  if (S.Status == SearchStatus::Error)
    return Ctx.fail(S.Kind, S.Kind == ErrorKind::Internal
                                ? fmt::format("{}: {}", Cmd.Db, S.Error)
                                : S.Error);

  FenceReportInput In;
  In.Label = Label;
  In.Envs = Cmd.App.Envs;
  In.Candidates = &C;
  In.Search = &S;
  if (!Cmd.Reference.empty()) {
    In.Reference = &Reference;
    In.ReferenceName = Cmd.Reference;
  }
  for (const CheckRecord &R : S.Checks)
    if (R.P == Purpose::None && !R.ImpliedBy && !R.Out.passed())
      In.NoFences = R.Out.FirstFailure;
  if (Store && S.Status != SearchStatus::OutOfBudget &&
      !Store->finish(fenceReportJson(In), Error))
    return Ctx.fail(ErrorKind::Internal, fmt::format("{}: {}", Cmd.Db, Error));
  if (!writeResultFiles(Cmd, In, Error))
    return Ctx.fail(ErrorKind::Internal, Error);
  if (Cmd.Json)
    Out << fenceReportJson(In) << "\n";
  else
    printFenceReport(In, Out);
  return Ctx.done(S.Status == SearchStatus::Reduced ? Outcome::Clean
                                                    : Outcome::Found);
}

} // namespace incant::fences
