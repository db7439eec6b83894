//===- Lexer.cpp - Tokens of PTX text -------------------------------------===//
#include "incant/PTX/Lexer.h"

#include <cassert>
#include <charconv>
#include <cstring>

namespace incant::ptx {

Lexer::Lexer(const SourceFile &F, uint32_t Begin, uint32_t End)
    : File(&F), Text(F.text().data()), Pos(Begin), End(End), LastEnd(Begin) {
  assert(Begin <= End && End <= F.text().size());
  SourceLoc L = F.locAt(Begin);
  Line = L.Line;
  LineStart = Begin - (L.Col - 1);
  LastEndLoc = L;
  lex(Toks[CurIdx]);
}

const Token &Lexer::next() {
  const Token &T = Toks[CurIdx];
  if (!T.is(TokKind::Eof)) {
    LastEnd = T.Range.End.Offset;
    LastEndLoc = T.Range.End;
  }
  CurIdx ^= 1;
  lex(Toks[CurIdx]);
  return T;
}

/// Characters skipTo must look at: white space, comments, strings,
/// brackets.
static constexpr std::array<bool, 256> SkipSpecial = [] {
  std::array<bool, 256> T{};
  for (unsigned char C : std::string_view(" \t\n\r\f\v/\"{[(}])"))
    T[C] = true;
  return T;
}();

std::string_view Lexer::skipTo(char Stop) {
  // The next token was lexed already: start from its first byte.
  const Token &Cur = Toks[CurIdx];
  uint32_t B = Cur.Range.Begin.Offset;
  if (Cur.is(TokKind::Eof))
    return {};
  Pos = B;
  Line = Cur.Range.Begin.Line;
  LineStart = B - (Cur.Range.Begin.Col - 1);
  int Depth = 0;
  // The end of the last byte that is neither white space nor inside a
  // comment: a trailing `// comment` is not part of the text (printed
  // before a ';', it would swallow it).
  uint32_t LastSig = B;
  while (Pos < End) {
    char C = Text[Pos];
    // Fast path: a plain character (debug sections are megabytes of them).
    if (!SkipSpecial[static_cast<unsigned char>(C)] && C != Stop) {
      LastSig = ++Pos;
      continue;
    }
    if (Depth == 0 && C == Stop)
      break;
    if (C == '/' && Pos + 1 < End && Text[Pos + 1] == '/') {
      while (Pos < End && Text[Pos] != '\n')
        ++Pos;
      continue;
    }
    if (C == '/' && Pos + 1 < End && Text[Pos + 1] == '*') {
      Pos += 2;
      while (Pos < End && !(Text[Pos] == '*' && Pos + 1 < End &&
                            Text[Pos + 1] == '/'))
        bump();
      Pos = Pos < End ? Pos + 2 : End;
      continue;
    }
    if (C == '"') {
      ++Pos;
      while (Pos < End && Text[Pos] != '"' && Text[Pos] != '\n') {
        if (Text[Pos] == '\\' && Pos + 1 < End && Text[Pos + 1] != '\n')
          ++Pos;
        ++Pos;
      }
      if (Pos < End && Text[Pos] == '"') {
        ++Pos;
      } else if (Pos < End) {
        // An unterminated string ends at the newline, which stays in the
        // text: printed before a ';', the string would swallow it.
        bump();
      }
      LastSig = Pos;
      continue;
    }
    if (C == '{' || C == '[' || C == '(')
      ++Depth;
    else if (C == '}' || C == ']' || C == ')') {
      if (Depth == 0)
        break; // An unmatched closer ends the text (a function's '}').
      --Depth;
    }
    bool Space = isSpaceChar(C);
    bump();
    if (!Space)
      LastSig = Pos;
  }
  LastEnd = LastSig;
  LastEndLoc = File->locAt(LastSig);
  lex(Toks[CurIdx]);
  return std::string_view(Text + B, LastSig - B);
}

void Lexer::lex(Token &T) {
  // Skip white space and comments.
  while (Pos < End) {
    char C = Text[Pos];
    if (C == ' ' || C == '\t') {
      ++Pos;
    } else if (C == '\n') {
      ++Pos;
      ++Line;
      LineStart = Pos;
    } else if (isSpaceChar(C)) {
      ++Pos;
    } else if (C == '/' && Pos + 1 < End && Text[Pos + 1] == '/') {
      while (Pos < End && Text[Pos] != '\n')
        ++Pos;
    } else if (C == '/' && Pos + 1 < End && Text[Pos + 1] == '*') {
      uint32_t B = Pos;
      SourceLoc BL = locOf(B);
      Pos += 2;
      while (Pos < End && !(Text[Pos] == '*' && Pos + 1 < End &&
                            Text[Pos + 1] == '/'))
        bump();
      if (Pos < End) {
        Pos += 2;
        continue;
      }
      // An unterminated comment is an error token at its '/*' (the parser
      // reports it); skipping to the end would drop the text silently.
      T = Token();
      T.K = TokKind::BadComment;
      T.Text = std::string_view(Text + B, 2);
      T.Range = {BL, SourceLoc{BL.Line, BL.Col + 2, B + 2}};
      return;
    } else {
      break;
    }
  }
  // Field by field: assigning a fresh Token() makes the compiler build it on
  // the stack and copy it, a store-forwarding stall on every token.
  T.IntVal = 0;
  T.IntOverflow = false;
  T.IsHex = false;
  T.FloatForm = 0;
  uint32_t B = Pos;
  SourceLoc BL = locOf(B);
  if (Pos >= End) {
    T.K = TokKind::Eof;
    T.Range = {BL, BL};
    return;
  }
  char C = Text[Pos];
  if (isIdentStart(C)) {
    while (Pos < End && isIdentChar(Text[Pos]))
      ++Pos;
    T.K = TokKind::Ident;
  } else if (C == '.' && Pos + 1 < End && isIdentChar(Text[Pos + 1])) {
    // A directive or modifier; `::` joins parts (.shared::cta,
    // .L2::cache_hint) and a part may start with a digit (.2d, .L2::128B).
    ++Pos;
    while (true) {
      while (Pos < End && isIdentChar(Text[Pos]))
        ++Pos;
      if (Pos + 2 < End && Text[Pos] == ':' && Text[Pos + 1] == ':' &&
          isIdentChar(Text[Pos + 2])) {
        Pos += 2;
        continue;
      }
      break;
    }
    T.K = TokKind::Directive;
  } else if (isDigit(C)) {
    T.K = TokKind::Int;
    uint64_t V = 0;
    bool Overflow = false;
    char N = Pos + 1 < End ? Text[Pos + 1] : 0;
    if (C == '0' && (N == 'x' || N == 'X') && Pos + 2 < End &&
        hexDigit(Text[Pos + 2]) >= 0) {
      T.IsHex = true;
      Pos += 2;
      while (Pos < End && hexDigit(Text[Pos]) >= 0) {
        if (V >> 60)
          Overflow = true;
        V = V * 16 + hexDigit(Text[Pos]);
        ++Pos;
      }
    } else if (C == '0' && (N == 'f' || N == 'F' || N == 'd' || N == 'D') &&
               Pos + 2 < End && hexDigit(Text[Pos + 2]) >= 0) {
      // 0f3F800000 (single) or 0d3FF0000000000000 (double): the bits.
      T.K = TokKind::Float;
      T.FloatForm = (N == 'f' || N == 'F') ? 'f' : 'd';
      Pos += 2;
      unsigned Digits = 0;
      while (Pos < End && hexDigit(Text[Pos]) >= 0) {
        V = V * 16 + hexDigit(Text[Pos]);
        ++Pos;
        ++Digits;
      }
      Overflow = Digits != (T.FloatForm == 'f' ? 8u : 16u);
    } else if (C == '0' && (N == 'b' || N == 'B') && Pos + 2 < End &&
               (Text[Pos + 2] == '0' || Text[Pos + 2] == '1')) {
      Pos += 2;
      while (Pos < End && (Text[Pos] == '0' || Text[Pos] == '1')) {
        if (V >> 63)
          Overflow = true;
        V = V * 2 + (Text[Pos] - '0');
        ++Pos;
      }
    } else {
      uint32_t DB = Pos;
      while (Pos < End && isDigit(Text[Pos]))
        ++Pos;
      if (Pos + 1 < End &&
          ((Text[Pos] == '.' && isDigit(Text[Pos + 1])) ||
           ((Text[Pos] == 'e' || Text[Pos] == 'E') &&
            (isDigit(Text[Pos + 1]) ||
             ((Text[Pos + 1] == '-' || Text[Pos + 1] == '+') &&
              Pos + 2 < End && isDigit(Text[Pos + 2])))))) {
        // A decimal floating-point literal: 1.5, 2e10, 1.0e-3.
        T.K = TokKind::Float;
        if (Text[Pos] == '.') {
          ++Pos;
          while (Pos < End && isDigit(Text[Pos]))
            ++Pos;
        }
        if (Pos + 1 < End && (Text[Pos] == 'e' || Text[Pos] == 'E')) {
          uint32_t EP = Pos + 1;
          if (EP < End && (Text[EP] == '-' || Text[EP] == '+'))
            ++EP;
          if (EP < End && isDigit(Text[EP])) {
            Pos = EP;
            while (Pos < End && isDigit(Text[Pos]))
              ++Pos;
          }
        }
      } else {
        // Decimal, or octal with a leading 0 (PTX follows C here).
        unsigned Base = (Text[DB] == '0' && Pos - DB > 1) ? 8 : 10;
        for (uint32_t K = DB; K != Pos; ++K) {
          uint64_t D = Text[K] - '0';
          if (D >= Base || V > (UINT64_MAX - D) / Base)
            Overflow = true;
          V = V * Base + D;
        }
      }
    }
    // PTX allows a 'U' suffix on integer literals.
    if (T.K == TokKind::Int && Pos < End &&
        (Text[Pos] == 'U' || Text[Pos] == 'u'))
      ++Pos;
    T.IntVal = V;
    T.IntOverflow = Overflow;
  } else if (C == '"') {
    ++Pos;
    while (Pos < End && Text[Pos] != '"' && Text[Pos] != '\n') {
      if (Text[Pos] == '\\' && Pos + 1 < End && Text[Pos + 1] != '\n')
        ++Pos;
      ++Pos;
    }
    if (Pos < End && Text[Pos] == '"') {
      ++Pos;
      T.K = TokKind::String;
    } else {
      T.K = TokKind::Unknown; // An unterminated string.
    }
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
    case '<': T.K = TokKind::Less; break;
    case '>': T.K = TokKind::Greater; break;
    default:
      T.K = TokKind::Unknown;
      // Keep a multi-byte UTF-8 character together.
      while (Pos < End && (static_cast<unsigned char>(Text[Pos]) & 0xC0) == 0x80)
        ++Pos;
      break;
    }
  }
  T.Text = std::string_view(Text + B, Pos - B);
  T.Range = {BL, locOf(Pos)};
}

std::string describeFound(const Token &T) {
  switch (T.K) {
  case TokKind::Eof: return "end of file";
  case TokKind::BadComment: return "an unterminated '/*' comment";
  default: return "'" + std::string(T.Text) + "'";
  }
}

std::string unescapeString(std::string_view Q) {
  std::string S;
  if (Q.size() >= 2 && Q.front() == '"' && Q.back() == '"')
    Q = Q.substr(1, Q.size() - 2);
  S.reserve(Q.size());
  for (size_t K = 0; K < Q.size(); ++K) {
    char C = Q[K];
    if (C == '\\' && K + 1 < Q.size()) {
      char N = Q[++K];
      switch (N) {
      case 'n': S += '\n'; break;
      case 't': S += '\t'; break;
      default: S += N; break;
      }
    } else {
      S += C;
    }
  }
  return S;
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
  case TokKind::BadComment: return "unterminated comment";
  case TokKind::Float: return "floating-point number";
  case TokKind::String: return "string";
  case TokKind::Less: return "'<'";
  case TokKind::Greater: return "'>'";
  }
  return "token";
}

} // namespace incant::ptx
