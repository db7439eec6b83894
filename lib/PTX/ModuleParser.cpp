//===- ModuleParser.cpp - Parse a whole PTX module -------------------------===//
//
// A recursive-descent parser over the PTX Lexer. Instructions go through the
// one instruction parser (InstParser, module mode); this file reads what
// surrounds them: header directives, declarations, functions, bodies.
// It stops at the first error; unknown instructions and directives are kept
// with a warning.
//
//===----------------------------------------------------------------------===//
#include "incant/PTX/Module.h"
#include "InstParser.h"
#include "incant/PTX/Lexer.h"

#include <fmt/format.h>

#include <charconv>

namespace incant::ptx {

namespace {

std::optional<Linkage> linkageOf(std::string_view D) {
  if (D == ".visible")
    return Linkage::Visible;
  if (D == ".extern")
    return Linkage::Extern;
  if (D == ".weak")
    return Linkage::Weak;
  if (D == ".common")
    return Linkage::Common;
  return std::nullopt;
}

/// A state space that starts a declaration.
std::optional<AddrSpace> declSpaceOf(std::string_view D) {
  std::optional<AddrSpace> S = addrSpaceOf(D);
  // `.shared::cta` and `.param::entry` qualify instructions, not
  // declarations.
  if (S && D.find(':') != std::string_view::npos &&
      *S != AddrSpace::SharedCluster)
    return std::nullopt;
  return S;
}

/// Directives that only a module holds, never a function body.
bool isModuleOnlyDirective(std::string_view D) {
  for (std::string_view M : {".entry", ".func", ".version", ".target",
                             ".address_size", ".file", ".section", ".visible",
                             ".weak", ".common"})
    if (D == M)
      return true;
  return false;
}

/// Directives kept as text without a warning.
bool isKnownRawDirective(std::string_view D) {
  return D == ".branchtargets" || D == ".calltargets" || D == ".alias";
}

class ModuleParser {
public:
  ModuleParser(std::shared_ptr<const SourceFile> F, DiagnosticEngine &D)
      : File(std::move(F)),
        Lex(*File, 0, static_cast<uint32_t>(File->text().size())), Diags(D),
        IP(File, Lex, D, InstParser::Mode::Module) {}

  std::optional<Module> parse();

private:
  bool error(SourceRange R, std::string Msg) {
    Diags.error(File, R, std::move(Msg));
    return false;
  }
  /// "expected WHAT, found 'TOKEN'" at the next token.
  bool expected(std::string_view What) {
    const Token &T = Lex.peek();
    return error(T.Range,
                 fmt::format("expected {}, found {}", What, describeFound(T)));
  }
  bool expect(TokKind K, std::string_view What) {
    if (!Lex.peek().is(K))
      return expected(What);
    Lex.next();
    return true;
  }
  /// A missing ';' is reported just after the statement it should end
  /// (where the user types it), not at the next line's token.
  bool expectSemi(std::string_view What) {
    if (Lex.peek().is(TokKind::Semi)) {
      Lex.next();
      return true;
    }
    const Token &T = Lex.peek();
    SourceLoc At = Lex.lastEndLoc();
    if (T.is(TokKind::BadComment))
      return expected(fmt::format("';' {}", What));
    return error({At, At}, fmt::format("expected ';' {}, found {}", What,
                                       describeFound(T)));
  }
  bool parseU32(uint32_t &V, std::string_view What);
  bool parseU64(uint64_t &V, std::string_view What);
  SourceRange span(SourceLoc B) const { return {B, Lex.lastEndLoc()}; }
  /// Whether the next token is an identifier followed by ':' (a label).
  bool atLabel() const;

