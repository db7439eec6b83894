//===- Lexer.cpp - Tokens of the cat language -----------------------------===//
#include "Lexer.h"

#include <cctype>

namespace incant::cat {

bool Lexer::isNameStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_';
}

// herd's names may contain dots and dashes: po-loc, membar.cta.
bool Lexer::isNameChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '.' ||
         C == '-';
}

SourceRange Lexer::rangeOf(size_t Begin, size_t End) const {
  return {File->locAt(Begin), File->locAt(End)};
}

Token Lexer::make(Tok K, size_t Begin, size_t End, std::string Text) {
  Pos = End;
  return Token{K, rangeOf(Begin, End), std::move(Text)};
}

Token Lexer::error(size_t Begin, size_t End, std::string Message) {
  SourceRange R = rangeOf(Begin, End);
  Diags.error(File, R, std::move(Message));
  noteCommentEnd(R);
  Pos = End;
  return Token{Tok::Error, rangeOf(Begin, End), {}};
}

void Lexer::noteCommentEnd(SourceRange At) {
  // A "*)" inside a comment's text (as in "atom.*)") ends the comment.
  const SourceRange &C = LastCommentEnd;
  if (C.isValid() && C.Begin.Line == At.Begin.Line &&
      C.End.Offset <= At.Begin.Offset)
    Diags.note(File, C,
               "a comment ends here: '*)' closes a comment wherever it "
               "appears");
}

Token Lexer::next() {
  const std::string &S = File->text();
  size_t N = S.size();
  // Blanks and comments.
  for (;;) {
    while (Pos < N && std::isspace(static_cast<unsigned char>(S[Pos])))
      ++Pos;
    if (Pos + 1 < N && S[Pos] == '(' && S[Pos + 1] == '*') {
      size_t Start = Pos;
      unsigned Depth = 0;
      while (Pos < N) {
        if (Pos + 1 < N && S[Pos] == '(' && S[Pos + 1] == '*') {
          ++Depth;
          Pos += 2;
        } else if (Pos + 1 < N && S[Pos] == '*' && S[Pos + 1] == ')') {
          Pos += 2;
          if (--Depth == 0)
            break;
        } else {
          ++Pos;
        }
      }
      if (Depth != 0)
        return error(Start, Start + 2, "unterminated comment");
      LastCommentEnd = rangeOf(Pos - 2, Pos);
      continue;
    }
    // `//` to the end of the line (Dat3M's models use them).
    if (Pos + 1 < N && S[Pos] == '/' && S[Pos + 1] == '/') {
      while (Pos < N && S[Pos] != '\n')
        ++Pos;
      continue;
    }
    break;
  }
  if (Pos >= N)
    return make(Tok::Eof, N, N);

  size_t B = Pos;
  char C = S[Pos];
  if (isNameStart(C)) {
    size_t E = Pos + 1;
    while (E < N && isNameChar(S[E]))
      ++E;
    return make(Tok::Name, B, E, S.substr(B, E - B));
  }
  if (std::isdigit(static_cast<unsigned char>(C))) {
    size_t E = Pos + 1;
    while (E < N && std::isalnum(static_cast<unsigned char>(S[E])))
      ++E;
    if (E - B == 1 && C == '0')
      return make(Tok::Zero, B, E);
    return error(B, E, "unexpected number '" + S.substr(B, E - B) +
                           "'; the only number in cat is 0 (the empty "
                           "relation)");
  }
  if (C == '"') {
    size_t E = Pos + 1;
    while (E < N && S[E] != '"' && S[E] != '\n')
      ++E;
    if (E >= N || S[E] != '"')
      return error(B, B + 1, "unterminated string");
    return make(Tok::String, B, E + 1, S.substr(B + 1, E - B - 1));
  }
  switch (C) {
  case '(':
    return make(Tok::LParen, B, B + 1);
  case ')':
    return make(Tok::RParen, B, B + 1);
  case '[':
    return make(Tok::LBracket, B, B + 1);
  case ']':
    return make(Tok::RBracket, B, B + 1);
  case '|':
    return make(Tok::Pipe, B, B + 1);
  case '&':
    return make(Tok::Amp, B, B + 1);
  case '\\':
    return make(Tok::Backslash, B, B + 1);
  case ';':
    return make(Tok::Semi, B, B + 1);
  case '*':
    return make(Tok::Star, B, B + 1);
  case '+':
    return make(Tok::Plus, B, B + 1);
  case '?':
    return make(Tok::Question, B, B + 1);
  case '~':
    return make(Tok::Tilde, B, B + 1);
  case ',':
    return make(Tok::Comma, B, B + 1);
  case '=':
    return make(Tok::Equal, B, B + 1);
  case '^':
    if (B + 2 < N && S[B + 1] == '-' && S[B + 2] == '1')
      return make(Tok::HatInv, B, B + 3);
    if (B + 1 < N && S[B + 1] == '+')
      return make(Tok::HatPlus, B, B + 2);
    if (B + 1 < N && S[B + 1] == '*')
      return make(Tok::HatStar, B, B + 2);
    return error(B, B + 1, "expected '^-1', '^+' or '^*'");
  default:
    break;
  }
  // One UTF-8 sequence or byte, shown escaped if not printable.
  unsigned char U = static_cast<unsigned char>(C);
  std::string Shown;
  if (std::isprint(U)) {
    Shown = std::string("'") + C + "'";
  } else {
    static const char Hex[] = "0123456789abcdef";
    Shown = std::string("byte 0x") + Hex[U >> 4] + Hex[U & 15];
  }
  return error(B, B + 1, "unexpected character " + Shown);
}

} // namespace incant::cat
