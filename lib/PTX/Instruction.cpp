//===- Instruction.cpp - Parse and print one PTX instruction --------------===//
#include "incant/PTX/Instruction.h"
#include "incant/PTX/Lexer.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace incant::ptx {

std::optional<Type> parseType(std::string_view T) {
  if (T == ".pred")
    return Type{Type::Pred, 1};
  if (T.size() < 3 || T[0] != '.')
    return std::nullopt;
  Type R;
  switch (T[1]) {
  case 's': R.K = Type::S; break;
  case 'u': R.K = Type::U; break;
  case 'b': R.K = Type::B; break;
  default: return std::nullopt;
  }
  std::string_view W = T.substr(2);
  if (W == "8")
    R.Bits = 8;
  else if (W == "16")
    R.Bits = 16;
  else if (W == "32")
    R.Bits = 32;
  else if (W == "64")
    R.Bits = 64;
  else
    return std::nullopt;
  return R;
}

std::string typeName(Type T) {
  if (T.K == Type::Pred)
    return ".pred";
  char C = T.K == Type::S ? 's' : T.K == Type::U ? 'u' : 'b';
  return fmt::format(".{}{}", C, T.Bits);
}

namespace {

struct OpcodeInfo {
  std::string_view Name;
  Opcode Op;
};

constexpr std::array<OpcodeInfo, 26> Opcodes = {{
    {"ld", Opcode::Ld},       {"st", Opcode::St},
    {"atom", Opcode::Atom},   {"red", Opcode::Red},
    {"membar", Opcode::Membar}, {"fence", Opcode::Fence},
    {"bar", Opcode::Bar},     {"barrier", Opcode::Bar},
    {"mov", Opcode::Mov},     {"add", Opcode::Add},
    {"sub", Opcode::Sub},     {"mul", Opcode::Mul},
    {"and", Opcode::And},     {"or", Opcode::Or},
    {"xor", Opcode::Xor},     {"not", Opcode::Not},
    {"cvt", Opcode::Cvt},     {"setp", Opcode::Setp},
    {"bra", Opcode::Bra},     {"goto", Opcode::Bra},
    {"beq", Opcode::CmpBra},  {"bne", Opcode::CmpBra},
    {"blt", Opcode::CmpBra},  {"ble", Opcode::CmpBra},
    {"bgt", Opcode::CmpBra},  {"bge", Opcode::CmpBra},
}};

std::optional<Opcode> lookupOpcode(std::string_view N) {
  for (const OpcodeInfo &I : Opcodes)
    if (I.Name == N)
      return I.Op;
  return std::nullopt;
}

Sem semOf(std::string_view M) {
  if (M == ".weak") return Sem::Weak;
  if (M == ".volatile") return Sem::Volatile;
  if (M == ".relaxed") return Sem::Relaxed;
  if (M == ".acquire") return Sem::Acquire;
  if (M == ".release") return Sem::Release;
  if (M == ".acq_rel") return Sem::AcqRel;
  if (M == ".sc") return Sem::SC;
  return Sem::None;
}

Scope scopeOf(std::string_view M) {
  if (M == ".cta") return Scope::CTA;
  if (M == ".cluster") return Scope::Cluster;
  if (M == ".gpu") return Scope::GPU;
  if (M == ".sys") return Scope::Sys;
  return Scope::None;
}

CacheOp cacheOf(std::string_view M) {
  if (M == ".ca") return CacheOp::CA;
  if (M == ".cg") return CacheOp::CG;
  if (M == ".cs") return CacheOp::CS;
  if (M == ".lu") return CacheOp::LU;
  if (M == ".cv") return CacheOp::CV;
  if (M == ".wb") return CacheOp::WB;
  if (M == ".wt") return CacheOp::WT;
  return CacheOp::None;
}

AtomOp atomOf(std::string_view M) {
  if (M == ".cas") return AtomOp::Cas;
  if (M == ".exch") return AtomOp::Exch;
  if (M == ".add" || M == ".plus") return AtomOp::Add;
  if (M == ".inc") return AtomOp::Inc;
  if (M == ".dec") return AtomOp::Dec;
  if (M == ".and") return AtomOp::And;
  if (M == ".or") return AtomOp::Or;
  if (M == ".xor") return AtomOp::Xor;
  if (M == ".min") return AtomOp::Min;
  if (M == ".max") return AtomOp::Max;
  return AtomOp::None;
}

CmpOp cmpOf(std::string_view M) {
  if (M == ".eq") return CmpOp::Eq;
  if (M == ".ne") return CmpOp::Ne;
  if (M == ".lt") return CmpOp::Lt;
  if (M == ".le") return CmpOp::Le;
  if (M == ".gt") return CmpOp::Gt;
  if (M == ".ge") return CmpOp::Ge;
  if (M == ".lo") return CmpOp::Lo;
  if (M == ".ls") return CmpOp::Ls;
  if (M == ".hi") return CmpOp::Hi;
  if (M == ".hs") return CmpOp::Hs;
  return CmpOp::None;
}

bool isMemOp(Opcode O) {
  return O == Opcode::Ld || O == Opcode::St || O == Opcode::Atom ||
         O == Opcode::Red;
}

bool takesType(Opcode O) {
  return O != Opcode::Membar && O != Opcode::Fence && O != Opcode::Bar &&
         O != Opcode::Bra;
}

/// The comparison of a compare-and-branch name ("beq" -> Eq).
CmpOp cmpOfBranch(std::string_view N) {
  return N.size() == 3 ? cmpOf(std::string(".") + std::string(N.substr(1)))
                       : CmpOp::None;
}

bool semAllowed(Opcode O, Sem S) {
  switch (O) {
  case Opcode::Ld:
    return S == Sem::Weak || S == Sem::Volatile || S == Sem::Relaxed ||
           S == Sem::Acquire;
  case Opcode::St:
    return S == Sem::Weak || S == Sem::Volatile || S == Sem::Relaxed ||
           S == Sem::Release;
  case Opcode::Atom:
  case Opcode::Red:
    return S == Sem::Relaxed || S == Sem::Acquire || S == Sem::Release ||
           S == Sem::AcqRel;
  case Opcode::Fence:
    return S == Sem::SC || S == Sem::AcqRel;
  default:
    return false;
  }
}

class InstParser {
public:
  InstParser(std::shared_ptr<const SourceFile> F, uint32_t B, uint32_t E,
             DiagnosticEngine &D)
      : File(std::move(F)), Lex(*File, B, E), Diags(D) {}

