//===- Instruction.h - One PTX instruction: AST, parser, printer -*- C++ -*-===//
//
// The project's PTX instruction layer. A Statement is what one line of PTX
// code (or one litmus cell) holds: labels, then optionally one instruction
// with an optional guard. Every node carries the SourceRange the parser set.
//
// The parser keeps the modifiers as written, in order (Instruction::Mods),
// and also decodes them into fields (semantics, scope, state space, ...).
// Identifiers cannot be told apart (register or symbol) without the
// declarations around the instruction, so the parser classifies them by
// position: a name where an address goes is a Symbol, a name where a value
// goes is a Reg, and the target of a branch is a Label. Users of the layer
// re-resolve a Reg that turns out to name a symbol.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_PTX_INSTRUCTION_H
#define INCANT_PTX_INSTRUCTION_H

#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::ptx {

enum class Opcode : uint8_t {
  Ld, St, Atom, Red, Membar, Fence, Bar, Mov, Add, Sub, Mul, And, Or, Xor,
  Not, Cvt, Setp, Bra,
  /// Dat3M's compare-and-branch pseudo-instructions `beq a, b, L` (also
  /// bne, blt, ble, bgt, bge); Cmp holds the comparison.
  CmpBra,
};

enum class Sem : uint8_t { None, Weak, Volatile, Relaxed, Acquire, Release, AcqRel, SC };
/// membar.gl decodes to GPU.
enum class Scope : uint8_t { None, CTA, Cluster, GPU, Sys };
enum class StateSpace : uint8_t { Generic, Global, Shared };
enum class CacheOp : uint8_t { None, CA, CG, CS, LU, CV, WB, WT };
enum class AtomOp : uint8_t { None, Cas, Exch, Add, Inc, Dec, And, Or, Xor, Min, Max };
enum class CmpOp : uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs };

/// A PTX fundamental type: .s32, .u64, .b32, .pred, ...
struct Type {
  enum Kind : uint8_t { S, U, B, Pred } K = S;
  uint8_t Bits = 32; ///< 1 for Pred.
  bool isSigned() const { return K == S; }
  friend bool operator==(const Type &, const Type &) = default;
};

/// Parses ".s32" etc. (with the dot); nullopt if not a type name.
std::optional<Type> parseType(std::string_view Text);
/// ".s32", ".pred", ...
std::string typeName(Type T);

/// A modifier as written, with its dot: ".relaxed".
struct Modifier {
  std::string Text;
  SourceRange Range;
};

struct Operand {
  enum Kind : uint8_t {
    Reg,     ///< A name where a value goes (register, or a symbol's address).
    Imm,     ///< An integer (Value).
    Symbol,  ///< A bare name where an address goes: `ld.weak r0, x`.
    Address, ///< `[base]`, `[base+off]`, `[base-off]` or `[off]` (Name empty).
    Label,   ///< A branch target.
  } K = Reg;
  std::string Name;  ///< Reg/Symbol/Label name; Address base (may be empty).
  int64_t Value = 0; ///< Imm value; Address byte offset.
  bool Hex = false;  ///< Imm written in hex (kept for printing).
  SourceRange Range;
};

struct Guard {
  std::string Reg;
  bool Negated = false;
  SourceRange Range;
};

struct Instruction {
  Opcode Op = Opcode::Mov;
  std::string Name; ///< The opcode as written: "ld", "barrier", "goto".
  SourceRange NameRange;
  std::vector<Modifier> Mods; ///< Raw modifiers, in order.
  std::optional<Guard> G;
  std::vector<Operand> Ops;

  // Decoded from Mods.
  Sem S = Sem::None;
  Scope Sc = Scope::None;
  StateSpace Space = StateSpace::Generic;
  CacheOp Cache = CacheOp::None;
  AtomOp Atom = AtomOp::None;
  CmpOp Cmp = CmpOp::None;
  std::vector<Type> Types; ///< cvt has two (destination first).

  SourceRange Range;
};

struct Label {
  std::string Name;
  SourceRange Range;
};

/// Labels and at most one instruction (a litmus cell, a line of code).
struct Statement {
  std::vector<Label> Labels;
  std::optional<Instruction> Inst;
  SourceRange Range;
  bool empty() const { return Labels.empty() && !Inst; }
};

/// Parses bytes [Begin, End) of \p File as one statement: `L0:`,
/// `@!p ld.global.cg.s32 r0, [r1+4]`, both, or nothing. A trailing ';' is
/// allowed. Reports errors to \p Diags and returns nullopt on error.
std::optional<Statement> parseStatement(std::shared_ptr<const SourceFile> File,
                                        uint32_t Begin, uint32_t End,
                                        DiagnosticEngine &Diags);

/// The canonical text of an instruction (no trailing ';').
std::string printInstruction(const Instruction &I);
/// Labels ("L0: ") followed by the instruction.
std::string printStatement(const Statement &S);
std::string printOperand(const Operand &O);

} // namespace incant::ptx

#endif // INCANT_PTX_INSTRUCTION_H
