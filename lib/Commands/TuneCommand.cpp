//===- TuneCommand.cpp - `incant tune` on a backend -------------------------===//
//
// Loads the tests, picks the device as `incant run` does, wraps the
// backend in a Measurer, runs one search, prints the winners and writes
// the profile (merged into the one given with --profile) and the plots.
//
//===----------------------------------------------------------------------===//
#include "incant/Commands/TuneCommand.h"
#include "incant/Backends/BackendChoice.h"
#include "incant/Harness/Backend.h"
#include "incant/Harness/ParamRanges.h"
#include "incant/Harness/Profile.h"
#include "incant/Litmus/Load.h"
#include "incant/Support/DataFiles.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Time.h"
#include "incant/Tune/Plot.h"
#include "incant/Tune/Tune.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <ostream>
#include <tuple>

namespace incant::tune {

bool parseRange(const std::string &Text, std::vector<uint32_t> &Out,
                std::string &Error) {
  Out.clear();
  auto Num = [&](const std::string &S, uint32_t &V) {
    if (S.empty() || S.size() > 9 ||
        S.find_first_not_of("0123456789") != std::string::npos)
      return false;
    V = uint32_t(std::stoul(S));
    return true;
  };
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t Comma = Text.find(',', Start);
    std::string Item = Text.substr(Start, Comma == std::string::npos
                                              ? std::string::npos
                                              : Comma - Start);
    size_t C1 = Item.find(':');
    uint32_t A = 0, B = 0, S = 1;
    if (C1 == std::string::npos) {
      if (!Num(Item, A)) {
        Error = "expected a number or FIRST:END:STEP, got '" + Item + "'";
        return false;
      }
      Out.push_back(A);
    } else {
      size_t C2 = Item.find(':', C1 + 1);
      if (C2 == std::string::npos || !Num(Item.substr(0, C1), A) ||
          !Num(Item.substr(C1 + 1, C2 - C1 - 1), B) ||
          !Num(Item.substr(C2 + 1), S) || S == 0) {
        Error = "expected FIRST:END:STEP (END excluded, STEP >= 1), got '" +
                Item + "'";
        return false;
      }
      // Counted before it is expanded: 4:949471947:2 asked for half a
      // billion values (found by fuzz/OptionFuzzer.cpp).
      uint64_t Count = B > A ? (uint64_t(B) - A + S - 1) / S : 0;
      if (Out.size() + Count > MaxGridValues) {
        Error = "more than " + std::to_string(MaxGridValues) +
                " values in '" + DiagnosticEngine::capped(Text, 100) + "'";
        return false;
      }
      for (uint64_t V = A; V < B; V += S)
        Out.push_back(uint32_t(V));
    }
    if (Out.size() > MaxGridValues) {
      Error = "more than " + std::to_string(MaxGridValues) + " values in '" +
              DiagnosticEngine::capped(Text, 100) + "'";
      return false;
    }
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  if (Out.empty()) {
    Error = "no values in '" + Text + "'";
    return false;
  }
  return true;
}

namespace {

/// Runs tests on a harness backend.
class BackendMeasurer final : public Measurer {
public:
  BackendMeasurer(harness::Backend &B, uint32_t Device,
                  const std::vector<litmus::LoadedTest> &Tests)
      : B(B), Device(Device), Tests(Tests) {}

  std::optional<Measurement> measure(size_t Test, const harness::RunParams &P,
                                     std::string &Error) override {
    DiagnosticEngine Diags; // collected, not printed: a point may fail
    harness::RunRequest Req;
    Req.Prog = &Tests[Test].Prog;
    Req.File = Tests[Test].File;
    Req.Params = P;
    Req.Device = Device;
    Expected<harness::RunResult> R = B.run(Req, Diags);
    ++Calls;
    if (!R) {
      Error = Diags.diagnostics().empty() ? "the backend failed"
                                          : Diags.diagnostics().back().Message;
      ++Failures;
      LastError = Error;
      LastKind = R.error();
      return std::nullopt;
    }
    if (!Seen) {
      Info = R->Device;
      Seen = true;
    }
    Measurement M;
    M.Weak = harness::witnesses(Tests[Test].Prog, R->Hist).Positive;
    M.Instances = R->Hist.total();
    M.Seconds = R->Seconds;
    return M;
  }

