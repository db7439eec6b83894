//===- LitmusLexer.h - Tokens of the litmus format (private) ----*- C++ -*-===//
//
// Tokens of everything in a litmus file except the program cells, which are
// PTX and go to ptx::parseStatement. Skips `(* ... *)` and `//` comments.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_LITMUS_LITMUSLEXER_H
#define INCANT_LIB_LITMUS_LITMUSLEXER_H

#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <string_view>

namespace incant::litmus {

enum class LTok : uint8_t {
  Eof, Ident, Directive, Int, String,
  LBrace, RBrace, LParen, RParen, LBracket, RBracket,
  Semi, Colon, Comma, Pipe, At, Tilde, Minus,
  Eq,    ///< =
  EqEq,  ///< ==
  NotEq, ///< !=
  And,   ///< /\ .
  Or,    ///< \/ .
  Unknown,
  BadComment, ///< An unterminated (* comment.
  BadString,  ///< An unterminated string.
};

struct LToken {
  LTok K = LTok::Eof;
  std::string_view Text;
  SourceRange Range;
  uint64_t IntVal = 0;
  bool IntOverflow = false;
  bool IsHex = false;
  bool is(LTok T) const { return K == T; }
};

class LitmusLexer {
public:
  explicit LitmusLexer(const SourceFile &F) : File(&F) { Cur = lex(); }
  const LToken &peek() const { return Cur; }
  LToken next() {
    LToken T = Cur;
    if (!T.is(LTok::Eof))
      LastEnd = T.Range.End.Offset;
    Cur = lex();
    return T;
  }
  /// Restarts lexing at byte \p Offset.
  void seek(uint32_t Offset) {
    Pos = Offset;
    Cur = lex();
  }
  /// Offset where the next token starts (after white space and comments).
  uint32_t tokenStart() const { return Cur.Range.Begin.Offset; }
  uint32_t lastEnd() const { return LastEnd; }

private:
  LToken lex();
  const SourceFile *File;
  uint32_t Pos = 0;
  uint32_t LastEnd = 0;
  LToken Cur;
};

/// Skips white space and comments from \p Pos; returns the new offset. An
/// unterminated (* comment is not skipped (the lexer reports it).
uint32_t skipSpaceAndComments(const std::string &S, uint32_t Pos,
                              bool StopAtNewline = false);

} // namespace incant::litmus

#endif // INCANT_LIB_LITMUS_LITMUSLEXER_H
