//===- HostLaunches.cpp - The kernel launches of a .cu file's host code ---===//
#include "incant/Source/HostLaunches.h"

#ifdef INCANT_HAVE_LIBCLANG
#include "ClangTree.h"
#include "HostValues.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#endif

namespace incant::source {

#ifndef INCANT_HAVE_LIBCLANG

bool haveLibclang() { return false; }

HostCode readHostLaunches(const std::string &, const std::vector<std::string> &) {
  HostCode H;
  H.Problem = "this incant was built without libclang (libclang-14-dev), so "
              "the host code's launches are not read";
  return H;
}

#else

bool haveLibclang() { return true; }

namespace {

/// Whether \p Decl is a __global__ function (or template of one).
bool isKernel(CXCursor Decl) {
  CXCursorKind K = lc().clang_getCursorKind(Decl);
  if (K != CXCursor_FunctionDecl && K != CXCursor_FunctionTemplate)
    return false;
  bool Global = false;
  lc().clang_visitChildren(
      Decl,
      [](CXCursor C, CXCursor, CXClientData D) {
        if (lc().clang_getCursorKind(C) == CXCursor_CUDAGlobalAttr) {
          *static_cast<bool *>(D) = true;
          return CXChildVisit_Break;
        }
        return CXChildVisit_Continue;
      },
      &Global);
  return Global;
}

/// The kernel's PTX name from clang's host-side mangling, which names the
/// host stub: `_Z16__device_stub__kPii` is `_Z1kPii`.
std::string deviceName(std::string M) {
  const std::string Stub = "__device_stub__";
  size_t At = M.find(Stub);
  if (At == std::string::npos)
    return M;
  // Left to right over the <length><identifier> components of the name:
  // unambiguous, where reading the length back from the stub would take an
  // identifier's last digit (`12_GLOBAL__N_1` of an anonymous namespace).
  size_t P = M.rfind("_Z", 0) == 0 ? 2 : M.size();
  if (P < M.size() && M[P] == 'N')
    ++P;
  while (P < M.size() && std::isdigit(static_cast<unsigned char>(M[P]))) {
    size_t Q = P;
    while (Q < M.size() && std::isdigit(static_cast<unsigned char>(M[Q])))
      ++Q;
    size_t Len = std::stoul(M.substr(P, Q - P));
    if (Len > M.size() - Q)
      break;
    if (Len > Stub.size() && M.compare(Q, Stub.size(), Stub) == 0)
      return M.substr(0, P) + std::to_string(Len - Stub.size()) +
             M.substr(Q + Stub.size());
    P = Q + Len;
  }
  size_t Digits = At;
  while (Digits > 0 && M[Digits - 1] >= '0' && M[Digits - 1] <= '9')
    --Digits;
  if (Digits == At)
    return M.erase(At, Stub.size());
  size_t Len = std::stoul(M.substr(Digits, At - Digits));
  if (Len <= Stub.size())
    return M;
  return M.substr(0, Digits) + std::to_string(Len - Stub.size()) +
         M.substr(At + Stub.size());
}

/// An integer literal token as C reads it (`16`, `0x10`, `020`, `16u`).
std::optional<int64_t> integerToken(const std::string &Tok) {
  char *End = nullptr;
  long long V = std::strtoll(Tok.c_str(), &End, 0);
  if (Tok.empty() || !End || (*End && std::string(End) != "u" && std::string(End) != "U"))
    return std::nullopt;
  return V;
}

class Reader {
public:
  explicit Reader(const ClangTree &T) : T(T), V(T) {}

  HostCode run() {
    for (int I = 0; I < static_cast<int>(T.nodes().size()); ++I)
      if (T.node(I).K == CXCursor_CallExpr)
        call(I);
    for (int I = 0; I < static_cast<int>(T.nodes().size()); ++I)
      escape(I);
    for (int I : T.roots())
      if (T.node(I).K == CXCursor_MacroExpansion &&
          ClangTree::spelling(T.node(I).C) == "__requires")
        readRequires(I);
    for (int I : T.roots())
      if (T.node(I).K == CXCursor_MacroExpansion &&
          ClangTree::spelling(T.node(I).C) == "__axiom")
        readAxiom(I);
    return std::move(H);
  }

