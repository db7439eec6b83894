//===- Unoptimised.cpp - Races of nvcc's unoptimised build ----------------===//
//
// The races the optimiser hid: nvcc's unoptimised build (-Xcicc -O0) of a
// source checked only where the optimised build removed an access
// (checkUnoptimised), and its races added to the optimised build's report
// (addUnoptimisedRaces, Input.h).
//
//===----------------------------------------------------------------------===//
#include "incant/Race/Input.h"
#include "incant/Race/Race.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace incant::race {

namespace {

/// file:line, read/write and space of an access: how accesses of two
/// builds of one source are matched.
std::string accessKey(const Access &A) {
  const ir::SourceFrame *Fr = A.Loc.userFrame();
  return fmt::format("{}:{}:{}{}", Fr ? Fr->File : "", Fr ? Fr->Line : 0,
                     A.Reads ? "r" : "", A.Writes ? "w" : "");
}

} // namespace

/// Wall-clock seconds of one kernel's check in the unoptimised build when
/// the options give none (incant race: when --kernel-time is not given;
/// the optimised build's default is longer): its libraries' inlined code
/// (a cuda::barrier pipeline: 175 functions) can take minutes, for races
/// that are extra.
constexpr double UnoptimisedSeconds = 5;

ModuleReport checkUnoptimised(const ptx::Module &MU, const ModuleReport &R,
                              const Options &O) {
  ModuleReport Out;
  for (const KernelReport &K : R.Kernels) {
    if (K.Races || K.Divergent)
      continue;
    std::set<std::string> Present;
    for (const Access &A : K.Accesses)
      Present.insert(accessKey(A));
    Options OU = O;
    OU.Kernel = K.Name;
    if (OU.KernelSeconds <= 0)
      OU.KernelSeconds = UnoptimisedSeconds;
    // The launch this report checked, alone.
    if (auto Known = O.HostLaunches.find(K.Name); Known != O.HostLaunches.end()) {
      std::vector<KnownLaunch> One;
      for (const KnownLaunch &L : Known->second)
        if (L.Description == K.Launch)
          One = {L};
      OU.HostLaunches = {{K.Name, One}};
    }
    // An asynchronous copy is never the optimiser's to remove (inline asm,
    // intrinsics), though its source line may differ between the builds
    // (the helper it was written in): its pairs are the optimised build's.
    auto Async = [](const Access &A) { return A.Text.rfind("cp.", 0) == 0; };
    OU.PairFilter = [&Present, Async](const Access &A, const Access &B) {
      return !Async(A) && !Async(B) &&
             (!Present.count(accessKey(A)) || !Present.count(accessKey(B)));
    };
    ModuleReport One = checkModule(MU, OU);
    for (KernelReport &KU : One.Kernels)
      Out.Kernels.push_back(std::move(KU));
  }
  return Out;
}

void addUnoptimisedRaces(ModuleReport &R, const ModuleReport &RU) {
  for (KernelReport &K : R.Kernels) {
    K.Build = "optimized";
    if (K.Races || K.Divergent)
      continue;
    const KernelReport *KU = nullptr;
    for (const KernelReport &C : RU.Kernels)
      if (C.Name == K.Name && C.Launch == K.Launch)
        KU = &C;
    if (!KU)
      continue;
    for (const std::string &A : KU->OptionAssumptions)
      if (std::find(K.OptionAssumptions.begin(), K.OptionAssumptions.end(),
                    A) == K.OptionAssumptions.end())
        K.OptionAssumptions.push_back(A);
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
    unsigned Late = 0;
    for (const PairResult &P : KU->Pairs)
      Late += P.V == Verdict::Unknown &&
              P.Reason.find("the kernel's time limit ran out") !=
                  std::string::npos;
    if (Late)
      K.Notes.push_back(fmt::format(
          "the unoptimised build's check ran out of time ({} pair{} not "
          "decided): races of accesses the optimiser removed may be missing "
          "(--optimized skips that build; --kernel-time S gives it more)",
          Late, Late == 1 ? "" : "s"));
    if (Found)
      K.Notes.push_back(fmt::format(
          "{} race{} found in nvcc's unoptimised build (-Xcicc -O0) between "
          "accesses the optimised code no longer makes (their positions are "
          "in that build)",
          Found, Found == 1 ? "" : "s"));
  }
}

} // namespace incant::race
