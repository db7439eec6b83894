//===- Format.cpp - Printing values, states and conditions ----------------===//
#include "incant/Litmus/Format.h"

#include <cassert>
#include <charconv>
#include <cstring>

namespace incant::litmus {

/// Appends \p V as formatValue writes it (no temporary strings: a state
/// of many values is printed per state of a large test).
static void appendValue(std::string &S, const Program &P, const Value &V) {
  char Buf[24];
  if (V.isAddress()) {
    S += V.Loc < (int)P.Locs.size() ? P.Locs[V.Loc].Name : "?";
    if (V.Int == 0)
      return;
    if (V.Int > 0)
      S += '+';
  }
  S.append(Buf, std::to_chars(Buf, Buf + sizeof(Buf), V.Int).ptr);
}

std::string formatValue(const Program &P, const Value &V) {
  std::string S;
  appendValue(S, P, V);
  return S;
}

static void appendReg(std::string &S, const Program &P, int32_t Thread,
                      int32_t Reg) {
  const ThreadProgram &T = P.Threads[Thread];
  char Buf[24];
  S.append(Buf, std::to_chars(Buf, Buf + sizeof(Buf), T.Id).ptr);
  S += ':';
  S += T.Regs[Reg].Name;
}

static std::string regName(const Program &P, int32_t Thread, int32_t Reg) {
  std::string S;
  appendReg(S, P, Thread, Reg);
  return S;
}

std::string formatObserved(const Program &P, const Observed &O) {
  if (O.Thread < 0)
    return P.Locs[O.Index].Name;
  return regName(P, O.Thread, O.Index);
}

std::string formatState(const Program &P, const std::vector<Value> &Values) {
  assert(Values.size() == P.Observe.size());
  // Written through a pointer into a string sized for the longest text
  // first (a test of thousands of states formats each; appending piece by
  // piece was a tenth of such a test's time).
  auto LocName = [&](int32_t L) -> const std::string * {
    static const std::string Unknown = "?";
    return L >= 0 && L < int32_t(P.Locs.size()) ? &P.Locs[size_t(L)].Name
                                                : &Unknown;
  };
  size_t Cap = 0;
  for (size_t I = 0; I != Values.size(); ++I) {
    const Observed &O = P.Observe[I];
    Cap += 48 + (O.Thread < 0 ? LocName(O.Index)->size()
                              : P.Threads[size_t(O.Thread)]
                                    .Regs[size_t(O.Index)]
                                    .Name.size());
    if (Values[I].isAddress())
      Cap += LocName(Values[I].Loc)->size();
  }
  std::string S(Cap, '\0');
  char *Out = S.data();
  auto Put = [&](const std::string &Text) {
    std::memcpy(Out, Text.data(), Text.size());
    Out += Text.size();
  };
  auto Num = [&](int64_t V) { Out = std::to_chars(Out, Out + 24, V).ptr; };
  for (size_t I = 0; I != Values.size(); ++I) {
    if (I)
      *Out++ = ' ';
    const Observed &O = P.Observe[I];
    if (O.Thread < 0) {
      Put(P.Locs[size_t(O.Index)].Name);
    } else {
      const ThreadProgram &T = P.Threads[size_t(O.Thread)];
      Num(T.Id);
      *Out++ = ':';
      Put(T.Regs[size_t(O.Index)].Name);
    }
    *Out++ = '=';
    const Value &V = Values[I];
    // As appendValue writes it.
    if (V.isAddress()) {
      Put(*LocName(V.Loc));
      if (V.Int > 0)
        *Out++ = '+';
    }
    if (!V.isAddress() || V.Int != 0)
      Num(V.Int);
    *Out++ = ';';
  }
  S.resize(size_t(Out - S.data()));
  return S;
}

static std::string formatTerm(const Program &P, const Term &T) {
  switch (T.K) {
  case Term::Kind::Const:
    return formatValue(P, T.V);
  case Term::Kind::Reg:
    return regName(P, T.Thread, T.Index);
  case Term::Kind::Loc:
    return P.Locs[T.Index].Name;
  }
  return "?";
}

/// Binding strength, for parenthesising: Or < And < Not/atoms.
static int precedence(const Cond &C) {
  switch (C.K) {
  case Cond::Or:
    return 1;
  case Cond::And:
    return 2;
  default:
    return 3;
  }
}

static std::string formatCond(const Program &P, const Cond &C, int Outer) {
  std::string S;
  switch (C.K) {
  case Cond::True:
    S = "true";
    break;
  case Cond::False:
    S = "false";
    break;
  case Cond::Eq:
    S = formatTerm(P, C.Lhs) + "=" + formatTerm(P, C.Rhs);
    break;
  case Cond::Not:
    S = "~" + formatCond(P, C.Kids[0], 3);
    break;
  case Cond::And:
  case Cond::Or:
    for (size_t I = 0; I != C.Kids.size(); ++I) {
      if (I)
        S += C.K == Cond::And ? " /\\ " : " \\/ ";
      S += formatCond(P, C.Kids[I], precedence(C) + 1);
    }
    break;
  }
  if (precedence(C) < Outer)
    return "(" + S + ")";
  return S;
}

std::string formatProposition(const Program &P, const Cond &C) {
  return formatCond(P, C, 0);
}

std::string formatCondition(const Program &P) {
  const char *Q = P.Q == Quantifier::Forall      ? "forall"
                  : P.Q == Quantifier::NotExists ? "~exists"
                                                 : "exists";
  return std::string(Q) + " (" + formatProposition(P, P.Condition) + ")";
}

const char *conditionKind(const Program &P) {
  return P.Q == Quantifier::Forall      ? "Required"
         : P.Q == Quantifier::NotExists ? "Forbidden"
                                        : "Allowed";
}

} // namespace incant::litmus
