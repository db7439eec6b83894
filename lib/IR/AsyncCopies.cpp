//===- AsyncCopies.cpp - Asynchronous copies and what completes them -----===//
#include "incant/IR/AsyncCopies.h"

#include <fmt/format.h>

#include <cctype>

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

std::string calleeOf(const Instruction &I) {
  if (I.Op != Opcode::Call)
    return "";
  // Ops: [(returns)], callee, [(arguments)], [prototype].
  for (const ptx::Operand &O : I.Ops)
    if (O.K != ptx::Operand::List)
      return !O.Name.empty() && O.Name[0] == '%' ? "" : O.Name;
  return "";
}

namespace {

/// An Itanium-mangled OpenCL C built-in: its name and what follows it.
std::optional<std::pair<std::string, std::string>>
splitMangled(const std::string &Name) {
  if (Name.rfind("_Z", 0) != 0)
    return std::nullopt;
  size_t At = 2, Len = 0;
  while (At < Name.size() && Len <= Name.size() &&
         std::isdigit(static_cast<unsigned char>(Name[At])))
    Len = Len * 10 + static_cast<size_t>(Name[At++] - '0');
  if (!Len || Len > Name.size() - At)
    return std::nullopt;
  return std::make_pair(Name.substr(At, Len), Name.substr(At + Len));
}

/// The size of the scalar type a mangled code names (0: not known).
unsigned scalarBytes(char C) {
  switch (C) {
  case 'c': case 'a': case 'h': return 1;
  case 's': case 't': return 2;
  case 'i': case 'j': case 'f': return 4;
  case 'l': case 'm': case 'x': case 'y': case 'd': return 8;
  default: return 0;
  }
}

/// "PU3AS<n>[K][V]<type>" at \p At of \p S: the space and the element
/// size (vectors Dv<N>_<t>, a 3-vector stored as a 4-vector; Dh half);
/// \p At moves past it.
std::optional<std::pair<AddrSpace, unsigned>>
pointerParam(const std::string &S, size_t &At, unsigned LastBytes) {
  if (S.compare(At, 5, "PU3AS") != 0 || At + 6 > S.size())
    return std::nullopt;
  char N = S[At + 5];
  AddrSpace Sp = N == '1'   ? AddrSpace::Global
                 : N == '3' ? AddrSpace::Shared
                 : N == '2' ? AddrSpace::Const
                            : AddrSpace::Generic;
  At += 6;
  while (At < S.size() && (S[At] == 'K' || S[At] == 'V'))
    ++At;
  unsigned Bytes = 0;
  if (S.compare(At, 2, "S_") == 0) { // the first pointer's element type
    Bytes = LastBytes;
    At += 2;
  } else if (S.compare(At, 2, "Dh") == 0) {
    Bytes = 2;
    At += 2;
  } else if (S.compare(At, 2, "Dv") == 0) {
    size_t P = At + 2;
    unsigned Lanes = 0;
    while (P < S.size() && std::isdigit(static_cast<unsigned char>(S[P])))
      Lanes = Lanes * 10 + static_cast<unsigned>(S[P++] - '0');
    if (P + 1 >= S.size() || S[P] != '_')
      return std::nullopt;
    unsigned Elem = S.compare(P + 1, 2, "Dh") == 0 ? 2 : scalarBytes(S[P + 1]);
    Bytes = (Lanes == 3 ? 4 : Lanes) * Elem;
    At = P + (S.compare(P + 1, 2, "Dh") == 0 ? 3 : 2);
  } else if (At < S.size()) {
    Bytes = scalarBytes(S[At++]);
  }
  return std::make_pair(Sp, Bytes);
}

} // namespace

std::optional<WorkGroupCopyCall> workGroupCopyCall(const std::string &Callee) {
  auto M = splitMangled(Callee);
  if (!M || (M->first != "async_work_group_copy" &&
             M->first != "async_work_group_strided_copy"))
    return std::nullopt;
  WorkGroupCopyCall C;
  C.Strided = M->first == "async_work_group_strided_copy";
  C.EventArg = C.Strided ? 4 : 3;
  size_t At = 0;
  auto Dst = pointerParam(M->second, At, 0);
  if (!Dst)
    return C;
  auto Src = pointerParam(M->second, At, Dst->second);
  C.Dst = Dst->first;
  C.ElemBytes = Dst->second;
  if (Src) {
    C.Src = Src->first;
    if (Src->second != C.ElemBytes)
      C.ElemBytes = 0;
  }
  return C;
}

bool isWaitGroupEvents(const std::string &Callee) {
  auto M = splitMangled(Callee);
  return M && M->first == "wait_group_events";
}

bool isOpenCLPrefetch(const std::string &Callee) {
  auto M = splitMangled(Callee);
  return M && M->first == "prefetch" && M->second.rfind("PU3AS1", 0) == 0;
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
  case AsyncCompletion::WorkGroup:
    return isWaitGroupEvents(calleeOf(I));
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
    if (workGroupCopyCall(calleeOf(I))) {
      AsyncCopy C;
      C.Item = Item;
      C.How = AsyncCompletion::WorkGroup;
      for (unsigned W : F.instructions())
        if (observes(F.inst(W), C.How))
          C.Waits.push_back(W);
      Out.push_back(std::move(C));
      continue;
    }
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
                     : C.How == AsyncCompletion::WorkGroup
                         ? "a wait_group_events naming its event"
                         : "a bulk async-group";
  if (C.Waits.empty())
    return fmt::format("{}, which no instruction of the kernel waits for",
                       What);
  const Instruction &W = F.inst(C.Waits.front());
  if (C.How == AsyncCompletion::WorkGroup)
    return fmt::format("{} (wait_group_events at PTX line {})", What,
                       W.Range.Begin.Line);
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
