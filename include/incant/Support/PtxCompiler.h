//===- PtxCompiler.h - CUDA and OpenCL C source to PTX ----------*- C++ -*-===//
//
// Every command that reads real kernels (ptx, race, repair, stress) takes
// PTX, or source that a front end turns into PTX: CUDA through nvcc
// (`-arch=ARCH -ptx -lineinfo`), OpenCL C through clang's NVPTX target.
// The compiler runs through runProcess (no shell) in a temporary folder
// that is removed afterwards; the PTX comes back as text.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_PTXCOMPILER_H
#define INCANT_SUPPORT_PTXCOMPILER_H

#include "incant/Support/Error.h"

#include <string>
#include <vector>

namespace incant {

enum class KernelLanguage { Ptx, Cuda, OpenCL };

/// By the file name: .cu is CUDA, .cl OpenCL C, anything else PTX.
KernelLanguage kernelLanguageOf(const std::string &Path);

/// nvcc's path: $INCANT_NVCC if set ("" if that is not an executable),
/// else findCudaProgram("nvcc"); "" if none.
std::string findNvcc();

/// A clang with the NVPTX target: $INCANT_CLANG if set ("" if that is not
/// an executable), else clang-14 or clang on PATH; "" if none.
std::string findClang();

struct PtxCompileOptions {
  /// nvcc's -arch for CUDA source.
  std::string Arch = "sm_90";
  /// clang's -march for OpenCL C (clang 14 knows NVPTX targets up to sm_86).
  std::string OpenCLArch = "sm_86";
  /// nvcc -lineinfo: .loc directives, so accesses map to source lines.
  /// (OpenCL C is compiled without: clang 14's NVPTX debug output puts
  /// labels inside call operand lists, which is not PTX's grammar.)
  bool LineInfo = true;
  /// More compiler arguments, before the source file (-I, -D, ...).
  std::vector<std::string> ExtraArgs;
  /// Wall-clock limit for the compiler; 0: none.
  double TimeoutSeconds = 0;
};

struct PtxCompileResult {
  enum Kind {
    Ok,
    NoSource,   ///< The source file does not exist (an Input error).
    NoCompiler, ///< nvcc or clang is not installed (a Device error).
    Rejected,   ///< The compiler failed on the source (an Input error).
    NotRun,     ///< No temporary folder, or the compiler could not start or
                ///< timed out (an Internal error: not the source's fault).
  } K = NotRun;
  /// "nvcc" or "clang"; "" for PTX.
  std::string Compiler;
  /// The command that ran (for -v: shellQuote(Argv)).
  std::vector<std::string> Argv;
  /// What the compiler printed, stdout and stderr together.
  std::string Log;
  /// The module, with Ok.
  std::string Ptx;
  /// The module's name: the source's file name with a .ptx extension.
  std::string PtxName;
  /// One line saying what went wrong (not Ok), beginning with the source's
  /// path: "k.cu: nvcc failed (exit code 1)".
  std::string Message;
  bool ok() const { return K == Ok; }
  /// The kind of error, when not ok().
  ErrorKind errorKind() const {
    return K == NoSource || K == Rejected ? ErrorKind::Input
           : K == NoCompiler              ? ErrorKind::Device
                                          : ErrorKind::Internal;
  }
};

/// Compiles a .cu or .cl file (kernelLanguageOf) to PTX.
PtxCompileResult compileToPtx(const std::string &Source,
                              const PtxCompileOptions &Opts = {});

} // namespace incant

#endif // INCANT_SUPPORT_PTXCOMPILER_H
