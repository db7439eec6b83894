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

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace incant::ptx {

namespace detail {
enum : uint8_t { CIdentStart = 1, CIdentChar = 2, CDigit = 4, CSpace = 8 };
/// One table lookup per character on the lexer's hot path.
inline constexpr std::array<uint8_t, 256> CharClasses = [] {
  std::array<uint8_t, 256> T{};
  for (int C = 0; C != 256; ++C) {
    bool Start = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
                 C == '_' || C == '$' || C == '%';
    bool Digit = C >= '0' && C <= '9';
    bool Space = C == ' ' || C == '\t' || C == '\n' || C == '\r' ||
                 C == '\f' || C == '\v';
    T[C] = (Start ? CIdentStart | CIdentChar : 0) |
           (Digit ? CDigit | CIdentChar : 0) | (Space ? CSpace : 0);
  }
  return T;
}();
} // namespace detail

/// Character classes of PTX identifiers and numbers, shared with the litmus
/// lexer (which reads PTX-like names and numbers outside program cells).
inline bool isIdentStart(char C) {
  return detail::CharClasses[static_cast<unsigned char>(C)] &
         detail::CIdentStart;
}
inline bool isIdentChar(char C) {
  return detail::CharClasses[static_cast<unsigned char>(C)] &
         detail::CIdentChar;
}
inline bool isDigit(char C) { return C >= '0' && C <= '9'; }
inline bool isSpaceChar(char C) {
  return detail::CharClasses[static_cast<unsigned char>(C)] & detail::CSpace;
}
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
  // Additions for whole modules (litmus cells never contain these).
  Float,   ///< 0f3F800000, 0d3FF0000000000000 (IntVal has the bits), 1.5
  String,  ///< "text" (Text includes the quotes; see unescapeString)
  Less,    ///< '<' of a register range %r<12>
  Greater, ///< '>'
  BadComment, ///< A `/*` with no `*/` before the end of the range.
};

struct Token {
  TokKind K = TokKind::Eof;
  std::string_view Text;
  SourceRange Range;
  uint64_t IntVal = 0;   ///< For Int; for Float, the bits of a 0f/0d literal.
  bool IntOverflow = false;
  bool IsHex = false;
  char FloatForm = 0;    ///< For Float: 'f', 'd', or 0 for a decimal literal.
  bool is(TokKind Kind) const { return K == Kind; }
};

class Lexer {
public:
  /// Lexes bytes [Begin, End) of \p F.
  Lexer(const SourceFile &F, uint32_t Begin, uint32_t End);

  /// The next token, without consuming it.
  const Token &peek() const { return Toks[CurIdx]; }
  /// Consumes and returns the next token. The reference stays valid until
  /// the call after the next one (two token slots alternate, so that no
  /// token is copied on the parser's hot path).
  const Token &next();
  /// The offset just past the last consumed token.
  uint32_t lastEnd() const { return LastEnd; }
  /// The location just past the last consumed token.
  SourceLoc lastEndLoc() const { return LastEndLoc; }
  /// Skips raw text up to (not including) the first \p Stop character at
  /// brace/bracket/paren depth 0 outside comments and strings, or an
  /// unmatched closing bracket, or the end; returns the skipped bytes
  /// without trailing white space and comments. The next token follows.
  std::string_view skipTo(char Stop);

private:
  void lex(Token &T);
  SourceLoc locOf(uint32_t Offset) const {
    return SourceLoc{Line, Offset - LineStart + 1, Offset};
  }
  /// Advances Pos by one byte, counting lines.
  void bump() {
    if (Text[Pos] == '\n') {
      ++Line;
      LineStart = Pos + 1;
    }
    ++Pos;
  }

  const SourceFile *File;
  const char *Text;
  uint32_t Pos;
  uint32_t End;
  uint32_t LastEnd;
  SourceLoc LastEndLoc;
  // Line number and start offset of the line Pos is on (lines are counted
  // as the lexer moves, not looked up per token).
  uint32_t Line;
  uint32_t LineStart;
  Token Toks[2];
  uint8_t CurIdx = 0;
};

/// The text of a String token without quotes, escapes (\" \\ \n \t) undone.
std::string unescapeString(std::string_view Quoted);

/// Describes a token kind for "expected X, found Y" messages.
const char *tokKindName(TokKind K);

/// The Y of "expected X, found Y" for a token: its text in quotes, "end of
/// file", or "an unterminated '/*' comment".
std::string describeFound(const Token &T);

} // namespace incant::ptx

#endif // INCANT_PTX_LEXER_H
