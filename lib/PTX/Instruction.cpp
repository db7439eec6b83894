//===- Instruction.cpp - Parse and print one PTX instruction --------------===//
#include "incant/PTX/Instruction.h"
#include "InstParser.h"
#include "incant/PTX/Lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <iterator>
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

std::optional<Type> parseAnyType(std::string_view T) {
  if (std::optional<Type> R = parseType(T))
    return R;
  if (T == ".f32")
    return Type{Type::F, 32};
  if (T == ".f64")
    return Type{Type::F, 64};
  if (T == ".f16")
    return Type{Type::F, 16};
  if (T == ".b128")
    return Type{Type::B, 128};
  return std::nullopt;
}

std::string typeName(Type T) {
  if (T.K == Type::Pred)
    return ".pred";
  char C = T.K == Type::S   ? 's'
           : T.K == Type::U ? 'u'
           : T.K == Type::F ? 'f'
                            : 'b';
  // Not fmt::format: check prints a test's register types for its hash.
  std::string S = {'.', C};
  S += std::to_string(T.Bits);
  return S;
}

const char *addrSpaceName(AddrSpace S) {
  switch (S) {
  case AddrSpace::Generic: return "";
  case AddrSpace::Reg: return ".reg";
  case AddrSpace::SReg: return ".sreg";
  case AddrSpace::Const: return ".const";
  case AddrSpace::Global: return ".global";
  case AddrSpace::Local: return ".local";
  case AddrSpace::Param: return ".param";
  case AddrSpace::Shared: return ".shared";
  case AddrSpace::SharedCluster: return ".shared::cluster";
  case AddrSpace::Tex: return ".tex";
  }
  return "";
}

namespace {

struct OpcodeInfo {
  std::string_view Name;
  Opcode Op;
};

constexpr std::array<OpcodeInfo, 35> Opcodes = {{
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
    // Dat3M's accesses through other proxies (see Proxy).
    {"sust", Opcode::St},     {"suld", Opcode::Ld},
    {"suatom", Opcode::Atom}, {"sured", Opcode::Red},
    {"tld", Opcode::Ld},      {"cold", Opcode::Ld},
    // Hopper: mbarrier objects, bulk asynchronous copies and mapa (the
    // address of a location in another CTA of the cluster). barrier.cluster
    // is `barrier` with .cluster first (BarrierCluster).
    {"mbarrier", Opcode::Mbarrier}, {"cp", Opcode::CpAsync},
    {"mapa", Opcode::Other},
}};

/// The proxy of a litmus cell's access opcode name ("sust" -> Surface).
Proxy proxyOfName(std::string_view N) {
  if (N == "sust" || N == "suld" || N == "suatom" || N == "sured")
    return Proxy::Surface;
  if (N == "tld")
    return Proxy::Texture;
  if (N == "cold")
    return Proxy::Constant;
  return Proxy::Generic;
}

/// The proxy named by a `fence.proxy` kind (".alias" -> Alias).
std::optional<Proxy> proxyKindOf(std::string_view M) {
  if (M == ".alias") return Proxy::Alias;
  if (M == ".surface") return Proxy::Surface;
  if (M == ".texture") return Proxy::Texture;
  if (M == ".constant") return Proxy::Constant;
  return std::nullopt;
}

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
  if (M == ".sub") return AtomOp::Sub;
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

/// Opcodes of the whole PTX ISA, sorted by name, with their family.
struct ModuleOpcodeInfo {
  std::string_view Name;
  Opcode Op;
};

constexpr ModuleOpcodeInfo ModuleOpcodes[] = {
    {"abs", Opcode::Other},
    {"activemask", Opcode::Activemask},
    {"add", Opcode::Add},
    {"addc", Opcode::Other},
    {"alloca", Opcode::Other},
    {"and", Opcode::And},
    {"applypriority", Opcode::Prefetch},
    {"atom", Opcode::Atom},
    {"bar", Opcode::Bar},
    {"barrier", Opcode::Bar},
    {"bfe", Opcode::Other},
    {"bfi", Opcode::Other},
    {"bfind", Opcode::Other},
    {"bmsk", Opcode::Other},
    {"bra", Opcode::Bra},
    {"brev", Opcode::Other},
    {"brkpt", Opcode::Trap},
    {"brx", Opcode::Brx},
    {"call", Opcode::Call},
    {"clusterlaunchcontrol", Opcode::Other},
    {"clz", Opcode::Other},
    {"cnot", Opcode::Other},
    {"copysign", Opcode::Other},
    {"cos", Opcode::Other},
    {"cp", Opcode::CpAsync},
    {"createpolicy", Opcode::Other},
    {"cvt", Opcode::Cvt},
    {"cvta", Opcode::Cvta},
    {"discard", Opcode::Prefetch},
    {"div", Opcode::Other},
    {"dp2a", Opcode::Other},
    {"dp4a", Opcode::Other},
    {"elect", Opcode::Other},
    {"ex2", Opcode::Other},
    {"exit", Opcode::Exit},
    {"fence", Opcode::Fence},
    {"fma", Opcode::Other},
    {"fns", Opcode::Other},
    {"getctarank", Opcode::Other},
    {"griddepcontrol", Opcode::Other},
    {"isspacep", Opcode::Other},
    {"istypep", Opcode::Other},
    {"ld", Opcode::Ld},
    {"ldmatrix", Opcode::Tensor},
    {"ldu", Opcode::Ldu},
    {"lg2", Opcode::Other},
    {"lop3", Opcode::Other},
    {"mad", Opcode::Other},
    {"mad24", Opcode::Other},
    {"madc", Opcode::Other},
    {"mapa", Opcode::Other},
    {"match", Opcode::Match},
    {"max", Opcode::Other},
    {"mbarrier", Opcode::Mbarrier},
    {"membar", Opcode::Membar},
    {"min", Opcode::Other},
    {"mma", Opcode::Tensor},
    {"mov", Opcode::Mov},
    {"movmatrix", Opcode::Tensor},
    {"mul", Opcode::Mul},
    {"mul24", Opcode::Other},
    {"multimem", Opcode::Other},
    {"nanosleep", Opcode::Other},
    {"neg", Opcode::Other},
    {"not", Opcode::Not},
    {"or", Opcode::Or},
    {"pmevent", Opcode::Other},
    {"popc", Opcode::Other},
    {"prefetch", Opcode::Prefetch},
    {"prefetchu", Opcode::Prefetch},
    {"prmt", Opcode::Other},
    {"rcp", Opcode::Other},
    {"red", Opcode::Red},
    {"redux", Opcode::Redux},
    {"rem", Opcode::Other},
    {"ret", Opcode::Ret},
    {"rsqrt", Opcode::Other},
    {"sad", Opcode::Other},
    {"selp", Opcode::Other},
    {"set", Opcode::Other},
    {"setmaxnreg", Opcode::Other},
    {"setp", Opcode::Setp},
    {"shf", Opcode::Other},
    {"shfl", Opcode::Shfl},
    {"shl", Opcode::Other},
    {"shr", Opcode::Other},
    {"sin", Opcode::Other},
    {"slct", Opcode::Other},
    {"sqrt", Opcode::Other},
    {"st", Opcode::St},
    {"stackrestore", Opcode::Other},
    {"stacksave", Opcode::Other},
    {"stmatrix", Opcode::Tensor},
    {"sub", Opcode::Sub},
    {"subc", Opcode::Other},
    {"suld", Opcode::Other},
    {"suq", Opcode::Other},
    {"sured", Opcode::Other},
    {"sust", Opcode::Other},
    {"szext", Opcode::Other},
    {"tanh", Opcode::Other},
    {"tcgen05", Opcode::Tensor},
    {"tensormap", Opcode::Other},
    {"testp", Opcode::Other},
    {"tex", Opcode::Other},
    {"tld4", Opcode::Other},
    {"trap", Opcode::Trap},
    {"txq", Opcode::Other},
    {"vabsdiff", Opcode::Other},
    {"vabsdiff2", Opcode::Other},
    {"vabsdiff4", Opcode::Other},
    {"vadd", Opcode::Other},
    {"vadd2", Opcode::Other},
    {"vadd4", Opcode::Other},
    {"vavrg2", Opcode::Other},
    {"vavrg4", Opcode::Other},
    {"vmad", Opcode::Other},
    {"vmax", Opcode::Other},
    {"vmax2", Opcode::Other},
    {"vmax4", Opcode::Other},
    {"vmin", Opcode::Other},
    {"vmin2", Opcode::Other},
    {"vmin4", Opcode::Other},
    {"vote", Opcode::Vote},
    {"vset", Opcode::Other},
    {"vset2", Opcode::Other},
    {"vset4", Opcode::Other},
    {"vshl", Opcode::Other},
    {"vshr", Opcode::Other},
    {"vsub", Opcode::Other},
    {"vsub2", Opcode::Other},
    {"vsub4", Opcode::Other},
    {"wgmma", Opcode::Tensor},
    {"wmma", Opcode::Tensor},
    {"xor", Opcode::Xor},
};

/// For each first letter, the range of ModuleOpcodes starting with it.
struct OpcodeBuckets {
  uint8_t Begin[26] = {};
  uint8_t End[26] = {};
  constexpr OpcodeBuckets() {
    for (size_t K = 0; K != std::size(ModuleOpcodes); ++K) {
      int L = ModuleOpcodes[K].Name[0] - 'a';
      if (Begin[L] == End[L])
        Begin[L] = static_cast<uint8_t>(K);
      End[L] = static_cast<uint8_t>(K + 1);
    }
  }
};
constexpr OpcodeBuckets Buckets;
static_assert(std::size(ModuleOpcodes) < 256);

std::optional<Opcode> lookupModuleOpcode(std::string_view N) {
  if (N.empty() || N[0] < 'a' || N[0] > 'z')
    return std::nullopt;
  int L = N[0] - 'a';
  for (unsigned K = Buckets.Begin[L]; K != Buckets.End[L]; ++K)
    if (ModuleOpcodes[K].Name == N)
      return ModuleOpcodes[K].Op;
  return std::nullopt;
}

} // namespace

