//===- Instrument.cpp - The instrumenting pipeline ------------------------===//
#include "incant/Intercept/Instrument.h"
#include "Passes.h"
#include "runtime/incant_control.h"

#include "incant/Support/Hash.h"

#include <fmt/format.h>

#include <cstdint>
#include <set>

namespace incant::intercept {

const char *staticVerdictName(StaticVerdict V) {
  switch (V) {
  case StaticVerdict::Safe:
    return "safe";
  case StaticVerdict::Unknown:
    return "unknown";
  case StaticVerdict::Race:
    return "race";
  }
  return "unknown";
}

std::optional<StaticVerdict> parseStaticVerdict(std::string_view Name) {
  for (StaticVerdict V :
       {StaticVerdict::Safe, StaticVerdict::Unknown, StaticVerdict::Race})
    if (Name == staticVerdictName(V))
      return V;
  return std::nullopt;
}

//===-- Unit --------------------------------------------------------------===//

Unit::Unit(ptx::Module &Mod, std::string UnitId, DiagnosticEngine &D,
           UnitManifest &Manifest)
    : M(&Mod), Id(std::move(UnitId)), Diags(&D), Man(&Manifest), RW(Mod, D) {}

const ir::ModuleIR &Unit::ir() {
  if (!IR)
    IR = std::make_unique<ir::ModuleIR>(*M);
  return *IR;
}

void Unit::applyEdits() {
  RW.apply();
  IR.reset();
}

FunctionRecord &Unit::function(std::string_view Name) {
  for (FunctionRecord &F : Man->Functions)
    if (F.Name == Name)
      return F;
  Man->Functions.push_back({std::string(Name), false, false, "", false, {}});
  return Man->Functions.back();
}

uint32_t Unit::addSite(std::string Pass, const ir::FunctionIR &F,
                       unsigned Item, std::string Kind) {
  Site S;
  S.Id = static_cast<uint32_t>(Man->Sites.size());
  S.Pass = std::move(Pass);
  S.Function = F.name();
  S.Kind = std::move(Kind);
  if (F.isInstruction(Item)) {
    S.PtxLine = F.inst(Item).Range.Begin.Line;
    if (const ir::SourceFrame *Fr = F.loc(Item).userFrame()) {
      S.File = Fr->File;
      S.Line = Fr->Line;
      S.Col = Fr->Col;
    }
  }
  Man->Sites.push_back(std::move(S));
  return Man->Sites.back().Id;
}

std::string Unit::freshLabel(unsigned Func, std::string_view Prefix) {
  const auto &F = std::get<ptx::Function>(M->Items[Func]);
  std::set<std::string, std::less<>> Labels;
  for (const ptx::BodyItem &B : F.Body)
    if (const auto *L = std::get_if<ptx::Label>(&B))
      Labels.insert(L->Name);
  for (;;) {
    std::string Name = fmt::format("{}{}", Prefix, NextLabel++);
    if (!Labels.count(Name))
      return Name;
  }
}

//===-- Calls -------------------------------------------------------------===//

const ptx::Operand *calleeOperand(const ptx::Instruction &I) {
  if (I.Op != ptx::Opcode::Call)
    return nullptr;
  // Ops: [(rets)], callee, [(args)], [prototype].
  for (const ptx::Operand &O : I.Ops)
    if (O.K != ptx::Operand::List)
      return &O;
  return nullptr;
}

std::vector<std::string> directCalls(const ptx::Module &M,
                                     const ptx::Function &F) {
  std::set<std::string> Out;
  for (const ptx::BodyItem &B : F.Body) {
    const auto *I = std::get_if<ptx::Instruction>(&B);
    if (!I || I->Op != ptx::Opcode::Call)
      continue;
    const ptx::Operand *Callee = calleeOperand(*I);
    const ptx::Function *Target = Callee ? M.findFunction(Callee->Name) : nullptr;
    Out.insert(Target && Target->HasBody ? Callee->Name : "*");
  }
  return {Out.begin(), Out.end()};
}

//===-- Passes ------------------------------------------------------------===//

const std::vector<std::string> &passNames() {
  static const std::vector<std::string> Names = {"randomise", "fences",
                                                "race"};
  return Names;
}

std::unique_ptr<Pass> createPass(std::string_view Name) {
  if (Name == "randomise")
    return createRandomisePass();
  if (Name == "fences")
    return createFencesPass();
  if (Name == "race")
    return createRacePass();
  return nullptr;
}

//===-- The pipeline ------------------------------------------------------===//

bool isInstrumented(const ptx::Module &M) {
  for (const ptx::ModuleItem &I : M.Items)
    if (const auto *V = std::get_if<ptx::Variable>(&I);
        V && V->Name.rfind(INCANT_UNIT_PREFIX, 0) == 0)
      return true;
  return false;
}

/// `.b64` initializer words of \p Text (little-endian, the last one padded
/// with NULs): the bytes in the cubin are the text's, and a module of
/// 100,000 sites parses an eighth of the operands bytes would need.
static std::string wordList(std::string_view Text, size_t &Words) {
  Words = (Text.size() + 7) / 8;
  std::string S;
  S.reserve(Words * 21);
  for (size_t W = 0; W < Words; ++W) {
    uint64_t V = 0;
    for (size_t B = 0; B < 8 && W * 8 + B < Text.size(); ++B)
      V |= uint64_t(static_cast<unsigned char>(Text[W * 8 + B])) << (8 * B);
    if (W)
      S += ',';
    S += std::to_string(int64_t(V)); // as the PTX printer writes it back
  }
  return S;
}

bool instrumentModule(ptx::Module &M, const std::string &Id,
                      const InstrumentOptions &Opts, DiagnosticEngine &Diags,
                      UnitManifest &Man) {
  Man = UnitManifest();
  Man.Id = Id;
  Man.PtxFile = Opts.PtxFile;
  if (!M.Targets.empty())
    Man.Target = M.Targets.front();
  for (const ptx::ModuleItem &I : M.Items)
    if (const auto *F = std::get_if<ptx::FileEntry>(&I)) {
      Man.Source = F->Path;
      break;
    }
  for (const ptx::ModuleItem &I : M.Items)
    if (const auto *F = std::get_if<ptx::Function>(&I); F && F->HasBody)
      Man.Functions.push_back(
          {F->Name, F->IsEntry, false, "", false, directCalls(M, *F)});

  Unit U(M, Id, Diags, Man);
  bool Race = false;
  for (const std::string &P : Opts.Passes)
    Race |= P == "race";
  if (Race && Opts.StaticRaces) {
    std::string Why;
    if (std::optional<RaceVerdicts> V = Opts.StaticRaces(M, Why))
      U.setRaceVerdicts(std::move(*V));
    else
      Man.Notes.push_back("race: the static checker could not check this "
                          "module (" + Why + "): every access is instrumented");
  }
  // The unit's control block: zero (every switch off) until the injected
  // library sets it.
  if (!U.rewriter().addModuleText(fmt::format(
          ".visible .const .align 8 .b8 {}[{}];", ctlVarName(Id),
          INCANT_CTL_BYTES)))
    return false;
  U.applyEdits();

  for (const std::string &Name : passNames()) {
    bool Wanted = false;
    for (const std::string &P : Opts.Passes)
      Wanted |= P == Name;
    if (!Wanted)
      continue;
    std::unique_ptr<Pass> P = createPass(Name);
    Man.Passes.push_back(Name);
    if (!P->run(U))
      return false;
    U.applyEdits();
  }

  // Per-kernel control words: what the build found, then the switches.
  for (const FunctionRecord &F : Man.Functions) {
    if (!F.IsEntry)
      continue;
    unsigned Info = (F.Remapped ? INCANT_KINFO_IDS_REMAPPED : 0u) |
                    (F.CallsRemapped ? INCANT_KINFO_CALLS_REMAPPED : 0u) |
                    (F.LeftAlone.empty() ? 0u : INCANT_KINFO_LEFT_ALONE);
    // Words 2 and 3: the unit id, so the library finds the unit's control
    // block from any of its kernels.
    uint64_t IdBits = std::stoull(Id, nullptr, 16);
    if (!U.rewriter().addModuleText(fmt::format(
            ".visible .const .align 4 .b32 {}[{}] = {{{}, 0, {}, {}}};",
            kernelCtlName(F.Name), INCANT_KCTL_WORDS, Info,
            IdBits & 0xffffffffu, IdBits >> 32)))
      return false;
  }
  std::string Text = INCANT_UNIT_MAGIC + manifestToJson(Man);
  Text += '\0';
  size_t Words = 0;
  std::string List = wordList(Text, Words);
  if (!U.rewriter().addModuleText(
          fmt::format(".visible .global .align 8 .b64 {}[{}] = {{{}}};",
                      unitVarName(Id), Words, List)))
    return false;
  U.applyEdits();

  DiagnosticEngine Check;
  if (ir::validate(M, Check) != 0) {
    for (const Diagnostic &D : Check.diagnostics())
      if (D.Sev == Severity::Error)
        Diags.error("internal error: the instrumented module does not "
                    "validate: " +
                    D.Message);
    return false;
  }
  return true;
}

InstrumentResult instrumentPtx(std::shared_ptr<const SourceFile> File,
                               const InstrumentOptions &Opts,
                               DiagnosticEngine &Diags) {
  InstrumentResult R;
  for (const std::string &P : Opts.Passes)
    if (!createPass(P)) {
      Diags.error(fmt::format("unknown pass '{}' (passes: {})", P,
                              fmt::join(passNames(), ", ")));
      return R;
    }
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  if (!M)
    return R;
  // Every PTX module begins with .version: without it (an empty file, a
  // fragment) the output would be no module ptxas reads.
  if (M->VersionMajor == 0) {
    Diags.error(File->name() + ": no .version directive: not a PTX module");
    return R;
  }
  if (isInstrumented(*M)) {
    R.Status = InstrumentStatus::AlreadyInstrumented;
    return R;
  }
  std::string Id = hex16(fnv1a64(Opts.Salt, fnv1a64(File->text())));
  if (!instrumentModule(*M, Id, Opts, Diags, R.Manifest))
    return R;
  R.Ptx = ptx::printModule(*M);
  R.Status = InstrumentStatus::Rewritten;
  return R;
}

} // namespace incant::intercept
