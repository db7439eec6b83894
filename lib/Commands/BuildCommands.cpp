//===- BuildCommands.cpp - build-env, nvcc, ptxas and instrument ----------===//
#include "incant/Commands/BuildCommands.h"
#include "incant/Support/CommandContext.h"
#include "incant/Intercept/Instrument.h"
#include "incant/PTX/Module.h"
#include "incant/PTX/ModuleCheck.h"

#include "incant/Support/DataFiles.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/OutputFile.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace incant::intercept {

namespace {

std::vector<std::string> splitList(std::string_view S) {
  std::vector<std::string> Out;
  size_t B = 0;
  while (B <= S.size()) {
    size_t E = S.find(',', B);
    if (E == std::string_view::npos)
      E = S.size();
    if (E > B)
      Out.emplace_back(S.substr(B, E - B));
    B = E + 1;
  }
  return Out;
}

/// Runs \p Argv in place of this process; returns only on failure.
int execProgram(const std::vector<std::string> &Argv, std::ostream &Err) {
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  ::execv(Args[0], Args.data());
  // The tool was found but does not run: a needed tool failed.
  fmt::print(Err, "incant: cannot run {}: {}\n", Argv[0], std::strerror(errno));
  return 3;
}

} // namespace

std::vector<std::string> passesFromEnvironment() {
  if (const char *P = std::getenv("INCANT_PASSES"))
    return splitList(P);
  return InstrumentOptions().Passes;
}

std::vector<std::string> nvccFlags(std::string &Error) {
  std::string Self = incantCommand();
  if (Self.empty()) {
    Error = "cannot find this incant binary (/proc/self/exe)";
    return {};
  }
  if (Self.find_first_of(" \t\n'\"\\") != std::string::npos) {
    Error = "incant's path '" + Self +
            "' contains a space or quote, which nvcc's --ptxas-prefix "
            "cannot pass; install incant under a plain path";
    return {};
  }
  return {"--ptxas-prefix=" + Self, "-lineinfo", "--no-compress"};
}

/// \p StaticRaces, unless INCANT_RACE_ALL=1 asks for every access.
static RaceOracle pruning(const RaceOracle &StaticRaces) {
  const char *All = std::getenv("INCANT_RACE_ALL");
  if (All && std::string_view(All) == "1")
    return {};
  return StaticRaces;
}

int runPtxasWrapper(const std::vector<std::string> &Args, std::ostream &Err,
                    const RaceOracle &StaticRaces) {
  // nvcc runs `PREFIX ptxas ARGS`: "ptxas" is this subcommand's name, so
  // Args are ptxas's arguments and ptxas is found as nvcc would find it
  // (nvcc puts its own bin first on PATH).
  std::string Ptxas = findCudaProgram("ptxas");
  if (Ptxas.empty()) {
    fmt::print(Err, "incant ptxas: ptxas not found ($INCANT_PTXAS, PATH, "
                    "$CUDA_HOME/bin or /usr/local/cuda/bin)\n");
    return 3;
  }
  std::vector<std::string> Argv = {Ptxas};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  const char *Off = std::getenv("INCANT_INSTRUMENT");
  if (Off && std::string_view(Off) == "0")
    return execProgram(Argv, Err);

  // The module: the argument naming a .ptx file (not an option's value).
  std::string Ptx, Output, Arch;
  for (size_t I = 1; I < Argv.size(); ++I) {
    const std::string &A = Argv[I];
    if ((A == "-o" || A == "--output-file") && I + 1 < Argv.size()) {
      Output = Argv[++I];
      continue;
    }
    if (A.rfind("-arch=", 0) == 0 || A.rfind("--gpu-name=", 0) == 0)
      Arch = A.substr(A.find('=') + 1);
    else if ((A == "-arch" || A == "--gpu-name") && I + 1 < Argv.size())
      Arch = Argv[++I];
    else if (A.size() > 4 && A.compare(A.size() - 4, 4, ".ptx") == 0 &&
             A[0] != '-')
      Ptx = A;
  }
  if (Ptx.empty()) // ptxas --version, an options file, ...: nothing to do.
    return execProgram(Argv, Err);

  std::string ReadError;
  auto File = SourceFile::read(Ptx, ReadError);
  if (!File) {
    fmt::print(Err, "incant ptxas: cannot read {}: {}\n", Ptx, ReadError);
    return 2;
  }
  DiagnosticEngine Diags(&Err);
  InstrumentOptions Opts;
  Opts.Passes = passesFromEnvironment();
  Opts.Salt = Output + "|" + Arch;
  Opts.PtxFile = Ptx;
  Opts.StaticRaces = pruning(StaticRaces);
  InstrumentResult R = instrumentPtx(File, Opts, Diags);
  if (R.Status == InstrumentStatus::Error) {
    fmt::print(Err, "incant ptxas: {} was not instrumented (set "
                    "INCANT_INSTRUMENT=0 to build without incant)\n",
               Ptx);
    return 2;
  }
  if (R.Status == InstrumentStatus::Rewritten) {
    std::string Error;
    if (!writeOutputFile(Ptx, R.Ptx, Error)) {
      fmt::print(Err, "incant ptxas: {}\n", Error);
      return 3;
    }
    if (const char *Log = std::getenv("INCANT_BUILD_LOG")) {
      unsigned Remapped = 0;
      for (const FunctionRecord &F : R.Manifest.Functions)
        Remapped += F.Remapped;
      std::string Line = fmt::format(
          "unit {} {} {} source={} functions={} remapped={} sites={}\n",
          R.Manifest.Id, Ptx, R.Manifest.Target, R.Manifest.Source,
          R.Manifest.Functions.size(), Remapped, R.Manifest.Sites.size());
      if (!writeOutputFile(Log, Line, Error, /*Append=*/true)) {
        fmt::print(Err, "incant ptxas: INCANT_BUILD_LOG: {}\n", Error);
        return 3;
      }
    }
  }
  return execProgram(Argv, Err);
}

