//===- Summary.h - What a PTX kernel does with memory and sync --*- C++ -*-===//
//
// The per-function summary that `incant ptx` prints: global, shared and
// generic loads and stores, asynchronous copies, atomics (operation,
// semantics, scope), fences, barriers, calls and loops, each with its
// source location and PTX line.
//
// Atomics and reductions show their effective semantics and scope: the PTX
// ISA reads an `atom`/`red` without `.sem` as `.relaxed` and without a scope
// as `.gpu`; `membar.cta/gl/sys` is a fence.sc at cta/gpu/sys scope.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_SUMMARY_H
#define INCANT_IR_SUMMARY_H

#include "incant/IR/FunctionIR.h"

#include <nlohmann/json_fwd.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace incant::ir {

enum class EventKind { Load, Store, AsyncCopy, Atomic, Fence, Barrier, Call };
/// "load", "store", "async copy", "atomic", "fence", "barrier", "call".
const char *eventKindName(EventKind K);

/// One instruction the summary reports.
struct SummaryEvent {
  EventKind Kind = EventKind::Load;
  /// State space without the dot: "global", "shared", "generic", ...
  std::string Space;
  /// Atomics: "add", "cas", ...; fences: "fence", "membar", "proxy";
  /// barriers: the instruction's name with its first modifier ("bar.sync");
  /// calls: the callee, or "indirect %rd8" for a call through a register.
  std::string Op;
  std::string Sem;   ///< Effective semantics ("relaxed", "sc", ...) or "".
  std::string Scope; ///< Effective scope ("cta", "gpu", ...) or "".
  /// How the text summary groups it: "global" for loads and stores,
  /// "atom.relaxed.gpu.global.exch" (effective semantics and scope),
  /// "fence.sc.gpu", "membar.gl", "bar.sync", "cp.async".
  std::string Brief;
  std::string Text;  ///< The instruction as printed.
  unsigned Item = 0; ///< Its body index in the function.
  uint32_t PtxLine = 0;
  unsigned LoopDepth = 0;
  DebugLoc Loc;
};

struct LoopSummary {
  unsigned Depth = 1;
  unsigned Blocks = 0;
  uint32_t PtxLine = 0; ///< Of the header's first item (label).
  /// The loop statement's location: that of the branch closing the first
  /// latch (the loop condition), else of the first instruction of the loop
  /// with a line.
  DebugLoc Loc;
};

struct FunctionSummary {
  std::string Name;
  std::string Demangled; ///< Empty if the name is not a C++ mangled name.
  bool IsEntry = false;
  uint32_t PtxLine = 0;
  unsigned Blocks = 0, Instructions = 0;
  std::vector<SummaryEvent> Events;
  std::vector<LoopSummary> Loops;
};

struct ModuleSummary {
  std::string File; ///< The PTX file's name as given.
  std::vector<FunctionSummary> Functions;
};

ModuleSummary summarize(const ModuleIR &IR);

/// The event instruction \p Item of \p F is (with its location and loop
/// depth), or nullopt if the summary does not report it.
std::optional<SummaryEvent> summaryEvent(const FunctionIR &F, unsigned Item);

/// The summary as text; \p Verbose adds one line per event with its PTX
/// line, instruction and whole inlining chain.
void printSummary(const ModuleSummary &S, bool Verbose, std::ostream &OS);
nlohmann::json summaryToJson(const ModuleSummary &S);
/// A source location as JSON: {"source": the user's frame or null,
/// "frames": the whole inlining chain}.
nlohmann::json debugLocToJson(const DebugLoc &L);

/// The demangled C++ name, or "" if \p Name is not a mangled name.
std::string demangle(const std::string &Name);

/// Whether the kernel \p Mangled is the one a user named \p Want (as
/// --kernel takes it): its PTX name; its demangled name with or without
/// its parameters; its qualified name or its last components ("k",
/// "ns::k", "app::ns::k" for app::ns::k(int*)), with or without the
/// "(anonymous namespace)::" components; for an instance of a function
/// template, also without the template arguments ("reduce2<int>" or
/// "reduce2" for `void reduce2<int>(int*, int*, unsigned int)`).
bool kernelNameMatches(const std::string &Mangled, const std::string &Want);

/// The kernel's demangled name without its parameters and the return type
/// a template instance writes ("app::(anonymous namespace)::k",
/// "reduce2<int>"); \p Mangled itself if it is not a mangled name.
std::string qualifiedKernelName(const std::string &Mangled);

/// The error when --kernel \p Want matches no kernel of \p IR: "no kernel
/// named 'WANT'; the module's kernels: k (_Z1kPi), ..." ("the module has
/// no kernel (.entry)" when \p Want is empty).
std::string noKernelNamed(const ModuleIR &IR, const std::string &Want);

} // namespace incant::ir

#endif // INCANT_IR_SUMMARY_H
