//===- CostCommand.cpp - `incant fences cost`: what fences cost -----------===//
#include "incant/Commands/CostCommand.h"
#include "incant/Fences/CostResult.h"
#include "incant/Intercept/Protocol.h"
#include "incant/AppTest/AppRunner.h"
#include "incant/AppTest/RunPool.h"
#include "incant/Fences/Reduction.h"
#include "incant/Intercept/Fences.h"
#include "incant/Intercept/ImageScan.h"

#include "incant/PTX/Module.h"
#include "incant/Support/CommandContext.h"
#include "incant/Support/Hash.h"
#include "incant/Support/InputFile.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unistd.h>

namespace incant::fences {

namespace {

namespace fs = std::filesystem;
using apptest::RunRecord;

double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

struct Variant {
  std::string Name;
  std::map<std::string, FenceSet> Sets; ///< Unit -> sites kept.
  std::string Images;                   ///< INCANT_FENCE_IMAGES.
  std::vector<std::string> Files;
  VariantCost Cost;
  std::vector<double> Ms;
  double Mj = 0;
  uint64_t Queued = 0; ///< Runs queued so far (the next run's number).
};

/// Every result in \p Path (--results); false with \p Error set.
bool readResults(const std::string &Path, std::vector<AppCost> &All,
                 std::string &Error) {
  std::ifstream In(Path);
  if (!In) {
    Error = fmt::format("cannot read {}", Path);
    return false;
  }
  std::string Line;
  for (unsigned N = 1; std::getline(In, Line); ++N) {
    AppCost X;
    if (Line.empty())
      continue;
    if (!appCostFromJson(Line, X, Error)) {
      Error = fmt::format("{}:{}: {}", Path, N, Error);
      return false;
    }
    All.push_back(std::move(X));
  }
  return true;
}

/// A failure of `incant fences cost`: its kind and message.
struct Failure {
  ErrorKind Kind;
  std::string Message;
};

/// `incant fences cost` in named steps: the variants (no, cons, emp) of
/// each unit the application launches, their unconditional builds, the
/// runs (interleaved; more where --energy-steps asks), and the result.
class CostRun {
public:
  CostRun(const CostCommand &Cmd, CommandContext &Ctx) : Cmd(Cmd), Ctx(Ctx) {}

  int run();

private:
  std::optional<Failure> readSetFile();
  std::optional<Failure> launchedUnits(std::vector<std::string> &Units);
  std::optional<Failure> makeVariants(const std::vector<std::string> &Units);
  std::optional<Failure> buildImages();
  std::optional<Failure> runJobs(size_t From, double Until);
  void tally(size_t From);
  std::optional<Failure> energyRounds();
  AppCost summary();
  std::optional<Failure> writeFiles(const AppCost &A);
  void printTable(const AppCost &A);
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         T0)
        .count();
  }

  const CostCommand &Cmd;
  CommandContext &Ctx;
  std::unique_ptr<apptest::AppRunner> Runner;
  std::unique_ptr<apptest::RunPool> Pool;
  std::string Label;
  std::string Bytes; ///< The program's.
  std::map<std::string, intercept::UnitManifest> Manifests;
  nlohmann::json SetFile;
  std::vector<Variant> Vs;
  /// The unconditional builds, removed at the end.
  struct Cleanup {
    std::vector<std::string> Files;
    ~Cleanup() {
      for (const std::string &F : Files)
        fs::remove(F);
    }
  } Temps;
  /// Every (run, variant) in turn.
  struct Job {
    Variant *V;
    uint64_t Run;
    RunRecord R;
    bool Made = false;
  };
  std::vector<Job> Jobs;
  std::chrono::steady_clock::time_point T0 = std::chrono::steady_clock::now();
  std::string EnergyNote;
};

std::optional<Failure> CostRun::readSetFile() {
  if (Cmd.Set.empty())
    return std::nullopt;
  std::string Text, Error;
  if (!readInputFile(Cmd.Set, Text, Error))
    return Failure{ErrorKind::Input,
                   fmt::format("cannot read {}: {}", Cmd.Set, Error)};
  SetFile = nlohmann::json::parse(Text, nullptr, false);
  if (SetFile.is_discarded() || !SetFile.contains("units") ||
      !SetFile["units"].is_object())
    return Failure{ErrorKind::Input,
                   fmt::format("{} is not a fence set of `incant fences "
                               "--save`",
                               Cmd.Set)};
  return std::nullopt;
}

