//===- Splice.cpp - A batch's PTX from per-skeleton NVRTC output ----------===//
#include "incant/CUDA/Splice.h"
#include "Listing.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <set>
#include <string_view>

namespace incant::cuda {

namespace {

bool isIdent(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
         (C >= '0' && C <= '9') || C == '_' || C == '$';
}

bool startsWith(std::string_view S, std::string_view P) {
  return S.substr(0, P.size()) == P;
}

std::string_view trim(std::string_view S) {
  while (!S.empty() && isBlank(S.front()))
    S.remove_prefix(1);
  while (!S.empty() && (isBlank(S.back()) || S.back() == '\r'))
    S.remove_suffix(1);
  return S;
}

constexpr std::string_view OpToken = "incant_op_";

/// Calls \p Fn(Begin, End) on each run of identifier characters in
/// \p Text, in order; Fn returns false to stop.
template <typename F> void forEachWord(std::string_view Text, F &&Fn) {
  for (size_t P = 0; P < Text.size();) {
    if (!isIdent(Text[P])) {
      ++P;
      continue;
    }
    size_t E = P;
    while (E < Text.size() && isIdent(Text[E]))
      ++E;
    if (!Fn(P, E))
      return;
    P = E;
  }
}

} // namespace

Skeleton skeletonOf(const std::string &Source) {
  static constexpr std::string_view Asm = "asm volatile(\"";
  Skeleton S;
  size_t Pos = 0;
  while (true) {
    size_t At = Source.find(Asm, Pos);
    if (At == std::string::npos)
      break;
    size_t B = At + Asm.size(), E = B;
    while (E < Source.size() && Source[E] != ' ' && Source[E] != ';' &&
           Source[E] != '"')
      ++E;
    std::string_view Word(Source.data() + B, E - B);
    S.Source.append(Source, Pos, B - Pos);
    if (Word.empty() || startsWith(Word, "pmevent") ||
        startsWith(Word, "barrier.sync")) {
      S.Source += Word;
    } else {
      S.Source += fmt::format("{}{}", OpToken, S.Ops.size());
      S.Ops.emplace_back(Word);
    }
    Pos = E;
  }
  S.Source.append(Source, Pos, std::string::npos);
  return S;
}

std::optional<std::string> fillSkeleton(const std::string &Ptx,
                                        const std::vector<std::string> &Ops) {
  std::string Out;
  Out.reserve(Ptx.size() + Ptx.size() / 8);
  size_t Pos = 0;
  while (true) {
    size_t At = Ptx.find(OpToken, Pos);
    if (At == std::string::npos)
      break;
    size_t E = At + OpToken.size(), D = E;
    while (D < Ptx.size() && Ptx[D] >= '0' && Ptx[D] <= '9')
      ++D;
    bool Whole = D > E && (At == 0 || !isIdent(Ptx[At - 1])) &&
                 (D == Ptx.size() || !isIdent(Ptx[D]));
    Out.append(Ptx, Pos, At - Pos);
    if (!Whole) {
      Out.append(Ptx, At, D - At);
    } else {
      size_t K = D - E > 9 ? Ops.size() : std::stoul(Ptx.substr(E, D - E));
      if (K >= Ops.size())
        return std::nullopt;
      Out += Ops[K];
    }
    Pos = D;
  }
  Out.append(Ptx, Pos, std::string::npos);
  return Out;
}

namespace {

/// A module-scope item of NVRTC's PTX: a variable, a function's
/// declaration or definition, a kernel, an extern declaration.
struct Item {
  enum Kind { Var, FuncDecl, FuncDef, Entry, Extern } K = Var;
  std::string Name;
  std::string Text;
};

struct ParsedPtx {
  std::vector<std::string> Header; ///< .version, .target, .address_size
  std::vector<Item> Items;
};

/// The name an item defines: after .func/.entry (and a return parameter
/// list), or a variable's first word that is not a directive or number.
std::string itemName(const Item &I) {
  std::string_view T = I.Text;
  if (I.K == Item::Var || I.K == Item::Extern) {
    std::string Name;
    forEachWord(T, [&](size_t P, size_t E) {
      bool Directive = P > 0 && T[P - 1] == '.';
      if (Directive || (T[P] >= '0' && T[P] <= '9'))
        return true;
      Name = T.substr(P, E - P);
      return false;
    });
    return Name;
  }
  size_t P = T.find(I.K == Item::Entry ? ".entry" : ".func");
  if (P == std::string_view::npos)
    return "";
  P += I.K == Item::Entry ? 6 : 5;
  while (P < T.size() && (isBlank(T[P]) || T[P] == '\n'))
    ++P;
  if (P < T.size() && T[P] == '(') { // a return parameter
    P = T.find(')', P);
    if (P == std::string_view::npos)
      return "";
    ++P;
    while (P < T.size() && (isBlank(T[P]) || T[P] == '\n'))
      ++P;
  }
  size_t E = P;
  while (E < T.size() && isIdent(T[E]))
    ++E;
  return std::string(T.substr(P, E - P));
}

std::optional<ParsedPtx> parsePtx(const std::string &Ptx, std::string &Why) {
  ParsedPtx Out;
  Item Cur;
  bool In = false, Body = false;
  int Depth = 0;
  size_t LineNo = 0;
  bool Bad = false;
  forEachLine(Ptx, [&](std::string_view Line) {
    ++LineNo;
    if (Bad)
      return;
    std::string_view T = trim(Line);
    if (!In) {
      if (T.empty() || startsWith(T, "//"))
        return;
      if (startsWith(T, ".version") || startsWith(T, ".target") ||
          startsWith(T, ".address_size")) {
        Out.Header.emplace_back(T);
        return;
      }
      Cur = Item();
      In = true;
      Body = false;
      Depth = 0;
      bool Ext = T.find(".extern") != std::string_view::npos;
      Cur.K = Ext ? Item::Extern
              : T.find(".entry") != std::string_view::npos ? Item::Entry
              : T.find(".func") != std::string_view::npos  ? Item::FuncDecl
                                                           : Item::Var;
    }
    Cur.Text.append(Line);
    Cur.Text += '\n';
    for (char C : Line) {
      if (C == '{') {
        ++Depth;
        Body = true;
      } else if (C == '}') {
        --Depth;
      }
    }
    if (Depth < 0) {
      Why = fmt::format("PTX line {}: unbalanced '}}'", LineNo);
      Bad = true;
      return;
    }
    bool Ends = Depth == 0 && (Body || (!T.empty() && T.back() == ';'));
    if (!Ends)
      return;
    if (Body && Cur.K == Item::FuncDecl)
      Cur.K = Item::FuncDef;
    Cur.Name = itemName(Cur);
    if (Cur.Name.empty()) {
      Why = fmt::format("PTX line {}: a module-scope item without a name",
                        LineNo);
      Bad = true;
      return;
    }
    Out.Items.push_back(std::move(Cur));
    In = false;
  });
  if (!Bad && In) {
    Why = "PTX ends inside an item";
    Bad = true;
  }
  if (Bad)
    return std::nullopt;
  return Out;
}

/// \p Text with every whole identifier in \p Map replaced (not register
/// names, %..., nor directives, .xxx).
std::string renamed(const std::string &Text,
                    const std::map<std::string, std::string, std::less<>> &Map) {
  std::string Out;
  Out.reserve(Text.size() + 64);
  size_t Done = 0;
  forEachWord(Text, [&](size_t P, size_t E) {
    std::string_view W(Text.data() + P, E - P);
    char Before = P ? Text[P - 1] : ' ';
    auto It = Before == '%' || Before == '.' ? Map.end() : Map.find(W);
    if (It != Map.end()) {
      Out.append(Text, Done, P - Done);
      Out += It->second;
      Done = E;
    }
    return true;
  });
  Out.append(Text, Done, std::string::npos);
  return Out;
}

/// Does \p Text name a symbol of \p Own not yet in \p Map (besides \p Self)?
bool refersToUnmapped(const std::string &Text, const std::set<std::string> &Own,
                      const std::map<std::string, std::string, std::less<>> &Map,
                      const std::string &Self) {
  bool Found = false;
  forEachWord(Text, [&](size_t P, size_t E) {
    std::string W = Text.substr(P, E - P);
    Found = W != Self && Own.count(W) && !Map.count(W);
    return !Found;
  });
  return Found;
}

} // namespace

std::optional<std::string>
splicedModulePtx(const std::vector<std::string> &Ptx,
                 std::vector<std::string> &HistKernels, std::string &Why) {
  const std::string TestName = "incant_test_kernel",
                    HistName = "incant_hist_kernel";
  HistKernels.assign(Ptx.size(), std::string());
  std::vector<std::string> Header, Externs, Vars, Decls, Defs;
  std::set<std::string> ExternSeen;
  std::map<std::string, std::string> Seen; // definition's text -> its name
  for (size_t K = 0; K < Ptx.size(); ++K) {
    std::string PWhy;
    std::optional<ParsedPtx> P = parsePtx(Ptx[K], PWhy);
    if (!P) {
      Why = fmt::format("test {}: {}", K, PWhy);
      return std::nullopt;
    }
    if (K == 0)
      Header = P->Header;
    else if (P->Header != Header) {
      Why = fmt::format("test {}: another .version or .target", K);
      return std::nullopt;
    }
    std::set<std::string> Own;
    bool HaveTest = false, HaveHist = false;
    for (const Item &I : P->Items)
      if (I.K != Item::Extern) {
        Own.insert(I.Name);
        HaveTest |= I.K == Item::Entry && I.Name == TestName;
        HaveHist |= I.K == Item::Entry && I.Name == HistName;
      }
    if (!HaveTest || !HaveHist) {
      Why = fmt::format("test {}: no {} and {} kernels", K, TestName, HistName);
      return std::nullopt;
    }
    // Names first, leaves before what uses them: variables, functions,
    // kernels. A definition the same as an earlier test's (after renaming
    // what it refers to) takes the earlier one's name.
    std::map<std::string, std::string, std::less<>> Map;
    std::set<std::string> Fresh;
    for (Item::Kind Pass : {Item::Var, Item::FuncDef, Item::Entry})
      for (const Item &I : P->Items) {
        if (I.K != Pass)
          continue;
        std::string New = fmt::format("{}_{}", I.Name, K);
        bool Unique = I.Name == TestName ||
                      refersToUnmapped(I.Text, Own, Map, I.Name);
        if (!Unique) {
          auto Tmp = Map;
          Tmp[I.Name] = "\x01";
          std::string Key = renamed(I.Text, Tmp);
          auto [It, Added] = Seen.emplace(std::move(Key), New);
          if (!Added) {
            Map[I.Name] = It->second;
            continue;
          }
        }
        Map[I.Name] = New;
        Fresh.insert(I.Name);
      }
    // Declarations of functions defined elsewhere (none in NVRTC's output).
    for (const Item &I : P->Items)
      if (I.K == Item::FuncDecl && !Map.count(I.Name)) {
        Map[I.Name] = fmt::format("{}_{}", I.Name, K);
        Fresh.insert(I.Name);
      }
    HistKernels[K] = Map[HistName];
    for (const Item &I : P->Items) {
      if (I.K == Item::Extern) {
        if (ExternSeen.insert(I.Text).second)
          Externs.push_back(I.Text);
        continue;
      }
      if (!Fresh.count(I.Name))
        continue;
      std::string T = renamed(I.Text, Map);
      switch (I.K) {
      case Item::Var:
        Vars.push_back(std::move(T));
        break;
      case Item::FuncDecl:
        Decls.push_back(std::move(T));
        break;
      default:
        Defs.push_back(std::move(T));
        break;
      }
    }
  }
  std::string Out = "//\n// Spliced by incant from NVRTC's PTX of each test.\n"
                    "//\n\n";
  for (const auto &H : Header)
    Out += H + '\n';
  Out += '\n';
  for (const auto *Part : {&Decls, &Externs, &Vars, &Defs})
    for (const auto &T : *Part) {
      Out += T;
      Out += '\n';
    }
  return Out;
}

std::map<std::string, std::string> cubinTextSections(const std::string &Cubin) {
  std::map<std::string, std::string> Out;
  auto Get = [&](size_t At, auto &V) {
    if (At + sizeof(V) > Cubin.size())
      return false;
    std::memcpy(&V, Cubin.data() + At, sizeof(V));
    return true;
  };
  uint64_t ShOff = 0;
  uint16_t ShEntSize = 0, ShNum = 0, ShStrNdx = 0;
  if (Cubin.size() < 64 || Cubin.compare(0, 4, "\x7f" "ELF") != 0 ||
      Cubin[4] != 2 || !Get(0x28, ShOff) || !Get(0x3A, ShEntSize) ||
      !Get(0x3C, ShNum) || !Get(0x3E, ShStrNdx) || ShEntSize < 64 ||
      ShStrNdx >= ShNum)
    return Out;
  struct Sec {
    uint32_t Name = 0;
    uint64_t Off = 0, Size = 0;
  };
  auto Section = [&](size_t I, Sec &S) {
    size_t At = ShOff + I * ShEntSize;
    return Get(At, S.Name) && Get(At + 0x18, S.Off) && Get(At + 0x20, S.Size) &&
           S.Off <= Cubin.size() && S.Size <= Cubin.size() - S.Off;
  };
  Sec Names;
  if (!Section(ShStrNdx, Names))
    return {};
  for (size_t I = 0; I < ShNum; ++I) {
    Sec S;
    if (!Section(I, S) || S.Name >= Names.Size)
      return {};
    const char *N = Cubin.data() + Names.Off + S.Name;
    size_t Len = strnlen(N, Names.Size - S.Name);
    std::string_view Name(N, Len);
    if (Name.substr(0, 6) == ".text.")
      Out[std::string(Name.substr(6))] = Cubin.substr(S.Off, S.Size);
  }
  return Out;
}

} // namespace incant::cuda