std::optional<AddrSpace> addrSpaceOf(std::string_view M) {
  static constexpr std::pair<std::string_view, AddrSpace> Spaces[] = {
      {".global", AddrSpace::Global},
      {".shared", AddrSpace::Shared},
      {".shared::cta", AddrSpace::Shared},
      {".shared::cluster", AddrSpace::SharedCluster},
      {".local", AddrSpace::Local},
      {".param", AddrSpace::Param},
      {".param::entry", AddrSpace::Param},
      {".param::func", AddrSpace::Param},
      {".const", AddrSpace::Const},
      {".reg", AddrSpace::Reg},
      {".sreg", AddrSpace::SReg},
      {".tex", AddrSpace::Tex},
  };
  for (const auto &[Text, Space] : Spaces)
    if (M == Text)
      return Space;
  return std::nullopt;
}

bool InstParser::error(SourceRange R, std::string Msg) {
  Diags->error(File, R, std::move(Msg));
  return false;
}

/// Parses a litmus cell: labels, then optionally one instruction.
static std::optional<Statement>
parseStatementImpl(const std::shared_ptr<const SourceFile> &File, Lexer &Lex,
                   InstParser &P) {
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
    if (!P.parseInstruction(I))
      return std::nullopt;
    S.Inst = std::move(I);
  }
  if (Lex.peek().is(TokKind::Semi))
    Lex.next();
  if (!Lex.peek().is(TokKind::Eof)) {
    const Token &T = Lex.peek();
    P.error(T.Range, T.is(TokKind::BadComment)
                         ? std::string("unterminated '/*' comment")
                         : fmt::format("unexpected '{}' after the instruction; "
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
                                            "{}",
                                            describeFound(T)));
  }
  Token N = Lex.next();
  if (PMode == Mode::Module) {
    std::optional<Opcode> Op = lookupModuleOpcode(N.Text);
    I.Op = Op ? *Op : Opcode::Unknown;
  } else {
    std::optional<Opcode> Op = lookupOpcode(N.Text);
    if (!Op)
      return error(N.Range, fmt::format("unknown instruction '{}'", N.Text));
    I.Op = *Op;
    if (I.Op == Opcode::CmpBra)
      I.Cmp = cmpOfBranch(N.Text);
    I.Px = proxyOfName(N.Text);
  }
  I.Name = std::string(N.Text);
  I.NameRange = N.Range;
  if (Lex.peek().is(TokKind::Directive))
    I.Mods.reserve(4); // one allocation for the usual 1 to 4 modifiers
  while (Lex.peek().is(TokKind::Directive)) {
    const Token &Mod = Lex.next();
    I.Mods.push_back({std::string(Mod.Text), Mod.Range});
  }
  if (PMode == Mode::Litmus) {
    if (I.Op == Opcode::Bar && I.Name == "barrier" && !I.Mods.empty() &&
        I.Mods[0].Text == ".cluster")
      I.Op = Opcode::BarrierCluster;
    if (!parseOperands(I))
      return false;
    I.Range = span(Begin);
    return decodeModifiers(I);
  }

  if (I.Op == Opcode::Unknown) {
    Diags->warning(File, N.Range,
                   fmt::format("unknown instruction '{}'; kept as written",
                               N.Text));
    // Try the operand grammar quietly; keep the text if it does not fit.
    Lexer Saved = Lex;
    DiagnosticEngine Quiet;
    DiagnosticEngine *Loud = Diags;
    Diags = &Quiet;
    bool Ok = parseModuleOperands(I) &&
              (Lex.peek().is(TokKind::Semi) || Lex.peek().is(TokKind::Eof));
    Diags = Loud;
    if (!Ok) {
      Lex = Saved;
      I.Ops.clear();
      I.Verbatim = std::string(Lex.skipTo(';'));
    }
  } else if (!parseModuleOperands(I)) {
    return false;
  }
  I.Range = span(Begin);
  decodeModuleModifiers(I);
  return true;
}

