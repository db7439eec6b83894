//===- Search.cpp - The four tuning searches over a Measurer ----------------===//
//
// Each search walks its points in a fixed order drawn from the options and
// the seed, asks the Measurer, and stops when the budget runs out. Data cut
// by the budget is marked incomplete; sums only use whole rounds, so every
// candidate is scored on the same points.
//
//===----------------------------------------------------------------------===//
#include "incant/Tune/Tune.h"
#include "incant/Harness/Profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <iterator>
#include <ostream>
#include <random>

namespace incant::tune {

Budget::Budget(double Seconds, std::ostream *Progress)
    : Limit(Seconds), OS(Progress), Start(std::chrono::steady_clock::now()),
      LastPrint(Start) {}

double Budget::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       Start)
      .count();
}

bool Budget::expired() const { return Limit > 0 && elapsed() >= Limit; }

void Budget::progress(const std::string &Mode, uint64_t Done, uint64_t Total,
                      const std::string &What) {
  if (!OS)
    return;
  auto Now = std::chrono::steady_clock::now();
  bool Last = Done == Total;
  if (Printed && !Last &&
      std::chrono::duration<double>(Now - LastPrint).count() < 2.0)
    return;
  Printed = true;
  LastPrint = Now;
  *OS << fmt::format("tune {}: {}/{} ({:.0f}%) {:.0f}s{} {}\n", Mode, Done,
                     Total, Total ? 100.0 * double(Done) / double(Total) : 0,
                     elapsed(),
                     Limit > 0 ? fmt::format(" of {:.0f}s", Limit) : "", What);
  OS->flush();
}

namespace {

/// Stress on the test's memory with one location, as patch finding does.
harness::RunParams stressAt(const harness::RunParams &Base, uint32_t D,
                            uint32_t Offset) {
  harness::RunParams P = Base;
  P.LocDistance = D;
  P.Inc.MemStress = true;
  P.Inc.StressInTest = true;
  P.Inc.StressOffset = Offset;
  P.Inc.StressLocs = 1;
  return P;
}

/// Whether stressing at \p Offset would hit one of a two-location test's
/// locations at distance \p D (the backend refuses other clashes).
bool clashes(uint32_t D, uint32_t Offset) { return Offset == 0 || Offset == D; }

/// Measures one point of a grid search, counts it and reports progress.
std::optional<uint64_t> point(Measurer &M, size_t Test,
                              const harness::RunParams &P, Budget &B,
                              const char *Mode, uint64_t Done, uint64_t Total,
                              const std::string &What, uint64_t &Count) {
  std::string Error;
  std::optional<Measurement> R = M.measure(Test, P, Error);
  ++Count;
  B.progress(Mode, Done, Total,
             fmt::format("{} test {}: {}", What, Test,
                         R ? std::to_string(R->Weak) + " weak"
                           : "skipped (" + Error + ")"));
  return R ? std::optional<uint64_t>(R->Weak) : std::nullopt;
}

} // namespace

PatchData runPatch(Measurer &M, size_t NumTests, const harness::RunParams &Base,
                   const PatchOptions &O, Budget &B) {
  PatchData D;
  D.Distances = O.Distances;
  D.Offsets = O.Offsets;
  D.Weak.assign(NumTests,
                std::vector<std::vector<std::optional<uint64_t>>>(
                    O.Distances.size(),
                    std::vector<std::optional<uint64_t>>(O.Offsets.size())));
  uint64_t Total = uint64_t(NumTests) * O.Distances.size() * O.Offsets.size();
  uint64_t Done = 0;
  harness::RunParams P0 = Base;
  // The paper's stressing loop: store to, then load from, location l.
  P0.Inc.StressSeq = {{true, 0}, {false, 0}};
  for (size_t DI = 0; DI < O.Distances.size(); ++DI)
    for (size_t LI = 0; LI < O.Offsets.size(); ++LI)
      for (size_t T = 0; T < NumTests; ++T, ++Done) {
        if (B.expired()) {
          D.Complete = false;
          return D;
        }
        uint32_t Dist = O.Distances[DI], Off = O.Offsets[LI];
        if (clashes(Dist, Off))
          continue;
        D.Weak[T][DI][LI] =
            point(M, T, stressAt(P0, Dist, Off), B, "patch", Done + 1, Total,
                  fmt::format("d={} l={}", Dist, Off), D.Measurements);
      }
  return D;
}

