//===- PtxCommand.cpp - `incant ptx`: summarise the kernels of PTX --------===//
#include "incant/IR/PtxCommand.h"
#include "Nvcc.h"
#include "incant/IR/FunctionIR.h"
#include "incant/IR/Summary.h"
#include "incant/PTX/Module.h"
#include "incant/Support/Diagnostic.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <system_error>

namespace incant::ir {

namespace fs = std::filesystem;

static bool endsWith(const std::string &S, std::string_view Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

/// A temporary folder removed when it goes out of scope.
struct TempDir {
  fs::path Path;
  TempDir() {
    std::string T = (fs::temp_directory_path() / "incant-ptx-XXXXXX").string();
    if (::mkdtemp(T.data()))
      Path = T;
  }
  ~TempDir() {
    std::error_code EC;
    if (!Path.empty())
      fs::remove_all(Path, EC);
  }
};

int runPtx(const PtxCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  std::string PtxPath = Cmd.File;
  TempDir Tmp;
  bool IsCuda = endsWith(Cmd.File, ".cu");
  if (IsCuda) {
    std::string Nvcc = findNvcc();
    if (Nvcc.empty()) {
      Diags.error(fmt::format(
          "{}: nvcc is needed to compile CUDA source and was not found (on "
          "PATH or in /usr/local/cuda/bin); install the CUDA toolkit or give "
          "a .ptx file",
          Cmd.File));
      return 3;
    }
    if (!fs::exists(Cmd.File)) {
      Diags.error(fmt::format("{}: no such file", Cmd.File));
      return 2;
    }
    if (Tmp.Path.empty()) {
      Diags.error("cannot create a temporary folder for nvcc's output");
      return 2;
    }
    PtxPath = (Tmp.Path / fs::path(Cmd.File).filename().replace_extension(".ptx"))
                  .string();
    std::vector<std::string> Argv = {Nvcc,     "-arch=" + Cmd.Arch,
                                     "-ptx",   "-lineinfo",
                                     Cmd.File, "-o",
                                     PtxPath};
    if (Cmd.Verbose)
      Err << "compiling with nvcc: " << shellQuote(Argv) << "\n";
    else
      Err << "compiling with nvcc (-v shows the command)\n";
    NvccResult R = runProgram(Argv);
    if (!R.Started) {
      Diags.error(fmt::format("could not run {}", Nvcc));
      return 3;
    }
    if (R.ExitCode != 0) {
      Err << R.Output;
      Diags.error(fmt::format("{}: nvcc failed (exit code {})", Cmd.File,
                              R.ExitCode));
      return 2;
    }
  }

  std::string Error;
  std::shared_ptr<SourceFile> File = SourceFile::read(PtxPath, Error);
  if (!File) {
    Diags.error(fmt::format("{}: {}", PtxPath, Error));
    return 2;
  }
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  if (!M)
    return 2;
  ModuleIR IR(*M);
  ModuleSummary S = summarize(IR);
  if (IsCuda)
    S.File = fs::path(Cmd.File).filename().replace_extension(".ptx").string();
  if (Cmd.Json)
    Out << summaryToJson(S).dump() << "\n";
  else
    printSummary(S, Cmd.Verbose, Out);
  return 0;
}

} // namespace incant::ir