void InstParser::decodeModuleModifiers(Instruction &I) {
  // A family member is told apart by its first modifier.
  if (I.Op == Opcode::Bar && I.hasMod(".warp"))
    I.Op = Opcode::BarWarp;
  else if (I.Op == Opcode::Bar && I.Name == "barrier" &&
           !I.Mods.empty() && I.Mods[0].Text == ".cluster")
    I.Op = Opcode::BarrierCluster;
  bool SpaceSeen = false;
  for (const Modifier &Mod : I.Mods) {
    std::string_view T = Mod.Text;
    if (T.size() < 2)
      continue;
    // Types first: they are the most frequent modifiers.
    if (T.size() <= 5) {
      if (std::optional<Type> Ty = parseAnyType(T)) {
        if (I.Types.empty())
          I.Types.reserve(2);
        I.Types.push_back(*Ty);
        continue;
      }
    }
    if (std::optional<AddrSpace> AS = addrSpaceOf(T)) {
      if (!SpaceSeen) {
        SpaceSeen = true;
        I.ASpace = *AS;
        if (I.Op == Opcode::Ld || I.Op == Opcode::St || I.Op == Opcode::Atom ||
            I.Op == Opcode::Red) {
          if (*AS == AddrSpace::Global)
            I.Space = StateSpace::Global;
          else if (*AS == AddrSpace::Shared)
            I.Space = StateSpace::Shared;
        }
      }
      continue;
    }
    if (I.Op == Opcode::Membar) {
      if (T == ".gl")
        I.Sc = Scope::GPU;
      else if (T == ".cta")
        I.Sc = Scope::CTA;
      else if (T == ".sys")
        I.Sc = Scope::Sys;
      continue;
    }
    if (Sem S = semOf(T); S != Sem::None) {
      if (I.S == Sem::None)
        I.S = S;
      continue;
    }
    if (Scope Sc = scopeOf(T); Sc != Scope::None) {
      if (I.Sc == Scope::None)
        I.Sc = Sc;
      continue;
    }
    if (I.Op == Opcode::Ld || I.Op == Opcode::St) {
      CacheOp C = cacheOf(T);
      if (C != CacheOp::None && I.Cache == CacheOp::None)
        I.Cache = C;
    } else if (I.Op == Opcode::Atom || I.Op == Opcode::Red) {
      AtomOp A = atomOf(T);
      if (A != AtomOp::None && I.Atom == AtomOp::None)
        I.Atom = A;
    } else if (I.Op == Opcode::Setp || I.Name == "set") {
      CmpOp C = cmpOf(T);
      if (C != CmpOp::None && I.Cmp == CmpOp::None)
        I.Cmp = C;
    }
  }
  switch (I.Op) {
  case Opcode::Ld:
  case Opcode::St:
    if (I.S == Sem::None)
      I.S = Sem::Weak;
    break;
  case Opcode::Atom:
  case Opcode::Red:
    if (I.S == Sem::None)
      I.S = Sem::Relaxed;
    if (I.Sc == Scope::None)
      I.Sc = Scope::GPU;
    break;
  case Opcode::Membar:
    I.S = Sem::SC;
    break;
  case Opcode::Fence:
    // fence{.sem}.scope: .acq_rel when no semantics is written. The proxy
    // fences (fence.proxy.async) have neither.
    if (I.S == Sem::None && I.Sc != Scope::None)
      I.S = Sem::AcqRel;
    break;
  default:
    break;
  }
}

bool InstParser::parseModuleOperands(Instruction &I) {
  if (Lex.peek().is(TokKind::Semi) || Lex.peek().is(TokKind::Eof))
    return true;
  I.Ops.reserve(4);
  while (true) {
    I.Ops.emplace_back();
    if (!parseModuleOperand(I.Ops.back()))
      return false;
    if (!Lex.peek().is(TokKind::Comma))
      break;
    Lex.next();
  }
  // Branch targets are labels; everything else keeps its syntactic kind.
  if (I.Op == Opcode::Bra) {
    for (Operand &O : I.Ops)
      if (O.K == Operand::Reg && O.Value == 0 && !O.Negated)
        O.K = Operand::Label;
  } else if (I.Op == Opcode::Brx && I.Ops.size() >= 2 &&
             I.Ops[1].K == Operand::Reg) {
    I.Ops[1].K = Operand::Label;
  }
  return true;
}

bool InstParser::parseOffset(int64_t &V, bool &Hex, const char *Missing) {
  bool Neg = Lex.next().is(TokKind::Minus);
  if (!Neg && Lex.peek().is(TokKind::Minus)) { // `+-4`
    Lex.next();
    Neg = true;
  }
  if (!Lex.peek().is(TokKind::Int))
    return error(Lex.peek().Range, Missing);
  Token IT = Lex.next();
  return parseInt(V, Hex, Neg, IT);
}

