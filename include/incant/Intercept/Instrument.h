//===- Instrument.h - Rewriting a PTX module for run-time control -*- C++ -*-===//
//
// The instrumenting build runs every PTX module through one pipeline before
// ptxas assembles it (PtxasWrapper.h):
//
//   parse (lib/PTX) -> control variables -> passes, in order -> per-kernel
//   control words and the manifest -> validate (lib/IR) -> print
//
// A pass sees the unit (Unit below): the module, a Rewriter, the IR rebuilt
// after each batch of edits, and the manifest it adds sites to. Passes
// change kernels only through the Rewriter and the AST (never by text
// substitution) and add the variables the injected library sets under names
// of their own (runtime/incant_control.h). Thread-id randomisation is the
// pass "randomise"; switchable fences and access logging are passes of the
// same kind.
//
// A module that already carries a unit variable is left as it is, so the
// rewrite is idempotent: nvcc runs ptxas once per real architecture on the
// same PTX file (`-gencode` for several), and the first run rewrites it in
// place.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INTERCEPT_INSTRUMENT_H
#define INCANT_INTERCEPT_INSTRUMENT_H

#include "incant/IR/FunctionIR.h"
#include "incant/IR/Rewriter.h"
#include "incant/Intercept/Manifest.h"
#include "incant/PTX/Module.h"
#include "incant/Support/Diagnostic.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::intercept {

/// The static race checker's verdict on one access: Safe (every pair it is
/// in proved safe), Unknown, or Race (in a pair with a race); worse
/// verdicts compare greater.
enum class StaticVerdict { Safe, Unknown, Race };

/// "safe", "unknown", "race": the spelling of manifests and of the static
/// checker's answers (StaticVerdicts.h).
const char *staticVerdictName(StaticVerdict V);
std::optional<StaticVerdict> parseStaticVerdict(std::string_view Name);

/// The static race checker's verdicts on memory accesses of a module as it
/// was parsed, by the byte offset of the instruction in the PTX text
/// (SourceRange::Begin.Offset). Accesses it does not list are unchecked.
using RaceVerdicts = std::map<uint32_t, StaticVerdict>;

/// The static race checker as pass "race" asks it (the tool provides it
/// where incant has the static checker: this part does not depend on it):
/// the verdicts on a module as parsed, or nullopt with the reason why it
/// could not check the module.
using RaceOracle = std::function<std::optional<RaceVerdicts>(
    const ptx::Module &, std::string &Error)>;

/// A module being instrumented, as a pass sees it.
class Unit {
public:
  Unit(ptx::Module &M, std::string Id, DiagnosticEngine &Diags,
       UnitManifest &Manifest);

  ptx::Module &module() { return *M; }
  ir::Rewriter &rewriter() { return RW; }
  DiagnosticEngine &diags() { return *Diags; }
  UnitManifest &manifest() { return *Man; }
  const std::string &id() const { return Id; }

  /// The IR of the module as it is now (rebuilt after applyEdits()).
  const ir::ModuleIR &ir();
  /// Makes the rewriter's queued edits; the IR is rebuilt on next use.
  void applyEdits();

  /// The manifest record of function \p Name (every defined function has
  /// one).
  FunctionRecord &function(std::string_view Name);
  /// Records a change at body item \p Item of \p F (for its PTX line and
  /// source location) and returns the site's id.
  uint32_t addSite(std::string Pass, const ir::FunctionIR &F, unsigned Item,
                   std::string Kind);

  /// The static verdicts on the module as parsed (pass "race" prunes the
  /// accesses proved safe), or null when none were asked for.
  const RaceVerdicts *raceVerdicts() const {
    return Verdicts ? &*Verdicts : nullptr;
  }
  void setRaceVerdicts(RaceVerdicts V) { Verdicts = std::move(V); }

  /// A label no item of function \p Func (a module item index) declares
  /// and that no earlier call returned: \p Prefix followed by a number.
  std::string freshLabel(unsigned Func, std::string_view Prefix);

private:
  ptx::Module *M;
  std::string Id;
  DiagnosticEngine *Diags;
  UnitManifest *Man;
  ir::Rewriter RW;
  std::unique_ptr<ir::ModuleIR> IR;
  unsigned NextLabel = 0;
  std::optional<RaceVerdicts> Verdicts;
};

/// One rewriting step of the pipeline.
class Pass {
public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  /// Rewrites \p U; false after reporting an error to U.diags().
  virtual bool run(Unit &U) = 0;
};

/// The pass called \p Name, or null.
std::unique_ptr<Pass> createPass(std::string_view Name);
/// Every pass name, in the order the pipeline runs them.
const std::vector<std::string> &passNames();

struct InstrumentOptions {
  /// Passes to run (each name from passNames()); run in passNames() order.
  std::vector<std::string> Passes = {"randomise"};
  /// Mixed into the unit id with the PTX text, so that two compilations of
  /// the same source link together (-rdc): the output path and arch.
  std::string Salt;
  /// The PTX file's name, recorded in the manifest.
  std::string PtxFile;
  /// For pass "race": the static race checker, run on the module before
  /// any pass changes it. Nullopt from it, or no oracle, instruments every
  /// access; the reason becomes a note in the manifest.
  RaceOracle StaticRaces;
};

enum class InstrumentStatus {
  Rewritten,           ///< Ptx holds the instrumented module.
  AlreadyInstrumented, ///< The module carries a unit already; Ptx is empty.
  Error,               ///< Diagnostics say why.
};

struct InstrumentResult {
  InstrumentStatus Status = InstrumentStatus::Error;
  std::string Ptx;
  UnitManifest Manifest;
};

/// Parses \p File, rewrites it and prints the result.
InstrumentResult instrumentPtx(std::shared_ptr<const SourceFile> File,
                               const InstrumentOptions &Opts,
                               DiagnosticEngine &Diags);

/// Rewrites a parsed module in place (the pipeline without parse and
/// print); \p Manifest receives the unit's record. False after an error.
bool instrumentModule(ptx::Module &M, const std::string &Id,
                      const InstrumentOptions &Opts, DiagnosticEngine &Diags,
                      UnitManifest &Manifest);

/// Whether \p M already carries a unit variable (INCANT_UNIT_PREFIX).
bool isInstrumented(const ptx::Module &M);

} // namespace incant::intercept

#endif // INCANT_INTERCEPT_INSTRUMENT_H