/// Which units run? One run as the application is.
std::optional<Failure> CostRun::launchedUnits(std::vector<std::string> &Units) {
  apptest::Environment Plain;
  RunRecord Probe;
  std::string Error;
  if (!Runner->run(Plain, fnv1a64("cost/probe"), {}, Probe, Error))
    return Failure{ErrorKind::Input, Error};
  for (const apptest::KernelRecord &K : Probe.Kernels)
    if (!K.Unit.empty() &&
        std::find(Units.begin(), Units.end(), K.Unit) == Units.end())
      Units.push_back(K.Unit);
  if (Units.empty())
    return Failure{ErrorKind::Input,
                   fmt::format("{} launched no kernel of a module built "
                               "through incant",
                               Label)};
  return std::nullopt;
}

/// Each variant's fence set of each unit: none, all, and the saved one.
std::optional<Failure>
CostRun::makeVariants(const std::vector<std::string> &Units) {
  Vs.resize(Cmd.Set.empty() ? 2 : 3);
  Vs[0].Name = "no";
  Vs[1].Name = "cons";
  if (Vs.size() == 3)
    Vs[2].Name = "emp";
  auto Input = [](std::string M) {
    return Failure{ErrorKind::Input, std::move(M)};
  };
  for (const std::string &U : Units) {
    auto M = Manifests.find(U);
    FenceSet All;
    if (M != Manifests.end())
      for (const intercept::Site &S : M->second.Sites)
        if (S.Pass == "fences")
          All[S.Id] = 0;
    if (All.empty())
      return Input(fmt::format("unit {} of {} has no switchable fences: "
                               "build it with `eval \"$(incant build-env "
                               "--passes randomise,fences)\"`",
                               U, Label));
    Vs[0].Sets[U] = {};
    Vs[1].Sets[U] = All;
    if (Vs.size() < 3)
      continue;
    const nlohmann::json &J = SetFile["units"];
    if (!J.contains(U) || !J[U].is_object())
      return Input(fmt::format("{} has no fence set for unit {} of {} "
                               "(was it saved for this binary?)",
                               Cmd.Set, U, Label));
    auto Cons = parseSet(J[U].value("cons", ""));
    auto Emp = parseSet(J[U].value("emp", ""));
    if (!Cons || !Emp)
      return Input(
          fmt::format("{}: malformed fence set of unit {}", Cmd.Set, U));
    for (const auto &[Site, Kind] : *Emp)
      if (!All.count(Site))
        return Input(fmt::format("{}: site {} is no fence site of unit {}",
                                 Cmd.Set, Site, U));
    Vs[1].Sets[U] = *Cons;
    Vs[2].Sets[U] = *Emp;
  }
  return std::nullopt;
}

/// The unconditional builds: the embedded PTX with the guards gone.
std::optional<Failure> CostRun::buildImages() {
  const char *Tmp = std::getenv("TMPDIR");
  for (Variant &V : Vs) {
    for (const auto &[U, Set] : V.Sets) {
      std::string Ptx = intercept::findUnitPtx(Bytes, U);
      if (Ptx.empty())
        return Failure{
            ErrorKind::Input,
            fmt::format("{} embeds no PTX of unit {} (build for a virtual "
                        "architecture too, e.g. -arch=sm_90, through "
                        "`incant build-env`, which keeps the fatbinary "
                        "uncompressed)",
                        Label, U)};
      auto File = std::make_shared<SourceFile>("<" + U + ".ptx>", Ptx);
      DiagnosticEngine Diags;
      std::optional<ptx::Module> Mod = ptx::parseModule(File, Diags);
      std::map<uint32_t, unsigned> Keep(Set.begin(), Set.end());
      if (!Mod || !intercept::fixFences(*Mod, U, Keep, Diags)) {
        std::string Why;
        for (const Diagnostic &D : Diags.diagnostics())
          if (D.Sev == Severity::Error && Why.empty())
            Why = D.Message;
        return Failure{ErrorKind::Internal,
                       fmt::format("the PTX of unit {} cannot be rebuilt: {}",
                                   U, Why)};
      }
      std::string Path =
          fmt::format("{}/incant-cost-{}-{}-{}.ptx", Tmp && *Tmp ? Tmp : "/tmp",
                      getpid(), U, V.Name);
      Temps.Files.push_back(Path);
      std::string Error;
      if (!writeOutputFile(Path, ptx::printModule(*Mod), Error))
        return Failure{ErrorKind::Internal, Error};
      V.Images += fmt::format("{}{}={}", V.Images.empty() ? "" : ";", U, Path);
      V.Cost.Fences += unsigned(Set.size());
    }
    V.Cost.Name = V.Name;
  }
  return std::nullopt;
}

