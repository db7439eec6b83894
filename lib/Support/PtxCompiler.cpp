//===- PtxCompiler.cpp - CUDA and OpenCL C source to PTX ------------------===//
#include "incant/Support/PtxCompiler.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/Process.h"
#include "incant/Support/TempDir.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace incant {

namespace {

/// Whether the text of file \p Path contains \p Word.
bool sourceMentions(const std::string &Path, const std::string &Word) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str().find(Word) != std::string::npos;
}

bool endsWith(const std::string &S, std::string_view Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

/// A program named by an environment variable, or found otherwise.
std::string programFromEnv(const char *Var) {
  const char *Env = std::getenv(Var);
  if (!Env)
    return {};
  return isExecutableFile(Env) ? std::string(Env) : std::string();
}

/// OpenCL C's reqd_work_group_size(X, Y, Z) from clang's LLVM IR (clang
/// does not carry it into PTX): kernel name -> "X, Y, Z".
std::map<std::string, std::string> requiredSizes(const std::string &Ir) {
  static const std::regex Define(
      R"(define [^@\n]*@([A-Za-z_$.][\w$.]*)\([^\n]*!reqd_work_group_size !(\d+))");
  static const std::regex Node(R"(^!(\d+) = !\{i32 (\d+), i32 (\d+), i32 (\d+)\}$)");
  std::map<std::string, std::string> Nodes, Out;
  std::istringstream In(Ir);
  std::vector<std::pair<std::string, std::string>> Kernels;
  for (std::string Line; std::getline(In, Line);) {
    std::smatch M;
    if (std::regex_search(Line, M, Define))
      Kernels.emplace_back(M[1].str(), M[2].str());
    else if (std::regex_match(Line, M, Node))
      Nodes[M[1].str()] = M[2].str() + ", " + M[3].str() + ", " + M[4].str();
  }
  for (const auto &[Name, Id] : Kernels)
    if (auto It = Nodes.find(Id); It != Nodes.end())
      Out[Name] = It->second;
  return Out;
}

/// \p Ptx with `.reqntid X, Y, Z` after the parameters of each kernel of
/// \p Sizes.
std::string withRequiredSizes(std::string Ptx,
                              const std::map<std::string, std::string> &Sizes) {
  for (const auto &[Name, Dims] : Sizes) {
    size_t At = Ptx.find(".entry " + Name + "(");
    if (At == std::string::npos)
      continue;
    size_t Close = Ptx.find(')', At);
    if (Close == std::string::npos)
      continue;
    Ptx.insert(Close + 1, "\n.reqntid " + Dims);
  }
  return Ptx;
}

} // namespace

KernelLanguage kernelLanguageOf(const std::string &Path) {
  if (endsWith(Path, ".cu"))
    return KernelLanguage::Cuda;
  if (endsWith(Path, ".cl"))
    return KernelLanguage::OpenCL;
  return KernelLanguage::Ptx;
}

std::string findNvcc() { return findCudaProgram("nvcc"); }

std::string findClang() {
  if (std::getenv("INCANT_CLANG"))
    return programFromEnv("INCANT_CLANG");
  const char *Path = std::getenv("PATH");
  for (const char *Name : {"clang-14", "clang"})
    if (std::string P = findOnPath(Name, Path ? Path : ""); !P.empty())
      return P;
  return {};
}

PtxCompileResult compileToPtx(const std::string &Source,
                              const PtxCompileOptions &Opts) {
  PtxCompileResult R;
  KernelLanguage Lang = kernelLanguageOf(Source);
  bool Cuda = Lang == KernelLanguage::Cuda;
  R.PtxName = fs::path(Source).filename().replace_extension(".ptx").string();
  if (Lang == KernelLanguage::Ptx) {
    R.Message = Source + ": not CUDA (.cu) or OpenCL C (.cl) source";
    return R;
  }
  R.Compiler = Cuda ? "nvcc" : "clang";
  std::string Program = Cuda ? findNvcc() : findClang();
  if (Program.empty()) {
    R.K = PtxCompileResult::NoCompiler;
    R.Message =
        Cuda ? Source + ": nvcc is needed to compile CUDA source and was not "
                        "found (on PATH or in /usr/local/cuda/bin); install "
                        "the CUDA toolkit or give a .ptx file"
             : Source + ": clang is needed to compile OpenCL C and was not "
                        "found (clang-14 or clang on PATH); install clang or "
                        "give a .ptx file";
    return R;
  }
  std::error_code EC;
  if (!fs::exists(Source, EC)) {
    R.K = PtxCompileResult::NoSource;
    R.Message = Source + ": no such file";
    return R;
  }
  TempDir Tmp("incant-ptx");
  if (!Tmp.ok()) {
    R.Message =
        "cannot create a temporary folder for " + R.Compiler + "'s output";
    return R;
  }
  std::string Out = (Tmp.path() / R.PtxName).string();
  if (Cuda) {
    R.Argv = {Program, "-arch=" + Opts.Arch, "-ptx"};
    if (Opts.LineInfo)
      R.Argv.push_back("-lineinfo");
  } else {
    R.Argv = {Program,
              "-x",
              "cl",
              "-cl-std=CL2.0",
              "-target",
              "nvptx64-nvidia-cuda",
              "-march=" + Opts.OpenCLArch,
              "-Xclang",
              "-finclude-default-header",
              "-O2",
              "-S"};
  }
  R.Argv.insert(R.Argv.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  R.Argv.insert(R.Argv.end(), {Source, "-o", Out});

  ProcessOptions Run;
  Run.Argv = R.Argv;
  Run.Stderr = OutputMode::ToStdout;
  Run.TimeoutSeconds = Opts.TimeoutSeconds;
  ProcessResult P = runProcess(Run);
  R.Log = std::move(P.Out);
  switch (P.St) {
  case ProcessResult::Status::NotStarted:
    R.Message = Source + ": could not run " + Program + " (" + P.Error + ")";
    return R;
  case ProcessResult::Status::TimedOut:
    R.Message = Source + ": " + R.Compiler + " " + P.describe();
    return R;
  case ProcessResult::Status::Signaled:
  case ProcessResult::Status::Exited:
    if (P.succeeded())
      break;
    R.K = PtxCompileResult::Rejected;
    R.Message = Source + ": " + R.Compiler + " failed (" + P.describe() + ")";
    return R;
  }
  std::ifstream In(Out, std::ios::binary);
  if (!In) {
    R.Message = Source + ": " + R.Compiler + " wrote no PTX";
    return R;
  }
  std::ostringstream SS;
  SS << In.rdbuf();
  R.Ptx = SS.str();
  if (!Cuda && sourceMentions(Source, "reqd_work_group_size")) {
    // The sizes the kernels require, which CUDA's .reqntid says in PTX:
    // the same compilation to LLVM IR, where clang keeps them.
    ProcessOptions Ir = Run;
    Ir.Argv = R.Argv;
    Ir.Argv.insert(Ir.Argv.end() - 3, "-emit-llvm");
    Ir.Argv.back() = Out + ".ll";
    ProcessResult PI = runProcess(Ir);
    std::ifstream Ll(Out + ".ll", std::ios::binary);
    if (!PI.succeeded() || !Ll) {
      R.Message = Source + ": " + R.Compiler +
                  " failed to write LLVM IR for reqd_work_group_size (" +
                  PI.describe() + ")";
      return R;
    }
    std::ostringstream L;
    L << Ll.rdbuf();
    R.Ptx = withRequiredSizes(std::move(R.Ptx), requiredSizes(L.str()));
  }
  R.K = PtxCompileResult::Ok;
  return R;
}

} // namespace incant
