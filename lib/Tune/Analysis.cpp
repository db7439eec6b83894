//===- Analysis.cpp - Patches, Pareto choice, sequences ---------------------===//
//
// The pure parts of tuning: given counts, decide. No device, no clock.
//
//===----------------------------------------------------------------------===//
#include "incant/Tune/Tune.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

namespace incant::tune {

Measurer::~Measurer() = default;

std::vector<Patch>
epsilonPatches(const std::vector<std::optional<uint64_t>> &Row,
               uint64_t Epsilon) {
  std::vector<Patch> Out;
  uint32_t Start = 0, Len = 0;
  for (uint32_t I = 0; I <= Row.size(); ++I) {
    bool Above = I < Row.size() && Row[I] && *Row[I] > Epsilon;
    if (Above) {
      if (Len++ == 0)
        Start = I;
      continue;
    }
    if (Len)
      Out.push_back({Start, Len});
    Len = 0;
  }
  return Out;
}

PatchAnalysis analysePatches(const PatchData &D, uint64_t Epsilon) {
  PatchAnalysis A;
  uint32_t Step = D.Offsets.size() > 1 ? D.Offsets[1] - D.Offsets[0] : 1;
  for (const auto &Rows : D.Weak) {
    std::map<uint32_t, uint64_t> Count;
    for (const auto &Row : Rows)
      for (const Patch &P : epsilonPatches(Row, Epsilon)) {
        // A run reaching the last offset may continue past it: its size
        // is unknown, so it is not counted.
        if (P.First + P.Length == Row.size())
          continue;
        ++Count[P.Length * Step];
      }
    std::vector<std::pair<uint32_t, uint64_t>> Sizes(Count.begin(),
                                                     Count.end());
    uint32_t Mode = 0;
    uint64_t Best = 0;
    for (const auto &[Size, N] : Sizes)
      if (N > Best) { // ascending sizes: ties keep the smaller one
        Best = N;
        Mode = Size;
      }
    A.SizeCounts.push_back(std::move(Sizes));
    A.ModeSize.push_back(Mode);
  }
  bool Agree = !A.ModeSize.empty() && A.ModeSize[0] != 0 &&
               std::all_of(A.ModeSize.begin(), A.ModeSize.end(),
                           [&](uint32_t M) { return M == A.ModeSize[0]; });
  if (Agree)
    A.Critical = A.ModeSize[0];
  // Suggested: the size most tests chose; ties: the size with more patches
  // in total, then the smaller.
  std::map<uint32_t, std::pair<uint32_t, uint64_t>> Votes;
  for (size_t T = 0; T < A.ModeSize.size(); ++T) {
    if (!A.ModeSize[T])
      continue;
    auto &V = Votes[A.ModeSize[T]];
    ++V.first;
    for (const auto &[Size, N] : A.SizeCounts[T])
      if (Size == A.ModeSize[T])
        V.second += N;
  }
  std::pair<uint32_t, uint64_t> BestVote{0, 0};
  for (const auto &[Size, V] : Votes)
    if (V > BestVote) {
      BestVote = V;
      A.Suggested = Size;
    }
  return A;
}

std::vector<size_t>
paretoOptimal(const std::vector<std::vector<double>> &Scores) {
  std::vector<size_t> Out;
  for (size_t C = 0; C < Scores.size(); ++C) {
    bool Dominated = false;
    for (size_t O = 0; O < Scores.size() && !Dominated; ++O) {
      if (O == C)
        continue;
      bool AllBetter = !Scores[C].empty();
      for (size_t T = 0; T < Scores[C].size(); ++T)
        AllBetter &= Scores[O][T] > Scores[C][T];
      Dominated = AllBetter;
    }
    if (!Dominated)
      Out.push_back(C);
  }
  return Out;
}

size_t chooseBest(const std::vector<std::vector<double>> &Scores) {
  assert(!Scores.empty() && "nothing to choose from");
  std::vector<size_t> Front = paretoOptimal(Scores);
  if (Front.size() == 1)
    return Front[0];
  size_t NumTests = Scores[0].size();
  auto Beats = [&](size_t A, size_t B) {
    size_t Wins = 0;
    for (size_t T = 0; T < NumTests; ++T)
      Wins += Scores[A][T] > Scores[B][T];
    return 2 * Wins > NumTests;
  };
  // Per test, how many front members are strictly better (0 = best).
  auto RankSum = [&](size_t A) {
    size_t Sum = 0;
    for (size_t T = 0; T < NumTests; ++T)
      for (size_t B : Front)
        Sum += Scores[B][T] > Scores[A][T];
    return Sum;
  };
  size_t Best = Front[0], BestWins = 0, BestRank = RankSum(Front[0]);
  bool First = true;
  for (size_t A : Front) {
    size_t Wins = 0;
    for (size_t B : Front)
      Wins += A != B && Beats(A, B);
    size_t Rank = RankSum(A);
    if (First || Wins > BestWins || (Wins == BestWins && Rank < BestRank)) {
      Best = A;
      BestWins = Wins;
      BestRank = Rank;
      First = false;
    }
  }
  return Best;
}

std::vector<std::vector<harness::StressAccess>>
allSequences(uint32_t MaxLength) {
  std::vector<std::vector<harness::StressAccess>> Out;
  for (uint32_t Len = 1; Len <= MaxLength && Len <= 16; ++Len)
    for (uint32_t Bits = 0; Bits < (1u << Len); ++Bits) {
      std::vector<harness::StressAccess> S;
      // Most significant bit first, so "ld..." precedes "st..." (ld = 0).
      for (uint32_t K = 0; K < Len; ++K)
        S.push_back({bool((Bits >> (Len - 1 - K)) & 1u), 0});
      Out.push_back(std::move(S));
    }
  return Out;
}

std::string paperNotation(const std::vector<harness::StressAccess> &Seq) {
  if (Seq.empty())
    return "(none)";
  std::string Out;
  for (size_t I = 0; I < Seq.size();) {
    size_t J = I;
    while (J < Seq.size() && Seq[J].IsStore == Seq[I].IsStore)
      ++J;
    if (!Out.empty())
      Out += ' ';
    Out += Seq[I].IsStore ? "st" : "ld";
    if (J - I > 1)
      Out += '^' + std::to_string(J - I);
    I = J;
  }
  return Out;
}

static std::vector<std::vector<double>>
toDoubles(const std::vector<std::vector<uint64_t>> &S) {
  std::vector<std::vector<double>> D;
  for (const auto &Row : S)
    D.emplace_back(Row.begin(), Row.end());
  return D;
}

void chooseSequence(SequenceData &D) {
  if (D.Score.empty())
    return;
  auto S = toDoubles(D.Score);
  D.Pareto = paretoOptimal(S);
  D.Best = chooseBest(S);
}

RegionSet drawRegions(uint32_t M, uint32_t MaxSpread, uint64_t Draw) {
  RegionSet R;
  if (M <= 1 || MaxSpread <= 1) {
    R.First = MaxSpread ? uint32_t(Draw % MaxSpread) : 0;
    return R;
  }
  // Steps that keep M regions inside [0, MaxSpread).
  uint32_t MaxStep = std::max<uint32_t>((MaxSpread - 1) / (M - 1), 1);
  R.Step = 1 + uint32_t(Draw % MaxStep);
  uint32_t Span = (M - 1) * R.Step;
  uint32_t Starts = MaxSpread > Span ? MaxSpread - Span : 1;
  R.First = uint32_t((Draw / MaxStep) % Starts);
  return R;
}

void chooseSpread(SpreadData &D) {
  if (D.Score.empty())
    return;
  D.Best = D.Spreads[chooseBest(toDoubles(D.Score))];
}

double Score::perSecond() const {
  return Seconds > 0 ? double(Weak) / Seconds : 0;
}
double Score::low(double Z) const {
  if (Seconds <= 0)
    return 0;
  return harness::wilson(Weak, Instances, Z).Low * double(Instances) / Seconds;
}
double Score::high(double Z) const {
  if (Seconds <= 0)
    return 0;
  return harness::wilson(Weak, Instances, Z).High * double(Instances) /
         Seconds;
}
void Score::add(const Measurement &M) {
  Weak += M.Weak;
  Instances += M.Instances;
  Seconds += M.Seconds;
}

int separated(const std::vector<Score> &A, const std::vector<Score> &B,
              double Z) {
  size_t Better = 0, Worse = 0, N = std::min(A.size(), B.size());
  for (size_t T = 0; T < N; ++T) {
    Better += A[T].low(Z) > B[T].high(Z);
    Worse += A[T].high(Z) < B[T].low(Z);
  }
  if (2 * Better > N)
    return 1;
  if (2 * Worse > N)
    return -1;
  return 0;
}

bool betterByEstimate(const std::vector<Score> &A,
                      const std::vector<Score> &B) {
  size_t Wins = 0, Losses = 0, N = std::min(A.size(), B.size());
  double LogA = 0, LogB = 0;
  for (size_t T = 0; T < N; ++T) {
    double PA = A[T].perSecond(), PB = B[T].perSecond();
    Wins += PA > PB;
    Losses += PA < PB;
    // A small floor so one zero does not hide the other tests.
    LogA += std::log(PA + 1e-3);
    LogB += std::log(PB + 1e-3);
  }
  if (Wins != Losses)
    return Wins > Losses;
  return LogA > LogB;
}

} // namespace incant::tune
