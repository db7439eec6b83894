//===- InstParser.h - The one PTX instruction parser (private) --*- C++ -*-===//
//
// Parses one instruction from a Lexer, in one of two modes:
//  - Litmus: the small instruction set of litmus cells, strictly checked
//    (unknown opcodes and modifiers are errors), as parseStatement has it.
//  - Module: the whole PTX instruction set as nvcc and clang write it;
//    modifiers are decoded where known and kept as written otherwise, and an
//    unknown opcode becomes Opcode::Unknown with a warning.
// The module parser (ModuleParser.cpp) drives it for every instruction of a
// function body.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_PTX_INSTPARSER_H
#define INCANT_LIB_PTX_INSTPARSER_H

#include "incant/PTX/Instruction.h"
#include "incant/PTX/Lexer.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace incant::ptx {

class InstParser {
public:
  enum class Mode { Litmus, Module };

  InstParser(const std::shared_ptr<const SourceFile> &F, Lexer &L,
             DiagnosticEngine &D, Mode Md)
      : File(F), Lex(L), Diags(&D), PMode(Md) {}

  /// Parses `[@[!]p] opcode{.mod} [operands]` (no ';').
  bool parseInstruction(Instruction &I);

  bool error(SourceRange R, std::string Msg);
  SourceRange span(SourceLoc B) const { return {B, Lex.lastEndLoc()}; }
  /// Parses an integer token (with the sign already read).
  bool parseInt(int64_t &V, bool &Hex, bool Negative, const Token &T);
  /// Module syntax: one operand (register, immediate, float, address,
  /// vector, list, pair, negated predicate, `sym+off`, `generic(sym)`).
  bool parseModuleOperand(Operand &O);

private:
  struct SeenMods;
  /// Decodes the modifiers of a litmus instruction into its fields.
  bool decodeModifiers(Instruction &I);
  /// Decodes one modifier; an unknown one, or a second of a kind, is an error.
  bool decodeModifier(Instruction &I, const Modifier &M, SeenMods &Seen);
  /// Checks the modifiers' combination and fills in PTX's defaults.
  bool checkModifiers(Instruction &I, const SeenMods &Seen);
  bool decodeHopper(Instruction &I);
  void decodeModuleModifiers(Instruction &I);
  bool parseRawOperand(Operand &O, bool &IsBracket, bool &IsInt);
  bool parseOperands(Instruction &I);
  bool parseModuleOperands(Instruction &I);
  bool parseAddressBody(Operand &O, SourceLoc Begin);
  /// `+4`, `-4` or `+-4` after a name (the sign is the next token).
  bool parseOffset(int64_t &V, bool &Hex, const char *Missing);

  const std::shared_ptr<const SourceFile> &File;
  Lexer &Lex;
  DiagnosticEngine *Diags;
  Mode PMode;
  /// Nesting of operands ({...}, (...), [a, {...}]) being parsed: bounded
  /// so that no input can exhaust the stack.
  unsigned Nesting = 0;
};

/// The deepest operand or initializer nesting the parsers accept.
constexpr unsigned MaxNesting = 64;

/// The state space a modifier or declaration names (".global",
/// ".shared::cluster", ".param::entry", ".reg", ...), if any.

/// Appends an operand / instruction (no ';'). Module syntax writes negative
/// offsets as `+-8` (what ptxas reads); litmus syntax writes `-8`.
void appendOperand(std::string &Out, const Operand &O, bool Module);
/// Appends \p V in \p Base (10 or 16), zero-padded to \p Width digits.
void appendUnsigned(std::string &Out, uint64_t V, int Base = 10,
                    bool Upper = false, unsigned Width = 0);
void appendInstruction(std::string &Out, const Instruction &I, bool Module);

} // namespace incant::ptx

#endif // INCANT_LIB_PTX_INSTPARSER_H
