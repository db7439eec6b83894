//===- Parser.cpp - Recursive-descent parser for .cat files ---------------===//
//
// Precedence, loosest first (docs/cat.md), herd's and Dat3M's:
//   |   ;   \   &   * (product)
// then prefix ~, then the postfix operators + * ? ^-1 ^+ ^*.
// All binary operators associate to the left.
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Parser.h"

#include "Lexer.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace incant::cat {
using namespace ast;

namespace {

constexpr std::array<std::string_view, 11> Keywords = {
    "let",  "rec",  "and",     "acyclic", "irreflexive", "empty",
    "as",   "flag", "include", "show",    "unshow"};

// Statements of herd's full language that incant does not implement.
constexpr std::array<std::string_view, 12> Unsupported = {
    "procedure", "call",      "forall", "match", "if",       "enum",
    "with",      "undefined_unless", "do", "instructions", "catdep",
    "withco"};

bool isUnsupported(std::string_view S) {
  for (std::string_view U : Unsupported)
    if (U == S)
      return true;
  return false;
}

bool isKeyword(std::string_view S) {
  for (std::string_view K : Keywords)
    if (K == S)
      return true;
  return false;
}

class Parser {
public:
  Parser(std::shared_ptr<const SourceFile> File, DiagnosticEngine &Diags)
      : File(File), Diags(Diags), Lex(File, Diags),
        ErrorsBefore(Diags.numErrors()) {
    Cur = Lex.next();
    Ahead = Lex.next();
  }

  std::optional<Module> parse();

private:
  // Token stream with one token of lookahead beyond the current one.
  void advance() {
    PrevEnd = Cur.Range.End;
    Cur = std::move(Ahead);
    if (Cur.Kind == Tok::Eof || Cur.Kind == Tok::Error)
      Ahead = Cur;
    else
      Ahead = Lex.next();
  }
  bool at(Tok K) const { return Cur.Kind == K; }
  bool atKeyword(std::string_view K) const {
    return Cur.Kind == Tok::Name && Cur.Text == K;
  }
  bool fail(const std::string &Message) {
    if (Cur.Kind != Tok::Error) { // else the lexer already reported
      Diags.error(File, Cur.Range, Message);
      Lex.noteCommentEnd(Cur.Range);
    }
    Failed = true;
    return false;
  }
  std::string describe(const Token &T) const;
  bool expect(Tok K, const char *What) {
    if (at(K)) {
      advance();
      return true;
    }
    return fail(std::string("expected ") + What + ", found " + describe(Cur));
  }

  bool parseStatement(Module &M);
  bool parseLet(Module &M);
  bool parseBinding(Binding &B);
  bool parseCheck(Module &M);
  bool parseShow();

  std::unique_ptr<Expr> parseExpr() { return parseBinary(0); }
  std::unique_ptr<Expr> parseBinary(unsigned Level);
  std::unique_ptr<Expr> parseUnary();
  std::unique_ptr<Expr> parsePostfix(std::unique_ptr<Expr> E);
  std::unique_ptr<Expr> parsePrimary();
  bool startsExpr(const Token &T) const;

  /// Appends an operand and checks the height bound.
  bool addOp(Expr &E, std::unique_ptr<Expr> Op) {
    E.Height = std::max(E.Height, Op->Height + 1);
    E.Ops.push_back(std::move(Op));
    if (E.Height > MaxExprHeight) {
      Diags.error(File, E.Range, "expression too large (more than " +
                                     std::to_string(MaxExprHeight) +
                                     " nested operations)");
      Failed = true;
      return false;
    }
    return true;
  }

  std::unique_ptr<Expr> node(ExprKind K, SourceLoc Begin) {
    auto E = std::make_unique<Expr>();
    E->Kind = K;
    E->Range.Begin = Begin;
    E->Range.End = PrevEnd;
    return E;
  }