  harness::DeviceInfo Info;
  bool Seen = false;
  uint64_t Calls = 0, Failures = 0;
  std::string LastError;
  ErrorKind LastKind = ErrorKind::Device;

private:
  harness::Backend &B;
  uint32_t Device;
  const std::vector<litmus::LoadedTest> &Tests;
};

std::string testPath(const std::string &Name) {
  namespace fs = std::filesystem;
  if (Name.find('/') != std::string::npos ||
      fs::path(Name).extension() == ".litmus")
    return Name;
  std::string Lib = libraryDir();
  if (Lib.empty())
    return Name;
  std::error_code EC;
  fs::path Family = fs::path(Lib) / Name / (Name + "+cta-global.litmus");
  if (fs::exists(Family, EC))
    return Family.string();
  for (auto It = fs::recursive_directory_iterator(Lib, EC);
       !EC && It != fs::recursive_directory_iterator(); It.increment(EC))
    if (It->path().filename() == Name + ".litmus")
      return It->path().string();
  return Name;
}

harness::ProfileValue num(uint64_t V) {
  return harness::ProfileValue::number(V);
}
harness::ProfileValue flag(bool V) { return harness::ProfileValue::boolean(V); }
harness::ProfileValue seq(const std::vector<harness::StressAccess> &S) {
  return harness::ProfileValue::sequence(S);
}

using Json = nlohmann::json;

/// One tuning run: what the mode functions read and what they fill in.
struct Session {
  const TuneCommand &Cmd;
  BackendMeasurer &M;
  Budget &B;
  const harness::RunParams &Params;
  const std::vector<std::string> &Names;
  const std::vector<uint32_t> &Distances, &Offsets;
  std::ostream &Out;
  bool OnCuda = false;
  bool HaveInput = false; ///< Started from a --profile.
  harness::Profile &Prof;
  harness::ProfileFinding &F;
  uint32_t P = 64; ///< The patch size sequence and spread work with.
  Json Data;
  std::string PlotName, Plot;
  bool Complete = true;

