//===- ClangTree.cpp - A parsed source file's syntax tree (libclang) ------===//
#include "ClangTree.h"
#include "incant/Support/PtxCompiler.h"
#include "incant/Support/Process.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

namespace incant::source {

namespace {

namespace fs = std::filesystem;

std::string take(CXString S) {
  const char *C = lc().clang_getCString(S);
  std::string R = C ? C : "";
  lc().clang_disposeString(S);
  return R;
}

/// Where clang finds what CUDA's headers include but CUDA 12 and later
/// no longer ship (an in-memory folder, never on disk).
constexpr const char *StubDir = "/incant-cuda-stubs";

/// The arguments of nvcc's that matter to the parse: include paths,
/// macros and the language standard.
void addUserArgs(const std::vector<std::string> &In,
                 std::vector<std::string> &Out) {
  for (size_t I = 0; I < In.size(); ++I) {
    const std::string &A = In[I];
    for (const char *P : {"-I", "-D", "-U", "-isystem", "-include"}) {
      std::string Pre = P;
      if (A == Pre && I + 1 < In.size()) {
        Out.push_back(A);
        Out.push_back(In[++I]);
      } else if (A.size() > Pre.size() && A.compare(0, Pre.size(), Pre) == 0 &&
                 Pre.size() == 2) {
        Out.push_back(A);
      } else {
        continue;
      }
      break;
    }
    if (A.rfind("-std=", 0) == 0)
      Out.push_back(A);
  }
}

/// Where nvcc itself finds the CUDA headers: its installation's root (TOP)
/// and the folders of its -I and -isystem options, as `nvcc -dryrun`
/// prints them (a wrapper script or a packaged layout with the headers
/// under targets/ is read right). Without an answer, the root above
/// nvcc's bin/ and its include/.
struct CudaHeaders {
  std::string Root;
  std::vector<std::string> Dirs;
};

/// The paths of one `#$ NAME=...` line of nvcc's dry run: its quoted words
/// that are paths (the word after -isystem, or what follows -I).
void dryRunPaths(const std::string &Value, std::vector<std::string> &Dirs) {
  std::vector<std::string> Words;
  for (size_t At = 0; (At = Value.find('"', At)) != std::string::npos;) {
    size_t End = Value.find('"', At + 1);
    if (End == std::string::npos)
      break;
    Words.push_back(Value.substr(At + 1, End - At - 1));
    At = End + 1;
  }
  for (size_t I = 0; I < Words.size(); ++I) {
    if (Words[I] == "-isystem" && I + 1 < Words.size())
      Dirs.push_back(Words[++I]);
    else if (Words[I].rfind("-I", 0) == 0 && Words[I].size() > 2)
      Dirs.push_back(Words[I].substr(2));
  }
}

CudaHeaders cudaHeadersOf(const std::string &Nvcc) {
  CudaHeaders H;
  std::error_code EC;
  ProcessOptions Dry;
  Dry.Argv = {Nvcc, "-dryrun", "-x", "cu", "-ptx", "/dev/null", "-o", "/dev/null"};
  Dry.TimeoutSeconds = 60; // it prints and exits: a hang is a broken nvcc
  ProcessResult R = runProcess(Dry);
  std::vector<std::string> Dirs;
  std::istringstream Lines(R.Out + R.Err);
  for (std::string L; std::getline(Lines, L);) {
    if (L.rfind("#$ TOP=", 0) == 0)
      H.Root = L.substr(7);
    else if (L.rfind("#$ INCLUDES=", 0) == 0 || L.rfind("#$ SYSTEM_INCLUDES=", 0) == 0)
      dryRunPaths(L.substr(L.find('=') + 1), Dirs);
  }
  if (H.Root.empty())
    H.Root = fs::canonical(Nvcc, EC).parent_path().parent_path().string();
  H.Root = fs::weakly_canonical(H.Root, EC).string();
  if (Dirs.empty())
    Dirs = {H.Root + "/include", H.Root + "/include/cccl"};
  for (const std::string &D : Dirs)
    if (fs::is_directory(D, EC))
      H.Dirs.push_back(fs::weakly_canonical(D, EC).string());
  return H;
}

/// cudaHeadersOf, asked once per nvcc (race and repair parse a file twice).
const CudaHeaders &cudaHeaders(const std::string &Nvcc) {
  static std::mutex Lock;
  static std::map<std::string, CudaHeaders> Known;
  std::lock_guard<std::mutex> G(Lock);
  auto It = Known.find(Nvcc);
  if (It == Known.end())
    It = Known.emplace(Nvcc, cudaHeadersOf(Nvcc)).first;
  return It->second;
}

/// The first error that leaves the tree unfit to read: one in the main
/// file, or a header that was not found (then the declarations the file
/// uses are missing, and its launches parse as errors). Other errors in
/// headers are those of CUDA's headers that clang 14 rejects in code the
/// host side does not use (texture references, device-only templates).
std::string unfitError(CXTranslationUnit TU) {
  std::string First;
  for (unsigned I = 0, N = lc().clang_getNumDiagnostics(TU); I < N; ++I) {
    CXDiagnostic D = lc().clang_getDiagnostic(TU, I);
    std::string Msg = take(lc().clang_getDiagnosticSpelling(D));
    CXSourceLocation Loc = lc().clang_getDiagnosticLocation(D);
    bool Error = lc().clang_getDiagnosticSeverity(D) >= CXDiagnostic_Error;
    lc().clang_disposeDiagnostic(D);
    bool Missing = Msg.find("file not found") != std::string::npos;
    if (!Error || !(Missing || lc().clang_Location_isFromMainFile(Loc)))
      continue;
    CXFile F = nullptr;
    unsigned Line = 0, Col = 0;
    lc().clang_getExpansionLocation(Loc, &F, &Line, &Col, nullptr);
    std::string Where = F ? take(lc().clang_getFileName(F)) : "";
    if (!Where.empty())
      Where += ":" + std::to_string(Line) + ":" + std::to_string(Col) + ": ";
    if (Missing) // the cause of what follows
      return "clang: " + Where + Msg;
    if (First.empty())
      First = "clang: " + Where + Msg;
  }
  return First;
}

} // namespace

ClangTree::ClangTree(const std::string &Path, SourceKind Kind,
                     const std::vector<std::string> &CompilerArgs) {
  if (!libclang(&Problem))
    return;
  std::vector<std::string> Args;
  if (Kind == SourceKind::CudaHost) {
    std::string Nvcc = findNvcc();
    if (Nvcc.empty()) {
      Problem = "no CUDA installation (nvcc) for the CUDA headers";
      return;
    }
    const CudaHeaders &H = cudaHeaders(Nvcc);
    if (std::none_of(H.Dirs.begin(), H.Dirs.end(), [](const std::string &D) {
          return fs::exists(fs::path(D) / "cuda_runtime.h");
        })) {
      Problem = "no CUDA headers (cuda_runtime.h) where " + Nvcc +
                " finds them (its -dryrun) or in " + H.Root + "/include";
      return;
    }
    Args = {"-x", "cuda", "--cuda-host-only", "-std=c++17", "-nocudalib",
            "--cuda-path=" + H.Root, std::string("-I") + StubDir};
    for (const std::string &D : H.Dirs)
      Args.insert(Args.end(), {"-isystem", D});
  } else {
    Args = {"-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header"};
  }
  addUserArgs(CompilerArgs, Args);
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  std::string Stub = std::string(StubDir) + "/texture_fetch_functions.h";
  CXUnsavedFile Unsaved{Stub.c_str(), "", 0};
  Index = lc().clang_createIndex(/*excludeDeclarationsFromPCH=*/0,
                            /*displayDiagnostics=*/0);
  CXErrorCode E = lc().clang_parseTranslationUnit2(
      Index, Path.c_str(), Argv.data(), static_cast<int>(Argv.size()),
      &Unsaved, 1,
      CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord,
      &TU);
  if (E != CXError_Success || !TU) {
    TU = nullptr;
    Problem = "clang could not parse the file (libclang error " +
              std::to_string(static_cast<int>(E)) + ")";
    return;
  }
  if (std::string Unfit = unfitError(TU); !Unfit.empty()) {
    lc().clang_disposeTranslationUnit(TU);
    TU = nullptr;
    Problem = Unfit;
    return;
  }
  std::ifstream In(Path, std::ios::binary);
  Source.assign(std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>());
  struct Ctx {
    ClangTree *T;
    int Parent;
  };
  Ctx Top{this, -1};
  lc().clang_visitChildren(
      lc().clang_getTranslationUnitCursor(TU),
      [](CXCursor C, CXCursor, CXClientData D) {
        auto *X = static_cast<Ctx *>(D);
        if (lc().clang_Location_isFromMainFile(lc().clang_getCursorLocation(C))) {
          X->T->Roots.push_back(static_cast<int>(X->T->Nodes.size()));
          X->T->build(C, -1);
        }
        return CXChildVisit_Continue;
      },
      &Top);
}

ClangTree::~ClangTree() {
  if (TU)
    lc().clang_disposeTranslationUnit(TU);
  if (Index)
    lc().clang_disposeIndex(Index);
}

void ClangTree::build(CXCursor C, int Parent) {
  int Me = static_cast<int>(Nodes.size());
  Nodes.push_back({C, lc().clang_getCursorKind(C), Parent, {}});
  if (Parent >= 0)
    Nodes[static_cast<size_t>(Parent)].Kids.push_back(Me);
  if (lc().clang_isDeclaration(Nodes.back().K))
    ByDecl.emplace(lc().clang_hashCursor(C), Me);
  CXCursor R = lc().clang_getCursorReferenced(C);
  if (!lc().clang_Cursor_isNull(R) && !lc().clang_equalCursors(R, C))
    ByReferenced.emplace(lc().clang_hashCursor(R), Me);
  if (Nodes.back().K == CXCursor_OverloadedDeclRef)
    for (unsigned I = 0, N = lc().clang_getNumOverloadedDecls(C); I < N; ++I)
      ByReferenced.emplace(lc().clang_hashCursor(lc().clang_getOverloadedDecl(C, I)), Me);
  struct Ctx {
    ClangTree *T;
    int Me;
  } X{this, Me};
  lc().clang_visitChildren(
      C,
      [](CXCursor K, CXCursor, CXClientData D) {
        auto *X = static_cast<Ctx *>(D);
        X->T->build(K, X->Me);
        return CXChildVisit_Continue;
      },
      &X);
}

int ClangTree::nodeOf(CXCursor Decl) const {
  auto [B, E] = ByDecl.equal_range(lc().clang_hashCursor(Decl));
  for (auto It = B; It != E; ++It)
    if (lc().clang_equalCursors(node(It->second).C, Decl))
      return It->second;
  return -1;
}

std::vector<int> ClangTree::referencesTo(CXCursor Decl) const {
  std::vector<int> R;
  auto [B, E] = ByReferenced.equal_range(lc().clang_hashCursor(Decl));
  for (auto It = B; It != E; ++It) {
    const Node &N = node(It->second);
    bool Match = lc().clang_equalCursors(lc().clang_getCursorReferenced(N.C), Decl);
    if (N.K == CXCursor_OverloadedDeclRef)
      for (unsigned I = 0, K = lc().clang_getNumOverloadedDecls(N.C); I < K; ++I)
        Match |= lc().clang_equalCursors(lc().clang_getOverloadedDecl(N.C, I), Decl);
    if (Match)
      R.push_back(It->second);
  }
  return R;
}

std::pair<uint32_t, uint32_t> ClangTree::lineOf(CXCursor C) {
  unsigned Line = 0, Col = 0;
  lc().clang_getExpansionLocation(lc().clang_getCursorLocation(C), nullptr, &Line, &Col,
                             nullptr);
  return {Line, Col};
}

std::string ClangTree::spelling(CXCursor C) {
  return take(lc().clang_getCursorSpelling(C));
}

std::string ClangTree::typeName(CXCursor C) {
  return take(lc().clang_getTypeSpelling(
      lc().clang_getCanonicalType(lc().clang_getCursorType(C))));
}

std::vector<std::string>
ClangTree::tokens(CXSourceRange R, std::vector<unsigned> *Offsets) const {
  CXToken *Toks = nullptr;
  unsigned N = 0;
  lc().clang_tokenize(TU, R, &Toks, &N);
  std::vector<std::string> Out;
  for (unsigned I = 0; I < N; ++I) {
    Out.push_back(take(lc().clang_getTokenSpelling(TU, Toks[I])));
    if (Offsets) {
      unsigned Off = 0;
      lc().clang_getExpansionLocation(lc().clang_getTokenLocation(TU, Toks[I]), nullptr,
                                 nullptr, nullptr, &Off);
      Offsets->push_back(Off);
    }
  }
  if (Toks)
    lc().clang_disposeTokens(TU, Toks, N);
  return Out;
}

std::pair<unsigned, unsigned> ClangTree::offsets(int I) const {
  return offsetsOf(node(I).C);
}

std::pair<unsigned, unsigned> ClangTree::offsetsOf(CXCursor C) {
  CXSourceRange R = lc().clang_getCursorExtent(C);
  unsigned B = 0, E = 0;
  lc().clang_getExpansionLocation(lc().clang_getRangeStart(R), nullptr, nullptr, nullptr, &B);
  lc().clang_getExpansionLocation(lc().clang_getRangeEnd(R), nullptr, nullptr, nullptr, &E);
  return {B, E};
}

std::string ClangTree::text(int I) const {
  auto [B, E] = offsets(I);
  if (B >= Source.size())
    return "";
  if (E <= B) { // a macro's name: the range's end is where it starts
    E = B;
    while (E < Source.size() &&
           (std::isalnum(static_cast<unsigned char>(Source[E])) || Source[E] == '_'))
      ++E;
  }
  std::string S = Source.substr(B, std::min<size_t>(E, Source.size()) - B);
  for (char &C : S)
    if (C == '\n' || C == '\t')
      C = ' ';
  return S;
}

std::string ClangTree::tokenBetween(int A, int B) const {
  unsigned AEnd = offsets(A).second, BStart = offsets(B).first;
  int Parent = node(A).Parent;
  if (Parent < 0 || AEnd > BStart)
    return "";
  std::vector<unsigned> Offs;
  std::vector<std::string> Toks =
      tokens(lc().clang_getCursorExtent(node(Parent).C), &Offs);
  std::string Found;
  unsigned Count = 0;
  for (size_t I = 0; I < Toks.size(); ++I)
    if (Offs[I] >= AEnd && Offs[I] < BStart) {
      Found = Toks[I];
      ++Count;
    }
  return Count == 1 ? Found : "";
}

bool ClangTree::firstOnLine(uint32_t Line, uint32_t Col) const {
  size_t At = 0;
  for (uint32_t L = 1; L < Line && At != std::string::npos; ++L)
    At = Source.find('\n', At) == std::string::npos
             ? std::string::npos
             : Source.find('\n', At) + 1;
  if (At == std::string::npos || Col == 0)
    return false;
  for (size_t C = At; C < At + Col - 1 && C < Source.size(); ++C)
    if (Source[C] != ' ' && Source[C] != '\t')
      return false;
  return true;
}

std::string ClangTree::firstToken(int I) const {
  std::vector<std::string> T = tokens(lc().clang_getCursorExtent(node(I).C), nullptr);
  return T.empty() ? "" : T.front();
}

std::string ClangTree::lastToken(int I) const {
  std::vector<std::string> T = tokens(lc().clang_getCursorExtent(node(I).C), nullptr);
  return T.empty() ? "" : T.back();
}

} // namespace incant::source
