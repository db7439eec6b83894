//===- Check.cpp - model::check -------------------------------------------===//
#include "incant/Model/Check.h"
#include "incant/Model/Executions.h"

#include <algorithm>
#include <map>

using namespace incant;
using namespace incant::model;

CheckResult model::check(const litmus::Program &P, const cat::Model &M,
                         const CheckOptions &Opts) {
  CheckResult Res;
  std::map<std::vector<litmus::Value>, State> States;
  std::vector<litmus::Value> Key;
  std::vector<std::string> Flags;
  EnumerationStats Stats = forEachCandidate(P, Opts, [&](const Candidate &C) {
    cat::Verdict V = M.evaluate(C.execution());
    if (!V.Allowed)
      return true;
    for (std::string &F : V.Flags)
      if (std::find(Flags.begin(), Flags.end(), F) == Flags.end())
        Flags.push_back(std::move(F));
    bool Sat = satisfies(P.Condition, C);
    (Sat ? Res.Positive : Res.Negative) += 1;
    Key.clear();
    for (const litmus::Observed &O : P.Observe) {
      if (O.Thread < 0) {
        Key.push_back(C.finalLoc(unsigned(O.Index)));
        continue;
      }
      const litmus::Register &R =
          P.Threads[O.Thread].Regs[unsigned(O.Index)];
      Key.push_back(wrapValue(C.finalReg(unsigned(O.Thread),
                                         unsigned(O.Index)),
                              R.Bits, R.Signed));
    }
    auto [It, New] = States.try_emplace(Key);
    if (New) {
      It->second.Values = Key;
      It->second.Satisfies = Sat;
    }
    ++It->second.Executions;
    return true;
  });
  Res.Candidates = Stats.Candidates;
  Res.Incomplete = Stats.Incomplete;
  for (auto &[K, S] : States)
    Res.States.push_back(std::move(S));
  std::sort(Flags.begin(), Flags.end());
  Res.Flags = std::move(Flags);
  switch (P.Q) {
  case litmus::Quantifier::Exists:
    Res.Ok = Res.Positive > 0;
    break;
  case litmus::Quantifier::NotExists:
    Res.Ok = Res.Positive == 0;
    break;
  case litmus::Quantifier::Forall:
    Res.Ok = Res.Negative == 0;
    break;
  }
  return Res;
}
