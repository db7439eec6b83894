//===- Printer.cpp - Print a litmus test in canonical form ----------------===//
#include "incant/Litmus/Printer.h"

#include <fmt/format.h>

#include <algorithm>

namespace incant::litmus {

namespace {

std::string printValue(const ValueExpr &V) {
  if (V.IsLoc)
    return V.Loc;
  if (!V.Hex)
    return fmt::format("{}", V.Int);
  if (V.Int < 0)
    return fmt::format("-0x{:x}", uint64_t(0) - static_cast<uint64_t>(V.Int));
  return fmt::format("0x{:x}", V.Int);
}

std::string threadName(const Test &T, int32_t Id) {
  return fmt::format("{}{}", T.A == Arch::PTX ? 'P' : 'T', Id);
}

/// `0:` in GPU_PTX, `P0:` in PTX.
std::string threadPrefix(const Test &T, int32_t Id) {
  return T.A == Arch::PTX ? fmt::format("P{}:", Id) : fmt::format("{}:", Id);
}

std::string printRef(const Test &T, const StateRef &R) {
  if (R.Thread < 0)
    return R.Name;
  return threadPrefix(T, R.Thread) + R.Name;
}

std::string printTerm(const Test &T, const CondTerm &C) {
  return C.IsRef ? printRef(T, C.Ref) : printValue(C.Val);
}

/// Precedence: Or 0, And 1, Not/atoms 2.
std::string printCond(const Test &T, const CondExpr &C, int Prec) {
  switch (C.K) {
  case CondExpr::True:
    return "true";
  case CondExpr::False:
    return "false";
  case CondExpr::Eq:
  case CondExpr::Ne: {
    const char *Op = C.K == CondExpr::Ne ? (T.A == Arch::PTX ? " != " : "!=")
                                         : (T.A == Arch::PTX ? " == " : "=");
    return printTerm(T, C.Lhs) + Op + printTerm(T, C.Rhs);
  }
  case CondExpr::Not:
    // Parenthesise a comparison for readability: ~(x == 1).
    if (C.Kids[0].K == CondExpr::Eq || C.Kids[0].K == CondExpr::Ne)
      return "~(" + printCond(T, C.Kids[0], 2) + ")";
    return "~" + printCond(T, C.Kids[0], 2);
  case CondExpr::And:
  case CondExpr::Or: {
    int MyPrec = C.K == CondExpr::And ? 1 : 0;
    std::string S;
    for (size_t I = 0; I != C.Kids.size(); ++I) {
      if (I)
        S += C.K == CondExpr::And ? " /\\ " : " \\/ ";
      S += printCond(T, C.Kids[I], MyPrec + 1);
    }
    return MyPrec < Prec ? "(" + S + ")" : S;
  }
  }
  return "";
}

std::string printScope(const Test &T, const ScopeNode &N) {
  if (N.IsThread)
    return threadName(T, N.Thread);
  std::string S = "(";
  S += scopeLevelName(N.Level);
  for (const ScopeNode &K : N.Kids)
    S += " " + printScope(T, K);
  return S + ")";
}

std::string printHeader(const Test &T, const ThreadHeader &H) {
  std::string S = threadName(T, H.Id);
  if (!H.HasPlacement)
    return S;
  S += fmt::format("@cta {}", H.CTA);
  if (H.Cluster >= 0)
    S += fmt::format(",cluster {}", H.Cluster);
  if (H.GPU >= 0)
    S += fmt::format(",gpu {}", H.GPU);
  return S;
}

} // namespace

std::string printCondition(const Test &T, const CondExpr &C) {
  return printCond(T, C, 0);
}

std::string printTest(const Test &T) {
  std::string Out;
  Out += fmt::format("{} {}\n", T.A == Arch::PTX ? "PTX" : "GPU_PTX", T.Name);
  for (const std::string &C : T.Comments)
    Out += "\"" + C + "\"\n";
  if (!T.Preamble.empty())
    Out += T.Preamble + "\n";
  Out += "{\n";
  for (const InitItem &I : T.Init) {
    switch (I.K) {
    case InitItem::RegDecl:
      Out += threadPrefix(T, I.Thread) + ".reg " + ptx::typeName(I.Ty) + " " +
             I.Name;
      if (I.Init)
        Out += " = " + printValue(*I.Init);
      break;
    case InitItem::RegInit:
      Out += threadPrefix(T, I.Thread) + I.Name + "=" + printValue(*I.Init);
      break;
    case InitItem::LocInit:
      Out += I.Name + "=" + printValue(*I.Init);
      break;
    case InitItem::Alias: {
      static const char *const Names[] = {"generic", "surface", "texture",
                                          "constant", "alias"};
      Out += I.Name + " @ " + Names[size_t(I.AliasProxy)] + " aliases " +
             I.Target;
      break;
    }
    }
    Out += ";\n";
  }
  Out += "}\n";

  // The program table, columns padded to their widest cell.
  size_t NCols = T.Threads.size();
  std::vector<std::vector<std::string>> Table;
  std::vector<std::string> Head;
  for (const ThreadHeader &H : T.Threads)
    Head.push_back(printHeader(T, H));
  Table.push_back(std::move(Head));
  for (const Row &R : T.Rows) {
    std::vector<std::string> Line;
    for (size_t C = 0; C != NCols; ++C)
      Line.push_back(C < R.Cells.size() ? ptx::printStatement(R.Cells[C].Stmt)
                                        : std::string());
    Table.push_back(std::move(Line));
  }
  std::vector<size_t> Width(NCols, 0);
  for (const auto &Line : Table)
    for (size_t C = 0; C != NCols; ++C)
      Width[C] = std::max(Width[C], Line[C].size());
  for (const auto &Line : Table) {
    std::string L;
    for (size_t C = 0; C != NCols; ++C) {
      L += ' ';
      L += Line[C];
      L.append(Width[C] - Line[C].size(), ' ');
      L += C + 1 == NCols ? " ;" : " |";
    }
    Out += L + "\n";
  }

  if (T.Scopes)
    Out += "ScopeTree\n" + printScope(T, *T.Scopes) + "\n";
  if (!T.MemMap.empty()) {
    for (size_t I = 0; I != T.MemMap.size(); ++I)
      Out += fmt::format("{}{}: {}", I ? ", " : "", T.MemMap[I].Name,
                         T.MemMap[I].R == Region::Shared ? "shared" : "global");
    Out += "\n";
  }
  if (!T.Locations.empty() || T.LocationsRange.isValid()) {
    Out += "locations [";
    for (const StateRef &R : T.Locations)
      Out += printRef(T, R) + ";";
    Out += "]\n";
  }
  switch (T.Q) {
  case Quantifier::Exists: Out += "exists"; break;
  case Quantifier::NotExists: Out += "~exists"; break;
  case Quantifier::Forall: Out += "forall"; break;
  }
  std::string C = printCond(T, T.Condition, 0);
  if (T.Condition.K == CondExpr::And || T.Condition.K == CondExpr::Or)
    C = "(" + C + ")";
  Out += " " + C + "\n";
  return Out;
}

} // namespace incant::litmus