/// Runs Jobs[From...], none started after \p Until seconds; with --jobs,
/// several at once.
std::optional<Failure> CostRun::runJobs(size_t From, double Until) {
  std::atomic<size_t> Done = 0;
  std::atomic<bool> Failed = false;
  std::mutex Mu;
  std::optional<Failure> First;
  auto Last = std::chrono::steady_clock::now();
  apptest::Environment Plain;
  Pool->forEach([&](uint64_t J, apptest::AppRunner &Rn) {
    if (From + J >= Jobs.size() || Failed || seconds() > Until)
      return false;
    Job &X = Jobs[From + J];
    X.R.Env = "none-";
    std::string E;
    ErrorKind K = ErrorKind::Input;
    bool Ok =
        Rn.run(Plain, fnv1a64(fmt::format("cost/{}/{}", X.V->Name, X.Run)),
               {{INCANT_ENV_FENCE_IMAGES, X.V->Images},
                {INCANT_ENV_TIME, "1"},
                {INCANT_ENV_ENERGY, "1"}},
               X.R, E);
    if (Ok && X.R.Reported && X.R.Replaced == 0) {
      Ok = false;
      K = ErrorKind::Internal;
      E = fmt::format("the injected library did not load the {} build in "
                      "place of {}'s module (notes: {})",
                      X.V->Name, Label, fmt::join(X.R.Notes, "; "));
    }
    std::lock_guard<std::mutex> G(Mu);
    if (!Ok) {
      if (!Failed.exchange(true))
        First = Failure{K, E};
      return false;
    }
    X.Made = true;
    ++Done;
    auto Now = std::chrono::steady_clock::now();
    if (Cmd.App.Progress &&
        std::chrono::duration<double>(Now - Last).count() >= 5) {
      Last = Now;
      fmt::print(Ctx.err(), "cost: {} of {} runs, {:.0f}s\n",
                 From + size_t(Done), Jobs.size(), seconds());
    }
    return true;
  });
  return First;
}

/// Adds the runs of Jobs[From...] that were made to their variants. A run
/// counts when it passed, or failed its post-condition with --all-runs
/// (not a hang or a crash).
void CostRun::tally(size_t From) {
  for (size_t I = From; I < Jobs.size(); ++I) {
    const Job &X = Jobs[I];
    if (!X.Made)
      continue;
    Variant &V = *X.V;
    const RunRecord &R = X.R;
    ++V.Cost.Runs;
    V.Cost.Passed += R.V == apptest::Verdict::Pass;
    if (R.V != apptest::Verdict::Pass &&
        !(Cmd.AllRuns && R.V == apptest::Verdict::Fail && R.Reported))
      continue;
    ++V.Cost.Counted;
    double Ms = 0;
    for (const apptest::KernelRecord &K : R.Kernels)
      Ms += K.Ms;
    V.Ms.push_back(Ms);
    V.Mj += R.EnergyMj;
    V.Cost.EnergyChanges += R.EnergyChanges;
    V.Cost.EnergyOk |= R.EnergyOk;
  }
}

