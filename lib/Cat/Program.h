//===- Program.h - The compiled form of a cat model -------------*- C++ -*-===//
//
// A model compiles to straight-line code over a register file: every let,
// primitive and subexpression gets a register; a register holds a set (Wd
// words) or a relation (N rows of Wd words). Names are gone: primitives are
// indices into primitiveNames(), bound to an Execution's data once per
// layout. `let rec` compiles to a block between FixInit and FixLoop that is
// run again until its variables stop changing.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_CAT_PROGRAM_H
#define INCANT_LIB_CAT_PROGRAM_H

#include "incant/Cat/AST.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace incant::cat {

enum class Op : uint8_t {
  Zero,     ///< Dst = 0
  Union,    ///< Dst = A | B
  Inter,    ///< Dst = A & B
  Diff,     ///< Dst = A \ B
  Seq,      ///< Dst = A ; B
  Product,  ///< Dst = A * B (sets)
  ComplSet, ///< Dst = ~A (set)
  ComplRel, ///< Dst = ~A (relation)
  Inverse,  ///< Dst = A^-1
  Plus,     ///< Dst = A+
  Star,     ///< Dst = A*
  Opt,      ///< Dst = A?
  IdOn,     ///< Dst = [A]
  Domain,   ///< Dst = domain(A)
  Range,    ///< Dst = range(A)
  Restrict, ///< Dst = A restricted to sources in B and targets in C
  FixInit,  ///< A = fix block: zero its variables
  FixLoop,  ///< A = fix block, B = first pc of the body: iterate
};

struct Instr {
  Op Code;
  bool Rel = false; ///< Union/Inter/Diff/Zero: the operands are relations.
  int32_t Dst = -1, A = -1, B = -1, C = -1;
};

struct FixBlock {
  /// (variable register, register of its body's value) per `and` binding.
  std::vector<std::pair<int32_t, int32_t>> Vars;
  std::vector<bool> Rel; ///< Per variable: a relation (else a set).
};

struct CheckInfo {
  ast::CheckKind Kind;
  bool Negated = false;
  bool Flag = false;
  std::string Name; ///< The `as` name, or "line:col".
  int32_t Reg = -1;
  bool Rel = true;
};

struct PrimReg {
  unsigned Prim; ///< Index in primitiveNames().
  int32_t Reg;
};

struct Program {
  std::string Title;
  /// The model closes `co` itself (`let co = co+`): coherence is partial.
  bool PartialCoherence = false;
  std::vector<Instr> Code;
  std::vector<FixBlock> Fixes;
  std::vector<CheckInfo> Checks;
  std::vector<PrimReg> Prims;
  unsigned NumRegs = 0;
};

/// Drops the instructions whose results no check needs.
void removeDeadCode(Program &P);

} // namespace incant::cat

#endif // INCANT_LIB_CAT_PROGRAM_H
