//===- Tune.h - Tuning memory stress per chip (PLDI'16 section 3) -*- C++ -*-===//
//
// The search logic of `incant tune`, kept apart from any device: it asks a
// Measurer "how many weak outcomes did test T show under RunParams P in
// P.Iterations launches?" and turns the answers into choices. Unit tests
// feed it synthetic Measurers; TuneCommand.cpp gives it a real backend.
//
// The four modes follow the paper, adapted to parallel testing (every
// launch runs many instances of one test, each with its own locations):
//  - patch: for distances d between the test's two locations and stress
//    offsets l (words past an instance's first location), count weak
//    outcomes; find the epsilon-patches and the critical patch size.
//  - sequence: score every access sequence (ld|st)^k, k <= N, per test;
//    pick the Pareto-optimal one, breaking ties by "better on most tests".
//  - spread: stress m = 1..M patch-sized regions at once; pick the
//    Pareto-optimal m the same way.
//  - random: random search over the parallel-testing parameters, each
//    candidate measured in rounds until its Wilson intervals separate from
//    the incumbent's (or the rounds run out).
//
// Determinism: every choice of points, order and random candidate comes
// from the seed, so the same seed on the same measurements gives the same
// profile; on a real chip measurements vary between runs (docs/tune.md).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TUNE_TUNE_H
#define INCANT_TUNE_TUNE_H

#include "incant/Harness/Params.h"
#include "incant/Harness/Stats.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace incant::tune {

/// What one measurement saw.
struct Measurement {
  uint64_t Weak = 0;      ///< Instances that showed the weak outcome.
  uint64_t Instances = 0; ///< Instances run.
  double Seconds = 0;     ///< Time spent in launches.
};

/// Measures weak outcomes of test \p Test (an index into the tuner's test
/// list) under \p P for P.Iterations launches. nullopt with \p Error set
/// when the point cannot run (the search skips it and says so).
class Measurer {
public:
  virtual ~Measurer();
  virtual std::optional<Measurement>
  measure(size_t Test, const harness::RunParams &P, std::string &Error) = 0;
};

/// Wall-clock budget and progress for a search.
class Budget {
public:
  /// \p Seconds <= 0: unlimited.
  explicit Budget(double Seconds = 0, std::ostream *Progress = nullptr);
  bool expired() const;
  double elapsed() const;
  double seconds() const { return Limit; }
  /// "[tune patch] 12/80 d=32 l=64 ..." on the progress stream, at most
  /// a few lines per second (always the first and the last).
  void progress(const std::string &Mode, uint64_t Done, uint64_t Total,
                const std::string &What);

private:
  double Limit;
  std::ostream *OS;
  std::chrono::steady_clock::time_point Start, LastPrint;
  bool Printed = false;
};

//===--- Patch finding (section 3.2) -------------------------------------===//

struct PatchOptions {
  std::vector<uint32_t> Distances; ///< d values (words); each >= 1.
  std::vector<uint32_t> Offsets;   ///< l values (words), equally spaced.
  uint64_t Epsilon = 3;            ///< Noise threshold (the paper's 3).
};

/// Weak counts per test, distance and offset: Weak[t][di][li]. A point
/// that could not run (or that the budget cut) holds nullopt.
struct PatchData {
  std::vector<uint32_t> Distances, Offsets;
  std::vector<std::vector<std::vector<std::optional<uint64_t>>>> Weak;
  uint64_t Measurements = 0;
  bool Complete = true;
};

/// A maximal run of offsets whose counts exceed epsilon.
struct Patch {
  uint32_t First = 0; ///< Index into Offsets.
  uint32_t Length = 0; ///< Offsets in the run.
};

/// The maximal runs of \p Row (one test, one distance) above \p Epsilon;
/// a missing point ends a run.
std::vector<Patch> epsilonPatches(const std::vector<std::optional<uint64_t>> &Row,
                                  uint64_t Epsilon);

struct PatchAnalysis {
  /// Per test: size in words (run length times the offset step) -> number
  /// of epsilon-patches of that size over all distances.
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> SizeCounts;
  /// Per test: the size with the most patches (0: no patch at all).
  std::vector<uint32_t> ModeSize;
  /// The critical patch size: the ModeSize all tests agree on.
  std::optional<uint32_t> Critical;
  /// What to use when they do not agree: the size most tests chose (ties:
  /// the larger count, then the smaller size), 0 if no test saw a patch.
  uint32_t Suggested = 0;
};

PatchAnalysis analysePatches(const PatchData &D, uint64_t Epsilon);

PatchData runPatch(Measurer &M, size_t NumTests, const harness::RunParams &Base,
                   const PatchOptions &O, Budget &B);

//===--- Pareto choice (sections 3.3, 3.4) -------------------------------===//

/// Indices of the candidates no other candidate beats strictly on every
/// test (the paper's "maximally effective"), in input order.
/// Scores[c][t]: candidate c's score on test t.
std::vector<size_t> paretoOptimal(const std::vector<std::vector<double>> &Scores);

/// The paper's tie-break among Pareto-optimal candidates: the one that is
/// more effective than each other one on most tests. If no single candidate
/// wins every such duel: the most duels won, then the best sum of
/// per-test ranks, then the first in input order. Returns an index into
/// \p Scores; asserts there is at least one candidate.
size_t chooseBest(const std::vector<std::vector<double>> &Scores);

//===--- Access sequences (section 3.3) ----------------------------------===//