/// --energy-steps: rounds of more runs of the variants short of steps.
std::optional<Failure> CostRun::energyRounds() {
  while (Cmd.EnergySteps &&
         std::any_of(Vs.begin(), Vs.end(),
                     [](const Variant &V) { return V.Cost.EnergyOk; })) {
    // Interleaved, as the first runs are. A variant with no counted run
    // has no energy anyway.
    std::map<const Variant *, uint64_t> More;
    uint64_t Most = 0;
    for (Variant &V : Vs)
      if (V.Cost.Counted)
        Most = std::max(Most, More[&V] = moreEnergyRuns(V.Cost.EnergyChanges,
                                                        V.Cost.Counted,
                                                        Cmd.EnergySteps));
    size_t From = Jobs.size();
    for (uint64_t K = 0; K < Most; ++K)
      for (Variant &V : Vs)
        if (K < More[&V])
          Jobs.push_back({&V, V.Queued++, {}});
    if (Jobs.size() == From)
      break;
    if (auto F = runJobs(From, Cmd.EnergySeconds))
      return F;
    tally(From);
    if (seconds() > Cmd.EnergySeconds) {
      EnergyNote = fmt::format(
          "note: --energy-steps {}: no run started after {:.0f}s "
          "(--energy-time); a variant with fewer steps has fewer",
          Cmd.EnergySteps, Cmd.EnergySeconds);
      break;
    }
  }
  return std::nullopt;
}

AppCost CostRun::summary() {
  AppCost A;
  A.App = Label;
  for (Variant &V : Vs) {
    V.Cost.MedianMs = median(V.Ms);
    V.Cost.EnergyJ =
        V.Cost.Counted ? V.Mj / 1000.0 / double(V.Cost.Counted) : 0;
    // Other runs' start (contexts made and torn down) draws power in the
    // windows too: on the H100 a lone run of dot-nf's "no" measured 11.3 J
    // a run, the same with --jobs 6 21.9 J (docs/fences.md).
    if (Cmd.Jobs > 1)
      V.Cost.EnergyOk = false;
    A.Variants.push_back(V.Cost);
  }
  return A;
}

/// --results (one more line) and --plot (every result there, or this one).
std::optional<Failure> CostRun::writeFiles(const AppCost &A) {
  std::string Error;
  if (!Cmd.Results.empty() &&
      !writeOutputFile(Cmd.Results, appCostJson(A) + "\n", Error,
                       /*Append=*/true))
    return Failure{ErrorKind::Internal, Error};
  if (!Cmd.Plot.empty()) {
    std::vector<AppCost> All;
    if (Cmd.Results.empty())
      All.push_back(A);
    else if (!readResults(Cmd.Results, All, Error))
      return Failure{ErrorKind::Input, Error};
    if (!writeOutputFile(Cmd.Plot, costPlotSvg(All), Error))
      return Failure{ErrorKind::Internal, Error};
  }
  return std::nullopt;
}

void CostRun::printTable(const AppCost &A) {
  std::ostream &Out = Ctx.out();
  fmt::print(Out, "incant fences cost: {} ({} runs per variant{})\n", Label,
             Cmd.Runs,
             Cmd.EnergySteps ? fmt::format(", more for {} energy steps",
                                           Cmd.EnergySteps)
                             : "");
  fmt::print(Out, "{:<6} {:>7} {:>8} {:>8} {:>12} {:>9} {:>12} {:>9} "
                  "{:>8}\n",
             "fences", "sites", "passed", "counted", "kernel ms", "cost",
             "energy J", "cost", "steps");
  const VariantCost &No = A.Variants[0];
  for (const VariantCost &V : A.Variants) {
    auto Cost = [](double X, double Base) {
      return Base > 0 ? fmt::format("{:+.1f}%", 100 * (X / Base - 1))
                      : std::string("-");
    };
    bool E = V.EnergyOk && No.EnergyOk;
    fmt::print(Out, "{:<6} {:>7} {:>8} {:>8} {:>12.4f} {:>9} {:>12} "
                    "{:>9} {:>8}\n",
               V.Name, V.Fences, fmt::format("{}/{}", V.Passed, V.Runs),
               V.Counted, V.MedianMs,
               &V == &No ? "" : Cost(V.MedianMs, No.MedianMs),
               E ? fmt::format("{:.6f}", V.EnergyJ) : "-",
               E && &V != &No ? Cost(V.EnergyJ, No.EnergyJ) : "",
               E ? std::to_string(V.EnergyChanges) : "-");
  }
  if (Cmd.Jobs > 1)
    fmt::print(Out, "note: no energy: with --jobs above 1 the windows also "
                    "see the other runs start and end (run --jobs 1 for "
                    "energy)\n");
  else if (!No.EnergyOk)
    fmt::print(Out, "note: no energy: NVML's total energy counter was not "
                    "available\n");
  else
    for (const VariantCost &V : A.Variants)
      if (V.EnergyChanges < 20)
        fmt::print(Out, "note: {}: the energy counter moved only {} times "
                        "over its runs; run more for a steadier energy "
                        "(--energy-steps)\n",
                   V.Name, V.EnergyChanges);
  if (!EnergyNote.empty())
    fmt::print(Out, "{}\n", EnergyNote);
}