int runNvccFront(const std::vector<std::string> &Args, std::ostream &Err) {
  std::string Nvcc = findCudaProgram("nvcc");
  if (Nvcc.empty()) {
    fmt::print(Err, "incant nvcc: nvcc not found ($INCANT_NVCC, PATH, "
                    "$CUDA_HOME/bin or /usr/local/cuda/bin)\n");
    return 3;
  }
  std::string Error;
  std::vector<std::string> Flags = nvccFlags(Error);
  if (Flags.empty()) {
    fmt::print(Err, "incant nvcc: {}\n", Error);
    return 2;
  }
  std::vector<std::string> Argv = {Nvcc};
  Argv.insert(Argv.end(), Flags.begin(), Flags.end());
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  return execProgram(Argv, Err);
}

/// \p S quoted for a POSIX shell.
static std::string shellWord(const std::string &S) {
  std::string Q = "'";
  for (char C : S)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

int runBuildEnv(const BuildEnvCommand &Cmd, std::ostream &Out,
                std::ostream &Err) {
  for (const std::string &P : Cmd.Passes)
    if (!createPass(P)) {
      fmt::print(Err, "incant build-env: unknown pass '{}' (passes: {})\n", P,
                 fmt::join(passNames(), ", "));
      return 2;
    }
  std::string Error;
  std::vector<std::string> Flags = nvccFlags(Error);
  if (Flags.empty()) {
    fmt::print(Err, "incant build-env: {}\n", Error);
    return 2;
  }
  // Keep what the user already prepends, less an earlier incant's flags.
  std::string Value = fmt::format("{}", fmt::join(Flags, " "));
  if (const char *Old = std::getenv("NVCC_PREPEND_FLAGS")) {
    std::string_view S = Old;
    size_t B = 0;
    while (B < S.size()) {
      size_t E = S.find(' ', B);
      if (E == std::string_view::npos)
        E = S.size();
      std::string_view W = S.substr(B, E - B);
      bool Ours = W.rfind("--ptxas-prefix=", 0) == 0 || W == "-lineinfo" ||
                  W == "--no-compress";
      if (!W.empty() && !Ours)
        Value += " " + std::string(W);
      B = E + 1;
    }
  }
  fmt::print(Out, "export NVCC_PREPEND_FLAGS={}\n", shellWord(Value));
  if (!Cmd.Passes.empty())
    fmt::print(Out, "export INCANT_PASSES={}\n",
               shellWord(fmt::format("{}", fmt::join(Cmd.Passes, ","))));
  return 0;
}

int runInstrument(const InstrumentCommand &Cmd, std::ostream &Out,
                  std::ostream &Err, const RaceOracle &StaticRaces) {
  CommandContext Ctx(Out, Err, "error: ");
  std::string ReadError;
  auto File = SourceFile::read(Cmd.File, ReadError);
  if (!File)
    return Ctx.fail(ErrorKind::Input,
                    fmt::format("cannot read {}: {}", Cmd.File, ReadError));
  if (int Rc = Ctx.checkOutputs({Cmd.Output}, {Cmd.File}))
    return Rc;
  DiagnosticEngine &Diags = Ctx.diags();
  // What ptxas would refuse is refused before it is rewritten.
  if (std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
      !M || !ptx::checkModule(*M, Diags))
    return Ctx.failed(ErrorKind::Input);
  InstrumentOptions Opts;
  if (!Cmd.Passes.empty())
    Opts.Passes = Cmd.Passes;
  Opts.PtxFile = Cmd.File;
  Opts.StaticRaces = pruning(StaticRaces);
  InstrumentResult R = instrumentPtx(File, Opts, Diags);
  if (R.Status == InstrumentStatus::Error)
    return Ctx.failed(ErrorKind::Input);
  if (R.Status == InstrumentStatus::AlreadyInstrumented) {
    fmt::print(Err, "{}: already instrumented; left as it is\n", Cmd.File);
    R.Ptx = File->text();
  }
  std::string Text = Cmd.Manifest ? manifestToJson(R.Manifest) + "\n" : R.Ptx;
  if (Cmd.Output.empty() || Cmd.Output == "-") {
    Out << Text;
    return Ctx.done(Outcome::Clean);
  }
  std::string Error;
  if (!writeOutputFile(Cmd.Output, Text, Error))
    return Ctx.fail(ErrorKind::Internal, Error);
  return Ctx.done(Outcome::Clean);
}

} // namespace incant::intercept