  /// __axiom(blockIdx.x == 16 && blockDim.y == 8): every conjunct an
  /// equality of a launch builtin's axis and an integer, either side.
  void readAxiom(int Macro) {
    uint32_t Line = ClangTree::lineOf(T.node(Macro).C).first;
    std::vector<std::string> Toks = T.allTokens(Macro);
    std::vector<Axiom> Found;
    bool Ok = Toks.size() >= 4 && Toks[1] == "(" && Toks.back() == ")";
    std::vector<std::string> Conj;
    auto Flush = [&] {
      static const std::string Axes = "xyz";
      // BUILTIN . AXIS == INT, or INT == BUILTIN . AXIS
      bool Left = Conj.size() == 5 && Conj[3] == "==";
      bool Right = Conj.size() == 5 && Conj[1] == "==";
      if (!Left && !Right) {
        Ok = false;
        return;
      }
      const std::string *B = &Conj[Left ? 0 : 2];
      std::optional<int64_t> V = integerToken(Conj[Left ? 4 : 0]);
      if (!V || (B[0] != "blockIdx" && B[0] != "blockDim" && B[0] != "gridDim") ||
          B[1] != "." || B[2].size() != 1 || Axes.find(B[2][0]) == std::string::npos) {
        Ok = false;
        return;
      }
      Found.push_back({B[0], static_cast<unsigned>(Axes.find(B[2][0])), *V, Line});
      Conj.clear();
    };
    for (size_t I = 2; Ok && I + 1 < Toks.size(); ++I) {
      if (Toks[I] == "&&")
        Flush();
      else if (Toks[I] == "(" || Toks[I] == ")")
        continue;
      else
        Conj.push_back(Toks[I]);
    }
    if (Ok)
      Flush();
    if (!Ok) {
      std::string Text;
      for (size_t I = 2; I + 1 < Toks.size(); ++I)
        Text += (Text.empty() ? "" : " ") + Toks[I];
      H.AxiomsNotRead.push_back({Text, Line});
      return;
    }
    H.Axioms.insert(H.Axioms.end(), Found.begin(), Found.end());
  }

  /// __requires(p == 5 && 7 == q) in a kernel with parameters p and q.
  void readRequires(int Macro) {
    unsigned At = T.offsets(Macro).first;
    int Fn = -1;
    for (int I = 0; I < static_cast<int>(T.nodes().size()); ++I) {
      const ClangTree::Node &N = T.node(I);
      if ((N.K == CXCursor_FunctionDecl || N.K == CXCursor_FunctionTemplate) &&
          T.offsets(I).first <= At && At < T.offsets(I).second && isKernel(N.C))
        Fn = I;
    }
    if (Fn < 0)
      return;
    std::vector<std::string> Params, FunctionPointers;
    for (int K : T.node(Fn).Kids)
      if (T.node(K).K == CXCursor_ParmDecl) {
        Params.push_back(ClangTree::spelling(T.node(K).C));
        CXType Ty = lc().clang_getCanonicalType(
            lc().clang_getCursorType(T.node(K).C));
        CXTypeKind To = Ty.kind == CXType_Pointer
                            ? lc().clang_getCanonicalType(
                                  lc().clang_getPointeeType(Ty)).kind
                            : CXType_Invalid;
        if (To == CXType_FunctionProto || To == CXType_FunctionNoProto)
          FunctionPointers.push_back(Params.back());
      }
    std::vector<std::string> Toks = T.allTokens(Macro);
    if (Toks.size() < 4 || Toks[1] != "(" || Toks.back() != ")")
      return;
    if (readFunctionChoice(Fn, Macro, Params, FunctionPointers, Toks))
      return;
    std::vector<std::string> Conj;
    std::vector<Requirement> Found;
    auto ParamAt = [&](const std::string &Name) {
      for (unsigned P = 0; P < Params.size(); ++P)
        if (Params[P] == Name)
          return static_cast<int>(P);
      return -1;
    };
    auto Flush = [&] {
      // NAME == blockDim.x (gridDim.y, ...) or blockDim.x == NAME
      if (Conj.size() == 5 && (Conj[1] == "==" || Conj[3] == "==")) {
        bool Left = Conj[1] == "==";
        const std::string &Name = Conj[Left ? 0 : 4];
        const std::string *Dim = &Conj[Left ? 2 : 0];
        static const std::string Axes = "xyz";
        int P = ParamAt(Name);
        if (P >= 0 && (*Dim == "blockDim" || *Dim == "gridDim") &&
            Dim[1] == "." && Dim[2].size() == 1 &&
            Axes.find(Dim[2][0]) != std::string::npos)
          Found.push_back({ClangTree::spelling(T.node(Fn).C),
                           static_cast<unsigned>(P), Name, 0, *Dim,
                           static_cast<unsigned>(Axes.find(Dim[2][0])),
                           ClangTree::lineOf(T.node(Macro).C).first, {}});
      }
      // NAME == INT or INT == NAME
      if (Conj.size() == 3 && Conj[1] == "==") {
        for (int Side = 0; Side < 2; ++Side) {
          const std::string &Name = Conj[Side ? 2 : 0];
          std::optional<int64_t> V = integerToken(Conj[Side ? 0 : 2]);
          for (unsigned P = 0; V && P < Params.size(); ++P)
            if (Params[P] == Name)
              Found.push_back({ClangTree::spelling(T.node(Fn).C), P, Name, *V,
                               "", 0,
                               ClangTree::lineOf(T.node(Macro).C).first, {}});
        }
      }
      Conj.clear();
    };
    for (size_t I = 2; I + 1 < Toks.size(); ++I) {
      if (Toks[I] == "&&") {
        Flush();
      } else if (Toks[I] == "(" || Toks[I] == ")" || Toks[I] == "||" ||
                 Toks[I] == "|" || Toks[I] == "!") {
        // Only a conjunction of equalities is read.
        if (Toks[I] != "(" && Toks[I] != ")")
          return;
      } else {
        Conj.push_back(Toks[I]);
      }
    }
    Flush();
    H.Requires.insert(H.Requires.end(), Found.begin(), Found.end());
  }

