//===- RaceCommand.cpp - `incant race`: data races and divergence ---------===//
#include "incant/Commands/RaceCommand.h"
#include "incant/IR/FunctionIR.h"
#include "incant/IR/Summary.h"
#include "incant/PTX/Module.h"
#include "incant/PTX/ModuleCheck.h"
#include "incant/Race/CompileDatabase.h"
#include "incant/Race/Findings.h"
#include "incant/Race/Input.h"
#include "incant/Race/Race.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Process.h"
#include "incant/Support/Progress.h"
#include "incant/Support/PtxCompiler.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <future>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace incant::race {

namespace {

/// What one file needs besides the options that all share.
struct FileJob {
  std::string Path;
  std::string Arch;
  std::vector<std::string> Args;
};

/// Checks one file: its report in \p R, or the exit code of its error.
int checkFile(const RaceCommand &Cmd, const FileJob &J, const Options &O,
              DiagnosticEngine &Diags, std::ostream &Err, ModuleReport &R) {
  // The module(s) to check: the PTX as given, or what the compiler makes
  // of the source: for CUDA, nvcc's optimised build and, unless
  // --optimized, its unoptimised one (-Xcicc -O0), which still has every
  // access the source makes.
  KernelLanguage Lang = kernelLanguageOf(J.Path);
  CompileRequest Req;
  Req.Arch = J.Arch;
  Req.Args = J.Args;
  Req.Verbose = Cmd.Verbose;
  // The two builds run at once (nvcc is most of a small file's time); the
  // unoptimised one's messages are kept apart and shown after the other's.
  std::optional<Expected<std::shared_ptr<SourceFile>>> Unopt;
  std::ostringstream UnoptErr;
  DiagnosticEngine UnoptDiags(&UnoptErr);
  // (A future of std::async waits for its thread even when unwinding.)
  std::future<void> UnoptBuild;
  if (Lang == KernelLanguage::Cuda && !Cmd.Optimized) {
    CompileRequest U = Req;
    U.Unoptimised = true;
    UnoptBuild = std::async(std::launch::async, [&, U] {
      Unopt = kernelPtx(J.Path, U, UnoptDiags, UnoptErr);
    });
  }
  Expected<std::shared_ptr<SourceFile>> File =
      kernelPtx(J.Path, Req, Diags, Err);
  if (UnoptBuild.valid()) {
    UnoptBuild.get();
    // Its messages (--verbose's command line, or its failure) only where
    // the optimised build succeeded: a failure is reported once.
    if (File)
      Err << UnoptErr.str();
    if (File && !*Unopt)
      return exitCodeOf(Unopt->error());
  }
  if (!File)
    return exitCodeOf(File.error());
  std::optional<ptx::Module> M = ptx::parseModule(*File, Diags);
  if (!M || !ptx::checkModule(*M, Diags))
    return 2;
  std::optional<ptx::Module> MU;
  if (Unopt) {
    MU = ptx::parseModule(**Unopt, Diags);
    if (!MU || !ptx::checkModule(*MU, Diags))
      return 2;
  }

  // Parameters named on the command line must exist in the kernels checked.
  if (!checkParams(*M, O.Launch, Diags))
    return 2;
  // The launches the host code makes (each checked with its own values).
  Options OF = O;
  OF.OpenCLBuiltins = Lang == KernelLanguage::OpenCL;
  if (Lang == KernelLanguage::Cuda && !Cmd.AnyLaunch) {
    std::string Note;
    OF.HostLaunches = hostLaunches(J.Path, J.Args, *M, O.Launch, Note, &OF);
    // Functions a __requires names as a pointer's targets that nvcc left
    // out (nothing calls them directly): relocatable device code keeps
    // every device function.
    if (std::optional<std::vector<std::string>> Rdc =
            relocatableArgs(OF, J.Args)) {
      FileJob Again = J;
      Again.Args = std::move(*Rdc);
      return checkFile(Cmd, Again, O, Diags, Err, R);
    }
    if (!Note.empty())
      Err << "incant race: note: " << Note << "; every kernel is checked for "
          << "any launch\n";
  }

  // A long file shows which kernel and pair it is at (standard error, on a
  // terminal, after a second).
  ProgressLine Progress(Err);
  OF.Progress = [&](const std::string &Kernel, size_t Done, size_t Total) {
    Progress.update([&] {
      return fmt::format("race: {}: pair {} of {}, {:.0f} s",
                         ir::demangle(Kernel), Done + 1, Total,
                         Progress.elapsed());
    });
  };
  R = checkModule(*M, OF);
  if (!R.Error.empty()) {
    Diags.error(fmt::format("{}: {}", J.Path, R.Error));
    return 2;
  }
  R.File = J.Path;
  if (MU) {
    // The unoptimised build's check: UnoptimisedSeconds per kernel
    // (lib/Race/Unoptimised.cpp) unless --kernel-time is given (its default
    // is the optimised build's).
    Options OU = OF;
    if (!Cmd.KernelTimeGiven)
      OU.KernelSeconds = 0;
    addUnoptimisedRaces(R, checkUnoptimised(*MU, R, OU));
  }
  return 0;
}

/// The files to check and their flags: as given (with -X), or with each
/// one's flags from the compilation database (and, with no file given,
/// its every .cu and .cl file). False after reporting an error.
bool fileJobs(const RaceCommand &Cmd, DiagnosticEngine &Diags,
              std::vector<FileJob> &Jobs) {
  if (Cmd.CompileDatabase.empty()) {
    for (const std::string &F : Cmd.Files)
      Jobs.push_back({F, Cmd.Arch, Cmd.CompilerArgs});
    return true;
  }
  std::string Error;
  std::optional<std::vector<CompileCommand>> DB =
      readCompileDatabase(Cmd.CompileDatabase, Error);
  if (!DB) {
    Diags.error("-p " + Error);
    return false;
  }
  auto Add = [&](const std::string &Path, const CompileCommand &C) {
    FileJob J{Path, Cmd.Arch, ptxFlagsOf(C, J.Arch)};
    if (Cmd.ArchGiven || J.Arch.empty())
      J.Arch = Cmd.Arch;
    J.Args.insert(J.Args.end(), Cmd.CompilerArgs.begin(),
                  Cmd.CompilerArgs.end());
    Jobs.push_back(std::move(J));
  };
  for (const std::string &F : Cmd.Files) {
    if (kernelLanguageOf(F) == KernelLanguage::Ptx) {
      Jobs.push_back({F, Cmd.Arch, Cmd.CompilerArgs});
      continue;
    }
    const CompileCommand *C = findCompileCommand(*DB, F);
    if (!C) {
      Diags.error(fmt::format("{}: not in the compilation database {}", F,
                              Cmd.CompileDatabase));
      return false;
    }
    Add(F, *C);
  }
  if (Cmd.Files.empty()) {
    std::set<std::string> Seen;
    for (const CompileCommand &C : *DB)
      if (kernelLanguageOf(C.File) != KernelLanguage::Ptx &&
          Seen.insert(C.File).second)
        Add(C.File, C);
    if (Jobs.empty()) {
      Diags.error(fmt::format("-p {}: the compilation database has no .cu "
                              "or .cl file",
                              Cmd.CompileDatabase));
      return false;
    }
  }
  return true;
}

/// The exit code of several files' outcomes: an error (3, then 2) over a
/// finding (1) over an undecided pair (4) over none (0).
int worseExit(int A, int B) {
  auto Rank = [](int C) { return C == 4 ? 1 : C == 0 ? 0 : C + 1; };
  return Rank(B) > Rank(A) ? B : A;
}

bool writeText(const std::string &Path, const std::string &Text,
               const char *Option, DiagnosticEngine &Diags) {
  std::string Error;
  if (!writeOutputFile(Path, Text, Error)) {
    Diags.error(fmt::format("{}: {}", Option, Error));
    return false;
  }
  return true;
}

} // namespace

