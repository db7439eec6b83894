//===- PtxCompiler.cpp - CUDA and OpenCL C source to PTX ------------------===//
#include "incant/Support/PtxCompiler.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/Process.h"
#include "incant/Support/TempDir.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace incant {

namespace {

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
  R.K = PtxCompileResult::Ok;
  return R;
}

} // namespace incant
