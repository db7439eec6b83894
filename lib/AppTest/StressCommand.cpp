//===- StressCommand.cpp - `incant stress`: the run loop ------------------===//
#include "incant/AppTest/StressCommand.h"
#include "incant/AppTest/AppRunner.h"
#include "incant/AppTest/StressStore.h"

#include "incant/Support/Hash.h"
#include "incant/Support/Time.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace incant::apptest {

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Pass:
    return "pass";
  case Verdict::Fail:
    return "fail";
  case Verdict::Hang:
    return "hang";
  case Verdict::Crash:
    return "crash";
  }
  return "?";
}

harness::Proportion EnvSummary::rate() const {
  return harness::wilson(failures(), Runs);
}

int runStress(const StressCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  auto Usage = [&](const std::string &M) {
    fmt::print(Err, "incant: error: {}\n", M);
    return 2;
  };
  std::string Error;
  auto Envs = parseEnvironments(Cmd.Envs, Cmd.Randomise, Error);
  if (!Envs)
    return Usage(Error);
  double Budget = 0;
  if (!Cmd.Time.empty() && (!parseDuration(Cmd.Time, Budget) || Budget <= 0))
    return Usage(fmt::format("--time '{}' is not a duration (90s, 5m, 1h)",
                             Cmd.Time));
  uint64_t Runs = Cmd.Runs ? Cmd.Runs : Budget > 0 ? UINT64_MAX : 100;
  if (!(Cmd.Timeout > 0))
    return Usage("--timeout must be positive");
  std::unique_ptr<AppRunner> Runner = AppRunner::make(Cmd, Error);
  if (!Runner)
    return Usage(Error);
  std::string Label = Cmd.Label.empty() ? Cmd.Argv[0] : Cmd.Label;
  std::string AppKey;
  for (const std::string &A : Cmd.Argv)
    AppKey += (AppKey.empty() ? "" : " ") + A;

  std::unique_ptr<StressStore> Store;
  if (!Cmd.Db.empty()) {
    Store = StressStore::open(Cmd.Db, Error);
    if (!Store || !Store->begin(utcNowIso(), AppKey, stressJson(Cmd, {}), Error))
      return Usage(fmt::format("{}: {}", Cmd.Db, Error));
  }

  std::vector<EnvSummary> Sum(Envs->size());
  for (size_t I = 0; I < Envs->size(); ++I)
    Sum[I].Env = (*Envs)[I];
  std::vector<uint64_t> Done(Envs->size(), 0);
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
        return Usage(Error);
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
      if (Store && !Store->put(R, Error))
        return Usage(fmt::format("{}: {}", Cmd.Db, Error));
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
    printStressTable(Label, Sum, Out);
  for (const EnvSummary &S : Sum)
    if (S.failures())
      return 1;
  return 0;
}

} // namespace incant::apptest
