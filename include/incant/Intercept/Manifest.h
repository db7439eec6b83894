//===- Manifest.h - What the instrumenting build changed in a unit -*- C++ -*-===//
//
// Every PTX module the instrumenting build rewrites (a "unit") records what
// it changed: its functions, whether their thread ids are remapped (or why
// not), and one Site per change with its PTX line and source location (from
// `-lineinfo`). The manifest travels inside the unit itself, as the bytes of
// a global variable (runtime/incant_control.h), so a binary carries the
// manifests of all its units and `incant sites` reads them back from it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INTERCEPT_MANIFEST_H
#define INCANT_INTERCEPT_MANIFEST_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::intercept {

/// One change a pass made.
struct Site {
  uint32_t Id = 0;        ///< Unique within the unit, from 0.
  std::string Pass;       ///< The pass that made it: "randomise", ...
  std::string Function;   ///< The PTX function (mangled name).
  std::string Kind;       ///< What changed: "%ctaid.x read", ...
  uint32_t PtxLine = 0;   ///< Line in the PTX module as the compiler wrote it.
  std::string File;       ///< Source file of the `.loc`; empty if none.
  uint32_t Line = 0, Col = 0;
  /// Pass "race": the instruction, the variable or parameter its address
  /// comes from (if known) and the static checker's verdict ("safe",
  /// "race", "unknown", "unchecked"; empty when none was asked for).
  std::string Text, Object, Static;
  friend bool operator==(const Site &, const Site &) = default;
};

/// A function of the unit and what the build did to its thread ids.
struct FunctionRecord {
  std::string Name;
  bool IsEntry = false;
  bool Remapped = false;  ///< Its reads of %ctaid / %tid were rewritten.
  /// Why its ids were left alone ("" if remapped or if it reads none).
  std::string LeftAlone;
  /// A kernel that calls device functions whose id reads follow the unit's
  /// switch (so the kernel's own switch cannot differ from the unit's).
  bool CallsRemapped = false;
  /// Device functions of the unit it calls directly; "*" for an indirect
  /// call or a call of a function defined elsewhere.
  std::vector<std::string> Calls;
  friend bool operator==(const FunctionRecord &, const FunctionRecord &) =
      default;
};

/// An ordering the module had before any pass changed it (recorded by the
/// pass "fences"): a fence or membar instruction, or a memory access with
/// release or acquire semantics.
struct ExistingOrder {
  std::string Function;
  std::string Kind;     ///< "fence.sc.gpu", "atom.release.gpu (release)", ...
  uint32_t PtxLine = 0;
  std::string File;     ///< Its own source location (may be empty).
  uint32_t Line = 0, Col = 0;
  /// The place a "fence after an access" site of the same module would
  /// take for it: the source location of the access it follows (a fence;
  /// the release half of an access: the access before it) or of the
  /// access itself (an acquire). Line 0: no access comes before it.
  std::string AfterFile;
  uint32_t AfterLine = 0, AfterCol = 0;
  friend bool operator==(const ExistingOrder &, const ExistingOrder &) =
      default;
};

struct UnitManifest {
  std::string Id;       ///< 16 hex digits.
  std::string Target;   ///< `.target` of the module: "sm_90".
  std::string PtxFile;  ///< The PTX file ptxas was given.
  std::string Source;   ///< The main source file (first `.file`), if known.
  std::vector<std::string> Passes;
  std::vector<FunctionRecord> Functions;
  std::vector<Site> Sites;
  std::vector<ExistingOrder> Orders;
  std::vector<std::string> Notes;
  friend bool operator==(const UnitManifest &, const UnitManifest &) = default;
};

std::string manifestToJson(const UnitManifest &M);
/// Nullopt with \p Error set if \p Json is not a unit manifest.
std::optional<UnitManifest> manifestFromJson(std::string_view Json,
                                             std::string &Error);

/// Names of the variables a unit carries (runtime/incant_control.h).
std::string unitVarName(std::string_view Id);
std::string ctlVarName(std::string_view Id);
std::string kernelCtlName(std::string_view Kernel);

/// Whether \p Id is a unit id: 16 lowercase hex digits.
bool isUnitId(std::string_view Id);

} // namespace incant::intercept

#endif // INCANT_INTERCEPT_MANIFEST_H
