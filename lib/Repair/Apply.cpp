//===- Apply.cpp - Writing a repair into the PTX module -------------------===//
#include "incant/IR/Rewriter.h"
#include "incant/Repair/Repair.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace incant::repair {

namespace {

/// The counter grid barriers count arrivals in.
constexpr const char *GridCounter = "incant_grid_barrier";

bool declares(const ptx::Module &M, const std::string &Name) {
  for (const ptx::ModuleItem &I : M.Items)
    if (const auto *V = std::get_if<ptx::Variable>(&I); V && V->Name == Name)
      return true;
  return false;
}

/// A grid barrier before body item \p Item of function \p Func: every
/// thread of the block waits (bar.sync), thread (0,0,0) adds 1 to the
/// counter with release semantics at gpu scope and polls it with acquire
/// loads until every block of this barrier instance has arrived (the
/// counter reaches the next multiple of the number of blocks), and the
/// block waits again. The blocks must be resident together: a cooperative
/// launch. incant race recognises the sequence as a grid barrier.
bool insertGridBarrier(ir::Rewriter &RW, unsigned Func, unsigned Item,
                       unsigned Serial) {
  std::string P = RW.addRegister(Func, ".pred", "%incant_gp");
  std::string T = RW.addRegister(Func, ".b32", "%incant_gt");
  std::string N = RW.addRegister(Func, ".b32", "%incant_gn");
  std::string V = RW.addRegister(Func, ".b32", "%incant_gv");
  std::string W = RW.addRegister(Func, ".b32", "%incant_gw");
  std::string Skip = fmt::format("$incant_grid_done{}", Serial);
  std::string Spin = fmt::format("$incant_grid_spin{}", Serial);
  std::vector<std::string> Before = {
      "bar.sync 0;",
      fmt::format("mov.u32 {}, %tid.x;", T),
      fmt::format("mov.u32 {}, %tid.y;", N),
      fmt::format("or.b32 {}, {}, {};", T, T, N),
      fmt::format("mov.u32 {}, %tid.z;", N),
      fmt::format("or.b32 {}, {}, {};", T, T, N),
      fmt::format("setp.ne.u32 {}, {}, 0;", P, T),
      fmt::format("@{} bra {};", P, Skip),
      fmt::format("mov.u32 {}, %nctaid.x;", N),
      fmt::format("mov.u32 {}, %nctaid.y;", T),
      fmt::format("mul.lo.u32 {}, {}, {};", N, N, T),
      fmt::format("mov.u32 {}, %nctaid.z;", T),
      fmt::format("mul.lo.u32 {}, {}, {};", N, N, T),
      fmt::format("atom.add.release.gpu.global.u32 {}, [{}], 1;", V,
                  GridCounter),
      fmt::format("div.u32 {}, {}, {};", W, V, N),
      fmt::format("add.u32 {}, {}, 1;", W, W),
      fmt::format("mul.lo.u32 {}, {}, {};", W, W, N),
  };
  std::vector<std::string> Loop = {
      fmt::format("ld.acquire.gpu.global.u32 {}, [{}];", V, GridCounter),
      fmt::format("sub.u32 {}, {}, {};", T, V, W),
      fmt::format("setp.lt.s32 {}, {}, 0;", P, T),
      fmt::format("@{} bra {};", P, Spin),
  };
  bool Ok = true;
  for (const std::string &S : Before)
    Ok &= RW.insertBefore(Func, Item, S);
  Ok &= RW.insertBefore(Func, Item, ptx::BodyItem(ptx::Label{Spin, {}}));
  for (const std::string &S : Loop)
    Ok &= RW.insertBefore(Func, Item, S);
  Ok &= RW.insertBefore(Func, Item, ptx::BodyItem(ptx::Label{Skip, {}}));
  Ok &= RW.insertBefore(Func, Item, "bar.sync 0;");
  return Ok;
}

} // namespace

