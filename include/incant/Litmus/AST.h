//===- AST.h - The parsed form of a litmus test ------------------*- C++ -*-===//
//
// One AST for both litmus dialects incant reads:
//
//  - GPU_PTX (Sorensen 2014, Alglave et al. ASPLOS'15): typed register
//    declarations `0:.reg .s32 r0;`, `T0 | T1 ;` columns, a ScopeTree and a
//    memory map, conditions like `0:r2=0`.
//  - PTX (the Dat3M format): untyped inits `P1:r1=0;`, headers
//    `P0@cta 0,gpu 0`, bare locations as addresses (`ld.weak r0, x`),
//    conditions like `P1:r0 == 1`.
//
// The AST keeps what the file says; resolving names and checking the test
// is lower()'s job (Lower.h). Every node has the SourceRange of its text.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LITMUS_AST_H
#define INCANT_LITMUS_AST_H

#include "incant/Litmus/Program.h"
#include "incant/PTX/Instruction.h"
#include "incant/Support/Diagnostic.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::litmus {

enum class Arch : uint8_t { GPU_PTX, PTX };

/// An integer or a location name (whose address is the value).
struct ValueExpr {
  bool IsLoc = false;
  int64_t Int = 0;
  bool Hex = false;
  std::string Loc;
  SourceRange Range;
};

/// One item of the init block `{ ... }`.
struct InitItem {
  enum Kind : uint8_t {
    RegDecl, ///< `0:.reg .s32 r0;` or `1:.reg .b64 r1 = x;`
    RegInit, ///< `P1:r1=0;` (untyped)
    LocInit, ///< `x=1;`
    Alias,   ///< `y @ generic aliases x;` (Dat3M: virtual aliases, proxies)
  } K = LocInit;
  int32_t Thread = -1; ///< For RegDecl/RegInit.
  SourceRange ThreadRange;
  ptx::Type Ty;        ///< For RegDecl.
  SourceRange TypeRange;
  std::string Name;
  SourceRange NameRange;
  std::optional<ValueExpr> Init;
  /// For Alias: the proxy written (generic, surface, texture, constant) and
  /// the location aliased.
  ptx::Proxy AliasProxy = ptx::Proxy::Generic;
  std::string Target;
  SourceRange TargetRange;
  SourceRange Range;
};

/// A column header: `T0`, `P0`, `P0@cta 0,gpu 0`, `P0@cta 0,cluster 0,gpu 0`.
struct ThreadHeader {
  int32_t Id = 0;
  bool HasPlacement = false;
  int32_t CTA = -1, Cluster = -1, GPU = -1; ///< -1: not given.
  SourceRange PlacementRange;
  SourceRange Range;
};

/// One cell of the program table; Stmt is empty for an empty cell.
struct Cell {
  ptx::Statement Stmt;
  SourceRange Range; ///< The cell's text, trimmed.
};

struct Row {
  std::vector<Cell> Cells;
  SourceRange Range;
};

enum class ScopeLevel : uint8_t { Device, Grid, Kernel, Cluster, CTA, Warp };

/// A node of the scope tree: a level with children, or a thread (leaf).
struct ScopeNode {
  bool IsThread = false;
  ScopeLevel Level = ScopeLevel::Device;
  int32_t Thread = -1; ///< For a leaf.
  std::vector<ScopeNode> Kids;
  SourceRange Range;
};

struct MemMapEntry {
  std::string Name;
  SourceRange NameRange;
  Region R = Region::Global;
  SourceRange Range;
};

/// `N:reg` / `PN:reg` (Thread >= 0) or a location `x` (Thread == -1).
struct StateRef {
  int32_t Thread = -1;
  SourceRange ThreadRange;
  std::string Name;
  SourceRange NameRange;
  SourceRange Range;
};

/// One side of a comparison in the condition: a register or location
/// (IsRef), or a value: an integer or, on the right of `=`, a location's
/// address (herd's `0:r0=x`).
struct CondTerm {
  bool IsRef = false;
  StateRef Ref;  ///< For IsRef.
  ValueExpr Val; ///< Otherwise.
  SourceRange Range;
  static CondTerm ref(StateRef R) {
    CondTerm T;
    T.IsRef = true;
    T.Range = R.Range;
    T.Ref = std::move(R);
    return T;
  }
  static CondTerm value(ValueExpr V) {
    CondTerm T;
    T.Range = V.Range;
    T.Val = std::move(V);
    return T;
  }
};

struct CondExpr {
  enum Kind : uint8_t { True, False, Eq, Ne, Not, And, Or } K = True;
  CondTerm Lhs; ///< For Eq/Ne.
  CondTerm Rhs; ///< For Eq/Ne.
  std::vector<CondExpr> Kids;
  SourceRange Range;
};

struct Test {
  std::shared_ptr<const SourceFile> File;
  Arch A = Arch::GPU_PTX;
  SourceRange ArchRange;
  std::string Name;
  SourceRange NameRange;
  std::vector<std::string> Comments; ///< The quoted strings, without quotes.
  /// PTX dialect: Dat3M takes all text between the header line and the
  /// first `{` as description. When that text is not a sequence of quoted
  /// strings (a quote inside a string, say), it is kept here verbatim.
  std::string Preamble;
  std::vector<InitItem> Init;
  std::vector<ThreadHeader> Threads;
  std::vector<Row> Rows;
  std::optional<ScopeNode> Scopes;
  std::vector<MemMapEntry> MemMap;
  std::vector<StateRef> Locations; ///< `locations [x; 0:r0;]`
  SourceRange LocationsRange;
  Quantifier Q = Quantifier::Exists;
  SourceRange QRange;
  CondExpr Condition;
};

const char *scopeLevelName(ScopeLevel L);

} // namespace incant::litmus

#endif // INCANT_LITMUS_AST_H