SequenceData runSequence(Measurer &M, size_t NumTests,
                         const harness::RunParams &Base,
                         const SequenceOptions &O, Budget &B) {
  SequenceData D;
  D.Seqs = allSequences(O.MaxLength);
  D.Score.assign(D.Seqs.size(), std::vector<uint64_t>(NumTests, 0));
  if (O.Baseline)
    D.BaselineScore.assign(NumTests, 0);
  size_t PerRound = (D.Seqs.size() + (O.Baseline ? 1 : 0)) * NumTests;
  uint64_t Total = uint64_t(PerRound) * O.Distances.size() * O.Offsets.size();
  uint64_t Done = 0;
  for (uint32_t Dist : O.Distances)
    for (uint32_t Off : O.Offsets) {
      if (clashes(Dist, Off)) {
        Done += PerRound;
        continue;
      }
      // One round: every sequence (and the baseline) on every test at
      // this point; kept only if it completes.
      std::vector<std::vector<uint64_t>> Round(
          D.Seqs.size() + 1, std::vector<uint64_t>(NumTests, 0));
      for (size_t S = 0; S < D.Seqs.size() + (O.Baseline ? 1 : 0); ++S)
        for (size_t T = 0; T < NumTests; ++T, ++Done) {
          if (B.expired()) {
            D.Complete = false;
            chooseSequence(D);
            return D;
          }
          harness::RunParams P = stressAt(Base, Dist, Off);
          if (S < D.Seqs.size())
            P.Inc.StressSeq = D.Seqs[S];
          else
            P.Inc.MemStress = false; // the no-stress baseline
          Round[S][T] =
              point(M, T, P, B, "sequence", Done + 1, Total,
                    fmt::format("d={} l={} {}", Dist, Off,
                                S < D.Seqs.size() ? paperNotation(D.Seqs[S])
                                                  : "(no stress)"),
                    D.Measurements)
                  .value_or(0);
        }
      for (size_t S = 0; S < D.Seqs.size(); ++S)
        for (size_t T = 0; T < NumTests; ++T)
          D.Score[S][T] += Round[S][T];
      if (O.Baseline)
        for (size_t T = 0; T < NumTests; ++T)
          D.BaselineScore[T] += Round[D.Seqs.size()][T];
    }
  chooseSequence(D);
  return D;
}

SpreadData runSpread(Measurer &M, size_t NumTests,
                     const harness::RunParams &Base, const SpreadOptions &O,
                     Budget &B) {
  SpreadData D;
  uint32_t MaxM = std::max<uint32_t>(O.MaxSpread, 1);
  for (uint32_t S = 1; S <= MaxM; ++S)
    D.Spreads.push_back(S);
  D.Score.assign(MaxM, std::vector<uint64_t>(NumTests, 0));
  std::mt19937_64 Rng(O.Seed * 0x9E3779B97F4A7C15ull + 3);
  uint32_t Samples = std::max<uint32_t>(O.Samples, 1);
  size_t PerRound = size_t(MaxM) * NumTests;
  uint64_t Total = uint64_t(PerRound) * O.Distances.size() * Samples;
  uint64_t Done = 0;
  for (uint32_t Dist : O.Distances)
    for (uint32_t Sample = 0; Sample < Samples; ++Sample) {
      std::vector<std::vector<uint64_t>> Round(
          MaxM, std::vector<uint64_t>(NumTests, 0));
      for (uint32_t Mi = 0; Mi < MaxM; ++Mi) {
        RegionSet RS = drawRegions(Mi + 1, MaxM, Rng());
        harness::RunParams P =
            stressAt(Base, Dist, RS.First * O.Patch + O.Phase);
        P.Inc.StressLocs = Mi + 1;
        P.Inc.StressPatch = RS.Step * O.Patch;
        for (size_t T = 0; T < NumTests; ++T, ++Done) {
          if (B.expired()) {
            D.Complete = false;
            chooseSpread(D);
            return D;
          }
          Round[Mi][T] =
              point(M, T, P, B, "spread", Done + 1, Total,
                    fmt::format("d={} m={} regions {}+{}k", Dist, Mi + 1,
                                RS.First, RS.Step),
                    D.Measurements)
                  .value_or(0);
        }
      }
      for (uint32_t Mi = 0; Mi < MaxM; ++Mi)
        for (size_t T = 0; T < NumTests; ++T)
          D.Score[Mi][T] += Round[Mi][T];
    }
  chooseSpread(D);
  return D;
}