  /// __requires(f == g | f == h) (`||` too; one alternative alone, or
  /// `g == f`) with f one of the kernel's function-pointer parameters
  /// \p Pointers (of \p Params): f is one of the functions named (which
  /// functions of the module those are, Launches.cpp decides).
  bool readFunctionChoice(int Fn, int Macro,
                          const std::vector<std::string> &Params,
                          const std::vector<std::string> &Pointers,
                          const std::vector<std::string> &Toks) {
    auto Identifier = [](const std::string &X) {
      return !X.empty() && (std::isalpha(static_cast<unsigned char>(X[0])) ||
                            X[0] == '_');
    };
    std::string Param;
    std::vector<std::string> Names;
    // Alternatives: NAME == NAME, separated by | or ||, in parentheses.
    std::vector<std::string> Alt;
    auto Close = [&] {
      if (Alt.size() != 3 || Alt[1] != "==" || !Identifier(Alt[0]) ||
          !Identifier(Alt[2]))
        return false;
      bool LeftIsParam =
          std::find(Pointers.begin(), Pointers.end(), Alt[0]) != Pointers.end();
      const std::string &P = LeftIsParam ? Alt[0] : Alt[2];
      const std::string &G = LeftIsParam ? Alt[2] : Alt[0];
      if (std::find(Pointers.begin(), Pointers.end(), P) == Pointers.end() ||
          std::find(Params.begin(), Params.end(), G) != Params.end() ||
          (!Param.empty() && P != Param))
        return false;
      Param = P;
      Names.push_back(G);
      Alt.clear();
      return true;
    };
    for (size_t I = 2; I + 1 < Toks.size(); ++I) {
      if (Toks[I] == "(" || Toks[I] == ")")
        continue;
      if (Toks[I] == "|" || Toks[I] == "||") {
        if (!Close())
          return false;
      } else {
        Alt.push_back(Toks[I]);
      }
    }
    if (!Close())
      return false;
    Requirement Q;
    Q.Kernel = ClangTree::spelling(T.node(Fn).C);
    Q.Param = static_cast<unsigned>(
        std::find(Params.begin(), Params.end(), Param) - Params.begin());
    Q.Name = Param;
    Q.Functions = Names;
    Q.Line = ClangTree::lineOf(T.node(Macro).C).first;
    H.Requires.push_back(std::move(Q));
    return true;
  }

private:
  /// The kernel a callee expression names, or a null cursor.
  CXCursor kernelOf(int N) {
    N = V.strip(N);
    if (N >= 0 && T.node(N).K == CXCursor_UnaryOperator && T.node(N).Kids.size() == 1)
      N = V.strip(T.node(N).Kids[0]); // &k
    if (N < 0 || T.node(N).K != CXCursor_DeclRefExpr)
      return lc().clang_getNullCursor();
    CXCursor D = lc().clang_getCursorReferenced(T.node(N).C);
    if (!isKernel(D))
      return lc().clang_getNullCursor();
    Accounted.insert(N);
    return D;
  }

