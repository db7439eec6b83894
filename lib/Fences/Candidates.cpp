//===- Candidates.cpp - The fences a search may keep ----------------------===//
#include "incant/Fences/Candidates.h"
#include "incant/Intercept/Fences.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace incant::fences {

CandidateList candidatesFor(const std::vector<intercept::UnitManifest> &Units,
                            const std::vector<apptest::KernelRecord> &Launched) {
  CandidateList C;
  // Kernels launched, per unit (a kernel whose unit is unknown counts in
  // every unit that defines it).
  std::map<std::string, std::set<std::string>> ByUnit;
  for (const apptest::KernelRecord &K : Launched) {
    bool Found = false;
    for (const intercept::UnitManifest &U : Units) {
      if (!K.Unit.empty() && K.Unit != U.Id)
        continue;
      for (const intercept::FunctionRecord &F : U.Functions)
        if (F.IsEntry && F.Name == K.Name) {
          ByUnit[U.Id].insert(K.Name);
          Found = true;
        }
    }
    if (!Found)
      C.Uncovered.push_back(K.Name);
  }
  for (const intercept::UnitManifest &U : Units) {
    auto It = ByUnit.find(U.Id);
    if (It == ByUnit.end())
      continue;
    // The launched kernels and every function they reach by calls.
    std::set<std::string> Reached;
    std::vector<std::string> Work(It->second.begin(), It->second.end());
    bool Any = false;
    while (!Work.empty()) {
      std::string F = Work.back();
      Work.pop_back();
      if (!Reached.insert(F).second)
        continue;
      for (const intercept::FunctionRecord &R : U.Functions)
        if (R.Name == F)
          for (const std::string &Callee : R.Calls) {
            if (Callee == "*")
              Any = true;
            else
              Work.push_back(Callee);
          }
    }
    std::vector<intercept::Site> Sites;
    for (const intercept::Site &S : U.Sites)
      if (S.Pass == "fences" &&
          (Reached.count(S.Function) ||
           (Any && std::none_of(U.Functions.begin(), U.Functions.end(),
                                [&](const intercept::FunctionRecord &R) {
                                  return R.Name == S.Function && R.IsEntry;
                                }))))
        Sites.push_back(S);
    if (Sites.empty()) {
      for (const std::string &K : It->second)
        C.Uncovered.push_back(K);
      continue;
    }
    std::stable_sort(Sites.begin(), Sites.end(),
                     [](const intercept::Site &A, const intercept::Site &B) {
                       return A.PtxLine < B.PtxLine;
                     });
    for (intercept::Site &S : Sites)
      C.Fences.push_back({U.Id, std::move(S)});
    C.Units.push_back(U);
  }
  return C;
}

std::string fenceVariable(const CandidateList &C, const FenceSet &F) {
  // Per unit, the sites of each kind.
  std::map<std::string, FenceSet> ByUnit;
  for (const auto &[Index, Kind] : F)
    if (Index < C.Fences.size())
      ByUnit[C.Fences[Index].Unit][C.Fences[Index].S.Id] = Kind;
  std::string Out;
  for (const auto &[Unit, Sites] : ByUnit)
    Out += fmt::format("{}{}:{}", Out.empty() ? "" : ";", Unit,
                       formatSet(Sites));
  return Out;
}

} // namespace incant::fences