bool InstParser::parseAddressBody(Operand &O, SourceLoc Begin) {
  O.K = Operand::Address;
  const Token &T = Lex.peek();
  if (T.is(TokKind::Ident)) {
    O.Name = std::string(Lex.next().Text);
  } else if (T.is(TokKind::Int) || T.is(TokKind::Minus)) {
    Token First = Lex.next();
    bool Neg = First.is(TokKind::Minus);
    if (Neg && !Lex.peek().is(TokKind::Int))
      return error(Lex.peek().Range, "expected an integer after '-'");
    Token IT = Neg ? Lex.next() : First;
    if (!parseInt(O.Value, O.Hex, Neg, IT))
      return false;
  } else {
    return error(T.Range,
                 "expected a register, symbol or integer in the address");
  }
  // Offsets: `+4`, `+-4`, `-4` (the last only after an integer or when
  // reading, never printed for a base, since ptxas rejects `[%r1-4]`).
  while (Lex.peek().is(TokKind::Plus) || Lex.peek().is(TokKind::Minus)) {
    int64_t Off;
    bool Hex;
    if (!parseOffset(Off, Hex, "expected an integer offset in the address"))
      return false;
    O.Value = static_cast<int64_t>(static_cast<uint64_t>(O.Value) +
                                   static_cast<uint64_t>(Off));
    O.Hex = Hex;
    O.ExplicitOffset = true;
  }
  if (Lex.peek().is(TokKind::Comma)) {
    // `[tex, {%f1, %f2}]`, `[%rd1, {%r1, %r2}]`: coordinates.
    Lex.next();
    Operand E;
    if (!parseModuleOperand(E))
      return false;
    O.Elems.push_back(std::move(E));
  }
  if (!Lex.peek().is(TokKind::RBracket))
    return error(Lex.peek().Range, "expected ']' to end the address");
  Lex.next();
  O.Range = span(Begin);
  return true;
}

bool InstParser::parseModuleOperand(Operand &O) {
  const Token &T = Lex.peek();
  SourceLoc Begin = T.Range.Begin;
  if (Nesting >= MaxNesting)
    return error(T.Range, fmt::format("operands nested more than {} deep",
                                      MaxNesting));
  struct Nest {
    unsigned &N;
    explicit Nest(unsigned &N) : N(N) { ++N; }
    ~Nest() { --N; }
  } Guard(Nesting);
  switch (T.K) {
  case TokKind::Bang: {
    Lex.next();
    if (!Lex.peek().is(TokKind::Ident))
      return error(Lex.peek().Range, "expected a predicate after '!'");
    Token N = Lex.next();
    O.K = Operand::Reg;
    O.Name = std::string(N.Text);
    O.Negated = true;
    O.Range = span(Begin);
    return true;
  }
  case TokKind::LBrace:
  case TokKind::LParen: {
    bool Brace = T.is(TokKind::LBrace);
    TokKind Close = Brace ? TokKind::RBrace : TokKind::RParen;
    Lex.next();
    O.K = Brace ? Operand::Vector : Operand::List;
    if (!Lex.peek().is(Close)) {
      while (true) {
        Operand E;
        if (!parseModuleOperand(E))
          return false;
        O.Elems.push_back(std::move(E));
        if (!Lex.peek().is(TokKind::Comma))
          break;
        Lex.next();
      }
    }
    if (!Lex.peek().is(Close))
      return error(Lex.peek().Range,
                   fmt::format("expected ',' or '{}'", Brace ? '}' : ')'));
    Lex.next();
    O.Range = span(Begin);
    return true;
  }
  case TokKind::LBracket:
    Lex.next();
    return parseAddressBody(O, Begin);
  case TokKind::Int:
  case TokKind::Minus: {
    Token First = Lex.next();
    bool Neg = First.is(TokKind::Minus);
    if (Neg && Lex.peek().is(TokKind::Float)) {
      // -0f3F800000 is not PTX; a negative decimal float is.
      Token FT = Lex.next();
      if (FT.FloatForm)
        return error(FT.Range, "a hexadecimal float cannot be negated");
      O.K = Operand::FloatImm;
      O.Name = "-" + std::string(FT.Text);
      O.Range = span(Begin);
      return true;
    }
    if (Neg && !Lex.peek().is(TokKind::Int))
      return error(Lex.peek().Range, "expected an integer after '-'");
    Token IT = Neg ? Lex.next() : First;
    O.K = Operand::Imm;
    if (!parseInt(O.Value, O.Hex, Neg, IT))
      return false;
    O.Range = span(Begin);
    return true;
  }
  case TokKind::Float: {
    Token FT = Lex.next();
    if (FT.IntOverflow)
      return error(FT.Range,
                   fmt::format("'{}' needs {} hexadecimal digits", FT.Text,
                               FT.FloatForm == 'f' ? 8 : 16));
    O.K = Operand::FloatImm;
    O.FloatForm = FT.FloatForm;
    if (FT.FloatForm)
      O.Value = static_cast<int64_t>(FT.IntVal);
    else
      O.Name = std::string(FT.Text);
    O.Range = FT.Range;
    return true;
  }
  case TokKind::Ident: {
    Token N = Lex.next();
    O.K = Operand::Reg;
    if (N.Text == "generic" && Lex.peek().is(TokKind::LParen)) {
      Lex.next();
      if (!Lex.peek().is(TokKind::Ident))
        return error(Lex.peek().Range, "expected a symbol in 'generic(...)'");
      O.K = Operand::Generic;
      O.Name = std::string(Lex.next().Text);
      if (!Lex.peek().is(TokKind::RParen))
        return error(Lex.peek().Range, "expected ')'");
      Lex.next();
    } else {
      O.Name = std::string(N.Text);
      // A special register's component: %tid.x, %ctaid.y.
      while (Lex.peek().is(TokKind::Directive) &&
             Lex.peek().Range.Begin.Offset == Lex.lastEnd())
        O.Name += Lex.next().Text;
    }
    // `sym+8`, `sym+-8`.
    if (Lex.peek().is(TokKind::Plus) || Lex.peek().is(TokKind::Minus)) {
      if (!parseOffset(O.Value, O.Hex, "expected an integer offset"))
        return false;
      O.ExplicitOffset = true;
    }
    O.Range = span(Begin);
    if (Lex.peek().is(TokKind::Pipe) && O.K == Operand::Reg) {
      Lex.next();
      Operand Second;
      if (!Lex.peek().is(TokKind::Ident))
        return error(Lex.peek().Range, "expected a register after '|'");
      if (!parseModuleOperand(Second))
        return false;
      Operand First = std::move(O);
      O = Operand();
      O.K = Operand::Pair;
      O.Elems.push_back(std::move(First));
      O.Elems.push_back(std::move(Second));
      O.Range = span(Begin);
    }
    return true;
  }
  case TokKind::Eof:
    return error(T.Range, "expected an operand");
  default:
    return error(T.Range,
                 fmt::format("expected an operand, found {}", describeFound(T)));
  }
}
/// Whether \p I is one of Hopper's instructions that decodeHopper reads.
static bool isHopperForm(const Instruction &I) {
  return I.Op == Opcode::BarrierCluster || I.Op == Opcode::Mbarrier ||
         I.Op == Opcode::CpAsync || I.Op == Opcode::Other ||
         ((I.Op == Opcode::St || I.Op == Opcode::Red) && I.hasMod(".async"));
}

