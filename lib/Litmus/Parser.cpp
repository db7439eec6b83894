//===- Parser.cpp - Parse a litmus test -----------------------------------===//
#include "incant/Litmus/Parser.h"

#include "LitmusLexer.h"

#include <fmt/format.h>

#include <cctype>
#include <string_view>

namespace incant::litmus {

const char *scopeLevelName(ScopeLevel L) {
  switch (L) {
  case ScopeLevel::Device: return "device";
  case ScopeLevel::Grid: return "grid";
  case ScopeLevel::Kernel: return "kernel";
  case ScopeLevel::Cluster: return "cluster";
  case ScopeLevel::CTA: return "cta";
  case ScopeLevel::Warp: return "warp";
  }
  return "?";
}

namespace {

/// Nesting depth of a level (device above kernel/grid above cluster ...).
int levelRank(ScopeLevel L) {
  switch (L) {
  case ScopeLevel::Device: return 0;
  case ScopeLevel::Grid:
  case ScopeLevel::Kernel: return 1;
  case ScopeLevel::Cluster: return 2;
  case ScopeLevel::CTA: return 3;
  case ScopeLevel::Warp: return 4;
  }
  return 0;
}

std::optional<ScopeLevel> levelOf(std::string_view S) {
  if (S == "device") return ScopeLevel::Device;
  if (S == "grid") return ScopeLevel::Grid;
  if (S == "kernel") return ScopeLevel::Kernel;
  if (S == "cluster") return ScopeLevel::Cluster;
  if (S == "cta") return ScopeLevel::CTA;
  if (S == "warp") return ScopeLevel::Warp;
  return std::nullopt;
}

/// `T12` / `P12` -> 12; -1 if not of that form.
int32_t threadIdOf(std::string_view S) {
  if (S.size() < 2 || S.size() > 8 || (S[0] != 'T' && S[0] != 'P'))
    return -1;
  int32_t V = 0;
  for (char C : S.substr(1)) {
    if (C < '0' || C > '9')
      return -1;
    V = V * 10 + (C - '0');
  }
  return V;
}

bool isSectionKeyword(std::string_view S) {
  return S == "ScopeTree" || S == "scopeTree" || S == "exists" ||
         S == "forall" || S == "locations";
}

constexpr unsigned MaxCondDepth = 256;

class Parser {
public:
  Parser(std::shared_ptr<const SourceFile> F, DiagnosticEngine &D)
      : File(std::move(F)), Lex(*File), Diags(D) {}

  std::optional<Test> parse();

private:
  bool error(SourceRange R, std::string Msg) {
    Diags.error(File, R, std::move(Msg));
    return false;
  }
  /// "expected X, found 'Y'" at the next token.
  bool expected(std::string_view What) {
    const LToken &T = Lex.peek();
    if (T.is(LTok::BadComment))
      return error(T.Range, "unterminated comment");
    if (T.is(LTok::BadString))
      return error(T.Range, "unterminated string");
    if (T.is(LTok::Eof))
      return error(T.Range, fmt::format("expected {}, found end of file", What));
    return error(T.Range, fmt::format("expected {}, found '{}'", What, T.Text));
  }
  bool expect(LTok K, std::string_view What) {
    if (!Lex.peek().is(K))
      return expected(What);
    Lex.next();
    return true;
  }
  bool isIdent(std::string_view S) const {
    return Lex.peek().is(LTok::Ident) && Lex.peek().Text == S;
  }
  SourceRange from(SourceLoc B) const { return {B, File->locAt(Lex.lastEnd())}; }

  bool parseHeaderLine(Test &T);
  bool parseInit(Test &T);
  bool parseValue(ValueExpr &V);
  bool parseAlias(InitItem &It);
  bool parseInt(const LToken &Tok, bool Negative, int64_t &V);
  bool parseThreads(Test &T);
  bool parseRows(Test &T);
  bool atRowsEnd();
  bool parseScopeNode(ScopeNode &N, int ParentRank);
  bool parseMemMap(Test &T);
  bool parseStateRef(StateRef &R);
  bool parseTerm(CondTerm &T, bool Left);
  bool parseLocations(Test &T);
  bool parseCondition(Test &T);
  bool parseOr(CondExpr &E, unsigned Depth);
  bool parseAnd(CondExpr &E, unsigned Depth);
  bool parseUnary(CondExpr &E, unsigned Depth);