harness::RunParams drawCandidate(const harness::RunParams &Base,
                                 const RandomOptions &O, uint32_t Index) {
  // One generator per candidate: candidate i does not depend on how many
  // values earlier candidates drew.
  std::mt19937_64 Rng(O.Seed * 0x9E3779B97F4A7C15ull + Index * 0xBF58476D1CE4E5B9ull + 1);
  auto Pick = [&](std::initializer_list<uint32_t> L) {
    return *(L.begin() + Rng() % L.size());
  };
  auto Coin = [&](unsigned PercentTrue) { return Rng() % 100 < PercentTrue; };
  harness::RunParams P = Base;
  harness::Incantations &I = P.Inc;
  I.MemStress = Coin(85);
  I.StressGroups = Pick({0, 4, 16, 64, 132, 264});
  uint32_t G = Pick({32, 64, 128, 256, 512, 1024});
  P.GroupSize = std::min(G, std::max<uint32_t>(O.MaxGroupSize, 32));
  I.StressIterations = Pick({16, 32, 64, 128, 256});
  if (Coin(50)) {
    auto Seqs = allSequences(5);
    I.StressSeq = Seqs[Rng() % Seqs.size()];
  }
  I.StressLocs = Pick({1, 2, 4, 8});
  if (Coin(50))
    I.StressPatch = Pick({32, 64, 128, 256});
  I.PreStress = Coin(40);
  I.PreStressIterations = Pick({4, 8, 16, 32});
  I.SpinBarrier = Coin(70);
  I.BarrierPolls = Pick({500, 2000, 8000});
  P.Stride = Pick({1, 4, 16, 32, 64});
  // Testing blocks: all that fit, or fewer (instances per launch).
  P.Instances = O.CudaKnobs ? Pick({0, 8192, 32768, 131072})
                            : Pick({0, 256, 1024, 4096});
  if (O.CudaKnobs) {
    I.StressInTest = Coin(50);
    // Odd offsets of at least 3 never hit a location at a distance of 1
    // or of an even stride, nor do further locations an even patch apart.
    I.StressOffset = 3 + 2 * uint32_t(Rng() % 127);
  }
  I.Randomise = Coin(50);
  return P;
}

harness::RunParams nextCandidate(const harness::RunParams &Base,
                                 const harness::RunParams &Inc,
                                 const RandomOptions &O, uint32_t Index) {
  harness::RunParams Fresh = drawCandidate(Base, O, Index);
  if (Index % 2 == 1)
    return Fresh;
  static const char *const Knobs[] = {
      "mem-stress",  "stress-groups", "group-size",  "stress-iterations",
      "stress-seq",  "stress-locs",   "stress-patch", "pre-stress",
      "pre-stress-iterations", "barrier", "barrier-polls", "stride",
      "randomise",   "instances",     "stress-in-test", "stress-offset"};
  size_t NumKnobs = std::size(Knobs) - (O.CudaKnobs ? 0 : 2);
  std::mt19937_64 Rng(O.Seed * 0xD1B54A32D192ED03ull + Index);
  harness::RunParams P = Inc;
  for (int K = 0, N = 1 + int(Rng() % 2); K < N; ++K) {
    const char *Name = Knobs[Rng() % NumKnobs];
    [[maybe_unused]] bool Ok =
        harness::setParam(P, Name, *harness::paramValue(Fresh, Name));
    assert(Ok && "every knob is a profile parameter");
  }
  return P;
}

