//===- AsyncCopies.cpp - Asynchronous copies and what completes them -----===//
#include "incant/IR/AsyncCopies.h"

#include <fmt/format.h>

namespace incant::ir {

using ptx::AddrSpace;
using ptx::Instruction;
using ptx::Opcode;

static bool isCp(const Instruction &I) { return I.Op == Opcode::CpAsync; }

static bool hasAddress(const Instruction &I) {
  for (const ptx::Operand &O : I.Ops)
    if (O.K == ptx::Operand::Address)
      return true;
  return false;
}

bool isAsyncCopy(const Instruction &I) {
  return isCp(I) && hasAddress(I) && !I.hasMod(".prefetch") &&
         !I.hasMod(".mbarrier") && !I.hasMod(".commit_group") &&
         !I.hasMod(".wait_group") && !I.hasMod(".wait_all");
}

static std::optional<AddrSpace> spaceOf(const std::string &M) {
  if (M == ".global")
    return AddrSpace::Global;
  if (M == ".shared" || M == ".shared::cta")
    return AddrSpace::Shared;
  if (M == ".shared::cluster")
    return AddrSpace::SharedCluster;
  return std::nullopt;
}

std::pair<AddrSpace, AddrSpace> asyncCopySpaces(const Instruction &I) {
  std::vector<AddrSpace> S;
  for (const ptx::Modifier &M : I.Mods)
    if (auto Sp = spaceOf(M.Text))
      S.push_back(*Sp);
  if (S.size() >= 2)
    return {S[0], S[1]};
  // cp.async.ca.shared.global names both; a form that names fewer is
  // left generic (the address decides, else any memory).
  return {S.empty() ? AddrSpace::Generic : S[0], AddrSpace::Generic};
}

/// Whether \p I observes the completion of copies of kind \p How.
static bool observes(const Instruction &I, AsyncCompletion How) {
  switch (How) {
  case AsyncCompletion::Mbarrier:
    return I.Op == Opcode::Mbarrier &&
           (I.hasMod(".try_wait") || I.hasMod(".test_wait"));
  case AsyncCompletion::Group:
    return isCp(I) && !I.hasMod(".bulk") &&
           (I.hasMod(".wait_group") || I.hasMod(".wait_all"));
  case AsyncCompletion::BulkGroup:
    return isCp(I) && I.hasMod(".bulk") && I.hasMod(".wait_group");
  }
  return false;
}

std::vector<AsyncCopy> asyncCopies(const FunctionIR &F) {
  // A per-thread cp.async whose thread later counts its copies on an
  // mbarrier (cp.async.mbarrier.arrive) completes on that mbarrier; the
  // function is searched as a whole (a copy may also be in a group).
  bool MbarrierArrive = false;
  for (unsigned Item : F.instructions()) {
    const Instruction &I = F.inst(Item);
    MbarrierArrive |= isCp(I) && I.hasMod(".mbarrier") && I.hasMod(".arrive");
  }
  std::vector<AsyncCopy> Out;
  for (unsigned Item : F.instructions()) {
    const Instruction &I = F.inst(Item);
    if (!isAsyncCopy(I))
      continue;
    std::vector<AsyncCompletion> Hows;
    bool Bulk = I.hasMod(".bulk");
    bool OnBarrier = false;
    for (const ptx::Modifier &M : I.Mods)
      OnBarrier |= M.Text.rfind(".mbarrier::", 0) == 0;
    if (OnBarrier || (!Bulk && MbarrierArrive))
      Hows.push_back(AsyncCompletion::Mbarrier);
    if (Bulk && I.hasMod(".bulk_group"))
      Hows.push_back(AsyncCompletion::BulkGroup);
    if (!Bulk)
      Hows.push_back(AsyncCompletion::Group);
    if (Hows.empty()) // a form this list does not know: any wait
      Hows = {AsyncCompletion::Mbarrier, AsyncCompletion::Group,
              AsyncCompletion::BulkGroup};
    for (AsyncCompletion How : Hows) {
      AsyncCopy C;
      C.Item = Item;
      C.How = How;
      for (unsigned W : F.instructions())
        if (observes(F.inst(W), How))
          C.Waits.push_back(W);
      Out.push_back(std::move(C));
    }
  }
  return Out;
}

std::string asyncCompletionText(const FunctionIR &F, const AsyncCopy &C) {
  const char *What = C.How == AsyncCompletion::Mbarrier ? "an mbarrier phase"
                     : C.How == AsyncCompletion::Group  ? "a cp.async group"
                                                        : "a bulk async-group";
  if (C.Waits.empty())
    return fmt::format("{}, which no instruction of the kernel waits for",
                       What);
  const Instruction &W = F.inst(C.Waits.front());
  std::string Name = W.Name;
  for (const ptx::Modifier &M : W.Mods) {
    Name += M.Text;
    if (Name.size() > 24)
      break;
  }
  return fmt::format("{}, observed by {} at PTX line {}", What, Name,
                     W.Range.Begin.Line);
}

} // namespace incant::ir