  HostLaunch start(int Call, CXCursor Kernel, const char *How) {
    HostLaunch L;
    CXString M = lc().clang_Cursor_getMangling(Kernel);
    L.Kernel = deviceName(lc().clang_getCString(M) ? lc().clang_getCString(M) : "");
    lc().clang_disposeString(M);
    L.Spelling = ClangTree::spelling(Kernel);
    L.How = How;
    std::tie(L.Line, L.Column) = ClangTree::lineOf(T.node(Call).C);
    lc().clang_visitChildren(
        Kernel,
        [](CXCursor C, CXCursor, CXClientData D) {
          if (lc().clang_getCursorKind(C) == CXCursor_ParmDecl)
            static_cast<HostLaunch *>(D)->ParamNames.push_back(
                ClangTree::spelling(C));
          return CXChildVisit_Continue;
        },
        &L);
    return L;
  }

  void addArg(HostLaunch &L, int N) {
    L.Args.push_back(V.intOf(N));
    L.ArgText.push_back(N >= 0 ? T.text(N) : "");
  }

  void call(int N) {
    const ClangTree::Node &X = T.node(N);
    int Config = -1;
    for (int K : X.Kids)
      if (T.node(K).K == CXCursor_CallExpr &&
          V.calleeName(K) == "__cudaPushCallConfiguration")
        Config = K;
    std::string Name = V.calleeName(N);
    if (Config >= 0)
      chevrons(N, Config);
    else if (Name == "cudaLaunchKernel" || Name == "cudaLaunchCooperativeKernel")
      launchKernel(N, Name);
    else if (Name == "cudaLaunchKernelEx" || Name == "cudaLaunchKernelExC")
      launchKernelEx(N, Name);
    else if (Name.rfind("cudaFunc", 0) == 0 || Name.rfind("cudaOccupancy", 0) == 0)
      for (unsigned I = 0; I < V.numArgs(N); ++I) // attributes, not launches
        kernelOf(V.argNode(N, I));
  }

  void chevrons(int N, int Config) {
    CXCursor K = kernelOf(T.node(N).Kids.front());
    if (lc().clang_Cursor_isNull(K))
      return;
    HostLaunch L = start(N, K, "<<<>>>");
    L.Grid = V.dimOf(V.argNode(Config, 0));
    L.Block = V.dimOf(V.argNode(Config, 1));
    for (unsigned I = 0; I < V.numArgs(N); ++I)
      addArg(L, V.argNode(N, I));
    H.Launches.push_back(std::move(L));
  }

  /// cudaLaunchKernel / cudaLaunchCooperativeKernel(func, grid, block,
  /// args, ...): the arguments from `void *args[] = {&a, &n, ...}`.
  void launchKernel(int N, const std::string &Name) {
    if (V.numArgs(N) < 4)
      return;
    CXCursor K = kernelOf(V.argNode(N, 0));
    if (lc().clang_Cursor_isNull(K))
      return;
    HostLaunch L = start(N, K, Name.c_str());
    L.Cooperative = Name == "cudaLaunchCooperativeKernel";
    L.Grid = V.dimOf(V.argNode(N, 1));
    L.Block = V.dimOf(V.argNode(N, 2));
    argArray(L, V.argNode(N, 3));
    H.Launches.push_back(std::move(L));
  }

