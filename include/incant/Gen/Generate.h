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

#include <cstdint>
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
  /// CTA; the variant is skipped where none does).
  std::string Memory = "global";
};

struct GenOptions {
  std::vector<FamilyOptions> Families;
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
  uint64_t Cycles = 0;     ///< Concrete cycles tried.
  uint64_t Impossible = 0; ///< Cycles no test can realise (skipped).
  uint64_t Isomorphic = 0; ///< Tests dropped as isomorphic to an earlier one.
};

/// Generates every family of \p Opts. Malformed options are reported to
/// \p Diags (with the option's text as the file) and give nullopt.
std::optional<std::vector<GeneratedTest>>
generate(const GenOptions &Opts, DiagnosticEngine &Diags,
         GenStats *Stats = nullptr);

/// Builds the test of one concrete cycle (no generic fence or level left).
/// \p AccessName names the access variant in the test's name (empty: from
/// the events' kinds). On failure returns nullopt and sets \p Why.
std::optional<GeneratedTest> buildTest(const Cycle &C, bool Shared,
                                       const std::string &AccessName,
                                       std::string &Why);

struct GenCommand {
  GenOptions Opts;
  std::string OutDir;
  bool List = false; ///< Print names and cycles instead of writing files.
};

/// `incant gen`: writes OutDir/NAME.litmus for each test and a summary line.
int runGen(const GenCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::gen

#endif // INCANT_GEN_GENERATE_H