int runRace(const RaceCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  Options O;
  O.Kernel = Cmd.Kernel;
  O.TimeoutMs = Cmd.TimeoutMs;
  O.KernelSeconds = Cmd.KernelSeconds;
  O.PureExternals = Cmd.PureExternals;
  O.NoBenign = Cmd.NoBenign;
  if (!parseLaunch(Cmd.BlockDim, Cmd.GridDim, Cmd.Params, O.Launch, Diags))
    return 2;
  if (!checkCompilerArgs(Cmd.CompilerArgs, Diags))
    return 2;
  {
    // No output may be an input (a kernel file, the compile database, the
    // suppressions read).
    std::vector<std::string> Inputs = Cmd.Files;
    Inputs.push_back(Cmd.CompileDatabase);
    Inputs.push_back(Cmd.SuppressionsPath);
    std::string Error;
    if (!checkOutputs({Cmd.SarifPath, Cmd.BaselinePath}, Inputs, Error)) {
      Diags.error(Error);
      return 2;
    }
  }
  std::optional<SuppressionFile> Sup;
  if (!Cmd.SuppressionsPath.empty()) {
    Sup = readSuppressions(Cmd.SuppressionsPath, Diags);
    if (!Sup)
      return 2;
  }
  std::vector<FileJob> Jobs;
  if (!fileJobs(Cmd, Diags, Jobs))
    return 2;

  int Rc = 0;
  std::vector<Finding> Findings;
  std::vector<std::string> Checked, Assumed;
  for (const FileJob &J : Jobs) {
    ModuleReport R;
    if (int Failed = checkFile(Cmd, J, O, Diags, Err, R)) {
      Rc = worseExit(Rc, Failed);
      continue;
    }
    if (Sup)
      applySuppressions(R, *Sup);
    if (Jobs.size() > 1 && !Cmd.Json)
      Out << "file " << J.Path << "\n";
    if (Cmd.Json)
      Out << dumpJson(reportToJson(R)) << "\n";
    else
      printReport(R, Out, Cmd.Verbose, Cmd.CompilerLines);
    Checked.push_back(J.Path);
    for (const KernelReport &K : R.Kernels)
      for (const std::string &A : K.OptionAssumptions)
        if (std::find(Assumed.begin(), Assumed.end(), A) == Assumed.end())
          Assumed.push_back(A);
    // 0 only when every pair and barrier not suppressed is proved; one left
    // undecided is its own outcome (4), a failure with --strict.
    bool Open = false;
    for (Finding &F : collectFindings(R, true)) {
      if (!F.Suppressed && (F.Kind != FindingKind::Unknown || Cmd.Strict))
        Rc = worseExit(Rc, 1);
      else if (!F.Suppressed)
        Open = true;
      Findings.push_back(std::move(F));
    }
    if (Open)
      Rc = worseExit(Rc, 4);
  }
  if (Sup && Cmd.Kernel.empty())
    for (const Suppression &S : Sup->Entries)
      if (!S.Matched)
        Err << fmt::format("{}:{}: note: this suppression matched no finding\n",
                           Sup->Path, S.DeclLine);
  if (!Cmd.SarifPath.empty() &&
      !writeText(Cmd.SarifPath,
                 dumpJson(sarifLog(Findings, Checked, Cmd.ToolVersion, Assumed), 2) + "\n",
                 "--sarif", Diags))
    Rc = worseExit(Rc, 3); // a write that fails: the disk's, not the input's
  // The baseline: every finding of today, suppressed or not.
  if (!Cmd.BaselinePath.empty() &&
      !writeText(Cmd.BaselinePath, suppressionsText(Findings),
                 "--baseline-out", Diags))
    Rc = worseExit(Rc, 3);
  return Rc;
}

} // namespace incant::race