  std::shared_ptr<const SourceFile> File;
  DiagnosticEngine &Diags;
  Lexer Lex;
  Token Cur, Ahead;
  SourceLoc PrevEnd;
  unsigned Depth = 0;
  unsigned ErrorsBefore;
  bool Failed = false;
};

std::string Parser::describe(const Token &T) const {
  switch (T.Kind) {
  case Tok::Name:
  {
    std::string S = isKeyword(T.Text) ? "keyword '" : "'";
    S += T.Text;
    S += '\'';
    return S;
  }
  case Tok::String:
    return "a string";
  case Tok::Eof:
    return "end of file";
  case Tok::Error:
    return "an invalid token";
  default:
  {
    std::string S = "'";
    S += File->slice(T.Range);
    S += '\'';
    return S;
  }
  }
}

bool Parser::startsExpr(const Token &T) const {
  switch (T.Kind) {
  case Tok::Name:
    return !isKeyword(T.Text);
  case Tok::Zero:
  case Tok::LParen:
  case Tok::LBracket:
  case Tok::Tilde:
    return true;
  default:
    return false;
  }
}

std::optional<Module> Parser::parse() {
  Module M;
  M.File = File;
  // An optional title: a quoted string or a bare word first in the file.
  if (at(Tok::String)) {
    M.Title = Cur.Text;
    advance();
  } else if (at(Tok::Name) && !isKeyword(Cur.Text) &&
             !isUnsupported(Cur.Text) &&
             (Ahead.Kind == Tok::Eof ||
              Ahead.Range.Begin.Line > Cur.Range.Begin.Line)) {
    // A bare word alone on its line.
    M.Title = Cur.Text;
    advance();
  }
  while (!at(Tok::Eof) && !Failed)
    if (!parseStatement(M))
      break;
  if (Failed || Diags.numErrors() != ErrorsBefore)
    return std::nullopt;
  return M;
}

bool Parser::parseStatement(Module &M) {
  if (atKeyword("let"))
    return parseLet(M);
  if (atKeyword("include")) {
    Stmt S;
    S.Kind = StmtKind::Include;
    S.Range.Begin = Cur.Range.Begin;
    advance();
    if (!at(Tok::String))
      return fail("expected a quoted file name after 'include', found " +
                  describe(Cur));
    S.Path = Cur.Text;
    S.Range = Cur.Range; // diagnostics about the file point at its name
    advance();
    M.Stmts.push_back(std::move(S));
    return true;
  }
  if (atKeyword("show") || atKeyword("unshow"))
    return parseShow();
  if (atKeyword("flag") || atKeyword("acyclic") || atKeyword("irreflexive") ||
      atKeyword("empty") || at(Tok::Tilde))
    return parseCheck(M);
  if (at(Tok::Name) && isUnsupported(Cur.Text))
    return fail("'" + Cur.Text + "' statements are not supported");
  return fail("expected a statement (let, include, acyclic, irreflexive, "
              "empty, flag, show), found " +
              describe(Cur));
}

bool Parser::parseLet(Module &M) {
  Stmt S;
  S.Range.Begin = Cur.Range.Begin;
  advance(); // let
  S.Kind = StmtKind::Let;
  if (atKeyword("rec")) {
    S.Kind = StmtKind::LetRec;
    advance();
  }
  do {
    Binding B;
    if (!parseBinding(B))
      return false;
    S.Bindings.push_back(std::move(B));
    if (!atKeyword("and"))
      break;
    advance();
  } while (true);
  S.Range.End = PrevEnd;
  M.Stmts.push_back(std::move(S));
  return true;
}

bool Parser::parseBinding(Binding &B) {
  if (!at(Tok::Name) || isKeyword(Cur.Text))
    return fail("expected a name to define, found " + describe(Cur));
  B.Name = Cur.Text;
  B.NameRange = Cur.Range;
  advance();
  if (at(Tok::LParen)) {
    B.IsFunction = true;
    advance();
    do {
      if (!at(Tok::Name) || isKeyword(Cur.Text))
        return fail("expected a parameter name, found " + describe(Cur));
      for (const std::string &P : B.Params)
        if (P == Cur.Text)
          return fail("parameter '" + Cur.Text + "' is given twice");
      B.Params.push_back(Cur.Text);
      B.ParamRanges.push_back(Cur.Range);
      advance();
      if (!at(Tok::Comma))
        break;
      advance();
    } while (true);
    if (!expect(Tok::RParen, "',' or ')' after a parameter"))
      return false;
  }
  if (!expect(Tok::Equal, "'='"))
    return false;
  B.Body = parseExpr();
  return B.Body != nullptr;
}

bool Parser::parseCheck(Module &M) {
  Stmt S;
  S.Kind = StmtKind::Check;
  S.Range.Begin = Cur.Range.Begin;
  if (atKeyword("flag")) {
    S.Flag = true;
    advance();
  }
  if (at(Tok::Tilde)) {
    S.Negated = true;
    advance();
  }
  if (atKeyword("acyclic"))
    S.Check = CheckKind::Acyclic;
  else if (atKeyword("irreflexive"))
    S.Check = CheckKind::Irreflexive;
  else if (atKeyword("empty"))
    S.Check = CheckKind::Empty;
  else
    return fail("expected 'acyclic', 'irreflexive' or 'empty', found " +
                describe(Cur));
  advance();
  S.Operand = parseExpr();
  if (!S.Operand)
    return false;
  if (atKeyword("as")) {
    advance();
    if (!at(Tok::Name) || isKeyword(Cur.Text))
      return fail("expected a check name after 'as', found " + describe(Cur));
    S.CheckName = Cur.Text;
    advance();
  }
  S.Range.End = PrevEnd;
  M.Stmts.push_back(std::move(S));
  return true;
}

bool Parser::parseShow() {
  advance(); // show / unshow
  do {
    if (!parseExpr())
      return false;
    if (atKeyword("as")) {
      advance();
      if (!at(Tok::Name) || isKeyword(Cur.Text))
        return fail("expected a name after 'as', found " + describe(Cur));
      advance();
    }
    if (!at(Tok::Comma))
      return true;
    advance();
  } while (true);
}

// Binary levels, loosest first.
constexpr std::array<std::pair<Tok, ExprKind>, 5> Levels = {{
    {Tok::Pipe, ExprKind::Union},
    {Tok::Semi, ExprKind::Seq},
    {Tok::Backslash, ExprKind::Diff},
    {Tok::Amp, ExprKind::Inter},
    {Tok::Star, ExprKind::Product},
}};

std::unique_ptr<Expr> Parser::parseBinary(unsigned Level) {
  if (Level == Levels.size())
    return parseUnary();
  if (++Depth > MaxExprDepth) {
    fail("expression nested too deeply");
    return nullptr;
  }
  SourceLoc Begin = Cur.Range.Begin;
  std::unique_ptr<Expr> L = parseBinary(Level + 1);
  while (L && at(Levels[Level].first)) {
    SourceRange Op = Cur.Range;
    advance();
    std::unique_ptr<Expr> R = parseBinary(Level + 1);
    if (!R) {
      L = nullptr;
      break;
    }
    auto E = node(Levels[Level].second, Begin);
    E->OpRange = Op;
    if (!addOp(*E, std::move(L)) || !addOp(*E, std::move(R))) {
      L = nullptr;
      break;
    }
    L = std::move(E);
  }
  --Depth;
  return L;
}

std::unique_ptr<Expr> Parser::parseUnary() {
  if (++Depth > MaxExprDepth) {
    fail("expression nested too deeply");
    return nullptr;
  }
  std::unique_ptr<Expr> Result;
  if (at(Tok::Tilde)) {
    SourceRange Op = Cur.Range;
    advance();
    std::unique_ptr<Expr> Operand = parseUnary();
    if (Operand) {
      Result = node(ExprKind::Compl, Op.Begin);
      Result->OpRange = Op;
      if (!addOp(*Result, std::move(Operand)))
        Result = nullptr;
    }
  } else if (std::unique_ptr<Expr> P = parsePrimary()) {
    Result = parsePostfix(std::move(P));
  }
  --Depth;
  return Result;
}

std::unique_ptr<Expr> Parser::parsePostfix(std::unique_ptr<Expr> E) {
  for (;;) {
    ExprKind K;
    switch (Cur.Kind) {
    case Tok::Plus:
    case Tok::HatPlus:
      K = ExprKind::Plus;
      break;
    case Tok::HatStar:
      K = ExprKind::Star;
      break;
    case Tok::Star:
      // `a * b` is a product; `a*` followed by anything that cannot start
      // an expression is the reflexive-transitive closure.
      if (startsExpr(Ahead))
        return E;
      K = ExprKind::Star;
      break;
    case Tok::Question:
      K = ExprKind::Opt;
      break;
    case Tok::HatInv:
      K = ExprKind::Inverse;
      break;
    default:
      return E;
    }
    SourceRange Op = Cur.Range;
    advance();
    SourceLoc Begin = E->Range.Begin;
    auto P = node(K, Begin);
    P->OpRange = Op;
    if (!addOp(*P, std::move(E)))
      return nullptr;
    E = std::move(P);
  }
}

std::unique_ptr<Expr> Parser::parsePrimary() {
  SourceLoc Begin = Cur.Range.Begin;
  switch (Cur.Kind) {
  case Tok::Zero:
    advance();
    return node(ExprKind::Empty, Begin);
  case Tok::LParen: {
    advance();
    std::unique_ptr<Expr> E = parseExpr();
    if (!E || !expect(Tok::RParen, "')'"))
      return nullptr;
    return E;
  }
  case Tok::LBracket: {
    advance();
    std::unique_ptr<Expr> Inner = parseExpr();
    if (!Inner || !expect(Tok::RBracket, "']'"))
      return nullptr;
    auto E = node(ExprKind::Bracket, Begin);
    if (!addOp(*E, std::move(Inner)))
      return nullptr;
    return E;
  }
  case Tok::Name: {
    if (isKeyword(Cur.Text)) {
      fail("expected an expression, found " + describe(Cur));
      return nullptr;
    }
    std::string Name = Cur.Text;
    advance();
    if (Name == "_")
      return node(ExprKind::Universe, Begin);
    if (!at(Tok::LParen)) {
      auto E = node(ExprKind::Name, Begin);
      E->Name = std::move(Name);
      return E;
    }
    advance(); // (
    auto E = std::make_unique<Expr>();
    E->Kind = ExprKind::Call;
    E->Name = std::move(Name);
    do {
      std::unique_ptr<Expr> Arg = parseExpr();
      if (!Arg)
        return nullptr;
      E->Range = {Begin, PrevEnd};
      if (!addOp(*E, std::move(Arg)))
        return nullptr;
      if (!at(Tok::Comma))
        break;
      advance();
    } while (true);
    if (!expect(Tok::RParen, "',' or ')' after an argument"))
      return nullptr;
    E->Range = {Begin, PrevEnd};
    return E;
  }
  default:
    fail("expected an expression, found " + describe(Cur));
    return nullptr;
  }
}

} // namespace

std::optional<Module> parseModule(std::shared_ptr<const SourceFile> File,
                                  DiagnosticEngine &Diags) {
  Parser P(std::move(File), Diags);
  return P.parse();
}

} // namespace incant::cat
