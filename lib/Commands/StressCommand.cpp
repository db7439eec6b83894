//===- StressCommand.cpp - `incant stress`: the run loop, table and JSON --===//
#include "incant/Commands/StressCommand.h"
#include "incant/AppTest/AppRunner.h"
#include "incant/AppTest/StressStore.h"

#include "incant/Support/CommandContext.h"
#include "incant/Support/Hash.h"
#include "incant/Support/Json.h"
#include "incant/Support/Time.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace incant::apptest {

// The table and the JSON object.

static std::string percent(double P) { return fmt::format("{:.1f}%", 100 * P); }

void printStressTable(const std::string &Label,
                      const std::vector<EnvSummary> &Envs, std::ostream &OS) {
  fmt::print(OS, "incant stress: {}\n", Label);
  fmt::print(OS, "{:<16} {:>6} {:>6} {:>5} {:>6} {:>7}  {:<17} {:>7} {:>9} "
                 "{:>9}\n",
             "env", "runs", "fail", "hang", "crash", "failed", "95% interval",
             "s/run", "launches", "stressed");
  for (const EnvSummary &S : Envs) {
    harness::Proportion P = S.rate();
    double Per = S.Runs ? 1.0 / double(S.Runs) : 0;
    fmt::print(OS,
               "{:<16} {:>6} {:>6} {:>5} {:>6} {:>7}  {:<17} {:>7.3f} {:>9.1f} "
               "{:>9.1f}\n",
               S.Env.name(), S.Runs, S.Fails, S.Hangs, S.Crashes,
               percent(P.Rate),
               fmt::format("[{}, {}]", percent(P.Low), percent(P.High)),
               S.Seconds * Per, double(S.Launches) * Per,
               double(S.Stressed) * Per);
  }
  for (const EnvSummary &S : Envs) {
    if (S.Unreported)
      fmt::print(OS,
                 "note: {}: {} of {} runs ended without the injected "
                 "library's report (was it loaded? a static or setuid "
                 "program, or one that ends with _exit, is not reached)\n",
                 S.Env.name(), S.Unreported, S.Runs);
    else if (S.Runs && S.Launches == 0)
      fmt::print(OS, "note: {}: no kernel launch was seen\n", S.Env.name());
    if (S.CapHits)
      fmt::print(OS,
                 "note: {}: stressing blocks stopped at their time limit "
                 "{} times (a kernel outlived --timeout, or could not be "
                 "resident beside them)\n",
                 S.Env.name(), S.CapHits);
    for (const std::string &N : S.Notes)
      fmt::print(OS, "note: {}: {}\n", S.Env.name(), N);
  }
}

std::string stressJson(const StressCommand &Cmd,
                       const std::vector<EnvSummary> &Envs) {
  using nlohmann::json;
  json Post;
  if (!Cmd.Check.empty())
    Post = {{"check", Cmd.Check}};
  else if (!Cmd.ExpectStdout.empty())
    Post = {{"expect_stdout", Cmd.ExpectStdout}};
  else
    Post = {{"expect_exit", Cmd.ExpectExit.value_or(0)}};
  json Sys = {{"stress_seq", harness::formatStressSeq(Cmd.Knobs.Sys.Seq)},
              {"stress_locs", Cmd.Knobs.Sys.Locs},
              {"stress_patch", Cmd.Knobs.Sys.Patch},
              {"from", Cmd.ProfileNote}};
  json J = {{"app", Cmd.Argv},
            {"label", Cmd.label()},
            {"timeout_s", Cmd.Timeout},
            {"seed", Cmd.Seed},
            {"post_condition", Post},
            {"sys", Sys},
            {"stress_blocks_percent",
             {Cmd.Knobs.MinPercent, Cmd.Knobs.MaxPercent}},
            {"keep_ids", Cmd.Knobs.KeepIds}};
  if (Cmd.Runs)
    J["runs_per_env"] = Cmd.Runs;
  if (!Cmd.Time.empty())
    J["time_per_env"] = Cmd.Time;
  json E = json::array();
  for (const EnvSummary &S : Envs) {
    harness::Proportion P = S.rate();
    E.push_back({{"env", S.Env.name()},
                 {"stress", stressKindName(S.Env.Stress)},
                 {"randomise", S.Env.Randomise},
                 {"spread", S.Env.Spread},
                 {"runs", S.Runs},
                 {"failures", S.failures()},
                 {"fail", S.Fails},
                 {"hang", S.Hangs},
                 {"crash", S.Crashes},
                 {"rate", P.Rate},
                 {"low", P.Low},
                 {"high", P.High},
                 {"seconds", S.Seconds},
                 {"launches", S.Launches},
                 {"stressed", S.Stressed},
                 {"stress_cap_hits", S.CapHits},
                 {"unreported", S.Unreported},
                 {"notes", std::vector<std::string>(S.Notes.begin(),
                                                    S.Notes.end())}});
  }
  J["environments"] = std::move(E);
  return dumpJson(J);
}

