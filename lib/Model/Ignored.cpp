//===- Ignored.cpp - What of a test a memory model cannot see -------------===//
#include "incant/Model/Ignored.h"
#include "Primitives.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace incant::model {

namespace {

using litmus::FenceKind;
using litmus::Op;
using litmus::Proxy;
using litmus::Scope;
using litmus::Sem;

/// A scope as the instruction spells it: "cluster" of CLUSTER.
std::string scopeName(Scope S) {
  std::string N(scopeSetName(S));
  for (char &C : N)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return N;
}

/// The name of a memory order and the sets its events are in (as the
/// execution's primitives give them: an atom's read acquires, its write
/// releases).
std::pair<const char *, std::vector<std::string>> semantics(const Op &O) {
  switch (O.S) {
  case Sem::Weak: return {"", {}};
  case Sem::Volatile: return {".volatile", {"VOL", "RLX", "SYS"}};
  case Sem::Relaxed: return {".relaxed", {"RLX"}};
  case Sem::Acquire: return {".acquire", {"ACQ"}};
  case Sem::Release: return {".release", {"REL"}};
  case Sem::AcqRel:
    return {".acq_rel", O.K == Op::Kind::Rmw
                            ? std::vector<std::string>{"ACQ", "REL"}
                            : std::vector<std::string>{"ACQ_REL"}};
  case Sem::SC: return {".sc", {"SC"}};
  }
  return {"", {}};
}

/// Each feature of \p O with the primitives that show it.
std::vector<IgnoredFeature> featuresOf(const Op &O) {
  std::vector<IgnoredFeature> F;
  auto Add = [&](std::string What, std::vector<std::string> Through) {
    F.push_back({&O, std::move(What), std::move(Through)});
  };
  switch (O.K) {
  case Op::Kind::Fence:
    if (O.Fence == FenceKind::Proxy) {
      std::string Px(proxySetName(O.Px));
      Add("the ordering (a proxy fence for " + Px + ")", {"F", Px, "AWAIT"});
      return F;
    }
    {
      std::vector<std::string> Through = {
          "F",
          O.Fence == FenceKind::Membar    ? "MEMBAR"
          : O.Fence == FenceKind::FenceSC ? "FENCE_SC"
                                          : "FENCE_ACQ_REL",
          O.Fence == FenceKind::FenceAcqRel ? "ACQ_REL" : "SC",
          std::string(fenceRelationName(O.Fence, O.Sc))};
      if (O.Fence == FenceKind::FenceSC)
        Through.push_back("sync_fence");
      Add("the ordering", std::move(Through));
    }
    return F;
  case Op::Kind::Barrier:
    if (O.ClusterBarrier)
      Add("the ordering", {"CBAR", "B", "syncbar"});
    else
      Add("the ordering", {"B", "syncbar"});
    return F;
  case Op::Kind::Load:
  case Op::Kind::Store:
  case Op::Kind::Rmw:
    break;
  default:
    return F;
  }
  if (O.K == Op::Kind::Rmw)
    Add("the atomicity", {"ATOM", "rmw"});
  if (auto [Name, Sets] = semantics(O); !Sets.empty())
    Add(std::string("the ") + Name, std::move(Sets));
  if (O.S != Sem::Weak && O.S != Sem::Volatile && O.Sc != Scope::None)
    Add("the scope ." + scopeName(O.Sc), {std::string(scopeSetName(O.Sc)), "sr"});
  if (O.Px != Proxy::Generic) {
    std::string Px(proxySetName(O.Px));
    Add("the proxy (" + Px + ")", {Px, "AOP", "async-inst"});
  }
  return F;
}

} // namespace

std::vector<IgnoredFeature> ignoredFeatures(const litmus::Program &P,
                                            const cat::Model &M) {
  std::vector<IgnoredFeature> R;
  std::map<std::string, bool> Seen; // one warning per feature and test
  for (const litmus::ThreadProgram &T : P.Threads)
    for (const Op &O : T.Ops)
      for (IgnoredFeature &F : featuresOf(O)) {
        if (std::any_of(F.Through.begin(), F.Through.end(),
                        [&](const std::string &N) { return M.usesPrimitive(N); }))
          continue;
        std::string Key = F.What;
        for (const std::string &N : F.Through)
          Key += ' ' + N;
        if (Seen.emplace(Key, true).second)
          R.push_back(std::move(F));
      }
  return R;
}

} // namespace incant::model
