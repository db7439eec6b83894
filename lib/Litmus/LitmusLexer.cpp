//===- LitmusLexer.cpp - Tokens of the litmus format ----------------------===//
#include "LitmusLexer.h"
#include "incant/PTX/Lexer.h"

#include <cstring>

namespace incant::litmus {

using ptx::hexDigit;
using ptx::isDigit;
using ptx::isIdentChar;
using ptx::isIdentStart;


uint32_t skipSpaceAndComments(const std::string &S, uint32_t Pos,
                              bool StopAtNewline) {
  uint32_t N = S.size();
  while (Pos < N) {
    char C = S[Pos];
    if (C == '\n' && StopAtNewline)
      return Pos;
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
        C == '\v') {
      ++Pos;
    } else if (C == '/' && Pos + 1 < N && S[Pos + 1] == '/') {
      const void *NL = std::memchr(S.data() + Pos, '\n', N - Pos);
      Pos = NL ? uint32_t(static_cast<const char *>(NL) - S.data()) : N;
    } else if (C == '(' && Pos + 1 < N && S[Pos + 1] == '*') {
      // The closing "*)": memchr to each '*' (a test's comment block is
      // most of its bytes).
      const char *B = S.data(), *P = B + Pos + 2, *End = B + N;
      while (P + 1 < End) {
        P = static_cast<const char *>(std::memchr(P, '*', size_t(End - P)));
        if (!P || P[1] == ')')
          break;
        ++P;
      }
      if (!P || P + 1 >= End)
        return Pos; // Unterminated: the lexer reports it.
      Pos = uint32_t(P - B) + 2;
    } else {
      break;
    }
  }
  return Pos;
}

LToken LitmusLexer::lex() {
  const std::string &S = File->text();
  uint32_t N = S.size();
  Pos = skipSpaceAndComments(S, Pos);
  LToken T;
  uint32_t B = Pos;
  auto Finish = [&](LTok K, uint32_t Len) {
    Pos += Len;
    T.K = K;
    T.Text = std::string_view(S).substr(B, Pos - B);
    T.Range = {File->locAt(B), File->locAt(Pos)};
    return T;
  };
  if (Pos >= N)
    return Finish(LTok::Eof, 0);
  char C = S[Pos];
  char C1 = Pos + 1 < N ? S[Pos + 1] : '\0';
  if (C == '(' && C1 == '*')
    return Finish(LTok::BadComment, 2);
  if (isIdentStart(C)) {
    uint32_t E = Pos;
    while (E < N && isIdentChar(S[E]))
      ++E;
    return Finish(LTok::Ident, E - Pos);
  }
  if (C == '.' && Pos + 1 < N && isIdentStart(C1)) {
    uint32_t E = Pos + 1;
    while (E < N && isIdentChar(S[E]))
      ++E;
    return Finish(LTok::Directive, E - Pos);
  }
  if (isDigit(C)) {
    uint32_t E = Pos;
    uint64_t V = 0;
    bool Overflow = false;
    if (C == '0' && (C1 == 'x' || C1 == 'X') && Pos + 2 < N &&
        hexDigit(S[Pos + 2]) >= 0) {
      T.IsHex = true;
      E += 2;
      while (E < N && hexDigit(S[E]) >= 0) {
        if (V >> 60)
          Overflow = true;
        V = V * 16 + hexDigit(S[E++]);
      }
    } else {
      while (E < N && isDigit(S[E])) {
        uint64_t D = S[E++] - '0';
        if (V > (UINT64_MAX - D) / 10)
          Overflow = true;
        V = V * 10 + D;
      }
    }
    T.IntVal = V;
    T.IntOverflow = Overflow;
    return Finish(LTok::Int, E - Pos);
  }
  if (C == '"') {
    uint32_t E = Pos + 1;
    while (E < N && S[E] != '"')
      ++E;
    if (E >= N)
      return Finish(LTok::BadString, 1);
    return Finish(LTok::String, E + 1 - Pos);
  }
  switch (C) {
  case '{': return Finish(LTok::LBrace, 1);
  case '}': return Finish(LTok::RBrace, 1);
  case '(': return Finish(LTok::LParen, 1);
  case ')': return Finish(LTok::RParen, 1);
  case '[': return Finish(LTok::LBracket, 1);
  case ']': return Finish(LTok::RBracket, 1);
  case ';': return Finish(LTok::Semi, 1);
  case ':': return Finish(LTok::Colon, 1);
  case ',': return Finish(LTok::Comma, 1);
  case '|': return Finish(LTok::Pipe, 1);
  case '@': return Finish(LTok::At, 1);
  case '~': return Finish(LTok::Tilde, 1);
  case '-': return Finish(LTok::Minus, 1);
  case '=':
    return C1 == '=' ? Finish(LTok::EqEq, 2) : Finish(LTok::Eq, 1);
  case '!':
    if (C1 == '=')
      return Finish(LTok::NotEq, 2);
    break;
  case '/':
    if (C1 == '\\')
      return Finish(LTok::And, 2);
    break;
  case '\\':
    if (C1 == '/')
      return Finish(LTok::Or, 2);
    break;
  default:
    break;
  }
  uint32_t Len = 1;
  while (Pos + Len < N &&
         (static_cast<unsigned char>(S[Pos + Len]) & 0xC0) == 0x80)
    ++Len;
  return Finish(LTok::Unknown, Len);
}

} // namespace incant::litmus