  std::optional<Statement> parse();

private:
  bool error(SourceRange R, std::string Msg) {
    Diags.error(File, R, std::move(Msg));
    return false;
  }
  bool parseInstruction(Instruction &I);
  bool decodeModifiers(Instruction &I);
  bool parseRawOperand(Operand &O, bool &IsBracket, bool &IsInt);
  bool parseOperands(Instruction &I);
  bool parseInt(int64_t &V, bool &Hex, bool Negative, const Token &T);
  SourceRange span(SourceLoc B) const {
    return {B, File->locAt(Lex.lastEnd())};
  }

  std::shared_ptr<const SourceFile> File;
  Lexer Lex;
  DiagnosticEngine &Diags;
};

std::optional<Statement> InstParser::parse() {
  Statement S;
  SourceLoc Begin = Lex.peek().Range.Begin;
  // Labels: `Name :`.
  while (Lex.peek().is(TokKind::Ident)) {
    Lexer Ahead = Lex;
    Ahead.next();
    if (!Ahead.peek().is(TokKind::Colon))
      break;
    Token N = Lex.next();
    Lex.next();
    S.Labels.push_back({std::string(N.Text), N.Range});
  }
  if (!Lex.peek().is(TokKind::Eof) && !Lex.peek().is(TokKind::Semi)) {
    Instruction I;
    if (!parseInstruction(I))
      return std::nullopt;
    S.Inst = std::move(I);
  }
  if (Lex.peek().is(TokKind::Semi))
    Lex.next();
  if (!Lex.peek().is(TokKind::Eof)) {
    const Token &T = Lex.peek();
    error(T.Range, fmt::format("unexpected '{}' after the instruction; "
                               "expected end of statement",
                               T.Text));
    return std::nullopt;
  }
  S.Range = {Begin, File->locAt(Lex.lastEnd())};
  if (S.empty())
    S.Range = {Begin, Begin};
  return S;
}

bool InstParser::parseInstruction(Instruction &I) {
  SourceLoc Begin = Lex.peek().Range.Begin;
  if (Lex.peek().is(TokKind::At)) {
    Token At = Lex.next();
    Guard G;
    if (Lex.peek().is(TokKind::Bang)) {
      Lex.next();
      G.Negated = true;
    }
    if (!Lex.peek().is(TokKind::Ident))
      return error(Lex.peek().Range,
                   "expected a predicate register after '@'");
    Token R = Lex.next();
    G.Reg = std::string(R.Text);
    G.Range = {At.Range.Begin, R.Range.End};
    I.G = std::move(G);
  }
  if (!Lex.peek().is(TokKind::Ident)) {
    const Token &T = Lex.peek();
    return error(T.Range, T.is(TokKind::Eof)
                              ? std::string("expected an instruction")
                              : fmt::format("expected an instruction, found "
                                            "'{}'",
                                            T.Text));
  }
  Token N = Lex.next();
  std::optional<Opcode> Op = lookupOpcode(N.Text);
  if (!Op)
    return error(N.Range, fmt::format("unknown instruction '{}'", N.Text));
  I.Op = *Op;
  if (I.Op == Opcode::CmpBra)
    I.Cmp = cmpOfBranch(N.Text);
  I.Name = std::string(N.Text);
  I.NameRange = N.Range;
  while (Lex.peek().is(TokKind::Directive)) {
    Token M = Lex.next();
    I.Mods.push_back({std::string(M.Text), M.Range});
  }
  if (!parseOperands(I))
    return false;
  I.Range = span(Begin);
  return decodeModifiers(I);
}

bool InstParser::decodeModifiers(Instruction &I) {
  const Modifier *SemMod = nullptr, *ScopeMod = nullptr, *SpaceMod = nullptr,
                 *CacheMod = nullptr, *AtomMod = nullptr, *CmpMod = nullptr;
  bool Sync = false;
  auto Conflict = [&](const Modifier &M, const Modifier *Prev) {
    return error(M.Range, fmt::format("modifier '{}' conflicts with '{}'",
                                      M.Text, Prev->Text));
  };
  for (const Modifier &M : I.Mods) {
    std::string_view T = M.Text;
    bool Known = false;
    if (I.Op == Opcode::Membar) {
      Scope Sc = T == ".gl" ? Scope::GPU
                 : T == ".cta" ? Scope::CTA
                 : T == ".sys" ? Scope::Sys
                               : Scope::None;
      if (Sc != Scope::None) {
        if (ScopeMod)
          return Conflict(M, ScopeMod);
        ScopeMod = &M;
        I.Sc = Sc;
        Known = true;
      }
    } else if (I.Op == Opcode::Bar) {
      if (T == ".sync") {
        Sync = true;
        Known = true;
      } else if (T == ".aligned" || T == ".cta") {
        Known = true;
      }
    } else if (I.Op == Opcode::Bra) {
      Known = T == ".uni";
    } else if (I.Op == Opcode::Mul && T == ".lo") {
      Known = true;
    } else if (I.Op == Opcode::Setp && cmpOf(T) != CmpOp::None) {
      if (CmpMod)
        return Conflict(M, CmpMod);
      CmpMod = &M;
      I.Cmp = cmpOf(T);
      Known = true;
    } else if (Sem S = semOf(T); S != Sem::None && semAllowed(I.Op, S)) {
      if (SemMod)
        return Conflict(M, SemMod);
      SemMod = &M;
      I.S = S;
      Known = true;
    } else if (Scope Sc = scopeOf(T);
               Sc != Scope::None && (isMemOp(I.Op) || I.Op == Opcode::Fence)) {
      if (ScopeMod)
        return Conflict(M, ScopeMod);
      ScopeMod = &M;
      I.Sc = Sc;
      Known = true;
    } else if ((T == ".global" || T == ".shared") && isMemOp(I.Op)) {
      if (SpaceMod)
        return Conflict(M, SpaceMod);
      SpaceMod = &M;
      I.Space = T == ".global" ? StateSpace::Global : StateSpace::Shared;
      Known = true;
    } else if (CacheOp C = cacheOf(T);
               C != CacheOp::None &&
               ((I.Op == Opcode::Ld &&
                 (C == CacheOp::CA || C == CacheOp::CG || C == CacheOp::CS ||
                  C == CacheOp::LU || C == CacheOp::CV)) ||
                (I.Op == Opcode::St &&
                 (C == CacheOp::WB || C == CacheOp::CG || C == CacheOp::CS ||
                  C == CacheOp::WT)))) {
      if (CacheMod)
        return Conflict(M, CacheMod);
      CacheMod = &M;
      I.Cache = C;
      Known = true;
    } else if (AtomOp A = atomOf(T); A != AtomOp::None &&
                                     (I.Op == Opcode::Atom ||
                                      I.Op == Opcode::Red)) {
      if (AtomMod)
        return Conflict(M, AtomMod);
      AtomMod = &M;
      I.Atom = A;
      Known = true;
    } else if (std::optional<Type> Ty = parseType(T); Ty && takesType(I.Op)) {
      size_t Max = I.Op == Opcode::Cvt ? 2 : 1;
      if (I.Types.size() == Max)
        return error(M.Range, fmt::format("too many types on '{}'", I.Name));
      I.Types.push_back(*Ty);
      Known = true;
    }
    if (!Known)
      return error(M.Range,
                   fmt::format("unknown modifier '{}' for '{}'", T, I.Name));
  }

  auto NeedScope = [&]() {
    return error(SemMod->Range,
                 fmt::format("'{}' needs a scope (.cta, .cluster, .gpu or "
                             ".sys)",
                             SemMod->Text));
  };
  switch (I.Op) {
  case Opcode::Ld:
  case Opcode::St:
    if (I.S == Sem::None)
      I.S = Sem::Weak;
    if ((I.S == Sem::Relaxed || I.S == Sem::Acquire || I.S == Sem::Release) &&
        I.Sc == Scope::None)
      return NeedScope();
    if ((I.S == Sem::Weak || I.S == Sem::Volatile) && ScopeMod)
      return error(ScopeMod->Range,
                   fmt::format("scope '{}' needs '.relaxed', '{}'",
                               ScopeMod->Text,
                               I.Op == Opcode::Ld ? ".acquire" : ".release"));
    if (CacheMod && I.S != Sem::Weak)
      return error(CacheMod->Range,
                   fmt::format("cache operator '{}' cannot be used with '{}'",
                               CacheMod->Text, SemMod->Text));
    break;
  case Opcode::Atom:
  case Opcode::Red:
    // PTX: without .sem an atomic is .relaxed, without .scope it is .gpu.
    if (I.S == Sem::None)
      I.S = Sem::Relaxed;
    if (I.Sc == Scope::None)
      I.Sc = Scope::GPU;
    if (I.Atom == AtomOp::None)
      return error(I.NameRange,
                   fmt::format("'{}' needs an operation (.add, .cas, .exch, "
                               ".inc, .dec, .and, .or, .xor, .min or .max)",
                               I.Name));
    if (I.Op == Opcode::Red && I.Atom == AtomOp::Cas)
      return error(AtomMod->Range, "'red' cannot do '.cas'");
    if (I.Op == Opcode::Red && I.Atom == AtomOp::Exch)
      return error(AtomMod->Range, "'red' cannot do '.exch'");
    break;
  case Opcode::Membar:
    if (I.Sc == Scope::None)
      return error(I.NameRange, "'membar' needs a level (.cta, .gl or .sys)");
    I.S = Sem::SC;
    break;
  case Opcode::Fence:
    if (I.S == Sem::None)
      I.S = Sem::AcqRel;
    if (I.Sc == Scope::None)
      return error(I.NameRange, "'fence' needs a scope (.cta, .cluster, .gpu "
                                "or .sys)");
    break;
  case Opcode::Bar:
    if (!Sync)
      return error(I.NameRange,
                   fmt::format("'{}' is supported only as '{}.sync'", I.Name,
                               I.Name));
    break;
  case Opcode::Setp:
    if (I.Cmp == CmpOp::None)
      return error(I.NameRange, "'setp' needs a comparison (.eq, .ne, .lt, "
                                ".le, .gt, .ge, .lo, .ls, .hi or .hs)");
    break;
  case Opcode::Cvt:
    if (I.Types.size() != 2)
      return error(I.NameRange, "'cvt' needs two types (destination, source)");
    break;
  default:
    break;
  }
  return true;
}

bool InstParser::parseInt(int64_t &V, bool &Hex, bool Negative,
                          const Token &T) {
  Hex = T.IsHex;
  if (T.IntOverflow || (Negative && T.IntVal > (uint64_t(1) << 63)))
    return error(T.Range, fmt::format("integer '{}' is too large", T.Text));
  V = Negative ? static_cast<int64_t>(uint64_t(0) - T.IntVal)
               : static_cast<int64_t>(T.IntVal);
  return true;
}

bool InstParser::parseRawOperand(Operand &O, bool &IsBracket, bool &IsInt) {
  IsBracket = IsInt = false;
  SourceLoc Begin = Lex.peek().Range.Begin;
  const Token &T = Lex.peek();
  if (T.is(TokKind::Ident)) {
    Token N = Lex.next();
    O.K = Operand::Reg;
    O.Name = std::string(N.Text);
    O.Range = N.Range;
    return true;
  }
  if (T.is(TokKind::LBracket)) {
    Lex.next();
    IsBracket = true;
    O.K = Operand::Address;
    if (Lex.peek().is(TokKind::Ident)) {
      O.Name = std::string(Lex.next().Text);
      if (Lex.peek().is(TokKind::Plus) || Lex.peek().is(TokKind::Minus)) {
        bool Neg = Lex.next().is(TokKind::Minus);
        if (!Lex.peek().is(TokKind::Int))
          return error(Lex.peek().Range,
                       "expected an integer offset in the address");
        Token I = Lex.next();
        if (!parseInt(O.Value, O.Hex, Neg, I))
          return false;
      }
    } else if (Lex.peek().is(TokKind::Int) || Lex.peek().is(TokKind::Minus)) {
      bool Neg = false;
      if (Lex.peek().is(TokKind::Minus)) {
        Lex.next();
        Neg = true;
      }
      if (!Lex.peek().is(TokKind::Int))
        return error(Lex.peek().Range, "expected an integer after '-'");
      Token I = Lex.next();
      if (!parseInt(O.Value, O.Hex, Neg, I))
        return false;
    } else {
      return error(Lex.peek().Range,
                   "expected a register, symbol or integer in the address");
    }
    if (!Lex.peek().is(TokKind::RBracket))
      return error(Lex.peek().Range, "expected ']' to end the address");
    Lex.next();
    O.Range = span(Begin);
    return true;
  }
  if (T.is(TokKind::Eof))
    return error(T.Range, "expected an operand");
  return error(T.Range, fmt::format("expected an operand, found '{}'", T.Text));
}

bool InstParser::parseOperands(Instruction &I) {
  // The shape of each opcode's operands: d = destination register,
  // a = address, v = register or immediate, l = label.
  std::string_view Shape;
  switch (I.Op) {
  case Opcode::Ld: Shape = "da"; break;
  case Opcode::St: Shape = "av"; break;
  case Opcode::Atom: Shape = "dav"; break; // "davv" for .cas
  case Opcode::Red: Shape = "av"; break;
  case Opcode::Membar:
  case Opcode::Fence: Shape = ""; break;
  case Opcode::Bar: Shape = "v"; break; // optional thread count
  case Opcode::Mov:
  case Opcode::Not:
  case Opcode::Cvt: Shape = "dv"; break;
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Mul:
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
  case Opcode::Setp: Shape = "dvv"; break;
  case Opcode::Bra: Shape = "l"; break;
  case Opcode::CmpBra: Shape = "vvl"; break;
  }
  bool IsCas = false;
  for (const Modifier &M : I.Mods)
    IsCas |= M.Text == ".cas";
  std::string Expect(Shape);
  if (I.Op == Opcode::Atom && IsCas)
    Expect = "davv";
  size_t MaxOps = Expect.size() + (I.Op == Opcode::Bar ? 1 : 0);

  std::vector<Operand> Ops;
  if (!Lex.peek().is(TokKind::Eof) && !Lex.peek().is(TokKind::Semi)) {
    while (true) {
      size_t Idx = Ops.size();
      char Want = Idx < Expect.size() ? Expect[Idx] : 'v';
      Operand O;
      const Token First = Lex.peek();
      bool IsBracket, IsInt;
      if (First.is(TokKind::Int) || First.is(TokKind::Minus)) {
        SourceLoc B = First.Range.Begin;
        bool Neg = Lex.next().is(TokKind::Minus);
        if (Neg && !Lex.peek().is(TokKind::Int))
          return error(Lex.peek().Range, "expected an integer after '-'");
        Token IT = Neg ? Lex.next() : First;
        O.K = Operand::Imm;
        if (!parseInt(O.Value, O.Hex, Neg, IT))
          return false;
        O.Range = span(B);
        IsBracket = false;
        IsInt = true;
      } else if (!parseRawOperand(O, IsBracket, IsInt)) {
        return false;
      }
      if (Idx >= MaxOps) {
        return error(O.Range,
                     fmt::format("too many operands for '{}' (expected {})",
                                 I.Name, MaxOps));
      }
      switch (Want) {
      case 'd':
        if (O.K != Operand::Reg)
          return error(O.Range, "expected a destination register");
        break;
      case 'a':
        if (O.K == Operand::Reg)
          O.K = Operand::Symbol;
        else if (O.K != Operand::Address)
          return error(O.Range,
                       "expected an address ([r1], [x], [r1+4] or x)");
        break;
      case 'v':
        if (O.K == Operand::Address)
          return error(O.Range, "expected a register or an immediate, found "
                                "an address");
        break;
      case 'l':
        if (O.K != Operand::Reg)
          return error(O.Range, "expected a label");
        O.K = Operand::Label;
        break;
      }
      Ops.push_back(std::move(O));
      if (!Lex.peek().is(TokKind::Comma))
        break;
      Lex.next();
    }
  }
  if (Ops.size() < Expect.size()) {
    SourceRange R = Ops.empty() ? I.NameRange : Ops.back().Range;
    if (!Ops.empty())
      R = {R.End, R.End};
    return error(R, fmt::format("'{}' needs {} operand{}, found {}", I.Name,
                                Expect.size(), Expect.size() == 1 ? "" : "s",
                                Ops.size()));
  }
  I.Ops = std::move(Ops);
  return true;
}

} // namespace