/// Litmus cells: barrier.cluster, mbarrier, cp.async.bulk, mapa, st.async
/// and red.async. Each modifier must be one its form takes; semantics,
/// scope, the (first) state space and the type are decoded, the rest stays
/// in Mods for lower(), which checks the combination.
bool InstParser::decodeHopper(Instruction &I) {
  std::vector<std::string_view> Takes;
  switch (I.Op) {
  case Opcode::BarrierCluster:
    Takes = {".cluster", ".arrive", ".wait", ".release", ".relaxed",
             ".acquire", ".aligned"};
    break;
  case Opcode::Mbarrier:
    Takes = {".arrive",  ".expect_tx", ".try_wait", ".test_wait", ".parity",
             ".release", ".relaxed",   ".acquire",  ".cta",       ".cluster",
             ".shared",  ".shared::cta", ".shared::cluster", ".b64"};
    break;
  case Opcode::CpAsync:
    Takes = {".async", ".bulk", ".shared::cluster", ".shared::cta", ".global",
             ".mbarrier::complete_tx::bytes", ".bulk_group", ".commit_group",
             ".wait_group", ".read"};
    break;
  case Opcode::Other:
    Takes = {".shared::cluster", ".u32", ".u64"};
    break;
  default: // st.async, red.async
    Takes = {".async", ".weak", ".relaxed", ".cluster", ".shared::cluster",
             ".mbarrier::complete_tx::bytes", ".b32", ".u32", ".s32", ".b64",
             ".u64", ".s64", ".add", ".inc", ".dec", ".min", ".max", ".and",
             ".or", ".xor"};
    break;
  }
  if (I.Op == Opcode::Other && I.Name != "mapa")
    return error(I.NameRange, fmt::format("unknown instruction '{}'", I.Name));
  bool SpaceSeen = false;
  for (const Modifier &M : I.Mods) {
    std::string_view T = M.Text;
    if (std::find(Takes.begin(), Takes.end(), T) == Takes.end())
      return error(M.Range,
                   fmt::format("unknown modifier '{}' for '{}'", T, I.Name));
    if (Sem S = semOf(T); S != Sem::None) {
      if (I.S != Sem::None)
        return error(M.Range, fmt::format("'{}' has two semantics", I.Name));
      I.S = S;
    } else if (Scope Sc = scopeOf(T);
               Sc != Scope::None && I.Op != Opcode::BarrierCluster) {
      if (I.Sc != Scope::None)
        return error(M.Range, fmt::format("'{}' has two scopes", I.Name));
      I.Sc = Sc;
    } else if (std::optional<AddrSpace> AS = addrSpaceOf(T)) {
      // The first space: Space, with .shared::cluster in ASpace.
      if (!SpaceSeen) {
        I.ASpace = *AS;
        I.Space = *AS == AddrSpace::Global ? StateSpace::Global
                                           : StateSpace::Shared;
      }
      SpaceSeen = true;
    } else if (std::optional<Type> Ty = parseType(T)) {
      if (!I.Types.empty())
        return error(M.Range, fmt::format("too many types on '{}'", I.Name));
      I.Types.push_back(*Ty);
    } else if (AtomOp A = atomOf(T); A != AtomOp::None) {
      if (I.Op != Opcode::Red)
        return error(M.Range,
                     fmt::format("unknown modifier '{}' for '{}'", T, I.Name));
      I.Atom = A;
    }
  }
  return true;
}

/// What decodeModifiers has read of an instruction's modifiers: the one of
/// each kind (for conflicts and for the checks on their combination).
struct InstParser::SeenMods {
  const Modifier *SemMod = nullptr, *ScopeMod = nullptr, *SpaceMod = nullptr,
                 *CacheMod = nullptr, *AtomMod = nullptr, *CmpMod = nullptr;
  bool Sync = false, Arrive = false;
  const Modifier *ProxyMod = nullptr, *KindMod = nullptr;
};

bool InstParser::decodeModifiers(Instruction &I) {
  if (isHopperForm(I))
    return decodeHopper(I);
  SeenMods Seen;
  for (const Modifier &M : I.Mods)
    if (!decodeModifier(I, M, Seen))
      return false;
  return checkModifiers(I, Seen);
}

