//===- HostValues.cpp - Values the host code fixes (libclang tree) --------===//
#include "HostValues.h"

namespace incant::source {

namespace {

constexpr unsigned MaxDepth = 32;

std::optional<int64_t> evaluate(CXCursor C) {
  CXEvalResult R = lc().clang_Cursor_Evaluate(C);
  if (!R)
    return std::nullopt;
  std::optional<int64_t> V;
  if (lc().clang_EvalResult_getKind(R) == CXEval_Int)
    V = lc().clang_EvalResult_isUnsignedInt(R)
            ? static_cast<int64_t>(lc().clang_EvalResult_getAsUnsigned(R))
            : static_cast<int64_t>(lc().clang_EvalResult_getAsLongLong(R));
  lc().clang_EvalResult_dispose(R);
  return V;
}

bool isCast(CXCursorKind K) {
  return K == CXCursor_UnexposedExpr || K == CXCursor_ParenExpr ||
         K == CXCursor_CStyleCastExpr || K == CXCursor_CXXFunctionalCastExpr ||
         K == CXCursor_CXXStaticCastExpr || K == CXCursor_CXXReinterpretCastExpr ||
         K == CXCursor_CXXConstCastExpr;
}

/// dim3 or uint3, qualified or as a reference.
bool isDim3(std::string Type) {
  for (const char *Q : {"const ", "volatile ", "struct "})
    while (Type.rfind(Q, 0) == 0)
      Type.erase(0, std::string(Q).size());
  while (!Type.empty() && (Type.back() == '&' || Type.back() == ' '))
    Type.pop_back();
  return Type == "dim3" || Type == "uint3";
}

} // namespace

int HostValues::strip(int N) const {
  for (unsigned D = 0; D < MaxDepth && N >= 0; ++D) {
    const ClangTree::Node &X = T.node(N);
    if (!isCast(X.K))
      return N;
    int Last = -1;
    for (int K : X.Kids)
      if (lc().clang_isExpression(T.node(K).K))
        Last = K;
    if (Last < 0)
      return N;
    N = Last;
  }
  return N;
}

unsigned HostValues::numArgs(int N) const {
  int A = lc().clang_Cursor_getNumArguments(T.node(N).C);
  return A < 0 ? 0 : static_cast<unsigned>(A);
}

int HostValues::argNode(int N, unsigned I) const {
  // By kind and extent: the cursors libclang gives for an argument and for
  // the same child differ in the parent they carry.
  CXCursor A = lc().clang_Cursor_getArgument(T.node(N).C, I);
  if (lc().clang_Cursor_isNull(A))
    return -1;
  std::pair<unsigned, unsigned> At = ClangTree::offsetsOf(A);
  for (int K : T.node(N).Kids)
    if (T.node(K).K == lc().clang_getCursorKind(A) && T.offsets(K) == At)
      return K;
  return -1;
}

std::string HostValues::calleeName(int Call) const {
  CXCursor R = lc().clang_getCursorReferenced(T.node(Call).C);
  return lc().clang_Cursor_isNull(R) ? "" : ClangTree::spelling(R);
}

int HostValues::initOf(CXCursor Var) const {
  int D = T.nodeOf(Var);
  if (D < 0 || ClangTree::typeName(Var).find('[') != std::string::npos)
    return -1;
  int Init = -1;
  for (int K : T.node(D).Kids) {
    CXCursorKind KK = T.node(K).K;
    if (KK == CXCursor_CUDADeviceAttr || KK == CXCursor_CUDAConstantAttr ||
        KK == CXCursor_CUDASharedAttr)
      return -1; // device memory: not the host's value
    if (lc().clang_isExpression(KK))
      Init = K;
  }
  return Init;
}

VarUse HostValues::useAt(int Ref) const {
  VarUse U;
  U.Ref = Ref;
  int Cur = Ref;
  int P = T.node(Cur).Parent;
  bool Array =
      ClangTree::typeName(T.node(Ref).C).find('[') != std::string::npos;
  bool Decayed = false; // an array as a pointer
  while (P >= 0) {
    const ClangTree::Node &X = T.node(P);
    bool First = !X.Kids.empty() && X.Kids.front() == Cur;
    if (X.K == CXCursor_MemberRefExpr && First) {
      U.Path += "." + ClangTree::spelling(X.C);
    } else if (X.K == CXCursor_ArraySubscriptExpr && First && X.Kids.size() == 2) {
      std::optional<int64_t> I = intOf(X.Kids[1]);
      U.Path += I ? "[" + std::to_string(*I) + "]" : "[?]";
      Array = Decayed = false;
    } else if (X.K == CXCursor_ParenExpr) {
    } else if (X.K == CXCursor_UnexposedExpr && Array && !Decayed) {
      Decayed = true;
    } else {
      break;
    }
    Cur = P;
    P = X.Parent;
  }
  if (P < 0)
    return U;
  if (Decayed) { // the array's address, passed on (to a config's attrs)
    U.K = VarUse::Read;
    return U;
  }
  const ClangTree::Node &X = T.node(P);
  auto IsLaunch = [&](int Call) {
    return T.node(Call).K == CXCursor_CallExpr &&
           calleeName(Call).rfind("cudaLaunch", 0) == 0;
  };
  if (X.K == CXCursor_UnexposedExpr || IsLaunch(P)) {
    U.K = VarUse::Read;
  } else if (X.K == CXCursor_UnaryOperator && T.firstToken(P) == "&") {
    // &v in an argument array's initialiser, or given to a launch.
    int Q = X.Parent;
    while (Q >= 0 && isCast(T.node(Q).K))
      Q = T.node(Q).Parent;
    if (Q >= 0 && (T.node(Q).K == CXCursor_InitListExpr || IsLaunch(Q)))
      U.K = VarUse::Read;
  } else if (X.K == CXCursor_BinaryOperator && X.Kids.size() == 2 &&
             X.Kids[0] == Cur) {
    U.K = VarUse::Write;
    if (T.tokenBetween(X.Kids[0], X.Kids[1]) == "=")
      U.Value = X.Kids[1];
  } else if (X.K == CXCursor_CallExpr && calleeName(P) == "operator=" &&
             X.Kids.size() == 3 && X.Kids[0] == Cur) {
    U.K = VarUse::Write;
    U.Value = X.Kids[2];
  } else if (X.K == CXCursor_MemberRefExpr) {
    // Cur is not the base: v names a member (a method's argument, ...).
  }
  return U;
}

std::vector<VarUse> HostValues::usesOf(CXCursor Var) const {
  std::vector<VarUse> R;
  for (int Ref : T.referencesTo(Var))
    if (T.node(Ref).K == CXCursor_DeclRefExpr)
      R.push_back(useAt(Ref));
  return R;
}

bool HostValues::unmodified(CXCursor Var) const {
  if (T.nodeOf(Var) < 0)
    return false;
  for (const VarUse &U : usesOf(Var))
    if (U.K != VarUse::Read)
      return false;
  return true;
}

std::optional<int64_t> HostValues::binary(int N, unsigned Depth) const {
  const ClangTree::Node &X = T.node(N);
  if (X.Kids.size() != 2)
    return std::nullopt;
  std::string Op = T.tokenBetween(X.Kids[0], X.Kids[1]);
  std::optional<int64_t> A = intOf(X.Kids[0], Depth + 1);
  if (!A)
    return std::nullopt;
  if (Op == "&&" && !*A)
    return 0;
  if (Op == "||" && *A)
    return 1;
  std::optional<int64_t> B = intOf(X.Kids[1], Depth + 1);
  if (!B)
    return std::nullopt;
  int64_t R = 0;
  if (Op == "+") {
    if (__builtin_add_overflow(*A, *B, &R))
      return std::nullopt;
  } else if (Op == "-") {
    if (__builtin_sub_overflow(*A, *B, &R))
      return std::nullopt;
  } else if (Op == "*") {
    if (__builtin_mul_overflow(*A, *B, &R))
      return std::nullopt;
  } else if (Op == "/" || Op == "%") {
    if (*B == 0 || (*A == INT64_MIN && *B == -1))
      return std::nullopt;
    R = Op == "/" ? *A / *B : *A % *B;
  } else if (Op == "<<" || Op == ">>") {
    if (*B < 0 || *B > 62 || *A < 0)
      return std::nullopt;
    if (Op == ">>")
      R = *A >> *B;
    else if ((R = *A << *B) >> *B != *A)
      return std::nullopt;
  } else if (Op == "&") {
    R = *A & *B;
  } else if (Op == "|") {
    R = *A | *B;
  } else if (Op == "^") {
    R = *A ^ *B;
  } else if (Op == "<") {
    R = *A < *B;
  } else if (Op == ">") {
    R = *A > *B;
  } else if (Op == "<=") {
    R = *A <= *B;
  } else if (Op == ">=") {
    R = *A >= *B;
  } else if (Op == "==") {
    R = *A == *B;
  } else if (Op == "!=") {
    R = *A != *B;
  } else if (Op == "&&" || Op == "||") {
    R = *B != 0;
  } else {
    return std::nullopt; // ',' and anything not an integer operator
  }
  return R;
}

std::optional<int64_t> HostValues::unary(int N, unsigned Depth) const {
  const ClangTree::Node &X = T.node(N);
  if (X.Kids.size() != 1)
    return std::nullopt;
  std::string Op = T.firstToken(N);
  if (Op != "-" && Op != "+" && Op != "~" && Op != "!")
    return std::nullopt; // ++, --, &, * change or read memory
  std::optional<int64_t> A = intOf(X.Kids[0], Depth + 1);
  if (!A || (Op == "-" && *A == INT64_MIN))
    return std::nullopt;
  return Op == "-" ? -*A : Op == "+" ? *A : Op == "~" ? ~*A : !*A;
}

std::optional<int64_t> HostValues::intOf(int N, unsigned Depth) const {
  if (N < 0 || Depth > MaxDepth)
    return std::nullopt;
  const ClangTree::Node &X = T.node(N);
  if (!lc().clang_isExpression(X.K))
    return std::nullopt;
  if (std::optional<int64_t> V = evaluate(X.C))
    return V;
  if (int S = strip(N); S != N) // a cast, parentheses
    return intOf(S, Depth + 1);
  switch (X.K) {
  case CXCursor_DeclRefExpr: {
    CXCursor V = lc().clang_getCursorReferenced(X.C);
    if (lc().clang_getCursorKind(V) != CXCursor_VarDecl || !unmodified(V))
      return std::nullopt;
    return intOf(initOf(V), Depth + 1);
  }
  case CXCursor_MemberRefExpr: {
    if (X.Kids.size() != 1)
      return std::nullopt;
    std::string F = ClangTree::spelling(X.C);
    if (F.size() != 1 || F[0] < 'x' || F[0] > 'z')
      return std::nullopt;
    return dimOf(X.Kids[0], Depth + 1)[static_cast<unsigned>(F[0] - 'x')];
  }
  case CXCursor_BinaryOperator:
    return binary(N, Depth);
  case CXCursor_UnaryOperator:
    return unary(N, Depth);
  case CXCursor_ConditionalOperator: {
    if (X.Kids.size() != 3)
      return std::nullopt;
    std::optional<int64_t> C = intOf(X.Kids[0], Depth + 1);
    return C ? intOf(X.Kids[*C ? 1 : 2], Depth + 1) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

Dims HostValues::dimOf(int N, unsigned Depth) const {
  Dims Unknown;
  if (N < 0 || Depth > MaxDepth)
    return Unknown;
  const ClangTree::Node &X = T.node(N);
  if (!isDim3(ClangTree::typeName(X.C))) {
    // An integer converted to dim3: (v, 1, 1).
    std::optional<int64_t> V = intOf(N, Depth + 1);
    return V ? Dims{V, 1, 1} : Dims{std::nullopt, 1, 1};
  }
  if (int S = strip(N); S != N) // a cast, parentheses
    return dimOf(S, Depth + 1);
  switch (X.K) {
  case CXCursor_CallExpr: {
    // A dim3 constructor: (x, y, z) with defaults 1, or a copy.
    unsigned Args = numArgs(N);
    if (Args == 1) {
      int A = argNode(N, 0);
      return A < 0 ? Unknown : dimOf(A, Depth + 1);
    }
    if (Args > 3 || ClangTree::spelling(X.C) != "dim3")
      return Unknown;
    Dims D{1, 1, 1};
    for (unsigned I = 0; I < Args; ++I) {
      int A = argNode(N, I);
      D[I] = A >= 0 ? intOf(A, Depth + 1)
                    : evaluate(lc().clang_Cursor_getArgument(X.C, I));
    }
    return D;
  }
  case CXCursor_DeclRefExpr: {
    CXCursor V = lc().clang_getCursorReferenced(X.C);
    if (lc().clang_getCursorKind(V) != CXCursor_VarDecl || !unmodified(V))
      return Unknown;
    int Init = initOf(V);
    return Init < 0 ? Unknown : dimOf(Init, Depth + 1);
  }
  case CXCursor_InitListExpr: {
    Dims D{1, 1, 1};
    if (X.Kids.size() > 3)
      return Unknown;
    for (size_t I = 0; I < X.Kids.size(); ++I)
      D[I] = intOf(X.Kids[I], Depth + 1);
    return D;
  }
  default:
    return Unknown;
  }
}

} // namespace incant::source
