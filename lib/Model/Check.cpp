//===- Check.cpp - model::check -------------------------------------------===//
#include "incant/Model/Check.h"
#include "incant/Model/Executions.h"

#include "incant/Litmus/Condition.h"

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
  CandidateShape Shape;
  Shape.PartialCoherence = M.partialCoherence();
  Shape.FenceSCOrder = M.usesPrimitive("sync_fence");
  EnumerationStats Stats =
      forEachCandidate(P, Opts, Shape, [&](const Candidate &C) {
        cat::Verdict V = M.evaluate(C.execution());
        if (!V.Allowed)
          return true;
        for (std::string &F : V.Flags)
          if (std::find(Flags.begin(), Flags.end(), F) == Flags.end())
            Flags.push_back(std::move(F));
        C.forEachFinalState([&] {
          Key.clear();
          for (const litmus::Observed &O : P.Observe) {
            if (O.Thread < 0) {
              Key.push_back(C.finalLoc(unsigned(O.Index)));
              continue;
            }
            const litmus::Register &R =
                P.Threads[size_t(O.Thread)].Regs[unsigned(O.Index)];
            Key.push_back(wrapValue(
                C.finalReg(unsigned(O.Thread), unsigned(O.Index)), R.Bits,
                R.Signed));
          }
          auto [It, New] = States.try_emplace(Key);
          if (New) {
            It->second.Values = Key;
            It->second.Satisfies = litmus::holds(P, P.Condition, Key);
          }
          ++It->second.Executions;
          (It->second.Satisfies ? Res.Positive : Res.Negative) += 1;
        });
        return true;
      });
  Res.Candidates = Stats.Candidates;
  Res.Incomplete = Stats.Incomplete;
  for (auto &[K, S] : States)
    Res.States.push_back(std::move(S));
  std::sort(Flags.begin(), Flags.end());
  Res.Flags = std::move(Flags);
  Res.Ok = litmus::quantifierHolds(P.Q, Res.Positive, Res.Negative);
  return Res;
}
