//===- Check.cpp - model::check -------------------------------------------===//
#include "incant/Model/Check.h"
#include "incant/Model/Executions.h"

#include "incant/Cat/Evaluator.h"
#include "incant/Litmus/Condition.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

using namespace incant;
using namespace incant::model;

namespace {

/// The model's verdicts on partial choices, for the enumerator to skip what
/// the model forbids however the choice is completed.
class ModelPruner : public CandidatePruner {
public:
  explicit ModelPruner(cat::Evaluator &Ev) : Ev(Ev) {}
  bool admits(const cat::Execution &X, unsigned Level) override {
    return Ev.stage(X, Level);
  }
  bool keep(const cat::Execution &X, unsigned Level) override {
    return Ev.keep(X, Level);
  }
  bool refutes(const cat::Execution &X, unsigned From,
               uint32_t UpperMask) override {
    return Ev.refutes(X, From, UpperMask);
  }
  bool canRefute(const cat::Execution &X, unsigned From,
                 uint32_t UpperMask) override {
    return Ev.canRefute(X, From, UpperMask);
  }
  bool coherenceOrdered(const cat::Execution &X, cat::Relation &Out) override {
    return Ev.coherenceOrdered(X, Out);
  }

private:
  cat::Evaluator &Ev;
};

/// A final state's values hashed (the states are sorted once at the end: a
/// test of thousands of states spent a tenth of its time in a tree's
/// comparisons of value vectors).
struct ValuesHash {
  size_t operator()(const std::vector<litmus::Value> &Vs) const {
    uint64_t H = 0x9e3779b97f4a7c15ull;
    for (const litmus::Value &V : Vs) {
      H ^= uint64_t(V.Int) + (uint64_t(uint32_t(V.Loc)) << 40);
      H *= 0xff51afd7ed558ccdull;
      H ^= H >> 29;
    }
    return size_t(H);
  }
};

} // namespace

CheckResult model::check(const litmus::Program &P, const cat::Model &M,
                         const CheckOptions &Opts) {
  CheckResult Res;
  std::unordered_map<std::vector<litmus::Value>, State, ValuesHash> States;
  std::vector<litmus::Value> Key;
  std::vector<std::string> Flags;
  CandidateShape Shape;
  Shape.PartialCoherence = M.partialCoherence();
  Shape.FenceSCOrder = M.usesPrimitive("sync_fence");
  cat::Evaluator Ev(M);
  ModelPruner Pruner(Ev);
  EnumerationStats Stats = forEachCandidate(
      P, Opts, Shape,
      [&](const Candidate &C) {
        cat::Verdict V = Ev.finish(C.execution());
        if (!V.Allowed)
          return true;
        for (std::string &F : V.Flags)
          if (std::find(Flags.begin(), Flags.end(), F) == Flags.end())
            Flags.push_back(std::move(F));
        auto Record = [&] {
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
        };
        // By reference: a std::function of the lambda itself would be
        // allocated per candidate.
        C.forEachFinalState(std::ref(Record));
        return true;
      },
      &Pruner);
  Res.Candidates = Stats.Candidates;
  Res.Steps = Stats.Steps;
  Res.Incomplete = Stats.Incomplete;
  Res.IncompleteReason = Stats.Reason;
  Res.StoppedByCaller = Stats.StoppedByCaller;
  // Sorted as State's operator< orders them (Values lexicographically,
  // each value by location, then integer), through pointers and a plain
  // loop: moving States and C++20's three-way vector comparison made the
  // sort of a test of thousands of states cost more than the tree it
  // replaced.
  std::vector<State *> Order;
  Order.reserve(States.size());
  for (auto &KS : States)
    Order.push_back(&KS.second);
  std::sort(Order.begin(), Order.end(), [](const State *A, const State *B) {
    const std::vector<litmus::Value> &X = A->Values, &Y = B->Values;
    for (size_t I = 0, E = std::min(X.size(), Y.size()); I != E; ++I) {
      if (X[I].Loc != Y[I].Loc)
        return X[I].Loc < Y[I].Loc;
      if (X[I].Int != Y[I].Int)
        return X[I].Int < Y[I].Int;
    }
    return X.size() < Y.size();
  });
  Res.States.reserve(States.size());
  for (State *S : Order)
    Res.States.push_back(std::move(*S));
  std::sort(Flags.begin(), Flags.end());
  Res.Flags = std::move(Flags);
  Res.Ok = litmus::quantifierHolds(P.Q, Res.Positive, Res.Negative);
  return Res;
}
