//===- PtxCommand.cpp - `incant ptx`: summarise the kernels of PTX --------===//
#include "incant/Commands/PtxCommand.h"
#include "incant/IR/FunctionIR.h"
#include "incant/IR/Summary.h"
#include "incant/PTX/Module.h"
#include "incant/PTX/ModuleCheck.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Json.h"
#include "incant/Support/Process.h"
#include "incant/Support/PtxCompiler.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace incant::driver {

int runPtx(const PtxCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  std::shared_ptr<SourceFile> File;
  KernelLanguage Lang = kernelLanguageOf(Cmd.File);
  if (Lang != KernelLanguage::Ptx) {
    PtxCompileOptions Opts;
    Opts.Arch = Cmd.Arch;
    PtxCompileResult R = compileToPtx(Cmd.File, Opts);
    if (!R.Argv.empty()) {
      if (Cmd.Verbose)
        Err << "compiling with " << R.Compiler << ": " << shellQuote(R.Argv)
            << "\n";
      else
        Err << "compiling with " << R.Compiler << " (-v shows the command)\n";
    }
    if (!R.ok()) {
      // The compiler's own messages (file:line: error: ...) first.
      Err << R.Log;
      Diags.error(R.Message);
      return exitCodeOf(R.errorKind());
    }
    File = std::make_shared<SourceFile>(R.PtxName, std::move(R.Ptx));
  } else {
    std::string Error;
    File = SourceFile::read(Cmd.File, Error);
    if (!File) {
      Diags.error(Cmd.File + ": " + Error);
      return 2;
    }
  }
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  if (!M || !ptx::checkModule(*M, Diags))
    return 2;
  ir::ModuleIR IR(*M);
  ir::ModuleSummary S = ir::summarize(IR);
  if (Cmd.Json)
    Out << dumpJson(ir::summaryToJson(S)) << "\n";
  else
    ir::printSummary(S, Cmd.Verbose, Out);
  return 0;
}

} // namespace incant::driver