int CostRun::run() {
  auto Made = apptest::AppRunner::make(Cmd.App, Ctx.diags());
  if (!Made)
    return Ctx.failed(Made.error());
  Runner = std::move(*Made);
  // --results is read and appended to: it may not be the program or the
  // fence set either.
  if (int Rc = Ctx.checkOutputs({Cmd.Results, Cmd.Plot},
                                {Runner->program(), Cmd.Set}))
    return Rc;
  std::string Error;
  if (!readInputFile(Runner->program(), Bytes, Error))
    return Ctx.fail(ErrorKind::Input,
                    fmt::format("cannot read {}: {}", Runner->program(), Error));
  for (intercept::FoundUnit &U : intercept::findUnits(Bytes))
    if (U.Manifest)
      Manifests.emplace(U.Id, std::move(*U.Manifest));
  Label = Cmd.App.label();
  auto Fail = [&](const Failure &F) { return Ctx.fail(F.Kind, F.Message); };
  if (auto F = readSetFile())
    return Fail(*F);
  // Kernel times and energy come from the device.
  if (int Rc = Ctx.requireCudaDevice(Cmd.App.Argv[0]))
    return Rc;
  std::vector<std::string> Units;
  if (auto F = launchedUnits(Units))
    return Fail(*F);
  if (auto F = makeVariants(Units))
    return Fail(*F);
  if (auto F = buildImages())
    return Fail(*F);

  // Every (run, variant) in turn, the variants interleaved.
  for (uint64_t Run = 0; Run < Cmd.Runs; ++Run)
    for (Variant &V : Vs)
      Jobs.push_back({&V, V.Queued++, {}});
  auto P = apptest::RunPool::make(std::move(Runner), Cmd.App, Cmd.Jobs,
                                  Ctx.diags());
  if (!P)
    return Ctx.failed(P.error());
  Pool = std::move(*P);
  if (auto F = runJobs(0, HUGE_VAL))
    return Fail(*F);
  tally(0);
  if (auto F = energyRounds())
    return Fail(*F);

  AppCost A = summary();
  if (auto F = writeFiles(A))
    return Fail(*F);
  if (Cmd.Json)
    Ctx.out() << appCostJson(A) << "\n";
  else
    printTable(A);
  bool AllCounted = std::all_of(
      A.Variants.begin(), A.Variants.end(),
      [](const VariantCost &V) { return V.Counted > 0; });
  return Ctx.done(AllCounted ? Outcome::Clean : Outcome::Found);
}

} // namespace

int runCost(const CostCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  CommandContext Ctx(Out, Err);
  if (Cmd.Runs == 0)
    return Ctx.fail(ErrorKind::Input, "--runs must be at least 1");
  if (Cmd.EnergySteps && Cmd.Jobs > 1)
    return Ctx.fail(ErrorKind::Input,
                    "--energy-steps needs --jobs 1 (with more, other runs' "
                    "start draws power in the energy windows)");
  if (Cmd.App.Argv.empty()) {
    // Only draw what --results holds.
    if (Cmd.Plot.empty() || Cmd.Results.empty())
      return Ctx.fail(ErrorKind::Input,
                      "no program to run: incant fences cost [options] -- "
                      "./app ARGS (or --results F.jsonl --plot F.svg to draw "
                      "earlier results)");
    if (int Rc = Ctx.checkOutputs({Cmd.Plot}, {Cmd.Results}))
      return Rc;
    std::vector<AppCost> All;
    std::string Error;
    if (!readResults(Cmd.Results, All, Error))
      return Ctx.fail(ErrorKind::Input, Error);
    if (!writeOutputFile(Cmd.Plot, costPlotSvg(All), Error))
      return Ctx.fail(ErrorKind::Internal, Error);
    return Ctx.done(Outcome::Clean);
  }
  return CostRun(Cmd, Ctx).run();
}

} // namespace incant::fences
