//===- Printer.cpp - Print a litmus test in canonical form ----------------===//
#include "incant/Litmus/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace incant::litmus {

namespace {

// The printers append to one string: printTest runs once per checked test
// (its text is hashed), so it makes no temporary strings.

void appendValue(std::string &Out, const ValueExpr &V) {
  if (V.IsLoc) {
    Out += V.Loc;
    return;
  }
  auto It = std::back_inserter(Out);
  if (!V.Hex)
    Out += std::to_string(V.Int);
  else if (V.Int < 0)
    fmt::format_to(It, "-0x{:x}",
                   uint64_t(0) - static_cast<uint64_t>(V.Int));
  else
    fmt::format_to(It, "0x{:x}", V.Int);
}

std::string printValue(const ValueExpr &V) {
  std::string S;
  appendValue(S, V);
  return S;
}

void appendThreadName(std::string &Out, const Test &T, int32_t Id) {
  Out += T.A == Arch::PTX ? 'P' : 'T';
  Out += std::to_string(Id);
}

/// `0:` in GPU_PTX, `P0:` in PTX.
void appendThreadPrefix(std::string &Out, const Test &T, int32_t Id) {
  if (T.A == Arch::PTX)
    Out += 'P';
  Out += std::to_string(Id);
  Out += ':';
}

std::string threadPrefix(const Test &T, int32_t Id) {
  std::string S;
  appendThreadPrefix(S, T, Id);
  return S;
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

void appendScope(std::string &Out, const Test &T, const ScopeNode &N) {
  if (N.IsThread) {
    appendThreadName(Out, T, N.Thread);
    return;
  }
  Out += '(';
  Out += scopeLevelName(N.Level);
  for (const ScopeNode &K : N.Kids) {
    Out += ' ';
    appendScope(Out, T, K);
  }
  Out += ')';
}

void appendHeader(std::string &Out, const Test &T, const ThreadHeader &H) {
  appendThreadName(Out, T, H.Id);
  if (!H.HasPlacement)
    return;
  auto It = std::back_inserter(Out);
  fmt::format_to(It, "@cta {}", H.CTA);
  if (H.Cluster >= 0)
    fmt::format_to(It, ",cluster {}", H.Cluster);
  if (H.GPU >= 0)
    fmt::format_to(It, ",gpu {}", H.GPU);
}

} // namespace

std::string printCondition(const Test &T, const CondExpr &C) {
  return printCond(T, C, 0);
}

std::string printTest(const Test &T) {
  std::string Out;
  Out.reserve(1024);
  Out += T.A == Arch::PTX ? "PTX " : "GPU_PTX ";
  Out += T.Name;
  Out += '\n';
  for (const std::string &C : T.Comments) {
    Out += '"';
    Out += C;
    Out += "\"\n";
  }
  if (!T.Preamble.empty()) {
    Out += T.Preamble;
    Out += '\n';
  }
  Out += "{\n";
  for (const InitItem &I : T.Init) {
    switch (I.K) {
    case InitItem::RegDecl:
      appendThreadPrefix(Out, T, I.Thread);
      Out += ".reg ";
      Out += ptx::typeName(I.Ty);
      Out += ' ';
      Out += I.Name;
      if (I.Init) {
        Out += " = ";
        appendValue(Out, *I.Init);
      }
      break;
    case InitItem::RegInit:
      appendThreadPrefix(Out, T, I.Thread);
      Out += I.Name;
      Out += '=';
      appendValue(Out, *I.Init);
      break;
    case InitItem::LocInit:
      Out += I.Name;
      Out += '=';
      appendValue(Out, *I.Init);
      break;
    case InitItem::Alias: {
      static const char *const Names[] = {"generic", "surface", "texture",
                                          "constant", "alias"};
      Out += I.Name;
      Out += " @ ";
      Out += Names[size_t(I.AliasProxy)];
      Out += " aliases ";
      Out += I.Target;
      break;
    }
    }
    Out += ";\n";
  }
  Out += "}\n";

  // The program table, columns padded to their widest cell.
  size_t NCols = T.Threads.size();
  std::vector<std::vector<std::string>> Table;
  std::vector<std::string> Head(T.Threads.size());
  for (size_t C = 0; C != T.Threads.size(); ++C)
    appendHeader(Head[C], T, T.Threads[C]);
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
    for (size_t C = 0; C != NCols; ++C) {
      Out += ' ';
      Out += Line[C];
      Out.append(Width[C] - Line[C].size(), ' ');
      Out += C + 1 == NCols ? " ;" : " |";
    }
    Out += '\n';
  }

  if (T.Scopes) {
    Out += "ScopeTree\n";
    appendScope(Out, T, *T.Scopes);
    Out += '\n';
  }
  if (!T.MemMap.empty()) {
    for (size_t I = 0; I != T.MemMap.size(); ++I) {
      if (I)
        Out += ", ";
      Out += T.MemMap[I].Name;
      Out += T.MemMap[I].R == Region::Shared ? ": shared" : ": global";
    }
    Out += '\n';
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
