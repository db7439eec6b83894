//===- Lexer.h - Tokens of PTX text -----------------------------*- C++ -*-===//
//
// A small hand-written lexer for PTX. It works on a byte range of a
// SourceFile so that a PTX instruction embedded in another format (a litmus
// cell) keeps exact file locations. Comments (`//` to end of line and
// `/* ... */`) are skipped.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_PTX_LEXER_H
#define INCANT_PTX_LEXER_H

#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <string_view>

namespace incant::ptx {

/// Character classes of PTX identifiers and numbers, shared with the litmus
/// lexer (which reads PTX-like names and numbers outside program cells).
inline bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' ||
         C == '$' || C == '%';
}
inline bool isIdentChar(char C) {
  return isIdentStart(C) || (C >= '0' && C <= '9');
}
inline bool isDigit(char C) { return C >= '0' && C <= '9'; }
/// The value of a hex digit, or -1.
inline int hexDigit(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return -1;
}

enum class TokKind : uint8_t {
  Eof,
  Ident,     ///< r0, %r1, x, L0, ld (letters, digits, _, $, % first)
  Directive, ///< .global, .s32, .reg (a dot followed by identifier chars)
  Int,       ///< 42, 0x80000000 (no sign; '-' is its own token)
  Comma,
  Semi,
  Colon,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  LParen,
  RParen,
  Plus,
  Minus,
  At,
  Bang,
  Pipe,
  Equal,
  Unknown, ///< Any other character.
};

struct Token {
  TokKind K = TokKind::Eof;
  std::string_view Text;
  SourceRange Range;
  uint64_t IntVal = 0;   ///< For Int.
  bool IntOverflow = false;
  bool IsHex = false;
  bool is(TokKind Kind) const { return K == Kind; }
};

class Lexer {
public:
  /// Lexes bytes [Begin, End) of \p F.
  Lexer(const SourceFile &F, uint32_t Begin, uint32_t End);

  /// The next token, without consuming it.
  const Token &peek() const { return Cur; }
  /// Consumes and returns the next token.
  Token next();
  /// The offset just past the last consumed token.
  uint32_t lastEnd() const { return LastEnd; }

private:
  Token lex();
  SourceRange rangeOf(uint32_t B, uint32_t E) const;

  const SourceFile *File;
  uint32_t Pos;
  uint32_t End;
  uint32_t LastEnd;
  Token Cur;
};

/// Describes a token kind for "expected X, found Y" messages.
const char *tokKindName(TokKind K);

} // namespace incant::ptx

#endif // INCANT_PTX_LEXER_H