  void argArray(HostLaunch &L, int N) {
    N = V.strip(N);
    if (N < 0 || T.node(N).K != CXCursor_DeclRefExpr)
      return;
    CXCursor A = lc().clang_getCursorReferenced(T.node(N).C);
    int D = T.nodeOf(A);
    if (D < 0 || !V.unmodified(A))
      return;
    for (int K : T.node(D).Kids) {
      if (T.node(K).K != CXCursor_InitListExpr)
        continue;
      for (int E : T.node(K).Kids) {
        int S = V.strip(E);
        bool Addr = S >= 0 && T.node(S).K == CXCursor_UnaryOperator &&
                    T.firstToken(S) == "&" && T.node(S).Kids.size() == 1;
        addArg(L, Addr ? T.node(S).Kids[0] : -1);
      }
    }
  }

  /// The value written to \p Path of \p Var before offset \p Before (the
  /// launch): the one assignment there, else \p Init; -2 when written
  /// more than once.
  int fieldValue(const std::vector<VarUse> &Uses, const std::string &Path,
                 unsigned Before, int Init) {
    int Found = Init, Count = 0;
    for (const VarUse &U : Uses)
      if (U.K == VarUse::Write && U.Path == Path &&
          T.offsets(U.Ref).first < Before) {
        Found = U.Value;
        ++Count;
      }
    return Count > 1 ? -2 : Found;
  }

  Dims fieldDims(const std::vector<VarUse> &Uses, const std::string &Path,
                 unsigned Before, int Init) {
    int Whole = fieldValue(Uses, Path, Before, Init);
    Dims D = Whole == -2 ? Dims{} : Whole < 0 ? Dims{1, 1, 1} : V.dimOf(Whole);
    for (unsigned I = 0; I < 3; ++I) {
      std::string P = Path + "." + std::string(1, static_cast<char>('x' + I));
      int C = fieldValue(Uses, P, Before, -1);
      if (C != -1)
        D[I] = C >= 0 ? V.intOf(C) : std::nullopt;
    }
    return D;
  }

  /// cudaLaunchKernelEx(&config, kernel, args...): the config's dims from
  /// its initialiser and the assignments to its fields before the launch;
  /// the cluster dimension and cooperative attributes from its attrs.
  void launchKernelEx(int N, const std::string &Name) {
    if (V.numArgs(N) < 2)
      return;
    CXCursor K = kernelOf(V.argNode(N, 1));
    if (lc().clang_Cursor_isNull(K))
      return;
    HostLaunch L = start(N, K, Name.c_str());
    unsigned At = T.offsets(N).first;
    int C = V.strip(V.argNode(N, 0));
    if (C >= 0 && T.node(C).K == CXCursor_UnaryOperator && T.node(C).Kids.size() == 1)
      C = V.strip(T.node(C).Kids[0]);
    bool Known = false;
    if (C >= 0 && T.node(C).K == CXCursor_DeclRefExpr) {
      CXCursor Cfg = lc().clang_getCursorReferenced(T.node(C).C);
      std::vector<VarUse> Uses = V.usesOf(Cfg);
      Known = T.nodeOf(Cfg) >= 0;
      for (const VarUse &U : Uses)
        Known &= U.K != VarUse::Other;
      if (Known) {
        int Init = -1;
        for (int Kid : T.node(T.nodeOf(Cfg)).Kids)
          if (T.node(Kid).K == CXCursor_InitListExpr)
            Init = Kid;
        auto InitField = [&](size_t I) {
          return Init >= 0 && I < T.node(Init).Kids.size()
                     ? T.node(Init).Kids[I] : -1;
        };
        L.Grid = fieldDims(Uses, ".gridDim", At, InitField(0));
        L.Block = fieldDims(Uses, ".blockDim", At, InitField(1));
        attributes(L, Uses, At, InitField(4), InitField(5));
      }
    }
    if (!Known)
      L.Grid = L.Block = L.Cluster = Dims{};
    if (Name == "cudaLaunchKernelExC")
      argArray(L, V.argNode(N, 2));
    else
      for (unsigned I = 2; I < V.numArgs(N); ++I)
        addArg(L, V.argNode(N, I));
    H.Launches.push_back(std::move(L));
  }

