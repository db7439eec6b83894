//===- RaceCommand.cpp - `incant race`: data races and divergence ---------===//
#include "incant/Race/RaceCommand.h"
#include "incant/IR/FunctionIR.h"
#include "incant/PTX/Module.h"
#include "incant/Race/Input.h"
#include "incant/Race/Race.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Process.h"
#include "incant/Support/PtxCompiler.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <map>
#include <set>
#include <cstdlib>
#include <ostream>

namespace incant::race {

namespace {

/// file:line, read/write and space of an access: how accesses of two
/// builds of one source are matched.
std::string accessKey(const Access &A) {
  const ir::SourceFrame *Fr = A.Loc.userFrame();
  return fmt::format("{}:{}:{}{}", Fr ? Fr->File : "", Fr ? Fr->Line : 0,
                     A.Reads ? "r" : "", A.Writes ? "w" : "");
}

/// Adds to \p R the races that \p RU (the unoptimised build) finds between
/// accesses of which at least one is missing from the optimised build: the
/// optimiser removed it (a store to memory nothing reads, a copy of an
/// undefined value), and with it a race of the source. Only for kernels in
/// which the optimised build, analysed more precisely, shows no race or
/// divergence.
void addUnoptimisedRaces(ModuleReport &R, const ModuleReport &RU) {
  for (KernelReport &K : R.Kernels) {
    K.Build = "optimized";
    if (K.Races || K.Divergent)
      continue;
    const KernelReport *KU = nullptr;
    for (const KernelReport &C : RU.Kernels)
      if (C.Name == K.Name)
        KU = &C;
    if (!KU)
      continue;
    std::set<std::string> Present;
    for (const Access &A : K.Accesses)
      Present.insert(accessKey(A));
    std::map<unsigned, unsigned> Added; // index in KU -> index in K
    auto Take = [&](unsigned I) {
      auto [It, New] = Added.emplace(I, static_cast<unsigned>(K.Accesses.size()));
      if (New) {
        Access A = KU->Accesses[I];
        A.Build = "unoptimized";
        K.Accesses.push_back(std::move(A));
      }
      return It->second;
    };
    unsigned Found = 0;
    for (const PairResult &P : KU->Pairs) {
      if (P.V != Verdict::Race)
        continue;
      if (Present.count(accessKey(KU->Accesses[P.First])) &&
          Present.count(accessKey(KU->Accesses[P.Second])))
        continue;
      PairResult Q = P;
      Q.First = Take(P.First);
      Q.Second = Take(P.Second);
      K.Pairs.push_back(std::move(Q));
      ++K.Races;
      ++Found;
    }
    if (Found)
      K.Notes.push_back(fmt::format(
          "{} race{} found in nvcc's unoptimised build (-Xcicc -O0) between "
          "accesses the optimised code no longer makes (their positions are "
          "in that build)",
          Found, Found == 1 ? "" : "s"));
  }
}

} // namespace

int runRace(const RaceCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  int Failed = 0;
  Options O;
  O.Kernel = Cmd.Kernel;
  O.TimeoutMs = Cmd.TimeoutMs;
  O.KernelSeconds = Cmd.KernelSeconds;
  if (!parseLaunch(Cmd.BlockDim, Cmd.GridDim, Cmd.Params, O.Launch, Diags))
    return 2;
  if (!checkCompilerArgs(Cmd.CompilerArgs, Diags))
    return 2;

  // The module(s) to check: the PTX as given, or what the compiler makes
  // of the source: for CUDA, nvcc's optimised build and, unless
  // --optimized, its unoptimised one (-Xcicc -O0), which still has every
  // access the source makes.
  KernelLanguage Lang = kernelLanguageOf(Cmd.File);
  CompileRequest Req;
  Req.Arch = Cmd.Arch;
  Req.Args = Cmd.CompilerArgs;
  Req.Verbose = Cmd.Verbose;
  std::shared_ptr<SourceFile> File =
      kernelPtx(Cmd.File, Req, Diags, Err, Failed);
  if (!File)
    return Failed;
  std::shared_ptr<SourceFile> Unopt;
  if (Lang == KernelLanguage::Cuda && !Cmd.Optimized) {
    Req.Unoptimised = true;
    Unopt = kernelPtx(Cmd.File, Req, Diags, Err, Failed);
    if (!Unopt)
      return Failed;
  }
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  if (!M)
    return 2;
  std::optional<ptx::Module> MU;
  if (Unopt) {
    MU = ptx::parseModule(Unopt, Diags);
    if (!MU)
      return 2;
  }

  // Parameters named on the command line must exist in the kernels checked.
  if (!checkParams(*M, O.Launch, Diags))
    return 2;

  ModuleReport R = checkModule(*M, O);
  if (!R.Error.empty()) {
    Diags.error(fmt::format("{}: {}", Cmd.File, R.Error));
    return 2;
  }
  R.File = Cmd.File;
  if (MU)
    addUnoptimisedRaces(R, checkModule(*MU, O));
  if (Cmd.Json)
    Out << reportToJson(R).dump() << "\n";
  else
    printReport(R, Out, Cmd.Verbose);

  bool Found = false, Open = false;
  for (const KernelReport &K : R.Kernels) {
    Found |= K.Races || K.Divergent;
    Open |= K.Unknown || K.UnknownBarriers;
  }
  // 0 only when every pair and barrier of every kernel is proved; a kernel
  // left undecided is its own outcome (4), a failure with --strict.
  if (Found || (Cmd.Strict && Open))
    return 1;
  return Open ? 4 : 0;
}

} // namespace incant::race