  std::shared_ptr<const SourceFile> File;
  LitmusLexer Lex;
  DiagnosticEngine &Diags;
};

std::optional<Test> Parser::parse() {
  Test T;
  T.File = File;
  unsigned ErrorsBefore = Diags.numErrors();
  if (!parseHeaderLine(T) || !parseInit(T) || !parseThreads(T))
    return std::nullopt;
  bool RowsOk = parseRows(T);
  if (!RowsOk && Diags.numErrors() == ErrorsBefore)
    return std::nullopt;
  if (isIdent("ScopeTree") || isIdent("scopeTree")) {
    LToken K = Lex.next();
    ScopeNode N;
    if (!parseScopeNode(N, -1))
      return std::nullopt;
    N.Range.Begin = N.Range.Begin; // the tree itself
    T.Scopes = std::move(N);
    (void)K;
  }
  if (Lex.peek().is(LTok::Ident) && !isSectionKeyword(Lex.peek().Text))
    if (!parseMemMap(T))
      return std::nullopt;
  if (isIdent("locations") && !parseLocations(T))
    return std::nullopt;
  if (!parseCondition(T))
    return std::nullopt;
  if (!Lex.peek().is(LTok::Eof)) {
    expected("end of file after the final condition");
    return std::nullopt;
  }
  if (Diags.numErrors() != ErrorsBefore)
    return std::nullopt;
  return T;
}

bool Parser::parseHeaderLine(Test &T) {
  const LToken &A = Lex.peek();
  if (!A.is(LTok::Ident) || (A.Text != "GPU_PTX" && A.Text != "PTX"))
    return expected("the architecture 'GPU_PTX' or 'PTX'");
  T.A = A.Text == "PTX" ? Arch::PTX : Arch::GPU_PTX;
  T.ArchRange = A.Range;
  // The name is the next run of non-blank characters on the same line; it
  // may hold characters such as '+' and '.' (MP+membar.gl).
  const std::string &S = File->text();
  uint32_t P = A.Range.End.Offset;
  while (P < S.size() && (S[P] == ' ' || S[P] == '\t'))
    ++P;
  uint32_t B = P;
  while (P < S.size() && S[P] != ' ' && S[P] != '\t' && S[P] != '\n' &&
         S[P] != '\r' && S[P] != '"' && S[P] != '{')
    ++P;
  if (P == B)
    return error({File->locAt(B), File->locAt(B)},
                 fmt::format("expected a test name after '{}'", A.Text));
  T.Name = S.substr(B, P - B);
  T.NameRange = {File->locAt(B), File->locAt(P)};
  Lex.seek(P);
  LitmusLexer Start = Lex;
  while (Lex.peek().is(LTok::String)) {
    LToken C = Lex.next();
    T.Comments.push_back(std::string(C.Text.substr(1, C.Text.size() - 2)));
  }
  if (T.A == Arch::PTX && !Lex.peek().is(LTok::LBrace)) {
    // Dat3M's grammar skips everything up to the first '{'.
    size_t B = Start.tokenStart(), E = S.find('{', B);
    if (E != std::string::npos) {
      T.Comments.clear();
      uint32_t End = uint32_t(E);
      while (End > B && std::isspace(static_cast<unsigned char>(S[End - 1])))
        --End;
      T.Preamble = S.substr(B, End - B);
      Lex.seek(uint32_t(E));
    }
  }
  return true;
}

bool Parser::parseInt(const LToken &Tok, bool Negative, int64_t &V) {
  if (Tok.IntOverflow || (Negative && Tok.IntVal > (uint64_t(1) << 63)) ||
      (!Negative && !Tok.IsHex && Tok.IntVal > uint64_t(INT64_MAX)))
    return error(Tok.Range, fmt::format("integer '{}' is too large", Tok.Text));
  V = Negative ? static_cast<int64_t>(uint64_t(0) - Tok.IntVal)
               : static_cast<int64_t>(Tok.IntVal);
  return true;
}

bool Parser::parseValue(ValueExpr &V) {
  SourceLoc B = Lex.peek().Range.Begin;
  if (Lex.peek().is(LTok::Ident)) {
    LToken N = Lex.next();
    V.IsLoc = true;
    V.Loc = std::string(N.Text);
    V.Range = N.Range;
    return true;
  }
  bool Neg = false;
  if (Lex.peek().is(LTok::Minus)) {
    Lex.next();
    Neg = true;
  }
  if (!Lex.peek().is(LTok::Int))
    return expected("an integer or a location");
  LToken I = Lex.next();
  V.IsLoc = false;
  V.Hex = I.IsHex;
  if (!parseInt(I, Neg, V.Int))
    return false;
  V.Range = from(B);
  return true;
}

bool Parser::parseInit(Test &T) {
  if (!expect(LTok::LBrace, "'{' to start the init block"))
    return false;
  while (!Lex.peek().is(LTok::RBrace)) {
    if (Lex.peek().is(LTok::Semi)) { // empty item
      Lex.next();
      continue;
    }
    InitItem It;
    SourceLoc B = Lex.peek().Range.Begin;
    const LToken &First = Lex.peek();
    bool HasThread = false;
    if (First.is(LTok::Int)) {
      LToken N = Lex.next();
      if (N.IntOverflow || N.IntVal > 100000)
        return error(N.Range, "thread number is too large");
      It.Thread = static_cast<int32_t>(N.IntVal);
      It.ThreadRange = N.Range;
      HasThread = true;
    } else if (First.is(LTok::Ident)) {
      // `P1:`, a location name, or an alias `y @ generic aliases x`.
      LitmusLexer Ahead = Lex;
      Ahead.next();
      if (Ahead.peek().is(LTok::At)) {
        if (!parseAlias(It))
          return false;
        It.Range = from(B);
        if (!Lex.peek().is(LTok::RBrace) &&
            !expect(LTok::Semi, "';' after the init item"))
          return false;
        T.Init.push_back(std::move(It));
        continue;
      }
      if (Ahead.peek().is(LTok::Colon)) {
        LToken N = Lex.next();
        It.Thread = threadIdOf(N.Text);
        if (It.Thread < 0)
          return error(N.Range, fmt::format("expected a thread (like 0, T0 or "
                                            "P0), found '{}'",
                                            N.Text));
        It.ThreadRange = N.Range;
        HasThread = true;
      }
    } else {
      return expected("a register declaration, an initial value or '}'");
    }
    if (HasThread) {
      if (!expect(LTok::Colon, "':' after the thread number"))
        return false;
      if (Lex.peek().is(LTok::Directive)) {
        if (Lex.peek().Text != ".reg")
          return expected("'.reg'");
        Lex.next();
        It.K = InitItem::RegDecl;
        if (!Lex.peek().is(LTok::Directive))
          return expected("a register type (.s32, .u64, .b64, .pred, ...)");
        LToken Ty = Lex.next();
        std::optional<ptx::Type> PT = ptx::parseType(Ty.Text);
        if (!PT)
          return error(Ty.Range,
                       fmt::format("unknown register type '{}'", Ty.Text));
        It.Ty = *PT;
        It.TypeRange = Ty.Range;
      } else {
        It.K = InitItem::RegInit;
      }
      if (!Lex.peek().is(LTok::Ident))
        return expected("a register name");
    } else {
      It.K = InitItem::LocInit;
    }
    LToken N = Lex.next();
    It.Name = std::string(N.Text);
    It.NameRange = N.Range;
    if (Lex.peek().is(LTok::Eq)) {
      Lex.next();
      ValueExpr V;
      if (!parseValue(V))
        return false;
      It.Init = std::move(V);
    } else if (It.K != InitItem::RegDecl) {
      return expected("'=' and an initial value");
    }
    It.Range = from(B);
    if (!Lex.peek().is(LTok::RBrace) &&
        !expect(LTok::Semi, "';' after the init item"))
      return false;
    T.Init.push_back(std::move(It));
  }
  Lex.next();
  return true;
}

/// `y @ generic aliases x` (also surface, texture, constant).
bool Parser::parseAlias(InitItem &It) {
  LToken N = Lex.next();
  It.K = InitItem::Alias;
  It.Name = std::string(N.Text);
  It.NameRange = N.Range;
  Lex.next(); // '@'
  const LToken &P = Lex.peek();
  std::optional<ptx::Proxy> Px;
  if (P.is(LTok::Ident))
    Px = P.Text == "generic"    ? std::optional(ptx::Proxy::Generic)
         : P.Text == "surface"  ? std::optional(ptx::Proxy::Surface)
         : P.Text == "texture"  ? std::optional(ptx::Proxy::Texture)
         : P.Text == "constant" ? std::optional(ptx::Proxy::Constant)
                                : std::nullopt;
  if (!Px)
    return expected("a proxy (generic, surface, texture or constant) after "
                    "'@'");
  It.AliasProxy = *Px;
  Lex.next();
  if (!isIdent("aliases"))
    return expected("'aliases'");
  Lex.next();
  if (!Lex.peek().is(LTok::Ident))
    return expected("the location that is aliased");
  LToken Tg = Lex.next();
  It.Target = std::string(Tg.Text);
  It.TargetRange = Tg.Range;
  return true;
}

bool Parser::parseThreads(Test &T) {
  while (true) {
    SourceLoc B = Lex.peek().Range.Begin;
    if (!Lex.peek().is(LTok::Ident))
      return expected("a thread header (T0, P0 or P0@cta 0,gpu 0)");
    LToken N = Lex.next();
    ThreadHeader H;
    H.Id = threadIdOf(N.Text);
    if (H.Id < 0)
      return error(N.Range, fmt::format("expected a thread header (T0, P0 or "
                                        "P0@cta 0,gpu 0), found '{}'",
                                        N.Text));
    if (Lex.peek().is(LTok::At)) {
      SourceLoc PB = Lex.next().Range.Begin;
      H.HasPlacement = true;
      while (true) {
        if (!Lex.peek().is(LTok::Ident))
          return expected("'cta', 'cluster' or 'gpu'");
        LToken L = Lex.next();
        int32_t *Slot = L.Text == "cta"       ? &H.CTA
                        : L.Text == "cluster" ? &H.Cluster
                        : L.Text == "gpu"     ? &H.GPU
                                              : nullptr;
        if (!Slot)
          return error(L.Range, fmt::format("expected 'cta', 'cluster' or "
                                            "'gpu', found '{}'",
                                            L.Text));
        if (*Slot >= 0)
          return error(L.Range, fmt::format("'{}' given twice", L.Text));
        if (!Lex.peek().is(LTok::Int))
          return expected(fmt::format("a number after '{}'", L.Text));
        LToken V = Lex.next();
        if (V.IntOverflow || V.IntVal > 100000)
          return error(V.Range, "number is too large");
        *Slot = static_cast<int32_t>(V.IntVal);
        if (!Lex.peek().is(LTok::Comma))
          break;
        Lex.next();
      }
      H.PlacementRange = from(PB);
      if (H.CTA < 0)
        return error(H.PlacementRange, "placement needs 'cta N'");
    }
    H.Range = from(B);
    T.Threads.push_back(H);
    if (Lex.peek().is(LTok::Semi)) {
      Lex.next();
      return true;
    }
    if (!expect(LTok::Pipe, "'|' or ';' after the thread header"))
      return false;
  }
}

bool Parser::atRowsEnd() {
  const LToken &T = Lex.peek();
  if (T.is(LTok::Eof) || T.is(LTok::Tilde))
    return true;
  if (!T.is(LTok::Ident))
    return false;
  if (isSectionKeyword(T.Text))
    return true;
  // A memory map: `x: shared` / `x: global`.
  LitmusLexer Ahead = Lex;
  Ahead.next();
  if (!Ahead.peek().is(LTok::Colon))
    return false;
  Ahead.next();
  if (!Ahead.peek().is(LTok::Ident))
    return false;
  if (Ahead.peek().Text == "shared" || Ahead.peek().Text == "global")
    return true;
  // `x: local`: a memory map with a bad region, unless it is a labelled row
  // (rows end with ';' on the same line).
  const std::string &S = File->text();
  size_t Eol = S.find('\n', T.Range.Begin.Offset);
  std::string_view Line = std::string_view(S).substr(
      T.Range.Begin.Offset, Eol == std::string::npos ? std::string::npos
                                                     : Eol - T.Range.Begin.Offset);
  return Line.find(';') == std::string_view::npos;
}

bool Parser::parseRows(Test &T) {
  const std::string &S = File->text();
  bool Ok = true;
  while (!atRowsEnd()) {
    if (Lex.peek().is(LTok::BadComment))
      return expected("a program row");
    uint32_t P = Lex.tokenStart();
    Row R;
    R.Range.Begin = File->locAt(P);
    uint32_t CellB = P;
    while (true) {
      if (P >= S.size() || S[P] == '\n') {
        error({File->locAt(P), File->locAt(P)},
              "expected ';' at the end of the program row");
        return false;
      }
      char C = S[P];
      if (C != '|' && C != ';') {
        ++P;
        continue;
      }
      // Trim the cell.
      uint32_t B = CellB, E = P;
      while (B < E && (S[B] == ' ' || S[B] == '\t'))
        ++B;
      while (E > B && (S[E - 1] == ' ' || S[E - 1] == '\t' || S[E - 1] == '\r'))
        --E;
      Cell Ce;
      Ce.Range = {File->locAt(B), File->locAt(E)};
      std::optional<ptx::Statement> St =
          ptx::parseStatement(File, B, E, Diags);
      if (St)
        Ce.Stmt = std::move(*St);
      else
        Ok = false;
      R.Cells.push_back(std::move(Ce));
      ++P;
      if (C == ';')
        break;
      CellB = P;
    }
    R.Range.End = File->locAt(P);
    if (R.Cells.size() != T.Threads.size()) {
      error(R.Range, fmt::format("this row has {} cell{} but the test has {} "
                                 "thread{}",
                                 R.Cells.size(), R.Cells.size() == 1 ? "" : "s",
                                 T.Threads.size(),
                                 T.Threads.size() == 1 ? "" : "s"));
      Ok = false;
    }
    T.Rows.push_back(std::move(R));
    Lex.seek(P);
  }
  return Ok;
}

bool Parser::parseScopeNode(ScopeNode &N, int ParentRank) {
  SourceLoc B = Lex.peek().Range.Begin;
  if (!expect(LTok::LParen, "'(' to start a scope"))
    return false;
  if (!Lex.peek().is(LTok::Ident))
    return expected("a scope level (device, grid, kernel, cluster, cta or "
                    "warp)");
  LToken L = Lex.next();
  std::optional<ScopeLevel> Lv = levelOf(L.Text);
  if (!Lv)
    return error(L.Range, fmt::format("expected a scope level (device, grid, "
                                      "kernel, cluster, cta or warp), found "
                                      "'{}'",
                                      L.Text));
  if (levelRank(*Lv) <= ParentRank)
    return error(L.Range, fmt::format("a '{}' cannot be inside this scope",
                                      L.Text));
  N.Level = *Lv;
  while (!Lex.peek().is(LTok::RParen)) {
    if (Lex.peek().is(LTok::LParen)) {
      ScopeNode K;
      if (!parseScopeNode(K, levelRank(*Lv)))
        return false;
      N.Kids.push_back(std::move(K));
      continue;
    }
    if (!Lex.peek().is(LTok::Ident))
      return expected("a thread (T0, P0), '(' or ')'");
    LToken Th = Lex.next();
    ScopeNode K;
    K.IsThread = true;
    K.Thread = threadIdOf(Th.Text);
    if (K.Thread < 0)
      return error(Th.Range, fmt::format("expected a thread (T0, P0), '(' or "
                                         "')', found '{}'",
                                         Th.Text));
    K.Range = Th.Range;
    N.Kids.push_back(std::move(K));
  }
  Lex.next();
  N.Range = from(B);
  return true;
}

bool Parser::parseMemMap(Test &T) {
  while (true) {
    SourceLoc B = Lex.peek().Range.Begin;
    if (!Lex.peek().is(LTok::Ident))
      return expected("a location name");
    LToken N = Lex.next();
    if (!expect(LTok::Colon, "':' after the location in the memory map"))
      return false;
    if (!Lex.peek().is(LTok::Ident) ||
        (Lex.peek().Text != "shared" && Lex.peek().Text != "global"))
      return expected("'shared' or 'global'");
    LToken R = Lex.next();
    MemMapEntry E;
    E.Name = std::string(N.Text);
    E.NameRange = N.Range;
    E.R = R.Text == "shared" ? Region::Shared : Region::Global;
    E.Range = from(B);
    T.MemMap.push_back(std::move(E));
    if (!Lex.peek().is(LTok::Comma))
      return true;
    Lex.next();
    // A trailing comma ends the map.
    if (!Lex.peek().is(LTok::Ident) || isSectionKeyword(Lex.peek().Text))
      return true;
  }
}

bool Parser::parseStateRef(StateRef &R) {
  SourceLoc B = Lex.peek().Range.Begin;
  LitmusLexer Ahead = Lex;
  Ahead.next();
  bool HasThread = Ahead.peek().is(LTok::Colon) &&
                   (Lex.peek().is(LTok::Int) || Lex.peek().is(LTok::Ident));
  if (HasThread) {
    LToken Th = Lex.next();
    if (Th.is(LTok::Int)) {
      if (Th.IntOverflow || Th.IntVal > 100000)
        return error(Th.Range, "thread number is too large");
      R.Thread = static_cast<int32_t>(Th.IntVal);
    } else {
      R.Thread = threadIdOf(Th.Text);
      if (R.Thread < 0)
        return error(Th.Range, fmt::format("expected a thread (like 0 or P0), "
                                           "found '{}'",
                                           Th.Text));
    }
    R.ThreadRange = Th.Range;
    Lex.next(); // ':'
    if (!Lex.peek().is(LTok::Ident))
      return expected("a register name");
  } else if (!Lex.peek().is(LTok::Ident)) {
    return expected("a register (0:r0, P0:r0) or a location");
  }
  LToken N = Lex.next();
  R.Name = std::string(N.Text);
  R.NameRange = N.Range;
  R.Range = from(B);
  return true;
}

bool Parser::parseLocations(Test &T) {
  SourceLoc B = Lex.next().Range.Begin;
  if (!expect(LTok::LBracket, "'[' after 'locations'"))
    return false;
  while (!Lex.peek().is(LTok::RBracket)) {
    StateRef R;
    if (!parseStateRef(R))
      return false;
    T.Locations.push_back(std::move(R));
    if (!Lex.peek().is(LTok::RBracket) &&
        !expect(LTok::Semi, "';' or ']' in the locations list"))
      return false;
  }
  Lex.next();
  T.LocationsRange = from(B);
  return true;
}

bool Parser::parseCondition(Test &T) {
  SourceLoc B = Lex.peek().Range.Begin;
  if (Lex.peek().is(LTok::Tilde)) {
    Lex.next();
    if (!isIdent("exists"))
      return expected("'exists' after '~'");
    Lex.next();
    T.Q = Quantifier::NotExists;
  } else if (isIdent("exists")) {
    Lex.next();
    T.Q = Quantifier::Exists;
  } else if (isIdent("forall")) {
    Lex.next();
    T.Q = Quantifier::Forall;
  } else {
    return expected("a final condition ('exists', '~exists' or 'forall')");
  }
  T.QRange = from(B);
  return parseOr(T.Condition, 0);
}

bool Parser::parseOr(CondExpr &E, unsigned Depth) {
  SourceLoc B = Lex.peek().Range.Begin;
  if (!parseAnd(E, Depth))
    return false;
  if (!Lex.peek().is(LTok::Or))
    return true;
  CondExpr Or;
  Or.K = CondExpr::Or;
  Or.Kids.push_back(std::move(E));
  while (Lex.peek().is(LTok::Or)) {
    Lex.next();
    CondExpr K;
    if (!parseAnd(K, Depth))
      return false;
    Or.Kids.push_back(std::move(K));
  }
  Or.Range = from(B);
  E = std::move(Or);
  return true;
}

bool Parser::parseAnd(CondExpr &E, unsigned Depth) {
  SourceLoc B = Lex.peek().Range.Begin;
  if (!parseUnary(E, Depth))
    return false;
  if (!Lex.peek().is(LTok::And))
    return true;
  CondExpr And;
  And.K = CondExpr::And;
  And.Kids.push_back(std::move(E));
  while (Lex.peek().is(LTok::And)) {
    Lex.next();
    CondExpr K;
    if (!parseUnary(K, Depth))
      return false;
    And.Kids.push_back(std::move(K));
  }
  And.Range = from(B);
  E = std::move(And);
  return true;
}

bool Parser::parseUnary(CondExpr &E, unsigned Depth) {
  if (Depth > MaxCondDepth)
    return error(Lex.peek().Range, "condition is nested too deeply");
  SourceLoc B = Lex.peek().Range.Begin;
  if (Lex.peek().is(LTok::Tilde)) {
    Lex.next();
    CondExpr K;
    if (!parseUnary(K, Depth + 1))
      return false;
    E.K = CondExpr::Not;
    E.Kids.push_back(std::move(K));
    E.Range = from(B);
    return true;
  }
  if (Lex.peek().is(LTok::LParen)) {
    SourceRange Open = Lex.next().Range;
    if (!parseOr(E, Depth + 1))
      return false;
    if (expect(LTok::RParen, "')' or an operator (/\\, \\/)"))
      return true;
    // Where the unclosed group began, as compilers say it.
    Diags.note(File, Open, "to match this '('");
    return false;
  }
  if (isIdent("true") || isIdent("false")) {
    E.K = Lex.next().Text == "true" ? CondExpr::True : CondExpr::False;
    E.Range = from(B);
    return true;
  }
  if (!Lex.peek().is(LTok::Ident) && !Lex.peek().is(LTok::Int) &&
      !Lex.peek().is(LTok::Minus))
    return expected("a condition (like 0:r0=1, P0:r0 == 1, x=1, true, '~' "
                    "or '(')");
  if (!parseTerm(E.Lhs, true))
    return false;
  if (Lex.peek().is(LTok::Eq) || Lex.peek().is(LTok::EqEq))
    E.K = CondExpr::Eq;
  else if (Lex.peek().is(LTok::NotEq))
    E.K = CondExpr::Ne;
  else
    return expected("'=', '==' or '!='");
  Lex.next();
  if (!parseTerm(E.Rhs, false))
    return false;
  E.Range = from(B);
  return true;
}

/// A side of a comparison: `N:reg` / `PN:reg`, a location, or a value. A
/// bare name is a location's final value on the left and its address on the
/// right (herd's `0:r0=x`).
bool Parser::parseTerm(CondTerm &T, bool Left) {
  const LToken &First = Lex.peek();
  LitmusLexer Ahead = Lex;
  Ahead.next();
  bool Ref = Ahead.peek().is(LTok::Colon) ? First.is(LTok::Int) ||
                                                First.is(LTok::Ident)
                                          : Left && First.is(LTok::Ident);
  if (Ref) {
    StateRef R;
    if (!parseStateRef(R))
      return false;
    T = CondTerm::ref(std::move(R));
    return true;
  }
  ValueExpr V;
  if (!parseValue(V))
    return false;
  T = CondTerm::value(std::move(V));
  return true;
}

} // namespace

std::optional<Test> parseTest(std::shared_ptr<const SourceFile> File,
                              DiagnosticEngine &Diags) {
  Parser P(std::move(File), Diags);
  return P.parse();
}

} // namespace incant::litmus