  /// A device or runtime that failed every point.
  bool allFailed() const { return M.Calls && M.Failures == M.Calls; }
  // Each runs its search, prints and records the winners; false when no
  // point could run.
  bool patch();
  bool sequence();
  bool spread();
  bool random();
};

bool Session::patch() {
  PatchOptions O;
  O.Distances = Distances;
  O.Offsets = Offsets;
  O.Epsilon = Cmd.Epsilon;
  PatchData D = runPatch(M, Names.size(), Params, O, B);
  if (allFailed())
    return false;
  PatchAnalysis A = analysePatches(D, Cmd.Epsilon);
  Complete = D.Complete;
  F.Measurements = D.Measurements;
  Out << "Patch sizes with the most epsilon-patches (epsilon " << Cmd.Epsilon
      << "):\n";
  for (size_t T = 0; T < Names.size(); ++T) {
    std::string Counts;
    for (const auto &[Size, N] : A.SizeCounts[T])
      Counts += fmt::format(" {}:{}", Size, N);
    Out << fmt::format("  {:<16} {}   (size:patches{})\n", Names[T],
                       A.ModeSize[T] ? std::to_string(A.ModeSize[T])
                                     : "none",
                       Counts.empty() ? " none" : Counts);
    F.Summary["patch_" + Names[T]] = std::to_string(A.ModeSize[T]);
  }
  uint32_t Chosen = A.Critical ? *A.Critical : A.Suggested;
  Out << (A.Critical ? fmt::format("Critical patch size: {} words\n", Chosen)
          : Chosen  ? fmt::format("No critical patch size (the tests "
                                   "disagree); most tests: {} words\n",
                                   Chosen)
                    : std::string("No epsilon-patch found; stress-patch "
                                  "left as it was\n"));
  F.Summary["critical_patch"] = A.Critical ? std::to_string(*A.Critical) : "";
  F.Summary["chosen_patch"] = std::to_string(Chosen);
  if (Chosen)
    Prof.Params["stress-patch"] = num(Chosen);
  Data = {{"distances", D.Distances}, {"offsets", D.Offsets},
          {"epsilon", Cmd.Epsilon}};
  Json W = Json::array();
  for (const auto &Rows : D.Weak) {
    Json TR = Json::array();
    for (const auto &Row : Rows) {
      Json R = Json::array();
      for (const auto &V : Row)
        R.push_back(V ? Json(*V) : Json());
      TR.push_back(R);
    }
    W.push_back(TR);
  }
  Data["weak"] = W;
  PlotName = "patch-map.svg";
  Plot = patchMapSvg(D, Names, Cmd.Epsilon);
  return true;
}

bool Session::sequence() {
  SequenceOptions O;
  O.MaxLength = Cmd.MaxLength;
  O.Distances = Distances;
  for (uint32_t L = Cmd.Phase; L < Cmd.MaxOffset; L += P)
    O.Offsets.push_back(L);
  SequenceData D = runSequence(M, Names.size(), Params, O, B);
  if (allFailed())
    return false;
  Complete = D.Complete;
  F.Measurements = D.Measurements;
  Out << fmt::format("Access sequences ranked (patch {} words, {} "
                     "distances x {} offsets):\n",
                     P, O.Distances.size(), O.Offsets.size());
  for (size_t T = 0; T < Names.size(); ++T) {
    std::vector<size_t> Order(D.Seqs.size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t C) {
      return D.Score[A][T] > D.Score[C][T];
    });
    size_t Rank = 0;
    for (size_t I = 0; I < Order.size(); ++I)
      if (Order[I] == D.Best)
        Rank = I + 1;
    Out << fmt::format("  {:<16} best {} ({}), chosen ranks {} ({})\n",
                       Names[T],
                       Order.empty() ? "-" : paperNotation(D.Seqs[Order[0]]),
                       Order.empty() ? 0 : D.Score[Order[0]][T], Rank,
                       D.Seqs.empty() ? 0 : D.Score[D.Best][T]);
  }
  uint64_t BestSum = 0;
  for (uint64_t V : D.Seqs.empty() ? std::vector<uint64_t>() : D.Score[D.Best])
    BestSum += V;
  if (!D.Seqs.empty() && BestSum == 0) {
    Out << "No weak outcome under any sequence: the profile keeps its "
           "sequence\n";
  } else if (!D.Seqs.empty()) {
    Out << "Most effective sequence: " << paperNotation(D.Seqs[D.Best])
        << " (" << D.Pareto.size() << " Pareto-optimal)\n";
    F.Summary["sequence"] = paperNotation(D.Seqs[D.Best]);
    Prof.Params["stress-seq"] = seq(D.Seqs[D.Best]);
    Prof.Params["mem-stress"] = flag(true);
    Prof.Params["stress-in-test"] = flag(true);
  }
  Json Rows = Json::array();
  for (size_t S = 0; S < D.Seqs.size(); ++S)
    Rows.push_back({{"seq", harness::formatStressSeq(D.Seqs[S])},
                    {"score", D.Score[S]}});
  Data = {{"patch", P},        {"distances", O.Distances},
          {"offsets", O.Offsets}, {"sequences", Rows},
          {"baseline", D.BaselineScore}};
  PlotName = "sequence-ranking.svg";
  Plot = sequenceRankingSvg(D, Names);
  return true;
}

bool Session::spread() {
  SpreadOptions O;
  O.MaxSpread = std::max<uint32_t>(Cmd.MaxSpread, 1);
  O.Patch = P;
  O.Phase = Cmd.Phase;
  O.Distances = Distances;
  O.Samples = Cmd.Samples;
  O.Seed = Cmd.Seed;
  SpreadData D = runSpread(M, Names.size(), Params, O, B);
  if (allFailed())
    return false;
  Complete = D.Complete;
  F.Measurements = D.Measurements;
  Out << fmt::format("Spread scores (patch {} words):\n", P);
  for (size_t I = 0; I < D.Spreads.size(); ++I) {
    std::string Row;
    for (size_t T = 0; T < Names.size(); ++T)
      Row += fmt::format(" {}={}", Names[T], D.Score[I][T]);
    Out << fmt::format("  m={:<3}{}\n", D.Spreads[I], Row);
  }
  uint64_t BestSum = 0;
  for (size_t I = 0; I < D.Spreads.size(); ++I)
    if (D.Spreads[I] == D.Best)
      for (uint64_t V : D.Score[I])
        BestSum += V;
  if (BestSum == 0)
    Out << "No weak outcome under any spread: the profile keeps its "
           "stress locations\n";
  else
    Out << "Most effective spread: " << D.Best << '\n';
  F.Summary["spread"] = BestSum ? std::to_string(D.Best) : "";
  if (D.Best && BestSum) {
    Prof.Params["stress-locs"] = num(D.Best);
    Prof.Params["stress-patch"] = num(P);
    Prof.Params["stress-offset"] = num(Cmd.Phase);
    Prof.Params["stress-in-test"] = flag(true);
    Prof.Params["mem-stress"] = flag(true);
  }
  Data = {{"patch", P}, {"distances", O.Distances}, {"spreads", D.Spreads},
          {"score", D.Score}};
  PlotName = "spread-curve.svg";
  Plot = spreadCurveSvg(D, Names);
  return true;
}

bool Session::random() {
  RandomOptions O;
  O.Seed = Cmd.Seed;
  O.Candidates = Cmd.Candidates;
  O.Rounds = Cmd.Rounds;
  O.CudaKnobs = OnCuda;
  O.MaxGroupSize = O.CudaKnobs ? 1024 : 256;
  // The untuned defaults compete too, so the winner beat them when
  // measured.
  harness::RunParams Defaults;
  Defaults.Iterations = Params.Iterations;
  Defaults.Seed = Params.Seed;
  Defaults.LoopBound = Params.LoopBound;
  O.First = Defaults;
  RandomData D = runRandom(M, Names.size(), Params, O, B);
  if (allFailed())
    return false;
  Complete = D.Complete;
  F.Measurements = D.Measurements;
  const RandomTrial &W = D.Trials[D.Best];
  Out << fmt::format("Random search: {} candidates (#1: the defaults), "
                     "winner #{}\n",
                     D.Trials.size() - 1, D.Best);
  for (size_t T = 0; T < Names.size(); ++T)
    Out << fmt::format("  {:<16} {:.4g} weak/s (start {:.4g})\n", Names[T],
                       W.Scores[T].perSecond(),
                       D.Trials[0].Scores[T].perSecond());
  Json Trials = Json::array();
  for (const RandomTrial &T : D.Trials) {
    Json J = {{"rounds", T.Rounds}, {"note", T.Note}, {"winner", T.Winner}};
    Json Ps = Json::object(), Ws = Json::array();
    for (const std::string &N : harness::profileParamNames()) {
      harness::ProfileValue V = *harness::paramValue(T.Params, N);
      Ps[N] = V.K == harness::ProfileValue::Bool       ? Json(V.Flag)
              : V.K == harness::ProfileValue::Sequence ? Json(harness::formatStressSeq(V.Seq))
                                                       : Json(V.Num);
    }
    for (const Score &S : T.Scores)
      Ws.push_back({{"weak", S.Weak}, {"instances", S.Instances},
                    {"seconds", S.Seconds}});
    J["params"] = Ps;
    J["scores"] = Ws;
    Trials.push_back(J);
  }
  Data = {{"best", D.Best}, {"trials", Trials}};
  PlotName = "random-search.svg";
  Plot = randomSearchSvg(D, Names);
  F.Summary["winner"] = std::to_string(D.Best);
  if (D.Best != 0 || !HaveInput)
    for (const std::string &N : harness::profileParamNames())
      if (N != "loc-distance")
        Prof.Params[N] = *harness::paramValue(W.Params, N);
  return true;
}

/// --quick's settings: the random mode, a budget of at most
/// QuickBudgetSeconds, and fewer candidates, rounds and launches than a
/// full search unless given. False (with a diagnostic) for another mode or
/// a longer budget.
bool quickSettings(TuneCommand &Cmd, DiagnosticEngine &Diags) {
  if (!Cmd.Mode.empty() && Cmd.Mode != "random") {
    Diags.error("--quick is a random search; it does not take the mode '" +
                Cmd.Mode + "'");
    return false;
  }
  Cmd.Mode = "random";
  double S = 0;
  if (Cmd.Budget.empty())
    Cmd.Budget = fmt::format("{}s", QuickBudgetSeconds);
  else if (parseDuration(Cmd.Budget, S) && S > QuickBudgetSeconds) {
    Diags.error(fmt::format("--quick takes at most {} s; --budget {} is "
                            "longer (leave --quick out for a longer search)",
                            QuickBudgetSeconds, Cmd.Budget));
    return false;
  }
  // On the H200 these took 3 s (docs/tune.md); the budget bounds slower
  // chips.
  if (!Cmd.Explicit.count("candidates"))
    Cmd.Candidates = 40;
  if (!Cmd.Explicit.count("rounds"))
    Cmd.Rounds = 2;
  return true;
}

/// Checks the mode, budget, option ranges, output paths and tests before
/// any work; false (with a diagnostic) at the first that is wrong.
bool checkOptions(const TuneCommand &Cmd, double &BudgetS,
                  DiagnosticEngine &Diags) {
  if (Cmd.Mode != "patch" && Cmd.Mode != "sequence" && Cmd.Mode != "spread" &&
      Cmd.Mode != "random") {
    Diags.error(Cmd.Mode.empty()
                    ? std::string("no tune mode given (expected patch, "
                                  "sequence, spread, random or --quick)")
                    : "unknown tune mode '" + Cmd.Mode +
                          "' (expected patch, sequence, spread or random)");
    return false;
  }
  if (!Cmd.Budget.empty() && !parseDuration(Cmd.Budget, BudgetS)) {
    Diags.error("--budget: expected a duration like 90s, 5m or 1h, got '" +
                Cmd.Budget + "'");
    return false;
  }
  if (!Cmd.Budget.empty() && BudgetS <= 0) {
    // 0 used to mean "no limit": leave the option out for that.
    Diags.error("--budget must be more than 0 (leave it out for no limit)");
    return false;
  }
  // The tool checks these as it reads them; a library caller gets the same
  // ranges.
  for (auto [Name, V, R] :
       {std::tuple<const char *, uint64_t, IntRange>{"--max-offset",
                                                     Cmd.MaxOffset,
                                                     MaxOffsetRange},
        {"--phase", Cmd.Phase, PhaseRange},
        {"--epsilon", Cmd.Epsilon, EpsilonRange},
        {"--max-length", Cmd.MaxLength, MaxLengthRange},
        {"--max-spread", Cmd.MaxSpread, MaxSpreadRange},
        {"--samples", Cmd.Samples, SamplesRange},
        {"--candidates", Cmd.Candidates, CandidatesRange},
        {"--rounds", Cmd.Rounds, RoundsRange}})
    if (!R.contains(V)) {
      Diags.error(std::string(Name) + " " + outOfRange(R, V));
      return false;
    }
  // The results are written after the search: check where first.
  std::string WriteError;
  if (!checkOutputs({Cmd.Out}, {Cmd.ProfileIn}, WriteError) ||
      (!Cmd.PlotsDir.empty() && !checkWritableDir(Cmd.PlotsDir, WriteError))) {
    Diags.error(WriteError);
    return false;
  }
  if (Cmd.Tests.empty()) {
    Diags.error("--tests: no test given");
    return false;
  }
  return true;
}

/// The run parameters the search starts from: the input profile, then the
/// options given explicitly; false (with a diagnostic) on a bad one.
bool startingParams(const TuneCommand &Cmd, harness::RunParams &Params,
                    std::optional<harness::Profile> &In,
                    DiagnosticEngine &Diags) {
  Params.Iterations = 10; // per point; --iterations overrides
  // As in the paper, the number of stressing threads varies per launch
  // (CUDA: thread randomisation draws it); a profile or --no-randomise
  // overrides this.
  Params.Inc.Randomise = true;
  if (!Cmd.ProfileIn.empty()) {
    In = harness::readProfile(Cmd.ProfileIn, Diags);
    if (!In)
      return false;
    harness::applyProfile(*In, Params);
  }
  harness::RunParams Given = Cmd.Params;
  if (!Cmd.StressSeq.empty()) {
    std::string E;
    if (!harness::parseStressSeq(Cmd.StressSeq, Given.Inc.StressSeq, E)) {
      Diags.error("--stress-seq: " + E);
      return false;
    }
  }
  for (const std::string &Name : Cmd.Explicit)
    if (auto V = harness::paramValue(Given, Name))
      harness::setParam(Params, Name, *V);
  if (Cmd.Explicit.count("iterations"))
    Params.Iterations = Given.Iterations;
  if (Params.Iterations == 0) {
    Diags.error("--iterations must be at least 1");
    return false;
  }
  Params.Seed = Cmd.Seed;
  return true;
}

/// The location distances and stress offsets the search walks; false (with
/// a diagnostic) on a list that is malformed or out of range.
bool searchLayouts(const TuneCommand &Cmd, std::vector<uint32_t> &Distances,
                   std::vector<uint32_t> &Offsets, DiagnosticEngine &Diags) {
  std::string RangeError;
  std::string DistText = Cmd.Distances.empty()
                             ? (Cmd.Mode == "patch" ? "1,32:257:32" : "32:257:96")
                             : Cmd.Distances;
  if (Cmd.Mode != "random" && !parseRange(DistText, Distances, RangeError)) {
    Diags.error("--distances: " + RangeError);
    return false;
  }
  if (Cmd.Mode == "patch" &&
      !parseRange(Cmd.Offsets.empty() ? "4:256:8" : Cmd.Offsets, Offsets,
                  RangeError)) {
    Diags.error("--offsets: " + RangeError);
    return false;
  }
  for (size_t I = 1; I < Offsets.size(); ++I)
    if (Offsets[I] <= Offsets[I - 1] ||
        Offsets[I] - Offsets[I - 1] != Offsets[1] - Offsets[0]) {
      Diags.error("--offsets: offsets must rise in equal steps (a patch's "
                  "size is counted in steps)");
      return false;
    }
  for (uint32_t D : Distances)
    if (D == 0) {
      Diags.error("--distances: a distance must be at least 1 word");
      return false;
    }
  // Distances and offsets become loc-distance and stress-offset: the
  // ranges of those run parameters.
  for (auto [Name, List, R] :
       {std::tuple<const char *, const std::vector<uint32_t> *, IntRange>{
            "--distances", &Distances, harness::paramRange("loc-distance")},
        {"--offsets", &Offsets, harness::paramRange("stress-offset")}})
    for (uint32_t V : *List)
      if (!R.contains(V)) {
        Diags.error(std::string(Name) + ": each " + outOfRange(R, V));
        return false;
      }
  return true;
}

/// --quick without --profile: starts from the chip's shipped profile, or
/// its family's, where there is one.
void startFromShippedProfile(const TuneCommand &Cmd,
                             const backends::ChosenBackend &Ch,
                             harness::RunParams &Params,
                             std::optional<harness::Profile> &In,
                             std::ostream &Out) {
  std::vector<harness::DeviceInfo> Devs = Ch.B->devices();
  if (Ch.Device >= Devs.size())
    return;
  const harness::DeviceInfo &Dev = Devs[Ch.Device];
  std::string Arch =
      std::string(Ch.B->name()) == "cuda" ? Dev.Version : std::string();
  if (auto S = harness::findShippedProfile(Dev.Name, Ch.B->name(), Arch)) {
    harness::applyProfile(S->Prof, Params, Cmd.Explicit);
    Out << "Starting from " << S->Path << " (made on " << S->Prof.Chip
        << ")\n";
    In = S->Prof;
    In->Findings.clear();
    In->BudgetSeconds = 0;
  }
}

/// Records the search's finding and the chip it ran on in the profile,
/// replacing an earlier finding of the same mode.
void recordFinding(const TuneCommand &Cmd, const BackendMeasurer &M,
                   double BudgetS, const std::vector<std::string> &Names,
                   const harness::ProfileFinding &F, harness::Profile &Prof) {
  if (M.Seen) {
    Prof.Chip = M.Info.Name;
    Prof.Backend = M.Info.Backend;
    Prof.Driver = M.Info.Driver.empty() ? M.Info.Version : M.Info.Driver;
    Prof.Arch = M.Info.Backend == "cuda" ? M.Info.Version : std::string();
  }
  Prof.Date = utcNowIso();
  Prof.Tool = Cmd.ToolVersion;
  Prof.Seed = Cmd.Seed;
  Prof.BudgetSeconds += BudgetS;
  Prof.Tests = Names;
  // One finding per mode: a rerun replaces the earlier one.
  std::erase_if(Prof.Findings, [&](const harness::ProfileFinding &X) {
    return X.Mode == F.Mode;
  });
  Prof.Findings.push_back(F);
}

/// Writes the plot and the profile where asked; the exit code (3 when one
/// cannot be written).
int writeResults(const TuneCommand &Cmd, const Session &S,
                 const harness::Profile &Prof, std::ostream &Out,
                 DiagnosticEngine &Diags) {
  if (!Cmd.PlotsDir.empty() && !S.Plot.empty()) {
    std::error_code EC;
    std::filesystem::create_directories(Cmd.PlotsDir, EC);
    std::string Path =
        (std::filesystem::path(Cmd.PlotsDir) / S.PlotName).string();
    std::string E;
    if (!writeOutputFile(Path, S.Plot, E)) {
      Diags.error(E);
      return 3;
    }
    Out << "wrote " << Path << '\n';
  }
  if (!Cmd.Out.empty()) {
    std::string E;
    if (!harness::writeProfile(Prof, Cmd.Out, E)) {
      Diags.error(E);
      return 3;
    }
    Out << "wrote " << Cmd.Out << '\n';
    if (Cmd.Quick)
      Out << "Run tests with it: incant run --profile " << Cmd.Out
          << " TEST.litmus (or copy it into the shipped profiles/ folder)\n";
  }
  return 0;
}

} // namespace

