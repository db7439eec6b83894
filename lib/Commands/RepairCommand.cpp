//===- RepairCommand.cpp - `incant repair` --------------------------------===//
#include "incant/Commands/RepairCommand.h"
#include "RepairReport.h"
#include "incant/Repair/SourcePatch.h"
#include "incant/IR/Inliner.h"
#include "incant/PTX/ModuleCheck.h"
#include "incant/Race/Input.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/TempDir.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace incant::repair {

namespace {

namespace fs = std::filesystem;

/// Whether \p R has no race and no divergent barrier in the kernels that
/// \p Want names (all when empty), with \p Why saying what is left. A
/// kernel is found by its PTX name, or by its demangled one where the PTX
/// name has an anonymous namespace (whose mangled name nvcc derives from
/// the file's path, which differs for the patched copy).
bool raceFree(const race::ModuleReport &R, const ModuleRepair &Want,
              std::string &Why) {
  for (const KernelRepair &K : Want.Kernels) {
    if (K.Result == Outcome::Unrepairable)
      continue;
    bool Found = false;
    for (const race::KernelReport &C : R.Kernels) {
      bool Anonymous = K.Name.find("_GLOBAL__N_") != std::string::npos;
      if (C.Name != K.Name &&
          !(Anonymous && !K.Demangled.empty() && C.Demangled == K.Demangled))
        continue;
      Found = true;
      if (C.Races || C.Divergent) {
        Why = fmt::format("{}: {} race(s), {} divergent barrier(s)", K.Name,
                          C.Races, C.Divergent);
        return false;
      }
    }
    if (!Found) {
      Why = K.Name + ": the kernel is gone";
      return false;
    }
  }
  return true;
}

/// Compiles \p Text (the patched source) as a file beside nothing else,
/// with the original's folder on the include path, and checks it.
bool checkPatched(const RepairCommand &Cmd, const std::string &Text,
                  const race::Options &O, const ModuleRepair &R,
                  std::string &Why) {
  TempDir Dir("incant-repair");
  if (!Dir.ok()) {
    Why = "no temporary folder";
    return false;
  }
  fs::path File = Dir.path() / fs::path(Cmd.File).filename();
  std::ofstream(File) << Text;
  race::CompileRequest Req;
  Req.Arch = Cmd.Arch;
  Req.Args = Cmd.CompilerArgs;
  fs::path Src = fs::absolute(Cmd.File).parent_path();
  Req.Args.insert(Req.Args.begin(), "-I" + Src.string());
  std::ostringstream Log;
  DiagnosticEngine Diags(&Log);
  auto Build = [&](bool Unoptimised) -> std::optional<ptx::Module> {
    Req.Unoptimised = Unoptimised;
    Expected<std::shared_ptr<SourceFile>> Ptx =
        race::kernelPtx(File.string(), Req, Diags, Log);
    if (Ptx)
      if (std::optional<ptx::Module> M = ptx::parseModule(*Ptx, Diags))
        return M;
    Why = fmt::format("the patched source{} does not compile: {}",
                      Unoptimised ? "'s unoptimised build" : "", Log.str());
    return std::nullopt;
  };
  std::optional<ptx::Module> M = Build(false);
  if (!M)
    return false;
  race::ModuleReport Checked = race::checkModule(*M, O);
  // Both builds, as incant race checks a .cu file.
  if (kernelLanguageOf(Cmd.File) == KernelLanguage::Cuda) {
    std::optional<ptx::Module> UM = Build(true);
    if (!UM)
      return false;
    race::addUnoptimisedRaces(Checked, race::checkUnoptimised(*UM, Checked, O));
  }
  return raceFree(Checked, R, Why);
}

/// The source patch of repair \p R of \p M (Cmd.File's PTX), compiled
/// and checked again, into \p Res: edits in the functions the kernel
/// calls; where that patch has no place or does not verify, edits in the
/// kernel's own lines (a function called from several places gets no
/// barrier of one call). Where neither verifies and \p UM (nvcc's
/// unoptimised build, not the one repaired) is given, the patch of UM's
/// repair: that build keeps the source's structure (no loop unrolled or
/// rotated, no code moved between statements), and its patch is checked
/// against R's kernels, in both builds, as any other.
void makePatch(const RepairCommand &Cmd, KernelLanguage Lang,
               const ptx::Module &M, const ModuleRepair &R,
               const Options &RO, const ptx::Module *UM, RepairResult &Res) {
  const race::Options &O = RO.Race;
  std::string Error;
  std::shared_ptr<SourceFile> Src = SourceFile::read(Cmd.File, Error);
  if (!Src)
    return;
  std::optional<source::Statements> Stmts;
  auto Make = [&](const ModuleRepair &X, const ir::ModuleIR &IR, bool Outer) {
    SourcePatch SP = makeSourcePatch(Cmd.File, std::string(Src->text()),
                                     Lang, X, IR, nullptr, Outer);
    if (!SP.Complete) { // the source's statements, parsed (libclang)
      if (!Stmts)
        Stmts.emplace(Cmd.File, Lang == KernelLanguage::Cuda,
                      Cmd.CompilerArgs);
      if (Stmts->ok())
        SP = makeSourcePatch(Cmd.File, std::string(Src->text()), Lang, X,
                             IR, &*Stmts, Outer);
    }
    return SP;
  };
  auto Try = [&](const ModuleRepair &X, const ptx::Module &XM, bool First) {
    ir::Inlined In = ir::inlineCalls(XM, 8, 200000, O.CallTargets);
    ir::ModuleIR IR(In.M);
    std::string Inner;
    for (bool Outer : {false, true}) {
      SourcePatch SP = Make(X, IR, Outer);
      if (!Outer)
        Inner = SP.Patched;
      else if (!SP.Complete || SP.Patched == Inner)
        break;
      std::string Why = "some changes have no clean statement boundary in "
                        "the source: the repair is the PTX only";
      bool Verified = SP.Complete && checkPatched(Cmd, SP.Patched, O, R, Why);
      if (!First && !Verified)
        continue; // the first patch's edits and problem stay reported
      Res.Edits = SP.Edits;
      Res.PatchComplete = SP.Complete;
      Res.PatchVerified = Verified;
      Res.PatchProblem = Verified ? "" : Why;
      if (Verified) {
        Res.Diff = unifiedDiff(fs::path(Cmd.File).filename().string(),
                               std::string(Src->text()), SP.Patched);
        return true;
      }
    }
    return false;
  };
  if (Try(R, M, true) || !UM)
    return;
  auto UR = std::make_shared<ModuleRepair>(repairModule(*UM, RO));
  std::vector<SourceEdit> Edits = Res.Edits;
  if (UR->Error.empty() && Try(*UR, *UM, false)) {
    Res.PatchRepair = UR;
    Res.PatchEdits = std::move(Res.Edits);
    Res.Edits = std::move(Edits);
  }
}

/// The races nvcc's unoptimised build \p UM has between accesses that the
/// optimised build repaired in \p R no longer makes, as incant race
/// reports them, for the launch each kernel was repaired for.
unsigned hiddenRaces(const ptx::Module &UM, const ModuleRepair &R,
                     const race::Options &O) {
  race::Options Common = O;
  for (auto &[Kernel, Ls] : Common.HostLaunches)
    if (!Ls.empty())
      Ls = {race::commonLaunch(Ls)};
  race::ModuleReport Opt;
  unsigned Races = 0, All = 0;
  for (const KernelRepair &K : R.Kernels) {
    Opt.Kernels.push_back(K.Before);
    Opt.Kernels.back().Launch = K.Launch;
    Races += K.Before.Races + K.Before.Divergent;
  }
  race::addUnoptimisedRaces(Opt, race::checkUnoptimised(UM, Opt, Common));
  for (const race::KernelReport &K : Opt.Kernels)
    All += K.Races + K.Divergent;
  return All - Races;
}

/// Whether \p U (the unoptimised build's repair) repairs, with every pair
/// proved, a kernel that \p R (the optimised build's) cannot, and calls no
/// kernel free of races that R shows racy: the unoptimised build is
/// analysed less precisely (values kept in memory), and a race it leaves
/// undecided is still one in the code that runs.
bool repairsMore(const ModuleRepair &U, const ModuleRepair &R) {
  bool More = false;
  for (const KernelRepair &KR : R.Kernels)
    for (const KernelRepair &KU : U.Kernels) {
      if (KU.Name != KR.Name || KU.Launch != KR.Launch)
        continue;
      if (KR.Before.Races + KR.Before.Divergent &&
          !(KU.Before.Races + KU.Before.Divergent))
        return false;
      More |= KR.Result == Outcome::Unrepairable &&
              KU.Result == Outcome::Repaired && !KU.After.Unknown &&
              !KU.After.UnknownBarriers;
    }
  return More;
}

} // namespace

