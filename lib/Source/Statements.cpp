//===- Statements.cpp - Where a statement may go in a kernel's source -----===//
#include "incant/Source/Statements.h"

#ifdef INCANT_HAVE_LIBCLANG
#include "ClangTree.h"

#include <set>
#endif

namespace incant::source {

#ifndef INCANT_HAVE_LIBCLANG

struct Statements::Impl {};

Statements::Statements(const std::string &, bool,
                       const std::vector<std::string> &) {
  Problem = "this incant was built without libclang (libclang-14-dev)";
}
Statements::~Statements() = default;
bool Statements::ok() const { return false; }
std::optional<Spot> Statements::before(uint32_t, uint32_t) const {
  return std::nullopt;
}
std::optional<Assignment> Statements::assignmentAt(uint32_t, uint32_t) const {
  return std::nullopt;
}
std::optional<LoopSpots> Statements::loopAt(uint32_t, uint32_t) const {
  return std::nullopt;
}

#else

struct Statements::Impl {
  Impl(const std::string &Path, bool Cuda, const std::vector<std::string> &Args)
      : T(Path, Cuda ? SourceKind::CudaHost : SourceKind::OpenCL, Args) {}
  ClangTree T;
};

Statements::Statements(const std::string &Path, bool Cuda,
                       const std::vector<std::string> &Args)
    : I(std::make_unique<Impl>(Path, Cuda, Args)) {
  if (!I->T.ok())
    Problem = I->T.problem();
}

Statements::~Statements() = default;

bool Statements::ok() const { return I && I->T.ok(); }

namespace {

using Pos = std::pair<uint32_t, uint32_t>;

Pos startOf(CXCursor C) {
  CXSourceRange R = lc().clang_getCursorExtent(C);
  unsigned L = 0, Col = 0;
  lc().clang_getExpansionLocation(lc().clang_getRangeStart(R), nullptr, &L,
                                  &Col, nullptr);
  return {L, Col};
}

Pos endOf(CXCursor C) {
  CXSourceRange R = lc().clang_getCursorExtent(C);
  unsigned L = 0, Col = 0;
  lc().clang_getExpansionLocation(lc().clang_getRangeEnd(R), nullptr, &L, &Col,
                                  nullptr);
  return {L, Col};
}

bool isLoop(CXCursorKind K) {
  return K == CXCursor_ForStmt || K == CXCursor_WhileStmt ||
         K == CXCursor_DoStmt;
}

/// The innermost statement of a block that holds \p At (-1: none) and,
/// in \p Header, the body of the innermost loop whose header (not its
/// body) holds it (-1: none).
int statementAt(const ClangTree &T, Pos At, int &Header) {
  auto Holds = [&](int N) {
    Pos B = startOf(T.node(N).C), E = endOf(T.node(N).C);
    return B <= At && At < E;
  };
  int Best = -1;
  Header = -1;
  for (int N = 0; N < static_cast<int>(T.nodes().size()); ++N) {
    const ClangTree::Node &X = T.node(N);
    // An expression statement is its expression's cursor in libclang.
    bool Statement = lc().clang_isStatement(X.K);
    if (!(Statement || lc().clang_isExpression(X.K)) || !Holds(N))
      continue;
    if (X.Parent >= 0 && T.node(X.Parent).K == CXCursor_CompoundStmt &&
        X.K != CXCursor_CompoundStmt)
      Best = N; // later nodes are inside earlier ones
    if (Statement && isLoop(X.K) && !X.Kids.empty()) {
      int Body = X.K == CXCursor_DoStmt ? X.Kids.front() : X.Kids.back();
      if (!Holds(Body) && T.node(Body).K == CXCursor_CompoundStmt)
        Header = Body;
    }
  }
  return Best;
}

} // namespace

std::optional<Spot> Statements::before(uint32_t Line, uint32_t Col) const {
  if (!ok() || !Line)
    return std::nullopt;
  const ClangTree &T = I->T;
  int Header = -1;
  int Best = statementAt(T, Pos{Line, Col ? Col : 1}, Header);
  // A loop header nested in the statement found runs after the body.
  if (Header >= 0 && (Best < 0 || Header > Best)) {
    Pos Close = endOf(T.node(Header).C); // just after the '}'
    if (Close.second >= 2 && T.firstOnLine(Close.first, Close.second - 1))
      return Spot{Close.first, true};
    return std::nullopt;
  }
  if (Best < 0)
    return std::nullopt;
  Pos S = startOf(T.node(Best).C);
  if (!T.firstOnLine(S.first, S.second))
    return std::nullopt;
  return Spot{S.first, false};
}

std::optional<LoopSpots> Statements::loopAt(uint32_t Line,
                                           uint32_t Col) const {
  if (!ok() || !Line)
    return std::nullopt;
  const ClangTree &T = I->T;
  int Header = -1;
  statementAt(T, Pos{Line, Col ? Col : 1}, Header);
  if (Header < 0)
    return std::nullopt;
  LoopSpots S;
  const ClangTree::Node &Body = T.node(Header);
  if (Body.Parent >= 0) {
    Pos P = startOf(T.node(Body.Parent).C);
    if (T.firstOnLine(P.first, P.second))
      S.Start = P.first;
  }
  if (!Body.Kids.empty()) {
    Pos P = startOf(T.node(Body.Kids.front()).C);
    if (T.firstOnLine(P.first, P.second))
      S.BodyStart = P.first;
  }
  Pos Close = endOf(Body.C); // just after the '}'
  if (Close.second >= 2 && T.firstOnLine(Close.first, Close.second - 1))
    S.BodyEnd = Close.first;
  return S;
}

std::optional<Assignment> Statements::assignmentAt(uint32_t Line,
                                                   uint32_t Col) const {
  if (!ok() || !Line)
    return std::nullopt;
  const ClangTree &T = I->T;
  int Header = -1;
  int N = statementAt(T, Pos{Line, Col ? Col : 1}, Header);
  if (N < 0 || Header > N)
    return std::nullopt;
  const ClangTree::Node &X = T.node(N);
  if ((X.K != CXCursor_BinaryOperator && X.K != CXCursor_CompoundAssignOperator) ||
      X.Kids.size() != 2)
    return std::nullopt;
  Pos S = startOf(X.C), E = endOf(X.C);
  if (S.first != E.first || !T.firstOnLine(S.first, S.second))
    return std::nullopt;
  Assignment A;
  A.Line = S.first;
  A.Op = T.tokenBetween(X.Kids[0], X.Kids[1]);
  static const std::set<std::string> Ops = {"=",  "+=", "-=", "*=",  "/=", "%=",
                                            "&=", "|=", "^=", "<<=", ">>="};
  if (!Ops.count(A.Op))
    return std::nullopt;
  A.Lhs = T.text(X.Kids[0]);
  A.Rhs = T.text(X.Kids[1]);
  A.Type = ClangTree::typeName(T.node(X.Kids[0]).C);
  return A;
}

#endif

} // namespace incant::source