  bool parseHeader(Module &M, const Token &D);
  bool parseModuleItem(Module &M);
  bool parseFile(FileEntry &F);
  bool parseSection(Section &S);
  bool parsePragma(Pragma &P);
  bool parseRaw(RawDirective &R, bool Warn);
  bool parseLoc(LocDirective &L);
  /// Qualifiers, type and one name of a declaration; for a statement also
  /// dims, initializer and further names, up to (not including) ';'.
  bool parseVariables(std::vector<Variable> &Out, Linkage Link,
                      SourceLoc Begin, bool IsParam);
  bool parseVarName(Variable &V, bool IsParam);
  bool parseInit(Operand &O, unsigned Depth = 0);
  bool parseParamList(std::vector<Variable> &Out);
  bool parseFunction(Function &F, Linkage Link, SourceLoc Begin);
  bool parsePerf(std::vector<PerfDirective> &Out);
  bool parseBody(Function &F);
  bool parsePrototype(CallPrototype &P, const Token &Name);

  std::shared_ptr<const SourceFile> File;
  Lexer Lex;
  DiagnosticEngine &Diags;
  InstParser IP;
  uint64_t RangeRegisters = 0; ///< Registers declared in ranges so far.
};

bool ModuleParser::atLabel() const {
  const Token &T = Lex.peek();
  if (!T.is(TokKind::Ident))
    return false;
  // Fast path on the byte after the name; anything unusual (white space,
  // a comment) asks the lexer, so that labels are found exactly as the
  // tokens fall (a printed module must parse the same way).
  const std::string &S = File->text();
  size_t P = T.Range.End.Offset;
  if (P < S.size()) {
    if (S[P] == ':')
      return true;
    if (!isSpaceChar(S[P]) && S[P] != '/')
      return false;
  }
  Lexer Ahead = Lex;
  Ahead.next();
  return Ahead.peek().is(TokKind::Colon);
}

bool ModuleParser::parseU64(uint64_t &V, std::string_view What) {
  const Token &T = Lex.peek();
  if (!T.is(TokKind::Int))
    return expected(What);
  if (T.IntOverflow)
    return error(T.Range, fmt::format("integer '{}' is too large", T.Text));
  V = T.IntVal;
  Lex.next();
  return true;
}

bool ModuleParser::parseU32(uint32_t &V, std::string_view What) {
  const Token &T = Lex.peek();
  uint64_t W;
  SourceRange R = T.Range;
  if (!parseU64(W, What))
    return false;
  if (W > UINT32_MAX)
    return error(R, fmt::format("{} is too large", What));
  V = static_cast<uint32_t>(W);
  return true;
}

std::optional<Module> ModuleParser::parse() {
  Module M;
  M.File = File;
  while (!Lex.peek().is(TokKind::Eof))
    if (!parseModuleItem(M))
      return std::nullopt;
  return M;
}

bool ModuleParser::parseHeader(Module &M, const Token &D) {
  if (D.Text == ".version") {
    const Token &T = Lex.peek();
    if (!T.is(TokKind::Float) || T.FloatForm)
      return expected("a version number (major.minor)");
    std::string_view S = T.Text;
    size_t Dot = S.find('.');
    if (Dot == std::string_view::npos || S.find_first_of("eE") != S.npos)
      return expected("a version number (major.minor)");
    auto R1 = std::from_chars(S.data(), S.data() + Dot, M.VersionMajor);
    auto R2 = std::from_chars(S.data() + Dot + 1, S.data() + S.size(),
                              M.VersionMinor);
    if (R1.ec != std::errc() || R2.ec != std::errc() ||
        R2.ptr != S.data() + S.size())
      return error(T.Range, fmt::format("bad version number '{}'", S));
    Lex.next();
    M.VersionRange = span(D.Range.Begin);
    return true;
  }
  if (D.Text == ".target") {
    M.Targets.clear();
    while (true) {
      if (!Lex.peek().is(TokKind::Ident))
        return expected("a target name (sm_90, debug, ...)");
      M.Targets.emplace_back(Lex.next().Text);
      if (!Lex.peek().is(TokKind::Comma))
        break;
      Lex.next();
    }
    M.TargetRange = span(D.Range.Begin);
    return true;
  }
  // .address_size
  SourceRange R = Lex.peek().Range;
  if (!parseU32(M.AddressSize, "an address size (32 or 64)"))
    return false;
  if (M.AddressSize != 32 && M.AddressSize != 64)
    return error(R, "the address size must be 32 or 64");
  M.AddressSizeRange = span(D.Range.Begin);
  return true;
}

bool ModuleParser::parseModuleItem(Module &M) {
  const Token &T = Lex.peek();
  if (T.is(TokKind::Semi)) { // An empty statement.
    Lex.next();
    return true;
  }
  if (!T.is(TokKind::Directive))
    return expected("a directive (.version, .target, .entry, .func, a "
                    "variable declaration, ...)");
  std::string_view D = T.Text;
  SourceLoc Begin = T.Range.Begin;
  if (D == ".version" || D == ".target" || D == ".address_size") {
    Token DT = Lex.next();
    return parseHeader(M, DT);
  }
  if (D == ".file") {
    FileEntry F;
    if (!parseFile(F))
      return false;
    M.Items.emplace_back(std::move(F));
    return true;
  }
  if (D == ".section") {
    Section S;
    if (!parseSection(S))
      return false;
    M.Items.emplace_back(std::move(S));
    return true;
  }
  if (D == ".pragma") {
    Pragma P;
    if (!parsePragma(P))
      return false;
    M.Items.emplace_back(std::move(P));
    return true;
  }
  Linkage Link = Linkage::None;
  if (std::optional<Linkage> L = linkageOf(D)) {
    Link = *L;
    Lex.next();
    if (!Lex.peek().is(TokKind::Directive))
      return expected("'.entry', '.func' or a state space after the "
                      "linkage");
    D = Lex.peek().Text;
  }
  if (D == ".entry" || D == ".func") {
    Function F;
    if (!parseFunction(F, Link, Begin))
      return false;
    M.Items.emplace_back(std::move(F));
    return true;
  }
  if (declSpaceOf(D)) {
    std::vector<Variable> Vars;
    if (!parseVariables(Vars, Link, Begin, /*IsParam=*/false) ||
        !expectSemi("after the declaration"))
      return false;
    for (Variable &V : Vars) {
      V.Range.End = Lex.lastEndLoc();
      M.Items.emplace_back(std::move(V));
    }
    return true;
  }
  if (Link != Linkage::None)
    return expected("'.entry', '.func' or a state space after the linkage");
  RawDirective R;
  if (!parseRaw(R, !isKnownRawDirective(D)))
    return false;
  M.Items.emplace_back(std::move(R));
  return true;
}

bool ModuleParser::parseFile(FileEntry &F) {
  SourceLoc Begin = Lex.next().Range.Begin;
  if (!parseU32(F.Index, "a file number"))
    return false;
  if (!Lex.peek().is(TokKind::String))
    return expected("a file name in double quotes");
  F.Path = unescapeString(Lex.next().Text);
  if (Lex.peek().is(TokKind::Comma)) {
    Lex.next();
    uint64_t V;
    if (!parseU64(V, "a time stamp"))
      return false;
    F.Timestamp = V;
    if (!expect(TokKind::Comma, "',' and a file size"))
      return false;
    if (!parseU64(V, "a file size"))
      return false;
    F.Size = V;
  }
  F.Range = span(Begin);
  return true;
}

bool ModuleParser::parseSection(Section &S) {
  SourceLoc Begin = Lex.next().Range.Begin;
  if (!Lex.peek().is(TokKind::Directive))
    return expected("a section name (.debug_info, ...)");
  S.Name = std::string(Lex.next().Text);
  if (!Lex.peek().is(TokKind::LBrace))
    return expected("'{' to begin the section");
  Lex.next();
  S.Text = std::string(Lex.skipTo('}'));
  if (!expect(TokKind::RBrace, "'}' to end the section"))
    return false;
  S.Range = span(Begin);
  return true;
}

bool ModuleParser::parsePragma(Pragma &P) {
  SourceLoc Begin = Lex.next().Range.Begin;
  while (true) {
    if (!Lex.peek().is(TokKind::String))
      return expected("a string after '.pragma'");
    P.Strings.push_back(unescapeString(Lex.next().Text));
    if (!Lex.peek().is(TokKind::Comma))
      break;
    Lex.next();
  }
  if (!expectSemi("after the pragma"))
    return false;
  P.Range = span(Begin);
  return true;
}

bool ModuleParser::parseRaw(RawDirective &R, bool Warn) {
  Token D = Lex.next();
  if (Warn)
    Diags.warning(File, D.Range,
                  fmt::format("unknown directive '{}'; kept as written",
                              D.Text));
  R.Name = std::string(D.Text);
  R.Text = std::string(Lex.skipTo(';'));
  if (!expect(TokKind::Semi, fmt::format("';' to end '{}'", D.Text)))
    return false;
  R.Range = span(D.Range.Begin);
  return true;
}

bool ModuleParser::parseLoc(LocDirective &L) {
  SourceLoc Begin = Lex.next().Range.Begin;
  if (!parseU32(L.File, "a file number after '.loc'") ||
      !parseU32(L.Line, "a line number") || !parseU32(L.Col, "a column"))
    return false;
  if (!Lex.peek().is(TokKind::Comma)) {
    L.Range = span(Begin);
    return true;
  }
  Lex.next();
  if (!Lex.peek().is(TokKind::Ident) || Lex.peek().Text != "function_name")
    return expected("'function_name'");
  Lex.next();
  if (!Lex.peek().is(TokKind::Ident))
    return expected("a label after 'function_name'");
  L.FunctionName = std::string(Lex.next().Text);
  if (Lex.peek().is(TokKind::Plus)) {
    Lex.next();
    SourceRange OffRange = Lex.peek().Range;
    uint64_t Off;
    if (!parseU64(Off, "an offset"))
      return false;
    if (Off > INT64_MAX)
      return error(OffRange, "the offset is too large");
    L.FunctionOffset = static_cast<int64_t>(Off);
  }
  if (!expect(TokKind::Comma, "',' and 'inlined_at'"))
    return false;
  if (!Lex.peek().is(TokKind::Ident) || Lex.peek().Text != "inlined_at")
    return expected("'inlined_at'");
  Lex.next();
  if (!parseU32(L.InlinedFile, "a file number after 'inlined_at'") ||
      !parseU32(L.InlinedLine, "a line number") ||
      !parseU32(L.InlinedCol, "a column"))
    return false;
  L.HasInlinedAt = true;
  L.Range = span(Begin);
  return true;
}

bool ModuleParser::parseInit(Operand &O, unsigned Depth) {
  const Token &T = Lex.peek();
  if (Depth >= MaxNesting)
    return error(T.Range, fmt::format("initializer nested more than {} deep",
                                      MaxNesting));
  if (!T.is(TokKind::LBrace)) {
    if (!IP.parseModuleOperand(O))
      return false;
    if (O.K == Operand::Address || O.K == Operand::List ||
        O.K == Operand::Pair || O.Negated)
      return error(O.Range, "expected a constant, a symbol or "
                            "'generic(symbol)' in the initializer");
    return true;
  }
  SourceLoc Begin = T.Range.Begin;
  Lex.next();
  O.K = Operand::Vector;
  if (!Lex.peek().is(TokKind::RBrace)) {
    while (true) {
      Operand E;
      if (!parseInit(E, Depth + 1))
        return false;
      O.Elems.push_back(std::move(E));
      if (!Lex.peek().is(TokKind::Comma))
        break;
      Lex.next();
    }
  }
  if (!expect(TokKind::RBrace, "',' or '}' in the initializer"))
    return false;
  O.Range = span(Begin);
  return true;
}

bool ModuleParser::parseVarName(Variable &V, bool IsParam) {
  if (!Lex.peek().is(TokKind::Ident))
    return expected("a name in the declaration");
  V.Name = std::string(Lex.next().Text);
  if (Lex.peek().is(TokKind::Less)) {
    Lex.next();
    V.IsRange = true;
    SourceRange CountR = Lex.peek().Range;
    if (!parseU32(V.RangeCount, "a register count"))
      return false;
    // Each register of a range gets a name of its own downstream (IR):
    // the total is bounded so that 118 bytes cannot ask for gigabytes.
    RangeRegisters += V.RangeCount;
    if (RangeRegisters > MaxRangeRegisters)
      return error(CountR,
                   fmt::format("too many registers: a module may declare at "
                               "most {} in ranges like %r<N> (this one "
                               "brings it to {})",
                               MaxRangeRegisters, RangeRegisters));
    if (!expect(TokKind::Greater, "'>' after the register count"))
      return false;
  }
  while (Lex.peek().is(TokKind::LBracket)) {
    Lex.next();
    if (Lex.peek().is(TokKind::RBracket)) {
      V.Dims.push_back(std::nullopt);
    } else {
      uint64_t N;
      if (!parseU64(N, "an array size"))
        return false;
      V.Dims.push_back(N);
    }
    if (!expect(TokKind::RBracket, "']' after the array size"))
      return false;
  }
  if (!IsParam && Lex.peek().is(TokKind::Equal)) {
    Lex.next();
    Operand Init;
    if (!parseInit(Init))
      return false;
    V.Init = std::move(Init);
  }
  return true;
}

bool ModuleParser::parseVariables(std::vector<Variable> &Out, Linkage Link,
                                  SourceLoc Begin, bool IsParam) {
  Variable V;
  V.Link = Link;
  bool HasSpace = false;
  while (Lex.peek().is(TokKind::Directive)) {
    Token D = Lex.next();
    std::string_view T = D.Text;
    if (std::optional<AddrSpace> S = declSpaceOf(T)) {
      if (HasSpace)
        return error(D.Range, fmt::format("a second state space '{}' in the "
                                          "declaration",
                                          T));
      HasSpace = true;
      V.Space = *S;
    } else if (T == ".align") {
      if (!parseU32(V.Align, "an alignment after '.align'"))
        return false;
    } else if (T == ".attribute") {
      if (!expect(TokKind::LParen, "'(' after '.attribute'"))
        return false;
      while (Lex.peek().is(TokKind::Directive)) {
        V.Attributes.emplace_back(Lex.next().Text);
        if (Lex.peek().is(TokKind::Comma))
          Lex.next();
      }
      if (!expect(TokKind::RParen, "')' to end '.attribute'"))
        return false;
    } else if (T == ".v2" || T == ".v4" || T == ".v8") {
      V.Vec = static_cast<uint8_t>(T[2] - '0');
    } else if (T == ".ptr") {
      V.IsPtr = true;
      if (Lex.peek().is(TokKind::Directive)) {
        std::optional<AddrSpace> S = declSpaceOf(Lex.peek().Text);
        if (S && (*S == AddrSpace::Global || *S == AddrSpace::Shared ||
                  *S == AddrSpace::Const || *S == AddrSpace::Local)) {
          V.PtrSpace = *S;
          Lex.next();
        }
      }
      if (Lex.peek().is(TokKind::Directive) && Lex.peek().Text == ".align") {
        Lex.next();
        if (!parseU32(V.PtrAlign, "an alignment after '.align'"))
          return false;
      }
    } else if (V.Type.empty()) {
      V.Type = std::string(T);
    } else {
      return error(D.Range, fmt::format("unexpected '{}' in the declaration "
                                        "(the type is '{}')",
                                        T, V.Type));
    }
  }
  if (!HasSpace)
    return expected("a state space (.reg, .param, .shared, ...)");
  if (V.Type.empty())
    return expected("a type (.b32, .u64, .f32, ...)");
  while (true) {
    Variable W = V;
    SourceLoc NB = Lex.peek().Range.Begin;
    if (!parseVarName(W, IsParam))
      return false;
    W.Range = {Out.empty() ? Begin : NB, Lex.lastEndLoc()};
    Out.push_back(std::move(W));
    if (IsParam || !Lex.peek().is(TokKind::Comma))
      return true;
    Lex.next();
  }
}

bool ModuleParser::parseParamList(std::vector<Variable> &Out) {
  Lex.next(); // '('
  if (Lex.peek().is(TokKind::RParen)) {
    Lex.next();
    return true;
  }
  while (true) {
    if (!Lex.peek().is(TokKind::Directive))
      return expected("a parameter (.param or .reg)");
    SourceLoc B = Lex.peek().Range.Begin;
    if (!parseVariables(Out, Linkage::None, B, /*IsParam=*/true))
      return false;
    if (Lex.peek().is(TokKind::Comma)) {
      Lex.next();
      continue;
    }
    return expect(TokKind::RParen, "',' or ')' in the parameter list");
  }
}

bool ModuleParser::parsePerf(std::vector<PerfDirective> &Out) {
  while (Lex.peek().is(TokKind::Directive)) {
    Token D = Lex.next();
    PerfDirective P;
    P.Name = std::string(D.Text);
    if (Lex.peek().is(TokKind::Int)) {
      while (true) {
        uint64_t V;
        if (!parseU64(V, fmt::format("a number after '{}'", D.Text)))
          return false;
        P.Values.push_back(V);
        if (!Lex.peek().is(TokKind::Comma))
          break;
        Lex.next();
      }
    }
    P.Range = span(D.Range.Begin);
    Out.push_back(std::move(P));
  }
  return true;
}

bool ModuleParser::parseFunction(Function &F, Linkage Link, SourceLoc Begin) {
  F.Link = Link;
  F.IsEntry = Lex.next().Text == ".entry";
  if (Lex.peek().is(TokKind::LParen)) {
    if (F.IsEntry)
      return error(Lex.peek().Range, "a kernel (.entry) has no return "
                                     "parameters");
    F.HasReturnList = true;
    if (!parseParamList(F.Returns))
      return false;
  }
  if (!Lex.peek().is(TokKind::Ident))
    return expected(F.IsEntry ? "a kernel name" : "a function name");
  Token N = Lex.next();
  F.Name = std::string(N.Text);
  F.NameRange = N.Range;
  if (Lex.peek().is(TokKind::LParen)) {
    F.HasParamList = true;
    if (!parseParamList(F.Params))
      return false;
  }
  if (!parsePerf(F.Perf))
    return false;
  if (Lex.peek().is(TokKind::Semi)) {
    Lex.next();
    F.Range = span(Begin);
    return true;
  }
  if (!Lex.peek().is(TokKind::LBrace))
    return expected(fmt::format("'{{' or ';' after the declaration of '{}'",
                                F.Name));
  Lex.next();
  F.HasBody = true;
  // Reserve the body from a guess at its length (compilers close a body
  // with '}' at the start of a line), so that items are not moved again and
  // again as the vector grows.
  {
    std::string_view Rest = std::string_view(File->text()).substr(
        Lex.peek().Range.Begin.Offset);
    size_t Close = Rest.find("\n}");
    if (Close != std::string_view::npos)
      F.Body.reserve(Close / 24 + 8);
  }
  if (!parseBody(F))
    return false;
  // The guess can be far off for odd input (many small functions, one '}'
  // at the end): do not keep that memory.
  if (F.Body.capacity() > 2 * F.Body.size() + 64)
    F.Body.shrink_to_fit();
  F.Range = span(Begin);
  return true;
}

bool ModuleParser::parsePrototype(CallPrototype &P, const Token &Name) {
  SourceLoc Begin = Name.Range.Begin;
  P.Name = std::string(Name.Text);
  Lex.next(); // .callprototype
  if (Lex.peek().is(TokKind::LParen)) {
    P.HasReturnList = true;
    if (!parseParamList(P.Returns))
      return false;
  }
  if (!Lex.peek().is(TokKind::Ident) || Lex.peek().Text != "_")
    return expected("'_' in the call prototype");
  Lex.next();
  if (!Lex.peek().is(TokKind::LParen))
    return expected("'(' and the parameters of the call prototype");
  if (!parseParamList(P.Params) || !parsePerf(P.Attrs) ||
      !expectSemi("after the call prototype"))
    return false;
  P.Range = span(Begin);
  return true;
}

bool ModuleParser::parseBody(Function &F) {
  unsigned Depth = 0;
  std::vector<BodyItem> &Body = F.Body;
  while (true) {
    const Token &T = Lex.peek();
    switch (T.K) {
    case TokKind::Eof:
      return error(T.Range,
                   fmt::format("expected '}}' to end the body of '{}', found "
                               "end of file",
                               F.Name));
    case TokKind::RBrace:
      if (Depth == 0) {
        Lex.next();
        return true;
      }
      --Depth;
      Body.emplace_back(BlockEnd{Lex.next().Range});
      break;
    case TokKind::LBrace:
      ++Depth;
      Body.emplace_back(BlockBegin{Lex.next().Range});
      break;
    case TokKind::Semi:
      Lex.next(); // An empty statement.
      break;
    case TokKind::Directive: {
      std::string_view D = T.Text;
      SourceLoc Begin = T.Range.Begin;
      if (isModuleOnlyDirective(D))
        return error(T.Range,
                     fmt::format("'{}' inside the body of '{}' (only at "
                                 "module level: is a '}}' missing?)",
                                 D, F.Name));
      if (D == ".loc") {
        LocDirective L;
        if (!parseLoc(L))
          return false;
        Body.emplace_back(std::move(L));
      } else if (D == ".pragma") {
        Pragma P;
        if (!parsePragma(P))
          return false;
        Body.emplace_back(std::move(P));
      } else if (declSpaceOf(D)) {
        std::vector<Variable> Vars;
        if (!parseVariables(Vars, Linkage::None, Begin, /*IsParam=*/false) ||
            !expectSemi("after the declaration"))
          return false;
        for (Variable &V : Vars) {
          V.Range.End = Lex.lastEndLoc();
          Body.emplace_back(std::move(V));
        }
      } else {
        RawDirective R;
        if (!parseRaw(R, !isKnownRawDirective(D)))
          return false;
        Body.emplace_back(std::move(R));
      }
      break;
    }
    case TokKind::Ident:
      if (atLabel()) {
        Token N = Lex.next();
        Lex.next(); // ':'
        if (Lex.peek().is(TokKind::Directive) &&
            Lex.peek().Text == ".callprototype") {
          CallPrototype P;
          if (!parsePrototype(P, N))
            return false;
          Body.emplace_back(std::move(P));
        } else {
          Body.emplace_back(Label{std::string(N.Text), N.Range});
        }
        break;
      }
      [[fallthrough]];
    case TokKind::At: {
      Instruction I;
      if (!IP.parseInstruction(I))
        return false;
      if (!expectSemi("after the instruction"))
        return false;
      Body.emplace_back(std::move(I));
      break;
    }
    default:
      return expected("an instruction, a label, a directive or '}'");
    }
  }
}

} // namespace

std::optional<Module> parseModule(std::shared_ptr<const SourceFile> File,
                                  DiagnosticEngine &Diags) {
  ModuleParser P(std::move(File), Diags);
  return P.parse();
}

std::optional<Instruction>
parseModuleInstruction(std::shared_ptr<const SourceFile> File, uint32_t Begin,
                       uint32_t End, DiagnosticEngine &Diags) {
  Lexer Lex(*File, Begin, End);
  InstParser IP(File, Lex, Diags, InstParser::Mode::Module);
  Instruction I;
  if (!IP.parseInstruction(I))
    return std::nullopt;
  if (Lex.peek().is(TokKind::Semi))
    Lex.next();
  if (!Lex.peek().is(TokKind::Eof)) {
    const Token &T = Lex.peek();
    Diags.error(File, T.Range,
                fmt::format("expected the end of the instruction, found {}",
                            describeFound(T)));
    return std::nullopt;
  }
  return I;
}

Function *Module::findFunction(std::string_view Name) {
  for (ModuleItem &It : Items)
    if (auto *F = std::get_if<Function>(&It); F && F->Name == Name)
      return F;
  return nullptr;
}

const Function *Module::findFunction(std::string_view Name) const {
  return const_cast<Module *>(this)->findFunction(Name);
}

} // namespace incant::ptx