int runRepair(const RepairCommand &Given, std::ostream &Out,
              std::ostream &Err) {
  // Its compiler arguments may gain -rdc=true (below).
  RepairCommand Cmd = Given;
  DiagnosticEngine Diags(&Err);
  Options O;
  O.Race.Kernel = Cmd.Kernel;
  O.Race.TimeoutMs = Cmd.TimeoutMs;
  O.KernelSeconds = Cmd.KernelSeconds;
  O.GridLevel = Cmd.GridLevel;
  O.Remove = Cmd.Remove;
  if (!race::parseLaunch(Cmd.BlockDim, Cmd.GridDim, Cmd.Params, O.Race.Launch,
                         Diags) ||
      !race::checkCompilerArgs(Cmd.CompilerArgs, Diags))
    return 2;
  {
    std::string Error;
    if (!checkOutputs({Cmd.Output, Cmd.Patch}, {Cmd.File}, Error)) {
      Diags.error(Error);
      return 2;
    }
  }
  KernelLanguage Lang = kernelLanguageOf(Cmd.File);
  if (!Cmd.Patch.empty() && Lang == KernelLanguage::Ptx) {
    Diags.error("--patch: a .ptx file has no source to patch (give the .cu "
                "or .cl file)");
    return 2;
  }

  // The PTX: as given, or the compiler's (nvcc's optimised build: the code
  // that runs).
  race::CompileRequest Req;
  Req.Arch = Cmd.Arch;
  Req.Args = Cmd.CompilerArgs;
  Req.Verbose = Cmd.Verbose;
  Expected<std::shared_ptr<SourceFile>> Read =
      race::kernelPtx(Cmd.File, Req, Diags, Err);
  if (!Read)
    return exitCodeOf(Read.error());
  std::shared_ptr<SourceFile> File = *Read;
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  if (!M || !ptx::checkModule(*M, Diags))
    return 2;
  if (!race::checkParams(*M, O.Race.Launch, Diags))
    return 2;
  O.WarpLevel = Lang != KernelLanguage::OpenCL;
  O.Race.OpenCLBuiltins = Lang == KernelLanguage::OpenCL;
  O.Race.PureExternals = Cmd.PureExternals;
  O.Race.NoBenign = Cmd.NoBenign;
  if (Lang == KernelLanguage::Cuda && !Cmd.AnyLaunch) {
    std::string Note;
    O.Race.HostLaunches = race::hostLaunches(Cmd.File, Cmd.CompilerArgs, *M,
                                             O.Race.Launch, Note, &O.Race);
    // As incant race does: the functions a __requires names as a
    // pointer's targets, which nvcc leaves out when nothing calls them
    // directly, are kept by relocatable device code (every build below,
    // the patch's included, gets it too).
    if (std::optional<std::vector<std::string>> Rdc =
            race::relocatableArgs(O.Race, Cmd.CompilerArgs)) {
      Cmd.CompilerArgs = std::move(*Rdc);
      Req.Args = Cmd.CompilerArgs;
      Read = race::kernelPtx(Cmd.File, Req, Diags, Err);
      if (!Read)
        return exitCodeOf(Read.error());
      File = *Read;
      M = ptx::parseModule(File, Diags);
      if (!M || !ptx::checkModule(*M, Diags))
        return 2;
      O.Race.CallTargets.clear();
      O.Race.CallTargetNotes.clear();
      O.Race.CallTargetsAbsent = false;
      Note.clear();
      O.Race.HostLaunches = race::hostLaunches(Cmd.File, Cmd.CompilerArgs, *M,
                                               O.Race.Launch, Note, &O.Race);
    }
    if (!Note.empty())
      Err << "incant repair: note: " << Note << "; every kernel is repaired "
          << "for any launch\n";
  }

  // nvcc's unoptimised build (-Xcicc -O0), which keeps the source's
  // structure, for the choice of build below; compiled before the repair's
  // clock starts, as the optimised one is.
  std::shared_ptr<SourceFile> UFile;
  std::optional<ptx::Module> UM;
  if (Lang == KernelLanguage::Cuda) {
    race::CompileRequest UReq = Req;
    UReq.Unoptimised = true;
    std::ostringstream Log;
    DiagnosticEngine D(&Log);
    if (Expected<std::shared_ptr<SourceFile>> U =
            race::kernelPtx(Cmd.File, UReq, D, Log)) {
      UFile = *U;
      UM = ptx::parseModule(UFile, D);
    }
  }

  auto Start = std::chrono::steady_clock::now();
  ModuleRepair R = repairModule(*M, O);
  if (!R.Error.empty()) {
    Diags.error(fmt::format("{}: {}", Cmd.File, R.Error));
    return 2;
  }
  // The builds `incant race` checks: nvcc's optimiser may delete an
  // access and its race (a store nothing reads), or move an access to
  // where no barrier separates it from its partner (a load into the other
  // branch of the if that guards the store); the unoptimised build is
  // repaired instead where it has races the optimised build lost, or where
  // it repairs more kernels.
  auto Unrepaired = [](const ModuleRepair &X) {
    unsigned N = 0;
    for (const KernelRepair &K : X.Kernels)
      N += K.Result == Outcome::Unrepairable;
    return N;
  };
  std::string Build = Lang == KernelLanguage::Cuda ? "optimized" : "";
  std::string BuildWhy;
  if (UM) {
    unsigned Hidden = hiddenRaces(*UM, R, O.Race);
    if (Hidden || Unrepaired(R)) {
      ModuleRepair UR = repairModule(*UM, O);
      if (UR.Error.empty() && (Hidden || repairsMore(UR, R))) {
        BuildWhy = Hidden ? fmt::format(
                                "nvcc's unoptimised build has {} race{} "
                                "between accesses its optimised build no "
                                "longer makes",
                                Hidden, Hidden == 1 ? "" : "s")
                          : "nvcc's optimised build could not be repaired";
        R = std::move(UR);
        M = std::move(UM);
        File = UFile;
        Build = "unoptimized";
      }
    }
  }
  double Seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count();

  // The repaired PTX, checked again from its text.
  RepairResult Res;
  Res.File = Cmd.File;
  Res.Seconds = Seconds;
  Res.Build = Build;
  Res.BuildWhy = BuildWhy;
  ptx::Module Fixed = *M;
  if (!applyRepairs(Fixed, R, Diags))
    return 2;
  Res.Ptx = ptx::printModule(Fixed);
  {
    std::ostringstream Log;
    DiagnosticEngine D(&Log);
    auto Text = std::make_shared<SourceFile>(File->name(), Res.Ptx);
    std::optional<ptx::Module> Again = ptx::parseModule(Text, D);
    Res.PtxVerified =
        Again && raceFree(race::checkModule(*Again, O.Race), R, Res.PtxProblem);
    if (!Again)
      Res.PtxProblem = "the repaired PTX does not parse: " + Log.str();
  }

  // The source patch, compiled and checked again.
  bool Changed = false;
  for (const KernelRepair &K : R.Kernels)
    Changed |= K.Result == Outcome::Repaired;
  if (Lang != KernelLanguage::Ptx && Changed)
    makePatch(Cmd, Lang, *M, R, O, Build == "optimized" && UM ? &*UM : nullptr,
              Res);

  bool WriteFailed = false;
  auto Write = [&](const std::string &Path, const std::string &Text) {
    std::string Error;
    if (!Path.empty() && !writeOutputFile(Path, Text, Error)) {
      Diags.error(Error);
      WriteFailed = true;
    }
  };
  Write(Cmd.Output, Res.Ptx);
  if (!Res.Diff.empty())
    Write(Cmd.Patch, Res.Diff);
  if (Cmd.Json)
    Out << dumpJson(repairToJson(R, Res)) << "\n";
  else
    printRepair(R, Res, Out, Cmd.Verbose, Cmd.CompilerLines);

  bool Bad = !Res.PtxVerified;
  for (const KernelRepair &K : R.Kernels)
    Bad |= K.Result == Outcome::Unrepairable || K.After.Unknown ||
           K.After.UnknownBarriers;
  if (!Cmd.Patch.empty() && Res.Diff.empty() && Changed) {
    Err << "incant repair: no source patch written to " << Cmd.Patch << ": "
        << Res.PatchProblem << "\n";
    Bad = true;
  }
  // A write that fails is the disk's or device's, not the input's.
  return WriteFailed ? 3 : Bad ? 1 : 0;
}

} // namespace incant::repair
