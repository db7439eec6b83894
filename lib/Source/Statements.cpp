//===- Statements.cpp - Where a statement may go in a kernel's source -----===//
#include "incant/Source/Statements.h"

#ifdef INCANT_HAVE_LIBCLANG
#include "ClangTree.h"
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

} // namespace

std::optional<Spot> Statements::before(uint32_t Line, uint32_t Col) const {
  if (!ok() || !Line)
    return std::nullopt;
  const ClangTree &T = I->T;
  Pos At{Line, Col ? Col : 1};
  auto Holds = [&](int N) {
    Pos B = startOf(T.node(N).C), E = endOf(T.node(N).C);
    return B <= At && At < E;
  };
  // The innermost statement of a block that holds the position, and the
  // innermost loop whose header (not its body) holds it.
  int Best = -1, Header = -1;
  for (int N = 0; N < static_cast<int>(T.nodes().size()); ++N) {
    const ClangTree::Node &X = T.node(N);
    if (!lc().clang_isStatement(X.K) || !Holds(N))
      continue;
    if (X.Parent >= 0 && T.node(X.Parent).K == CXCursor_CompoundStmt &&
        X.K != CXCursor_CompoundStmt)
      Best = N; // later nodes are inside earlier ones
    if (isLoop(X.K) && !X.Kids.empty()) {
      int Body = X.K == CXCursor_DoStmt ? X.Kids.front() : X.Kids.back();
      if (!Holds(Body) && T.node(Body).K == CXCursor_CompoundStmt)
        Header = Body;
    }
  }
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

#endif

} // namespace incant::source