namespace {

/// One more round of \p P on every test; false if a test could not run.
bool measureRound(Measurer &M, size_t NumTests, const harness::RunParams &P,
                  std::vector<Score> &S, uint64_t &Count, Budget &B,
                  std::string &Error) {
  for (size_t T = 0; T < NumTests; ++T) {
    if (B.expired()) {
      Error = "budget spent";
      return false;
    }
    auto R = M.measure(T, P, Error);
    ++Count;
    if (!R)
      return false;
    S[T].add(*R);
  }
  return true;
}

/// The earlier trial whose setting \p P is (every profile parameter
/// alike), if any.
std::optional<size_t> sameSetting(const std::vector<RandomTrial> &Trials,
                                  const harness::RunParams &P) {
  for (size_t I = 0; I < Trials.size(); ++I) {
    bool Same = true;
    for (const std::string &N : harness::profileParamNames())
      Same = Same && harness::paramValue(Trials[I].Params, N) ==
                         harness::paramValue(P, N);
    if (Same)
      return I;
  }
  return std::nullopt;
}

} // namespace

RandomData runRandom(Measurer &M, size_t NumTests,
                     const harness::RunParams &Base, const RandomOptions &O,
                     Budget &B) {
  RandomData D;
  uint32_t Rounds = std::max<uint32_t>(O.Rounds, 1);
  // Trial 0: the starting point, measured for every round.
  RandomTrial Start;
  Start.Params = Base;
  Start.Scores.assign(NumTests, Score());
  Start.Winner = true;
  Start.Note = "starting point";
  std::string Error;
  for (uint32_t R = 0; R < Rounds; ++R) {
    if (!measureRound(M, NumTests, Base, Start.Scores, D.Measurements, B,
                      Error)) {
      if (!B.expired())
        Start.Note = "starting point: " + Error;
      break;
    }
    ++Start.Rounds;
  }
  D.Trials.push_back(Start);
  size_t Inc = 0;
  uint32_t Extra = O.First ? 1 : 0;
  uint32_t Total = std::max<uint32_t>(O.Candidates, 1) + Extra;
  B.progress("random", 0, Total, Start.Note);
  for (uint32_t C = 1; C <= Total; ++C) {
    if (B.expired()) {
      D.Complete = false;
      break;
    }
    RandomTrial T;
    T.Params = C <= Extra ? *O.First
                          : nextCandidate(Base, D.Trials[Inc].Params, O,
                                          C - Extra);
    T.Scores.assign(NumTests, Score());
    // A setting measured before is not measured again: its second
    // measurement would only be noise to win or lose by.
    if (std::optional<size_t> Seen = sameSetting(D.Trials, T.Params)) {
      T.Note = *Seen == 0 ? "skipped: the starting point's setting"
                          : fmt::format("skipped: candidate {}'s setting",
                                        *Seen);
      D.Trials.push_back(std::move(T));
      B.progress("random", C, Total,
                 fmt::format("candidate {}: {}", C, D.Trials.back().Note));
      continue;
    }
    int Sep = 0;
    bool Failed = false;
    for (uint32_t R = 0; R < Rounds; ++R) {
      if (!measureRound(M, NumTests, T.Params, T.Scores, D.Measurements, B,
                        Error)) {
        Failed = true;
        break;
      }
      ++T.Rounds;
      Sep = separated(T.Scores, D.Trials[Inc].Scores, O.Z);
      if (Sep != 0)
        break;
    }
    if (Failed) {
      T.Note = B.expired() ? "cut by the budget" : "could not run: " + Error;
      if (B.expired())
        D.Complete = false;
    } else if (Sep > 0) {
      T.Note = fmt::format("accepted after {} round(s): intervals apart",
                           T.Rounds);
      T.Winner = true;
    } else if (Sep < 0) {
      T.Note = fmt::format("rejected after {} round(s): intervals apart",
                           T.Rounds);
    } else if (betterByEstimate(T.Scores, D.Trials[Inc].Scores)) {
      T.Note = "accepted: better estimate on most tests";
      T.Winner = true;
    } else {
      T.Note = "rejected: not better on most tests";
    }
    std::string Line = fmt::format("candidate {}: {}", C, T.Note);
    D.Trials.push_back(std::move(T));
    if (D.Trials.back().Winner)
      Inc = D.Trials.size() - 1;
    B.progress("random", C, Total, Line);
  }
  D.Best = Inc;
  return D;
}

} // namespace incant::tune