  void attributes(HostLaunch &L, const std::vector<VarUse> &Uses, unsigned At,
                  int InitAttrs, int InitCount) {
    L.Cluster = {1, 1, 1};
    int CountNode = fieldValue(Uses, ".numAttrs", At, InitCount);
    std::optional<int64_t> Count =
        CountNode < 0 ? std::optional<int64_t>(CountNode == -1 ? 0 : -1)
                      : V.intOf(CountNode);
    if (!Count || *Count < 0) {
      L.Cluster = Dims{};
      return;
    }
    if (*Count == 0)
      return;
    int A = V.strip(fieldValue(Uses, ".attrs", At, InitAttrs));
    std::string Prefix = "[0]"; // attrs = array
    if (A >= 0 && T.node(A).K == CXCursor_UnaryOperator && T.node(A).Kids.size() == 1) {
      A = V.strip(T.node(A).Kids[0]); // attrs = &one
      Prefix = "";
    }
    if (A < 0 || T.node(A).K != CXCursor_DeclRefExpr) {
      L.Cluster = Dims{};
      return;
    }
    CXCursor Arr = lc().clang_getCursorReferenced(T.node(A).C);
    std::vector<VarUse> AU = V.usesOf(Arr);
    for (const VarUse &U : AU)
      if (U.K == VarUse::Other || (U.K == VarUse::Write && U.Value < 0)) {
        L.Cluster = Dims{};
        return;
      }
    for (int64_t I = 0; I < *Count; ++I) {
      std::string P = Prefix.empty() ? "" : "[" + std::to_string(I) + "]";
      int Id = V.strip(fieldValue(AU, P + ".id", At, -1));
      std::string What = Id >= 0 ? ClangTree::spelling(T.node(Id).C) : "";
      if (What == "cudaLaunchAttributeClusterDimension") {
        for (unsigned D = 0; D < 3; ++D) {
          int C = fieldValue(AU, P + ".val.clusterDim." + std::string(1, static_cast<char>('x' + D)), At, -1);
          L.Cluster[D] = C >= 0 ? V.intOf(C) : std::nullopt;
        }
      } else if (What == "cudaLaunchAttributeCooperative") {
        int C = fieldValue(AU, P + ".val.cooperative", At, -1);
        std::optional<int64_t> On = C >= 0 ? V.intOf(C) : std::nullopt;
        L.Cooperative = !On || *On;
      } else if (What.empty()) {
        L.Cluster = Dims{}; // an attribute not read: the cluster may be any
      }
    }
  }

  /// A reference to a kernel not in a launch read above.
  void escape(int N) {
    CXCursorKind K = T.node(N).K;
    if ((K != CXCursor_DeclRefExpr && K != CXCursor_OverloadedDeclRef) ||
        Accounted.count(N))
      return;
    std::vector<CXCursor> Decls;
    if (K == CXCursor_DeclRefExpr)
      Decls.push_back(lc().clang_getCursorReferenced(T.node(N).C));
    else
      for (unsigned I = 0, E = lc().clang_getNumOverloadedDecls(T.node(N).C); I < E; ++I)
        Decls.push_back(lc().clang_getOverloadedDecl(T.node(N).C, I));
    for (CXCursor D : Decls)
      if (isKernel(D)) {
        H.Escapes.emplace_back(ClangTree::spelling(D),
                               ClangTree::lineOf(T.node(N).C).first);
        return;
      }
  }

  const ClangTree &T;
  HostValues V;
  HostCode H;
  std::set<int> Accounted;
};

} // namespace

HostCode readHostLaunches(const std::string &Path,
                          const std::vector<std::string> &CompilerArgs) {
  // A file that names no launch has none to read (and needs no parse).
  std::ifstream In(Path, std::ios::binary);
  std::string Text((std::istreambuf_iterator<char>(In)),
                   std::istreambuf_iterator<char>());
  if (Text.find("<<<") == std::string::npos &&
      Text.find("cudaLaunch") == std::string::npos &&
      Text.find("__requires") == std::string::npos &&
      Text.find("__axiom") == std::string::npos)
    return {};
  ClangTree T(Path, SourceKind::CudaHost, CompilerArgs);
  if (!T.ok()) {
    HostCode H;
    H.Problem = T.problem();
    return H;
  }
  return Reader(T).run();
}

#endif

} // namespace incant::source
