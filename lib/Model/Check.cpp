//===- Check.cpp - model::check -------------------------------------------===//
#include "incant/Model/Check.h"
#include "incant/Model/Executions.h"

#include "incant/Cat/Evaluator.h"
#include "incant/Litmus/Condition.h"

#include <algorithm>
#include <functional>

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

/// The distinct final states of a test, their values side by side in one
/// array (a test of thousands of states spent a fifth of its time in a
/// tree's, then a hash map's, comparisons of separately allocated value
/// vectors), found through an open-addressing table of their indices.
class StateTable {
public:
  explicit StateTable(size_t Width) : Width(Width) {}
  /// The index of the state \p Key (Width values), \p New if just added.
  uint32_t find(const litmus::Value *Key, bool &New) {
    if (2 * (Count + 1) > Slots.size())
      grow();
    size_t Mask = Slots.size() - 1;
    for (size_t H = hash(Key) & Mask;; H = (H + 1) & Mask) {
      uint32_t Slot = Slots[H];
      if (Slot == 0) {
        Slots[H] = uint32_t(++Count);
        Values.insert(Values.end(), Key, Key + Width);
        New = true;
        return uint32_t(Count - 1);
      }
      if (std::equal(Key, Key + Width, Values.data() + (Slot - 1) * Width)) {
        New = false;
        return Slot - 1;
      }
    }
  }
  size_t size() const { return Count; }
  const litmus::Value *values(size_t I) const {
    return Values.data() + I * Width;
  }

private:
  size_t Width, Count = 0;
  std::vector<litmus::Value> Values;
  std::vector<uint32_t> Slots; ///< State index + 1; 0 free.
  size_t hash(const litmus::Value *Key) const {
    uint64_t H = 0x9e3779b97f4a7c15ull;
    for (size_t I = 0; I != Width; ++I) {
      H ^= uint64_t(Key[I].Int) + (uint64_t(uint32_t(Key[I].Loc)) << 40);
      H *= 0xff51afd7ed558ccdull;
      H ^= H >> 29;
    }
    return size_t(H);
  }
  void grow() {
    Slots.assign(std::max<size_t>(64, Slots.size() * 2), 0);
    size_t Mask = Slots.size() - 1;
    for (size_t I = 0; I != Count; ++I) {
      size_t H = hash(values(I)) & Mask;
      while (Slots[H])
        H = (H + 1) & Mask;
      Slots[H] = uint32_t(I + 1);
    }
  }
};

} // namespace

CheckResult model::check(const litmus::Program &P, const cat::Model &M,
                         const CheckOptions &Opts) {
  CheckResult Res;
  StateTable Table(P.Observe.size());
  std::vector<State> States; ///< Per entry of Table, without Values.
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
          bool New = false;
          uint32_t I = Table.find(Key.data(), New);
          if (New) {
            States.emplace_back();
            States.back().Satisfies = litmus::holds(P, P.Condition, Key);
          }
          State &St = States[I];
          ++St.Executions;
          (St.Satisfies ? Res.Positive : Res.Negative) += 1;
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
  // Sorted as State's operator< orders them: the values lexicographically,
  // each by location, then integer.
  size_t Width = P.Observe.size();
  std::vector<uint32_t> Order(Table.size());
  for (size_t I = 0; I != Order.size(); ++I)
    Order[I] = uint32_t(I);
  std::sort(Order.begin(), Order.end(), [&](uint32_t A, uint32_t B) {
    const litmus::Value *X = Table.values(A), *Y = Table.values(B);
    for (size_t I = 0; I != Width; ++I) {
      if (X[I].Loc != Y[I].Loc)
        return X[I].Loc < Y[I].Loc;
      if (X[I].Int != Y[I].Int)
        return X[I].Int < Y[I].Int;
    }
    return false;
  });
  Res.States.reserve(Order.size());
  for (uint32_t I : Order) {
    State &St = States[I];
    St.Values.assign(Table.values(I), Table.values(I) + Width);
    Res.States.push_back(std::move(St));
  }
  std::sort(Flags.begin(), Flags.end());
  Res.Flags = std::move(Flags);
  Res.Ok = litmus::quantifierHolds(P.Q, Res.Positive, Res.Negative);
  return Res;
}