std::optional<Statement> parseStatement(std::shared_ptr<const SourceFile> File,
                                        uint32_t Begin, uint32_t End,
                                        DiagnosticEngine &Diags) {
  InstParser P(std::move(File), Begin, End, Diags);
  return P.parse();
}

static std::string printInt(int64_t V, bool Hex) {
  // One format call per case: GCC 12 at -O3 warns (-Wrestrict, a false
  // positive) on "-" + std::string.
  uint64_t M = V < 0 ? uint64_t(0) - static_cast<uint64_t>(V)
                     : static_cast<uint64_t>(V);
  const char *Sign = V < 0 ? "-" : "";
  return Hex ? fmt::format("{}0x{:x}", Sign, M) : fmt::format("{}{}", Sign, M);
}

std::string printOperand(const Operand &O) {
  switch (O.K) {
  case Operand::Reg:
  case Operand::Symbol:
  case Operand::Label:
    return O.Name;
  case Operand::Imm:
    return printInt(O.Value, O.Hex);
  case Operand::Address:
    if (O.Name.empty())
      return fmt::format("[{}]", printInt(O.Value, O.Hex));
    if (O.Value == 0)
      return fmt::format("[{}]", O.Name);
    // printInt writes the sign of a negative offset.
    return fmt::format("[{}{}{}]", O.Name, O.Value < 0 ? "" : "+",
                       printInt(O.Value, O.Hex));
  }
  return "";
}

std::string printInstruction(const Instruction &I) {
  std::string S;
  if (I.G)
    S += (I.G->Negated ? "@!" : "@") + I.G->Reg + " ";
  S += I.Name;
  for (const Modifier &M : I.Mods)
    S += M.Text;
  for (size_t K = 0; K != I.Ops.size(); ++K)
    S += (K ? ", " : " ") + printOperand(I.Ops[K]);
  return S;
}

std::string printStatement(const Statement &St) {
  std::string S;
  for (const Label &L : St.Labels) {
    if (!S.empty())
      S += ' ';
    S += L.Name + ":";
  }
  if (St.Inst) {
    if (!S.empty())
      S += ' ';
    S += printInstruction(*St.Inst);
  }
  return S;
}

} // namespace incant::ptx