bool InstParser::decodeModifier(Instruction &I, const Modifier &M,
                                SeenMods &Seen) {
  auto Conflict = [&](const Modifier &Now, const Modifier *Prev) {
    return error(Now.Range, fmt::format("modifier '{}' conflicts with '{}'",
                                        Now.Text, Prev->Text));
  };
  std::string_view T = M.Text;
  bool Known = false;
  if (I.Op == Opcode::Membar) {
    Scope Sc = T == ".gl" ? Scope::GPU
               : T == ".cta" ? Scope::CTA
               : T == ".sys" ? Scope::Sys
                             : Scope::None;
    if (Sc != Scope::None) {
      if (Seen.ScopeMod)
        return Conflict(M, Seen.ScopeMod);
      Seen.ScopeMod = &M;
      I.Sc = Sc;
      Known = true;
    }
  } else if (I.Op == Opcode::Bar) {
    if (T == ".sync" || T == ".arrive") {
      if (Seen.Sync || Seen.Arrive)
        return error(M.Range, fmt::format("'{}' has two modes", I.Name));
      (T == ".sync" ? Seen.Sync : Seen.Arrive) = true;
      Known = true;
    } else if (T == ".aligned" || T == ".cta") {
      Known = true;
    }
  } else if (I.Op == Opcode::Fence && T == ".proxy") {
    Seen.ProxyMod = &M;
    Known = true;
  } else if (I.Op == Opcode::Fence && Seen.ProxyMod && T == ".async") {
    // fence.proxy.async: Px stays Generic, lower() reads the modifier.
    if (Seen.KindMod)
      return Conflict(M, Seen.KindMod);
    Seen.KindMod = &M;
    Known = true;
  } else if (std::optional<Proxy> K = proxyKindOf(T);
             K && I.Op == Opcode::Fence && Seen.ProxyMod) {
    if (Seen.KindMod)
      return Conflict(M, Seen.KindMod);
    Seen.KindMod = &M;
    I.Px = *K;
    Known = true;
  } else if (I.Op == Opcode::Bra) {
    Known = T == ".uni";
  } else if (I.Op == Opcode::Mul && T == ".lo") {
    Known = true;
  } else if (I.Op == Opcode::Setp && cmpOf(T) != CmpOp::None) {
    if (Seen.CmpMod)
      return Conflict(M, Seen.CmpMod);
    Seen.CmpMod = &M;
    I.Cmp = cmpOf(T);
    Known = true;
  } else if (Sem S = semOf(T); S != Sem::None && semAllowed(I.Op, S)) {
    if (Seen.SemMod)
      return Conflict(M, Seen.SemMod);
    Seen.SemMod = &M;
    I.S = S;
    Known = true;
  } else if (Scope Sc = scopeOf(T);
             Sc != Scope::None && (isMemOp(I.Op) || I.Op == Opcode::Fence)) {
    if (Seen.ScopeMod)
      return Conflict(M, Seen.ScopeMod);
    Seen.ScopeMod = &M;
    I.Sc = Sc;
    Known = true;
  } else if ((T == ".global" || T == ".shared" || T == ".shared::cta" ||
              T == ".shared::cluster") &&
             (isMemOp(I.Op) || (I.Op == Opcode::Fence && Seen.KindMod &&
                                Seen.KindMod->Text == ".async"))) {
    // fence.proxy.async.S names the state space it orders (all of them
    // without S); the model orders every location alike.
    if (Seen.SpaceMod)
      return Conflict(M, Seen.SpaceMod);
    Seen.SpaceMod = &M;
    I.Space = T == ".global" ? StateSpace::Global : StateSpace::Shared;
    I.ASpace = T == ".global"            ? AddrSpace::Global
               : T == ".shared::cluster" ? AddrSpace::SharedCluster
                                         : AddrSpace::Shared;
    Known = true;
  } else if (CacheOp C = cacheOf(T);
             C != CacheOp::None &&
             ((I.Op == Opcode::Ld &&
               (C == CacheOp::CA || C == CacheOp::CG || C == CacheOp::CS ||
                C == CacheOp::LU || C == CacheOp::CV)) ||
              (I.Op == Opcode::St &&
               (C == CacheOp::WB || C == CacheOp::CG || C == CacheOp::CS ||
                C == CacheOp::WT)))) {
    if (Seen.CacheMod)
      return Conflict(M, Seen.CacheMod);
    Seen.CacheMod = &M;
    I.Cache = C;
    Known = true;
  } else if (AtomOp A = atomOf(T); A != AtomOp::None &&
                                   (I.Op == Opcode::Atom ||
                                    I.Op == Opcode::Red)) {
    if (Seen.AtomMod)
      return Conflict(M, Seen.AtomMod);
    Seen.AtomMod = &M;
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
  return true;
}

bool InstParser::checkModifiers(Instruction &I, const SeenMods &Seen) {
  auto NeedScope = [&]() {
    return error(Seen.SemMod->Range,
                 fmt::format("'{}' needs a scope (.cta, .cluster, .gpu or "
                             ".sys)",
                             Seen.SemMod->Text));
  };
  switch (I.Op) {
  case Opcode::Ld:
  case Opcode::St:
    if (I.S == Sem::None)
      I.S = Sem::Weak;
    if ((I.S == Sem::Relaxed || I.S == Sem::Acquire || I.S == Sem::Release) &&
        I.Sc == Scope::None)
      return NeedScope();
    if ((I.S == Sem::Weak || I.S == Sem::Volatile) && Seen.ScopeMod)
      return error(Seen.ScopeMod->Range,
                   fmt::format("scope '{}' needs '.relaxed', '{}'",
                               Seen.ScopeMod->Text,
                               I.Op == Opcode::Ld ? ".acquire" : ".release"));
    if (Seen.CacheMod && I.S != Sem::Weak)
      return error(Seen.CacheMod->Range,
                   fmt::format("cache operator '{}' cannot be used with '{}'",
                               Seen.CacheMod->Text, Seen.SemMod->Text));
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
      return error(Seen.AtomMod->Range, "'red' cannot do '.cas'");
    if (I.Op == Opcode::Red && I.Atom == AtomOp::Exch)
      return error(Seen.AtomMod->Range, "'red' cannot do '.exch'");
    break;
  case Opcode::Membar:
    if (I.Sc == Scope::None)
      return error(I.NameRange, "'membar' needs a level (.cta, .gl or .sys)");
    I.S = Sem::SC;
    break;
  case Opcode::Fence:
    if (Seen.ProxyMod) {
      if (!Seen.KindMod)
        return error(Seen.ProxyMod->Range,
                     "'fence.proxy' needs a proxy kind (.alias, .surface, "
                     ".texture, .constant or .async)");
      if (Seen.SemMod || Seen.ScopeMod)
        return error((Seen.SemMod ? Seen.SemMod : Seen.ScopeMod)->Range,
                     "a proxy fence takes no semantics or scope");
      break;
    }
    if (I.S == Sem::None)
      I.S = Sem::AcqRel;
    if (I.Sc == Scope::None)
      return error(I.NameRange, "'fence' needs a scope (.cta, .cluster, .gpu "
                                "or .sys)");
    break;
  case Opcode::Bar:
    if (!Seen.Sync && !Seen.Arrive)
      return error(I.NameRange,
                   fmt::format("'{}' needs a mode: '{}.sync' or '{}.arrive'",
                               I.Name, I.Name, I.Name));
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
  return error(T.Range, fmt::format("expected an operand, found {}", describeFound(T)));
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
  case Opcode::Bar: Shape = "v"; break; // and up to two more (lower() says)
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
  case Opcode::BarrierCluster: Shape = ""; break;
  case Opcode::Mbarrier:
    // arrive: state (or _), barrier [, tx bytes]; try_wait / test_wait:
    // predicate, barrier, phase parity.
    Shape = I.hasMod(".arrive") ? (I.hasMod(".expect_tx") ? "dav" : "da")
                                : "dav";
    break;
  case Opcode::CpAsync:
    // cp.async.bulk dst, src, bytes[, mbarrier]; commit_group; wait_group N.
    Shape = I.hasMod(".commit_group")                   ? ""
            : I.hasMod(".wait_group")                   ? "v"
            : I.hasMod(".mbarrier::complete_tx::bytes") ? "aava"
                                                        : "aav";
    break;
  case Opcode::Other: Shape = "dav"; break; // mapa d, a, rank
  default: break; // Module-only opcodes never reach the litmus parser.
  }
  // st.async / red.async: address, value, mbarrier.
  if ((I.Op == Opcode::St || I.Op == Opcode::Red) && I.hasMod(".async"))
    Shape = "ava";
  bool IsCas = false;
  for (const Modifier &Mod : I.Mods)
    IsCas |= Mod.Text == ".cas";
  std::string Expect(Shape);
  if (I.Op == Opcode::Atom && IsCas)
    Expect = "davv";
  size_t MaxOps = Expect.size() + (I.Op == Opcode::Bar ? 2 : 0);

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
        else if (O.K == Operand::Imm && I.Op == Opcode::Ld && I.Mods.empty())
          break; // Dat3M's `ld r0, 1`: lower() makes it a move
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

unsigned numDefOperands(const Instruction &I) {
  if (I.Ops.empty())
    return 0;
  switch (I.Ops[0].K) {
  case Operand::Address:
  case Operand::Imm:
  case Operand::FloatImm:
  case Operand::List:
  case Operand::Label:
  case Operand::Symbol:
  case Operand::Generic:
    return 0;
  case Operand::Reg:
  case Operand::Vector:
  case Operand::Pair:
    break;
  }
  switch (I.Op) {
  case Opcode::Bar:
    return I.hasMod(".red") ? 1 : 0;
  case Opcode::St:
  case Opcode::Red:
  case Opcode::BarWarp:
  case Opcode::BarrierCluster:
  case Opcode::Membar:
  case Opcode::Fence:
  case Opcode::Bra:
  case Opcode::Brx:
  case Opcode::CmpBra:
  case Opcode::Ret:
  case Opcode::Exit:
  case Opcode::Trap:
  case Opcode::Call:
  case Opcode::CpAsync:
  case Opcode::Prefetch:
    return 0;
  default:
    break;
  }
  std::string_view N = I.Name;
  if (N == "nanosleep" || N == "stackrestore" || N == "pmevent" ||
      N == "setmaxnreg" || N == "griddepcontrol")
    return 0;
  return 1;
}

//===-- Memory uses -------------------------------------------------------===//

static int firstAddress(const Instruction &I) {
  for (unsigned K = 0; K < I.Ops.size(); ++K)
    if (I.Ops[K].K == Operand::Address)
      return static_cast<int>(K);
  return -1;
}

static std::string_view firstMod(const Instruction &I, unsigned K = 0) {
  return K < I.Mods.size() ? std::string_view(I.Mods[K].Text) : "";
}

MemoryUse memoryUse(const Instruction &I) {
  MemoryUse U;
  int Addr = firstAddress(I);
  U.Operand = Addr < 0 ? 0 : static_cast<unsigned>(Addr);
  auto Set = [&](MemoryUse::Kind K, bool R, bool W) {
    U.K = K;
    U.Reads = R;
    U.Writes = W;
    return U;
  };
  std::string_view N = I.Name, M0 = firstMod(I);
  switch (I.Op) {
  case Opcode::Unknown:
    return Set(MemoryUse::Unknown, true, true);
  case Opcode::Ld:
  case Opcode::Ldu:
  case Opcode::St:
  case Opcode::Atom:
  case Opcode::Red:
    if (Addr < 0)
      return U;
    U.Atomic = I.Op == Opcode::Atom || I.Op == Opcode::Red;
    // st.async / red.async (sm_90): completed through an mbarrier.
    U.Async = I.hasMod(".async");
    return Set(MemoryUse::Plain, I.Op != Opcode::St,
               I.Op != Opcode::Ld && I.Op != Opcode::Ldu);
  case Opcode::CpAsync: {
    // cp.async.{ca,cg}, cp.async.bulk*, cp.reduce.async.bulk*; their
    // commit_group, wait_group, wait_all, the bulk prefetches and
    // cp.async.mbarrier.arrive (an mbarrier operation) copy nothing.
    if (Addr < 0 || I.hasMod(".prefetch") ||
        (M0 == ".async" && firstMod(I, 1) == ".mbarrier"))
      return U;
    bool Bulk = I.hasMod(".bulk");
    U.Async = true;
    return Set(Bulk ? MemoryUse::Bulk : MemoryUse::Copy, true, true);
  }
  case Opcode::Tensor:
    // A tile, rows or an allocation's address with no address operand is
    // a form the analyses do not know: it may touch any memory.
    if (Addr < 0 && ((N == "wmma" && (M0 == ".load" || M0 == ".store")) ||
                     N == "ldmatrix" || N == "stmatrix" ||
                     (N == "tcgen05" && M0 == ".alloc")))
      return Set(MemoryUse::Unknown, true, true);
    if (N == "wmma" && (M0 == ".load" || M0 == ".store")) {
      U.Collective = true;
      return Set(MemoryUse::Tile, M0 == ".load", M0 == ".store");
    }
    if (N == "ldmatrix" || N == "stmatrix") {
      U.Collective = true;
      return Set(MemoryUse::Rows, N == "ldmatrix", N == "stmatrix");
    }
    if (N == "wgmma" && M0 == ".mma_async") {
      // A and B from shared memory through matrix descriptors.
      U.Async = U.Collective = true;
      return Set(MemoryUse::Opaque, true, false);
    }
    if (N == "tcgen05") {
      if (M0 == ".alloc") {
        // Writes the address of the allocated columns to shared memory.
        U.Collective = true;
        U.Bytes = 4;
        return Set(MemoryUse::Fixed, false, true);
      }
      if (M0 == ".ld" || M0 == ".st" || M0 == ".shift" || M0 == ".cp" ||
          M0 == ".mma") {
        U.Async = U.Collective = U.TensorMemory = true;
        return Set(MemoryUse::Opaque, true, M0 != ".ld");
      }
    }
    return U; // mma, movmatrix, wgmma.fence/commit/wait, tcgen05.wait...
  case Opcode::Prefetch:
    if (N == "discard" && Addr >= 0) {
      // The PTX ISA: the cache line's contents become indeterminate, as
      // if written.
      U.Bytes = 128;
      return Set(MemoryUse::Fixed, false, true);
    }
    return U;
  case Opcode::Other:
    if (Addr < 0)
      return U;
    if (N == "multimem") {
      if (M0 == ".cp") {
        U.Async = true;
        return Set(MemoryUse::Bulk, true, true);
      }
      U.Atomic = M0 == ".red";
      return Set(MemoryUse::Plain, M0 != ".st", M0 != ".ld_reduce");
    }
    if (N == "suld" || N == "sust" || N == "sured") {
      U.Atomic = N == "sured";
      return Set(MemoryUse::Surface, N != "sust", N != "suld");
    }
    if (N == "tex" || N == "tld4")
      return Set(MemoryUse::Texture, true, false);
    if (N == "tensormap") {
      U.Bytes = 128;
      U.Collective = M0 == ".cp_fenceproxy";
      return Set(M0 == ".cp_fenceproxy" ? MemoryUse::Copy : MemoryUse::Fixed,
                 true, true);
    }
    if (N == "clusterlaunchcontrol" && M0 == ".try_cancel") {
      U.Async = true;
      return Set(MemoryUse::Opaque, false, true);
    }
    return U;
  default:
    return U;
  }
}

std::optional<MatrixTile> matrixTile(const Instruction &I) {
  if (I.Name != "wmma")
    return std::nullopt;
  unsigned Mm = 0, Nn = 0, Kk = 0, Bits = 0;
  char Matrix = 0, Layout = 0;
  for (const Modifier &Mod : I.Mods) {
    const std::string &T = Mod.Text;
    if (T == ".a" || T == ".b" || T == ".c" || T == ".d")
      Matrix = T[1];
    else if (T == ".row" || T == ".col")
      Layout = T[1];
    else if (unsigned A, B, C;
             std::sscanf(T.c_str(), ".m%un%uk%u", &A, &B, &C) == 3) {
      Mm = A;
      Nn = B;
      Kk = C;
    } else if (T == ".f16" || T == ".bf16")
      Bits = 16;
    else if (T == ".f32" || T == ".s32" || T == ".tf32")
      Bits = 32;
    else if (T == ".f64")
      Bits = 64;
    else if (T == ".s8" || T == ".u8")
      Bits = 8;
    else if (T == ".s4" || T == ".u4")
      Bits = 4;
    else if (T == ".b1")
      Bits = 1;
  }
  if (!Mm || !Nn || !Kk || !Bits || !Matrix || !Layout)
    return std::nullopt;
  // Rows x columns of the matrix; a row-major one is stored in rows.
  unsigned R = Matrix == 'a' ? Mm : Matrix == 'b' ? Kk : Mm;
  unsigned C = Matrix == 'a' ? Kk : Nn;
  MatrixTile T;
  T.Lines = Layout == 'r' ? R : C;
  T.LineElems = Layout == 'r' ? C : R;
  T.ElemBits = Bits;
  if ((T.LineElems * Bits) % 8)
    return std::nullopt;
  // wmma.load: {d}, [p], stride; wmma.store: [p], {r}, stride.
  if (I.Ops.size() > 2)
    T.StrideOperand = 2;
  return T;
}

std::optional<Statement> parseStatement(std::shared_ptr<const SourceFile> File,
                                        uint32_t Begin, uint32_t End,
                                        DiagnosticEngine &Diags) {
  Lexer Lex(*File, Begin, End);
  InstParser P(File, Lex, Diags, InstParser::Mode::Litmus);
  return parseStatementImpl(File, Lex, P);
}

void appendUnsigned(std::string &Out, uint64_t V, int Base, bool Upper,
                    unsigned Width) {
  char Buf[24];
  std::to_chars_result R = std::to_chars(Buf, Buf + sizeof(Buf), V, Base);
  size_t N = static_cast<size_t>(R.ptr - Buf);
  if (N < Width)
    Out.append(Width - N, '0');
  if (Upper)
    for (char *C = Buf; C != R.ptr; ++C)
      if (*C >= 'a' && *C <= 'f')
        *C = static_cast<char>(*C - 'a' + 'A');
  Out.append(Buf, N);
}

static void appendInt(std::string &Out, int64_t V, bool Hex) {
  uint64_t M = V < 0 ? uint64_t(0) - static_cast<uint64_t>(V)
                     : static_cast<uint64_t>(V);
  if (V < 0)
    Out += '-';
  if (Hex)
    Out += "0x";
  appendUnsigned(Out, M, Hex ? 16 : 10);
}

/// An offset after a name: `+8`, and `+-8` in module syntax (ptxas reads
/// `[%rd1+-8]` but not `[%rd1-8]`); litmus cells print `-8`.
static void appendOffset(std::string &Out, int64_t V, bool Hex, bool Module) {
  if (V >= 0 || Module)
    Out += '+';
  appendInt(Out, V, Hex);
}

void appendOperand(std::string &Out, const Operand &O, bool Module) {
  switch (O.K) {
  case Operand::Reg:
  case Operand::Symbol:
  case Operand::Label:
    if (O.Negated)
      Out += '!';
    Out += O.Name;
    if (O.Value != 0 || O.ExplicitOffset)
      appendOffset(Out, O.Value, O.Hex, Module);
    return;
  case Operand::Imm:
    appendInt(Out, O.Value, O.Hex);
    return;
  case Operand::Address:
    Out += '[';
    if (O.Name.empty()) {
      appendInt(Out, O.Value, O.Hex);
    } else {
      Out += O.Name;
      if (O.Value != 0 || O.ExplicitOffset)
        appendOffset(Out, O.Value, O.Hex, Module);
    }
    for (const Operand &E : O.Elems) {
      Out += ", ";
      appendOperand(Out, E, Module);
    }
    Out += ']';
    return;
  case Operand::FloatImm:
    if (O.FloatForm == 'f') {
      Out += "0f";
      appendUnsigned(Out, static_cast<uint32_t>(O.Value), 16, true, 8);
    } else if (O.FloatForm == 'd') {
      Out += "0d";
      appendUnsigned(Out, static_cast<uint64_t>(O.Value), 16, true, 16);
    } else
      Out += O.Name;
    return;
  case Operand::Vector:
  case Operand::List: {
    Out += O.K == Operand::Vector ? '{' : '(';
    for (size_t K = 0; K != O.Elems.size(); ++K) {
      if (K)
        Out += ", ";
      appendOperand(Out, O.Elems[K], Module);
    }
    Out += O.K == Operand::Vector ? '}' : ')';
    return;
  }
  case Operand::Pair:
    for (size_t K = 0; K != O.Elems.size(); ++K) {
      if (K)
        Out += '|';
      appendOperand(Out, O.Elems[K], Module);
    }
    return;
  case Operand::Generic:
    Out += "generic(";
    Out += O.Name;
    Out += ')';
    if (O.Value != 0 || O.ExplicitOffset)
      appendOffset(Out, O.Value, O.Hex, Module);
    return;
  }
}

std::string printOperand(const Operand &O) {
  std::string S;
  appendOperand(S, O, /*Module=*/false);
  return S;
}

void appendInstruction(std::string &Out, const Instruction &I, bool Module) {
  if (I.G) {
    Out += I.G->Negated ? "@!" : "@";
    Out += I.G->Reg;
    Out += ' ';
  }
  Out += I.Name;
  for (const Modifier &M : I.Mods)
    Out += M.Text;
  for (size_t K = 0; K != I.Ops.size(); ++K) {
    Out += K ? ", " : " ";
    appendOperand(Out, I.Ops[K], Module);
  }
  if (!I.Verbatim.empty()) {
    Out += ' ';
    Out += I.Verbatim;
  }
}

std::string printInstruction(const Instruction &I) {
  std::string S;
  appendInstruction(S, I, /*Module=*/false);
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