bool applyRepairs(ptx::Module &M, const ModuleRepair &R,
                  DiagnosticEngine &Diags) {
  // Removals first, then insertions at positions shifted past them. A
  // removed barrier is one instruction; a removed grid.sync() the
  // instructions and labels from its first bar.sync to the block of its
  // last (its .loc directives stay: later ones refer to them), and the last.
  std::map<std::string, std::vector<unsigned>> Gone;
  std::map<std::string, std::vector<std::pair<unsigned, unsigned>>> Ranges;
  for (const KernelRepair &K : R.Kernels)
    for (const Change &C : K.Removed) {
      Gone[C.OriginFunction].push_back(C.OriginItem);
      if (C.GridStart)
        Ranges[C.OriginFunction].push_back(
            {C.OriginGridStart, C.OriginGridStop});
    }
  auto IsInstruction = [](const ptx::Function &Fn, unsigned Item) {
    return Item < Fn.Body.size() &&
           std::holds_alternative<ptx::Instruction>(Fn.Body[Item]);
  };
  for (auto &[Name, Items] : Gone) {
    for (ptx::ModuleItem &I : M.Items) {
      auto *Fn = std::get_if<ptx::Function>(&I);
      if (!Fn || !Fn->HasBody || Fn->Name != Name)
        continue;
      for (auto [Begin, End] : Ranges[Name])
        for (unsigned Item = Begin; Item < End && Item < Fn->Body.size(); ++Item)
          if (std::holds_alternative<ptx::Instruction>(Fn->Body[Item]) ||
              std::holds_alternative<ptx::Label>(Fn->Body[Item]))
            Items.push_back(Item);
      std::sort(Items.begin(), Items.end());
      Items.erase(std::unique(Items.begin(), Items.end()), Items.end());
      for (const KernelRepair &K : R.Kernels)
        for (const Change &C : K.Removed)
          for (unsigned Item : {C.OriginItem, C.GridStart ? C.OriginGridStart
                                                          : C.OriginItem})
            if (C.OriginFunction == Name && !IsInstruction(*Fn, Item)) {
              Diags.error(fmt::format("{}: no instruction at body index {} "
                                      "to remove", Name, Item));
              return false;
            }
      for (auto It = Items.rbegin(); It != Items.rend(); ++It) {
        if (*It >= Fn->Body.size()) {
          Diags.error(fmt::format("{}: no body item {} to remove", Name, *It));
          return false;
        }
        Fn->Body.erase(Fn->Body.begin() + *It);
      }
    }
  }
  auto Shifted = [&](const std::string &Fn, unsigned Item) {
    auto It = Gone.find(Fn);
    if (It == Gone.end())
      return Item;
    return Item - static_cast<unsigned>(
                      std::lower_bound(It->second.begin(), It->second.end(),
                                       Item) -
                      It->second.begin());
  };
  ir::Rewriter RW(M, Diags);
  bool Grid = false;
  unsigned Serial = 0;
  for (const KernelRepair &K : R.Kernels)
    for (const Change &C : K.Added) {
      unsigned Func = RW.functionIndex(C.OriginFunction);
      if (Func == ir::NoNode) {
        Diags.error(fmt::format("no function {} in the module",
                                C.OriginFunction));
        return false;
      }
      unsigned Item = Shifted(C.OriginFunction, C.OriginItem);
      if (C.Kind == ir::BarrierKind::Grid) {
        Grid = true;
        if (!insertGridBarrier(RW, Func, Item, Serial++))
          return false;
      } else if (C.Kind == ir::BarrierKind::CopyWait) {
        // The thread's cp.async copies complete, then the block waits.
        if (!RW.insertBefore(Func, Item, "cp.async.wait_all;") ||
            !RW.insertBefore(Func, Item, "bar.sync 0;"))
          return false;
      } else if (C.Kind == ir::BarrierKind::Cluster) {
        // cluster.sync(): the arrival releases, the wait acquires.
        if (!RW.insertBefore(Func, Item, "barrier.cluster.arrive;") ||
            !RW.insertBefore(Func, Item, "barrier.cluster.wait;"))
          return false;
      } else if (!RW.insertBefore(Func, Item,
                                  C.Kind == ir::BarrierKind::Warp
                                      ? "bar.warp.sync -1;"
                                      : "bar.sync 0;")) {
        return false;
      }
    }
  if (Grid && !declares(M, GridCounter) &&
      !RW.addModuleText(fmt::format(".global .align 4 .u32 {};", GridCounter)))
    return false;
  RW.apply();
  return true;
}

} // namespace incant::repair
