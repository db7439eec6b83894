//===- StressReport.cpp - `incant stress`: the table and JSON -------------===//
#include "incant/AppTest/StressCommand.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace incant::apptest {

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
            {"label", Cmd.Label.empty() && !Cmd.Argv.empty() ? Cmd.Argv[0]
                                                             : Cmd.Label},
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
  return J.dump();
}

} // namespace incant::apptest