harness::Proportion EnvSummary::rate() const {
  return harness::wilson(failures(), Runs);
}

namespace {

/// The table's tallies of one run in its environment.
void tally(EnvSummary &S, const RunRecord &R) {
  ++S.Runs;
  S.Fails += R.V == Verdict::Fail;
  S.Hangs += R.V == Verdict::Hang;
  S.Crashes += R.V == Verdict::Crash;
  S.Seconds += R.Seconds;
  S.Launches += R.Launches;
  S.Stressed += R.Stressed;
  S.CapHits += R.CapHits;
  // A run that ended on its own but left no report ran without the
  // library (a static or setuid program, or one that exits with _exit).
  if (!R.Reported && R.V != Verdict::Hang && R.V != Verdict::Crash)
    ++S.Unreported;
  for (const std::string &N : R.Notes)
    S.Notes.insert(N);
}

} // namespace

int runStress(const StressCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  CommandContext Ctx(Out, Err);
  std::string Error;
  auto Envs = parseEnvironments(Cmd.Envs, Cmd.Randomise, Error);
  if (!Envs)
    return Ctx.fail(ErrorKind::Input, Error);
  double Budget = 0;
  if (!Cmd.Time.empty() && (!parseDuration(Cmd.Time, Budget) || Budget <= 0))
    return Ctx.fail(ErrorKind::Input,
                    fmt::format("--time '{}' is not a duration (90s, 5m, 1h)",
                                Cmd.Time));
  uint64_t Runs = Cmd.Runs ? Cmd.Runs : Budget > 0 ? UINT64_MAX : 100;
  auto Made = AppRunner::make(Cmd, Ctx.diags());
  if (!Made)
    return Ctx.failed(Made.error());
  std::unique_ptr<AppRunner> Runner = std::move(*Made);
  std::string AppKey;
  for (const std::string &A : Cmd.Argv)
    AppKey += (AppKey.empty() ? "" : " ") + A;
  // An unusable database is the user's (2); a write that fails, SQLite's
  // or the disk's (3).
  std::unique_ptr<StressStore> Store;
  if (!Cmd.Db.empty()) {
    Store = StressStore::open(Cmd.Db, Error);
    if (!Store)
      return Ctx.fail(ErrorKind::Input, fmt::format("{}: {}", Cmd.Db, Error));
  }
  // A program built through incant runs kernels: without a device every
  // run would fail, and that is no finding.
  if (Runner->runsKernels())
    if (int Rc = Ctx.requireCudaDevice(Cmd.Argv[0]))
      return Rc;
  if (Store && !Store->begin(utcNowIso(), AppKey, stressJson(Cmd, {}), Error))
    return Ctx.fail(ErrorKind::Internal, fmt::format("{}: {}", Cmd.Db, Error));

  std::vector<EnvSummary> Sum(Envs->size());
  for (size_t I = 0; I < Envs->size(); ++I)
    Sum[I].Env = (*Envs)[I];
  auto T0 = std::chrono::steady_clock::now();
  auto LastProgress = T0;
  auto Finished = [&](size_t I) {
    return Sum[I].Runs >= Runs || (Budget > 0 && Sum[I].Seconds >= Budget);
  };
  bool Any = true;
  while (Any) {
    Any = false;
    for (size_t I = 0; I < Envs->size(); ++I) {
      if (Finished(I))
        continue;
      Any = true;
      EnvSummary &S = Sum[I];
      RunRecord R;
      R.Env = S.Env.name();
      R.Index = S.Runs;
      R.Seed = fnv1a64(fmt::format("{}/{}/{}", Cmd.Seed, R.Env, R.Index));
      if (!Runner->run(S.Env, R.Seed, {}, R, Error))
        return Ctx.fail(ErrorKind::Input, Error);
      tally(S, R);
      if (Store && !Store->put(R, Error))
        return Ctx.fail(ErrorKind::Internal,
                        fmt::format("{}: {}", Cmd.Db, Error));
      auto Now = std::chrono::steady_clock::now();
      if (Cmd.Progress &&
          std::chrono::duration<double>(Now - LastProgress).count() >= 5) {
        LastProgress = Now;
        fmt::print(Err, "stress: {} {} runs, {} failed, {:.0f}s\n", R.Env,
                   S.Runs, S.failures(),
                   std::chrono::duration<double>(Now - T0).count());
      }
    }
  }
  if (Cmd.Json)
    Out << stressJson(Cmd, Sum) << "\n";
  else
    printStressTable(Cmd.label(), Sum, Out);
  bool Failed = false;
  for (const EnvSummary &S : Sum)
    Failed |= S.failures() != 0;
  return Ctx.done(Failed ? Outcome::Found : Outcome::Clean);
}

} // namespace incant::apptest
