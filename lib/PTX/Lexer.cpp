//===- Lexer.cpp - Tokens of PTX text -------------------------------------===//
#include "incant/PTX/Lexer.h"

#include <cassert>

namespace incant::ptx {


Lexer::Lexer(const SourceFile &F, uint32_t Begin, uint32_t End)
    : File(&F), Pos(Begin), End(End), LastEnd(Begin) {
  assert(Begin <= End && End <= F.text().size());
  Cur = lex();
}

Token Lexer::next() {
  Token T = Cur;
  if (!T.is(TokKind::Eof))
    LastEnd = T.Range.End.Offset;
  Cur = lex();
  return T;
}

SourceRange Lexer::rangeOf(uint32_t B, uint32_t E) const {
  return {File->locAt(B), File->locAt(E)};
}

Token Lexer::lex() {
  const std::string &S = File->text();
  // Skip white space and comments.
  while (Pos < End) {
    char C = S[Pos];
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
        C == '\v') {
      ++Pos;
    } else if (C == '/' && Pos + 1 < End && S[Pos + 1] == '/') {
      while (Pos < End && S[Pos] != '\n')
        ++Pos;
    } else if (C == '/' && Pos + 1 < End && S[Pos + 1] == '*') {
      Pos += 2;
      while (Pos < End && !(S[Pos] == '*' && Pos + 1 < End && S[Pos + 1] == '/'))
        ++Pos;
      Pos = Pos < End ? Pos + 2 : End;
    } else {
      break;
    }
  }
  Token T;
  uint32_t B = Pos;
  if (Pos >= End) {
    T.K = TokKind::Eof;
    T.Range = rangeOf(End, End);
    return T;
  }
  char C = S[Pos];
  if (isIdentStart(C)) {
    while (Pos < End && isIdentChar(S[Pos]))
      ++Pos;
    T.K = TokKind::Ident;
  } else if (C == '.' && Pos + 1 < End && isIdentStart(S[Pos + 1])) {
    ++Pos;
    while (Pos < End && isIdentChar(S[Pos]))
      ++Pos;
    T.K = TokKind::Directive;
  } else if (isDigit(C)) {
    T.K = TokKind::Int;
    uint64_t V = 0;
    bool Overflow = false;
    if (C == '0' && Pos + 1 < End && (S[Pos + 1] == 'x' || S[Pos + 1] == 'X') &&
        Pos + 2 < End && hexDigit(S[Pos + 2]) >= 0) {
      T.IsHex = true;
      Pos += 2;
      while (Pos < End && hexDigit(S[Pos]) >= 0) {
        if (V >> 60)
          Overflow = true;
        V = V * 16 + hexDigit(S[Pos]);
        ++Pos;
      }
    } else {
      while (Pos < End && isDigit(S[Pos])) {
        uint64_t D = S[Pos] - '0';
        if (V > (UINT64_MAX - D) / 10)
          Overflow = true;
        V = V * 10 + D;
        ++Pos;
      }
    }
    // PTX allows a 'U' suffix on integer literals.
    if (Pos < End && (S[Pos] == 'U' || S[Pos] == 'u'))
      ++Pos;
    T.IntVal = V;
    T.IntOverflow = Overflow;
  } else {
    ++Pos;
    switch (C) {
    case ',': T.K = TokKind::Comma; break;
    case ';': T.K = TokKind::Semi; break;
    case ':': T.K = TokKind::Colon; break;
    case '[': T.K = TokKind::LBracket; break;
    case ']': T.K = TokKind::RBracket; break;
    case '{': T.K = TokKind::LBrace; break;
    case '}': T.K = TokKind::RBrace; break;
    case '(': T.K = TokKind::LParen; break;
    case ')': T.K = TokKind::RParen; break;
    case '+': T.K = TokKind::Plus; break;
    case '-': T.K = TokKind::Minus; break;
    case '@': T.K = TokKind::At; break;
    case '!': T.K = TokKind::Bang; break;
    case '|': T.K = TokKind::Pipe; break;
    case '=': T.K = TokKind::Equal; break;
    default:
      T.K = TokKind::Unknown;
      // Keep a multi-byte UTF-8 character together.
      while (Pos < End && (static_cast<unsigned char>(S[Pos]) & 0xC0) == 0x80)
        ++Pos;
      break;
    }
  }
  T.Text = std::string_view(S).substr(B, Pos - B);
  T.Range = rangeOf(B, Pos);
  return T;
}

const char *tokKindName(TokKind K) {
  switch (K) {
  case TokKind::Eof: return "end of input";
  case TokKind::Ident: return "identifier";
  case TokKind::Directive: return "directive";
  case TokKind::Int: return "integer";
  case TokKind::Comma: return "','";
  case TokKind::Semi: return "';'";
  case TokKind::Colon: return "':'";
  case TokKind::LBracket: return "'['";
  case TokKind::RBracket: return "']'";
  case TokKind::LBrace: return "'{'";
  case TokKind::RBrace: return "'}'";
  case TokKind::LParen: return "'('";
  case TokKind::RParen: return "')'";
  case TokKind::Plus: return "'+'";
  case TokKind::Minus: return "'-'";
  case TokKind::At: return "'@'";
  case TokKind::Bang: return "'!'";
  case TokKind::Pipe: return "'|'";
  case TokKind::Equal: return "'='";
  case TokKind::Unknown: return "character";
  }
  return "token";
}

} // namespace incant::ptx