/// Every sequence (ld|st)^k for 1 <= k <= MaxLength, shorter first, loads
/// before stores at each position: 2^(N+1) - 2 sequences (62 for N = 5;
/// the paper's 63 counts the empty sequence, which the ranking shows as
/// the no-stress baseline). Accesses all use scratchpad location 0.
std::vector<std::vector<harness::StressAccess>> allSequences(uint32_t MaxLength);

/// "ld^3 st ld" as the paper writes sequences (powers for repeats).
std::string paperNotation(const std::vector<harness::StressAccess> &Seq);

struct SequenceOptions {
  uint32_t MaxLength = 5;
  std::vector<uint32_t> Distances;
  std::vector<uint32_t> Offsets; ///< Stress offsets (multiples of the patch).
  bool Baseline = true;          ///< Also measure with no stress.
};

struct SequenceData {
  std::vector<std::vector<harness::StressAccess>> Seqs;
  /// Score[s][t]: weak outcomes summed over distances and offsets.
  std::vector<std::vector<uint64_t>> Score;
  std::vector<uint64_t> BaselineScore; ///< Per test; empty if not measured.
  uint64_t Measurements = 0;
  bool Complete = true;
  size_t Best = 0;
  std::vector<size_t> Pareto;
};

SequenceData runSequence(Measurer &M, size_t NumTests,
                         const harness::RunParams &Base,
                         const SequenceOptions &O, Budget &B);
/// Fills Best and Pareto of \p D from its scores.
void chooseSequence(SequenceData &D);

//===--- Spread (section 3.4) ---------------------------------------------===//

struct SpreadOptions {
  uint32_t MaxSpread = 8;      ///< M
  uint32_t Patch = 64;         ///< P, words per region
  std::vector<uint32_t> Distances;
  uint32_t Samples = 1;        ///< Random region sets per (m, d).
  uint32_t Phase = 4;          ///< Words into each region that are stressed.
  uint64_t Seed = 1;
};

struct SpreadData {
  std::vector<uint32_t> Spreads;               ///< 1..M
  std::vector<std::vector<uint64_t>> Score;    ///< Score[m-1][t]
  uint64_t Measurements = 0;
  bool Complete = true;
  uint32_t Best = 0;                           ///< The chosen m.
};

/// The regions stressed for spread \p M out of \p MaxSpread: an arithmetic
/// set {First + k * Step | k < M} inside [0, MaxSpread), drawn from \p Draw.
/// The harness stresses StressLocs locations StressPatch words apart, so a
/// random subset of this shape is what one set of kernel arguments can
/// express (the paper draws any subset).
struct RegionSet {
  uint32_t First = 0, Step = 1;
};
RegionSet drawRegions(uint32_t M, uint32_t MaxSpread, uint64_t Draw);

SpreadData runSpread(Measurer &M, size_t NumTests,
                     const harness::RunParams &Base, const SpreadOptions &O,
                     Budget &B);
void chooseSpread(SpreadData &D);

//===--- Random search (GPUHarbor / MC Mutants style) ---------------------===//

struct RandomOptions {
  uint64_t Seed = 1;
  uint32_t Candidates = 50;   ///< Most candidates to try (budget permitting).
  uint32_t Rounds = 4;        ///< Most measurement rounds per candidate.
  uint32_t MaxGroupSize = 256; ///< Upper end of the group sizes tried.
  bool CudaKnobs = true;      ///< Also try stress-in-test offsets.
  double Z = 1.96;            ///< Normal quantile of the intervals.
  /// Tried first after the starting point (e.g. the untuned defaults, so
  /// that the winner was measured against them).
  std::optional<harness::RunParams> First;
};

/// A candidate's standing on one test: weak outcomes per second, with the
/// Wilson interval of the weak rate scaled by the measured throughput.
struct Score {
  uint64_t Weak = 0, Instances = 0;
  double Seconds = 0;
  double perSecond() const;
  double low(double Z) const;
  double high(double Z) const;
  void add(const Measurement &M);
};

/// Majority comparison over tests: +1 when \p A is clearly (intervals
/// apart) better than \p B on most tests, -1 when clearly worse on most,
/// 0 when the intervals do not yet tell.
int separated(const std::vector<Score> &A, const std::vector<Score> &B,
              double Z);
/// After the rounds: true when \p A beats \p B on most tests by point
/// estimate (ties: the geometric mean of weak/s).
bool betterByEstimate(const std::vector<Score> &A, const std::vector<Score> &B);

/// Draws the \p Index-th candidate: a pure function of (Seed, Index, Base).
harness::RunParams drawCandidate(const harness::RunParams &Base,
                                 const RandomOptions &O, uint32_t Index);

/// The \p Index-th candidate of the search when the incumbent is \p Inc:
/// odd indices draw afresh (drawCandidate from \p Base), even ones change
/// one or two knobs of the incumbent to drawCandidate's values (a local
/// step). Deterministic in (Seed, Index, Base, Inc).
harness::RunParams nextCandidate(const harness::RunParams &Base,
                                 const harness::RunParams &Inc,
                                 const RandomOptions &O, uint32_t Index);

struct RandomTrial {
  harness::RunParams Params;
  std::vector<Score> Scores; ///< Per test.
  uint32_t Rounds = 0;
  bool Winner = false;       ///< Became the incumbent.
  std::string Note;          ///< "rejected early", "accepted early", ...
};

struct RandomData {
  std::vector<RandomTrial> Trials; ///< Trials[0] is the starting point.
  size_t Best = 0;
  uint64_t Measurements = 0;
  bool Complete = true;
};

RandomData runRandom(Measurer &M, size_t NumTests,
                     const harness::RunParams &Base, const RandomOptions &O,
                     Budget &B);

} // namespace incant::tune

#endif // INCANT_TUNE_TUNE_H