int runTune(const TuneCommand &Asked, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  TuneCommand Cmd = Asked;
  if (Cmd.Quick && !quickSettings(Cmd, Diags))
    return 2;
  double BudgetS = 0;
  if (!checkOptions(Cmd, BudgetS, Diags))
    return 2;
  harness::RunParams Params;
  std::optional<harness::Profile> In;
  std::vector<uint32_t> Distances, Offsets;
  if (!startingParams(Cmd, Params, In, Diags) ||
      !searchLayouts(Cmd, Distances, Offsets, Diags))
    return 2;

  std::vector<litmus::LoadedTest> Tests;
  std::vector<std::string> Names;
  for (const std::string &T : Cmd.Tests) {
    auto L = litmus::loadTest(testPath(T), Diags);
    if (!L)
      return 2;
    Names.push_back(L->Prog.Name);
    Tests.push_back(std::move(*L));
  }

  Expected<backends::ChosenBackend> Ch =
      backends::chooseBackend(Cmd.Backend, Cmd.Device, Diags);
  if (!Ch)
    return exitCodeOf(Ch.error());
  if (std::string(Ch->B->name()) != "cuda" && Cmd.Mode != "random")
    Diags.report(Severity::Warning, nullptr, {},
                 std::string("the ") + Ch->B->name() +
                     " harness ignores location distances and stress offsets "
                     "(CUDA kernel arguments): this " + Cmd.Mode +
                     " search measures noise around one layout");
  if (Cmd.Quick && !In)
    startFromShippedProfile(Cmd, *Ch, Params, In, Out);
  BackendMeasurer M(*Ch->B, Ch->Device, Tests);
  Budget B(BudgetS, &Err);

  harness::Profile Prof = In ? *In : harness::Profile();
  harness::ProfileFinding F;
  F.Mode = Cmd.Mode;

  Session S{Cmd, M, B, Params, Names, Distances, Offsets, Out,
            std::string(Ch->B->name()) == "cuda", In.has_value(), Prof, F,
            std::max<uint32_t>(Params.Inc.StressPatch, 1), {}, {}, {}, true};
  bool Ran = Cmd.Mode == "patch"      ? S.patch()
             : Cmd.Mode == "sequence" ? S.sequence()
             : Cmd.Mode == "spread"   ? S.spread()
                                      : S.random();
  if (!Ran) {
    Diags.error("no measurement could run on " + std::string(Ch->B->name()) +
                " device " + std::to_string(Ch->Device) + ": " + M.LastError);
    return exitCodeOf(M.LastKind);
  }
  if (!S.Complete)
    Out << "Note: incomplete: the budget ran out before the search "
           "finished; the choice uses the points measured\n";
  F.Summary["complete"] = S.Complete ? "yes" : "no";
  F.Seconds = B.elapsed();
  F.DataJson = dumpJson(S.Data);
  Out << fmt::format("Measurements {} in {:.1f} s\n", F.Measurements,
                     F.Seconds);
  recordFinding(Cmd, M, BudgetS, Names, F, Prof);
  return writeResults(Cmd, S, Prof, Out, Diags);
}

} // namespace incant::tune
