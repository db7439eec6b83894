//===- SwitchableFences.cpp - Switchable fences (pass "fences") -----------===//
//
// See incant/Intercept/Fences.h. Sites are numbered with the unit's other
// sites (the manifest's ids), so the mask has a bit for every site id up to
// the last fence site; the bits of other passes' sites guard nothing.
//
//===----------------------------------------------------------------------===//
#include "incant/Intercept/Fences.h"
#include "Passes.h"
#include "runtime/incant_control.h"

#include <fmt/format.h>

#include <cstdlib>

namespace incant::intercept {

const std::vector<std::string> &fenceKindNames() {
  static const std::vector<std::string> Names = INCANT_FENCE_KIND_NAMES;
  return Names;
}

std::optional<unsigned> fenceKindIndex(std::string_view Name) {
  if (Name == "membar.gl")
    return INCANT_FENCE_SC_GPU;
  if (Name == "membar.cta")
    return INCANT_FENCE_SC_CTA;
  if (Name.rfind("fence.", 0) == 0)
    Name.remove_prefix(6);
  const auto &N = fenceKindNames();
  for (unsigned K = 0; K < N.size(); ++K)
    if (N[K] == Name)
      return K;
  return std::nullopt;
}

std::string fenceKindCuda(unsigned Kind) {
  switch (Kind) {
  case INCANT_FENCE_SC_GPU:
    return "__threadfence();";
  case INCANT_FENCE_ACQREL_GPU:
    return "cuda::atomic_thread_fence(cuda::memory_order_acq_rel, "
           "cuda::thread_scope_device);";
  case INCANT_FENCE_SC_CTA:
    return "__threadfence_block();";
  default:
    return "cuda::atomic_thread_fence(cuda::memory_order_acq_rel, "
           "cuda::thread_scope_block);";
  }
}

std::string fenceMaskName(std::string_view Id) {
  return INCANT_FMASK_PREFIX + std::string(Id);
}

bool isFenceCandidate(const ptx::Instruction &I) {
  using ptx::Opcode;
  if (I.Op != Opcode::Ld && I.Op != Opcode::St && I.Op != Opcode::Atom &&
      I.Op != Opcode::Red)
    return false;
  if (I.ASpace != ptx::AddrSpace::Global && I.ASpace != ptx::AddrSpace::Generic)
    return false;
  return !(I.Op == Opcode::Ld && I.hasMod(".nc"));
}

std::string mnemonic(const ptx::Instruction &I) {
  std::string S = I.Name;
  for (const ptx::Modifier &M : I.Mods)
    S += M.Text;
  return S;
}

namespace {

/// The PTX instruction of kind \p K for a module of target \p Sm (0:
/// unknown, taken as sm_70 or later), or "" where the target has none.
std::string fenceInstruction(unsigned K, unsigned Sm) {
  if (Sm && Sm < 70) // fence.* needs sm_70
    return K == INCANT_FENCE_SC_GPU   ? "membar.gl"
           : K == INCANT_FENCE_SC_CTA ? "membar.cta"
                                      : "";
  return "fence." + fenceKindNames()[K];
}

unsigned targetSm(const ptx::Module &M) {
  for (const std::string &T : M.Targets)
    if (T.rfind("sm_", 0) == 0)
      return static_cast<unsigned>(std::strtoul(T.c_str() + 3, nullptr, 10));
  return 0;
}

bool isOrderingFence(const ptx::Instruction &I) {
  if (I.Op == ptx::Opcode::Membar)
    return true;
  return I.Op == ptx::Opcode::Fence &&
         (I.S == ptx::Sem::SC || I.S == ptx::Sem::AcqRel ||
          I.S == ptx::Sem::Acquire || I.S == ptx::Sem::Release) &&
         !I.hasMod(".proxy");
}

class FencesPass : public Pass {
public:
  std::string_view name() const override { return "fences"; }
  bool run(Unit &U) override;
};

struct Place {
  unsigned Func = 0, Item = 0;
  uint32_t Site = 0;
};

bool FencesPass::run(Unit &U) {
  ir::Rewriter &RW = U.rewriter();
  std::vector<Place> Places;
  for (const ir::FunctionIR &F : U.ir().functions()) {
    unsigned Func = RW.functionIndex(F.name());
    const ir::SourceFrame *Prev = nullptr; // the last access's location
    std::string PrevFile;
    uint32_t PrevLine = 0, PrevCol = 0;
    for (unsigned Item : F.instructions()) {
      const ptx::Instruction &I = F.inst(Item);
      const ir::SourceFrame *Here = F.loc(Item).userFrame();
      auto Record = [&](std::string Kind, bool AfterSelf) {
        ExistingOrder O;
        O.Function = F.name();
        O.Kind = std::move(Kind);
        O.PtxLine = I.Range.Begin.Line;
        if (Here) {
          O.File = Here->File;
          O.Line = Here->Line;
          O.Col = Here->Col;
        }
        if (AfterSelf) {
          O.AfterFile = O.File;
          O.AfterLine = O.Line;
          O.AfterCol = O.Col;
        } else if (Prev) {
          O.AfterFile = PrevFile;
          O.AfterLine = PrevLine;
          O.AfterCol = PrevCol;
        }
        U.manifest().Orders.push_back(std::move(O));
      };
      if (isOrderingFence(I)) {
        Record(mnemonic(I), false);
        continue;
      }
      if (!isFenceCandidate(I))
        continue;
      if (I.S == ptx::Sem::Release || I.S == ptx::Sem::AcqRel)
        Record(mnemonic(I) + " (release)", false);
      if (I.S == ptx::Sem::Acquire || I.S == ptx::Sem::AcqRel)
        Record(mnemonic(I) + " (acquire)", true);
      Places.push_back(
          {Func, Item, U.addSite("fences", F, Item, "after " + mnemonic(I))});
      Prev = Here ? Here : Prev;
      if (Here) {
        PrevFile = Here->File;
        PrevLine = Here->Line;
        PrevCol = Here->Col;
      }
    }
  }
  if (Places.empty()) {
    U.manifest().Notes.push_back(
        "fences: no global or generic memory access, no fence site");
    return true;
  }

  const uint32_t Words = Places.back().Site / 32 + 1;
  const std::string Mask = fenceMaskName(U.id());
  if (!RW.addModuleText(fmt::format(".visible .const .align 4 .b32 {}[{}];",
                                    Mask, INCANT_FENCE_KINDS * Words)))
    return false;
  const unsigned Sm = targetSm(U.module());
  std::map<unsigned, std::pair<std::string, std::string>> Regs;
  for (const Place &P : Places) {
    auto [It, New] = Regs.try_emplace(P.Func);
    if (New)
      It->second = {RW.addRegister(P.Func, ".b32", "%incant_fm"),
                    RW.addRegister(P.Func, ".pred", "%incant_fp")};
    const auto &[Fm, Fp] = It->second;
    for (unsigned K = 0; K < INCANT_FENCE_KINDS; ++K) {
      std::string Fence = fenceInstruction(K, Sm);
      if (Fence.empty())
        continue;
      uint32_t Off = 4 * (K * Words + P.Site / 32);
      std::string Addr = Off ? fmt::format("[{}+{}]", Mask, Off)
                             : fmt::format("[{}]", Mask);
      for (const std::string &Line :
           {fmt::format("ld.const.u32 {}, {};", Fm, Addr),
            fmt::format("and.b32 {}, {}, {};", Fm, Fm, 1u << (P.Site % 32)),
            fmt::format("setp.ne.u32 {}, {}, 0;", Fp, Fm),
            fmt::format("@{} {};", Fp, Fence)})
        if (!RW.insertAfter(P.Func, P.Item, Line))
          return false;
    }
  }
  return true;
}

/// The words per kind of mask \p Mask in \p M, or 0 if it is not declared.
uint64_t maskWords(const ptx::Module &M, const std::string &Mask) {
  for (const ptx::ModuleItem &I : M.Items)
    if (const auto *V = std::get_if<ptx::Variable>(&I);
        V && V->Name == Mask && V->Dims.size() == 1 && V->Dims[0])
      return *V->Dims[0] / INCANT_FENCE_KINDS;
  return 0;
}

} // namespace

std::unique_ptr<Pass> createFencesPass() {
  return std::make_unique<FencesPass>();
}

bool fixFences(ptx::Module &M, std::string_view Id,
               const std::map<uint32_t, unsigned> &Keep,
               DiagnosticEngine &Diags) {
  const std::string Mask = fenceMaskName(Id);
  const uint64_t Words = maskWords(M, Mask);
  if (!Words) {
    Diags.error(fmt::format("the module has no switchable fences of unit {} "
                            "(build it with the pass \"fences\")",
                            Id));
    return false;
  }
  using ptx::Instruction;
  using ptx::Opcode;
  for (ptx::ModuleItem &MI : M.Items) {
    auto *F = std::get_if<ptx::Function>(&MI);
    if (!F || !F->HasBody)
      continue;
    std::vector<ptx::BodyItem> Out;
    Out.reserve(F->Body.size());
    for (size_t I = 0; I < F->Body.size(); ++I) {
      const auto *Ld = std::get_if<Instruction>(&F->Body[I]);
      const ptx::Operand *Addr =
          Ld && Ld->Op == Opcode::Ld && Ld->ASpace == ptx::AddrSpace::Const &&
                  Ld->Ops.size() == 2 && Ld->Ops[1].K == ptx::Operand::Address
              ? &Ld->Ops[1]
              : nullptr;
      if (!Addr || Addr->Name != Mask) {
        Out.push_back(std::move(F->Body[I]));
        continue;
      }
      // The guard: ld.const, and, setp, @p fence.
      const Instruction *And = I + 3 < F->Body.size()
                                   ? std::get_if<Instruction>(&F->Body[I + 1])
                                   : nullptr;
      const Instruction *Setp =
          And ? std::get_if<Instruction>(&F->Body[I + 2]) : nullptr;
      const Instruction *Fence =
          Setp ? std::get_if<Instruction>(&F->Body[I + 3]) : nullptr;
      bool Ok = And && Setp && Fence && And->Op == Opcode::And &&
                And->Ops.size() == 3 && And->Ops[2].K == ptx::Operand::Imm &&
                Setp->Op == Opcode::Setp && Fence->G &&
                (Fence->Op == Opcode::Fence || Fence->Op == Opcode::Membar) &&
                Addr->Value >= 0 && Addr->Value % 4 == 0 &&
                uint64_t(Addr->Value) / 4 < INCANT_FENCE_KINDS * Words;
      uint64_t Bit = Ok ? uint64_t(And->Ops[2].Value) : 0;
      if (!Ok || Bit == 0 || (Bit & (Bit - 1)) != 0 || Bit > 0x80000000u) {
        Diags.error(fmt::format("{}: a use of {} that is not a fence guard "
                                "of the pass \"fences\"",
                                F->Name, Mask));
        return false;
      }
      uint64_t Word = uint64_t(Addr->Value) / 4;
      unsigned Kind = static_cast<unsigned>(Word / Words);
      uint32_t Site = static_cast<uint32_t>((Word % Words) * 32 +
                                            uint32_t(__builtin_ctzll(Bit)));
      auto K = Keep.find(Site);
      if (K != Keep.end() && K->second == Kind) {
        Instruction Plain = *Fence;
        Plain.G.reset();
        Out.push_back(std::move(Plain));
      }
      I += 3;
    }
    F->Body = std::move(Out);
  }
  return true;
}

} // namespace incant::intercept
