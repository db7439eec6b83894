//===- Generate.h - Litmus tests from cycles: `incant gen` -------*- C++ -*-===//
//
// The library behind `incant gen`. A family is described by options as diy
// takes them (relaxations, safe edges, cycle size, thread count) or by named
// shapes (MP, SB, ...) crossed with fence, scope, access-kind and memory
// variants. Each cycle becomes one GPU_PTX litmus::Test (built as an AST
// and printed with printTest, so it parses by construction), named
// systematically; tests isomorphic to an earlier one (same test up to a
// permutation of threads, a renaming of locations and registers, and the
// rotation of the cycle) are dropped. Output is deterministic. docs/gen.md
// has the vocabulary, the naming scheme and the presets.
//
// Exit codes of runGen: 0 tests written; 2 a malformed option (an unknown
// relaxation, an impossible cycle given with --cycle), an empty family, or
// an output folder that cannot be written.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_GEN_GENERATE_H
#define INCANT_GEN_GENERATE_H

#include "incant/Gen/Cycle.h"
#include "incant/Litmus/AST.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Range.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace incant::gen {

/// One family. Lists are words separated by commas or blanks.
struct FamilyOptions {
  /// Explicit cycles (--cycle), each edges and event kinds.
  std::vector<std::string> Cycles;
  /// diy's enumeration: cycles of Relax and Safe edges with at least one
  /// Relax edge (all edges from Relax when Safe is empty).
  std::string Relax, Safe;
  unsigned MaxSize = 4;    ///< Most edges in an enumerated cycle.
  unsigned MaxThreads = 4; ///< Most threads (external edges) in a cycle.
  /// Named shapes (MP, SB, ...); their po edges take each entry of Fences.
  std::string Shapes;
  /// Fences for each po edge of a shape and for generic Fenced edges:
  /// fence names, `none` (plain po), `addr`, `data`, `ctrl` (dependencies,
  /// where the edge starts from a read).
  std::string Fences = "none";
  /// Scope relations for external edges written without @level.
  std::string Scopes = "gpu";
  /// Give each external edge its own level (else all take the same one).
  bool MixedScopes = false;
  /// Access-kind variants: weak, volatile, relaxed.S, atomic.S, acqrel.S
  /// (reads acquire, writes release), relacq.S (release on writes after a
  /// po edge, acquire on reads before one, the others weak).
  std::string Accesses = "weak";
  /// Memory variants: global; shared (every location whose users share a
  /// CTA; the variant is skipped where none does); dsmem (MemVariant).
  std::string Memory = "global";
};

struct GenOptions {
  std::vector<FamilyOptions> Families;
  /// Stop after this many seconds (0: no limit); the tests built so far
  /// are kept and the result is marked incomplete. The work itself is
  /// bounded by the cycle budget whatever this says.
  double TimeLimit = 0;
};

/// The families of a named preset (`campaign`, `classic`, `modern`), or an
/// empty vector if \p Name is not one.
std::vector<FamilyOptions> presetFamilies(const std::string &Name);
std::vector<std::string> presetNames();
/// The shapes --shapes knows, with their cycles.
struct Shape {
  const char *Name;
  const char *Cycle;
  const char *Doc;
};
const std::vector<Shape> &shapes();

struct GeneratedTest {
  std::string Name;
  std::string CycleText; ///< printCycle of the concrete cycle.
  litmus::Test AST;
  std::string Text;      ///< printTest(AST).
  /// Equal for two tests iff they are isomorphic: the same up to a
  /// permutation of threads and a renaming of locations and registers.
  std::string Key;
};

struct GenStats {
  uint64_t Total = 0;      ///< Concrete cycles to try (known up front).
  uint64_t Cycles = 0;     ///< Concrete cycles tried.
  uint64_t Impossible = 0; ///< Cycles no test can realise (skipped).
  uint64_t Isomorphic = 0; ///< Tests dropped as isomorphic to an earlier one.
  uint64_t Tests = 0;      ///< Tests handed out.
  bool Incomplete = false; ///< TimeLimit stopped the generation.
  std::string IncompleteReason;
};

/// The bounds of a family, each an error (exit 2) beyond: the search is
/// bounded in work before it starts. docs/gen.md states them.
constexpr unsigned MaxSizeLimit = 16;    ///< --size: 2 .. 16 edges.
constexpr unsigned MaxThreadsLimit = 32; ///< --threads: 2 .. 32.
constexpr size_t MaxCycleEdges = 64;     ///< Edges of a --cycle.
/// --timeout, in seconds.
inline constexpr RealRange TimeoutRange{0, 1e6};
/// Test names are file names: longer ones are cut, with a hash of the
/// whole name added.
constexpr size_t MaxNameLength = 120;

/// Receives each test in order; returns false to stop the generation.
using TestSink = std::function<bool(GeneratedTest &&)>;
/// Called after each template of a family with the counts so far.
using GenProgress = std::function<void(const GenStats &)>;

/// Generates every family of \p Opts, handing each test to \p Sink as it
/// is built (memory does not grow with the family). Malformed options, an
/// impossible --cycle or a family of more than a million cycles are
/// reported to \p Diags (with the option's text as the file) before any
/// test is handed out, and give nullopt; so does a Sink that stops.
std::optional<GenStats> generate(const GenOptions &Opts,
                                 DiagnosticEngine &Diags,
                                 const TestSink &Sink,
                                 const GenProgress &Progress = {});

/// The same, collected in a vector.
std::optional<std::vector<GeneratedTest>>
generate(const GenOptions &Opts, DiagnosticEngine &Diags,
         GenStats *Stats = nullptr);

/// Where a test's locations live: global memory; shared memory of the one
/// CTA that uses each (where one does); or distributed shared memory: each
/// location whose users share a cluster lives in the shared memory of its
/// first user's CTA, and threads of the cluster's other CTAs reach it
/// through mapa and .shared::cluster accesses.
enum class MemVariant : uint8_t { Global, Shared, Dsmem };

/// Builds the test of one concrete cycle (no generic fence or level left).
/// \p AccessName names the access variant in the test's name (empty: from
/// the events' kinds). On failure returns nullopt and sets \p Why.
std::optional<GeneratedTest> buildTest(const Cycle &C, MemVariant Mem,
                                       const std::string &AccessName,
                                       std::string &Why);
inline std::optional<GeneratedTest> buildTest(const Cycle &C, bool Shared,
                                              const std::string &AccessName,
                                              std::string &Why) {
  return buildTest(C, Shared ? MemVariant::Shared : MemVariant::Global,
                   AccessName, Why);
}

} // namespace incant::gen

#endif // INCANT_GEN_GENERATE_H
