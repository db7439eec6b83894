//===- Traces.cpp - Per-thread traces by value guessing -------------------===//
//
// Each thread is run alone. A read (ld, or the read half of atom/red) does
// not know what the other threads wrote, so it branches over every value its
// location may hold; that set comes from a fixpoint: start with the initial
// values, run all threads, add every value some trace stores, and repeat until
// nothing new appears (bounded by TraceOptions). Registers carry, besides
// their value, the set of reads their value was computed from, which gives
// the addr/data/ctrl dependencies of later events.
//
//===----------------------------------------------------------------------===//
#include "incant/Model/Traces.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <utility>

using namespace incant;
using namespace incant::model;
using litmus::Op;
using litmus::Operand;
using litmus::Value;

Value model::wrapValue(Value V, unsigned Bits, bool Signed) {
  if (V.isAddress() || Bits >= 64 || Bits == 0)
    return V;
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  uint64_t U = uint64_t(V.Int) & Mask;
  if (Bits == 1)
    return Value{-1, int64_t(U)};
  if (Signed && (U >> (Bits - 1)) & 1)
    U |= ~Mask;
  return Value{-1, int64_t(U)};
}

namespace {

/// The state of one partial run of a thread.
struct RunState {
  size_t Pc = 0;
  std::vector<Value> Regs;
  std::vector<uint64_t> RegDeps;  ///< Read ordinals each register depends on.
  uint64_t CtrlDeps = 0;          ///< Reads that the control flow depends on.
  std::vector<uint16_t> BackTaken; ///< Per op: times this backward branch was taken.
  /// ((instance, id), count so far) of the barriers met.
  std::vector<std::pair<std::pair<int32_t, int64_t>, int32_t>> BarrierCounts;
  std::vector<std::pair<int32_t, Value>> OwnWrites; ///< (location, value) so far
  Trace T;
};

class ThreadRunner {
public:
  ThreadRunner(const litmus::Program &P, const litmus::ThreadProgram &Th,
               const std::vector<std::vector<Value>> &Visible,
               std::vector<std::vector<Value>> &Written,
               const TraceOptions &Opts, std::vector<Trace> &Out,
               bool &Incomplete)
      : P(P), Th(Th), Visible(Visible), Written(Written), Opts(Opts),
        Out(Out), Incomplete(Incomplete) {}

  void run() {
    RunState S;
    S.Regs.reserve(Th.Regs.size());
    for (const litmus::Register &R : Th.Regs)
      S.Regs.push_back(R.Init);
    S.RegDeps.assign(Th.Regs.size(), 0);
    S.BackTaken.assign(Th.Ops.size(), 0);
    go(std::move(S));
  }

private:
  const litmus::Program &P;
  const litmus::ThreadProgram &Th;
  /// Per location: its initial value and what other threads may write.
  const std::vector<std::vector<Value>> &Visible;
  /// Per location: values this thread's runs write (even runs later dropped).
  std::vector<std::vector<Value>> &Written;
  const TraceOptions &Opts;
  std::vector<Trace> &Out;
  bool &Incomplete;
  bool Stopped = false;
  /// Reads performed over all runs of this thread, dropped ones included;
  /// bounds the work of a round however the runs branch.
  uint64_t Steps = 0;

  Value operandValue(const RunState &S, const Operand &O) const {
    switch (O.K) {
    case Operand::Kind::Reg:
      assert(O.Reg >= 0 && size_t(O.Reg) < S.Regs.size());
      return S.Regs[O.Reg];
    case Operand::Kind::Imm:
    case Operand::Kind::Addr:
      return O.Imm;
    case Operand::Kind::None:
      break;
    }
    return Value{};
  }
  uint64_t operandDeps(const RunState &S, const Operand &O) const {
    if (O.K == Operand::Kind::Reg && O.Reg >= 0 && size_t(O.Reg) < S.RegDeps.size())
      return S.RegDeps[O.Reg];
    return 0;
  }

  /// The location (name) an access goes to, or nullopt if its address is
  /// not exactly a location.
  std::optional<int32_t> accessLoc(const RunState &S, const Op &O) const {
    Value A = operandValue(S, O.Addr);
    if (!A.isAddress() || A.Int != 0 || size_t(A.Loc) >= P.Locs.size())
      return std::nullopt;
    return A.Loc;
  }
  int32_t physOf(int32_t L) const { return P.Locs[size_t(L)].phys(L); }
  int32_t genericOf(int32_t L) const { return P.Locs[size_t(L)].generic(L); }

  static bool truthy(Value V) { return V.isAddress() || V.Int != 0; }

  /// Guard: does the op execute?
  bool guardHolds(const RunState &S, const Op &O) const {
    if (O.GuardReg < 0)
      return true;
    return truthy(S.Regs[O.GuardReg]) != O.GuardNegated;
  }

  void setReg(RunState &S, int32_t R, Value V, uint64_t Deps) {
    if (R < 0)
      return;
    assert(size_t(R) < S.Regs.size());
    S.Regs[R] = V;
    S.RegDeps[R] = Deps;
  }

  Event makeEvent(const Op &O, size_t OpIndex, EventKind K) const {
    Event E;
    E.K = K;
    E.OpIndex = int32_t(OpIndex);
    E.S = O.S;
    E.Sc = O.Sc;
    E.Cache = O.Cache;
    E.Fence = O.Fence;
    E.Px = O.Px;
    return E;
  }

  /// Adds a read event; returns its ordinal or nullopt if there are too many.
  std::optional<unsigned> addRead(RunState &S, Event E) {
    if (S.T.Reads.size() >= 64) {
      Incomplete = true;
      return std::nullopt;
    }
    unsigned Ord = unsigned(S.T.Reads.size());
    S.T.Reads.push_back(int32_t(S.T.Events.size()));
    S.T.Events.push_back(E);
    return Ord;
  }

  static std::optional<Value> alu(const Op &O, Value A, Value B) {
    using litmus::AluOp;
    auto Int = [&](int64_t X) {
      return std::optional<Value>(wrapValue(Value{-1, X}, O.Bits, O.Signed));
    };
    bool Pred = O.Bits == 1;
    switch (O.Alu) {
    case AluOp::Mov:
      return A.isAddress() ? A : wrapValue(A, O.Bits, O.Signed);
    case AluOp::Cvt:
      return A.isAddress() ? A : wrapValue(A, O.Bits, O.Signed);
    case AluOp::Add:
      if (A.isAddress() && B.isAddress())
        return std::nullopt;
      if (A.isAddress() || B.isAddress()) {
        Value Ad = A.isAddress() ? A : B;
        Ad.Int += A.isAddress() ? B.Int : A.Int;
        return Ad;
      }
      return Int(int64_t(uint64_t(A.Int) + uint64_t(B.Int)));
    case AluOp::Sub:
      if (A.isAddress() && B.isAddress()) {
        if (A.Loc != B.Loc)
          return std::nullopt;
        return Int(A.Int - B.Int);
      }
      if (B.isAddress())
        return std::nullopt;
      if (A.isAddress())
        return Value{A.Loc, A.Int - B.Int};
      return Int(int64_t(uint64_t(A.Int) - uint64_t(B.Int)));
    default:
      break;
    }
    if (A.isAddress() || B.isAddress())
      return std::nullopt;
    switch (O.Alu) {
    case AluOp::Mul:
      return Int(int64_t(uint64_t(A.Int) * uint64_t(B.Int)));
    case AluOp::And:
      return Int(A.Int & B.Int);
    case AluOp::Or:
      return Int(A.Int | B.Int);
    case AluOp::Xor:
      return Int(A.Int ^ B.Int);
    case AluOp::Not:
      return Pred ? Int(A.Int == 0 ? 1 : 0) : Int(~A.Int);
    default:
      break;
    }
    assert(false && "unhandled ALU op");
    return std::nullopt;
  }

  /// Compares A and B as the op's type says; nullopt if meaningless.
  static std::optional<bool> compare(const Op &O, Value A, Value B) {
    using litmus::CmpOp;
    if (A.isAddress() || B.isAddress()) {
      if (O.Cmp == CmpOp::Eq)
        return A == B;
      if (O.Cmp == CmpOp::Ne)
        return !(A == B);
      if (!A.isAddress() || !B.isAddress() || A.Loc != B.Loc)
        return std::nullopt;
      A = Value{-1, A.Int};
      B = Value{-1, B.Int};
    }
    int64_t X = wrapValue(A, O.Bits, O.Signed).Int;
    int64_t Y = wrapValue(B, O.Bits, O.Signed).Int;
    bool Eq = X == Y;
    bool Lt = O.Signed ? X < Y : uint64_t(X) < uint64_t(Y);
    switch (O.Cmp) {
    case CmpOp::Eq: return Eq;
    case CmpOp::Ne: return !Eq;
    case CmpOp::Lt: return Lt;
    case CmpOp::Le: return Lt || Eq;
    case CmpOp::Gt: return !Lt && !Eq;
    case CmpOp::Ge: return !Lt;
    }
    return std::nullopt;
  }

  /// The value an atom writes, given the old value; nullopt for a failed
  /// cas (no write) or a meaningless operation.
  static std::optional<Value> rmwResult(const Op &O, Value Old,
                                        const std::vector<Value> &Args,
                                        bool &Invalid) {
    using litmus::RmwOp;
    Invalid = false;
    Value A = Args.empty() ? Value{} : Args[0];
    auto Int = [&](int64_t X) {
      return std::optional<Value>(wrapValue(Value{-1, X}, O.Bits, O.Signed));
    };
    if (O.Rmw == RmwOp::Cas) {
      Value New = Args.size() > 1 ? Args[1] : Value{};
      Old = Old.isAddress() ? Old : wrapValue(Old, O.Bits, O.Signed);
      Value Cmp = A.isAddress() ? A : wrapValue(A, O.Bits, O.Signed);
      if (!(Old == Cmp))
        return std::nullopt;
      return New.isAddress() ? New : wrapValue(New, O.Bits, O.Signed);
    }
    if (O.Rmw == RmwOp::Exch)
      return A.isAddress() ? A : wrapValue(A, O.Bits, O.Signed);
    if (Old.isAddress() || A.isAddress()) {
      Invalid = true;
      return std::nullopt;
    }
    int64_t X = wrapValue(Old, O.Bits, O.Signed).Int;
    int64_t Y = wrapValue(A, O.Bits, O.Signed).Int;
    auto Less = [&](int64_t P, int64_t Q) {
      return O.Signed ? P < Q : uint64_t(P) < uint64_t(Q);
    };
    switch (O.Rmw) {
    case RmwOp::Add:
      return Int(int64_t(uint64_t(X) + uint64_t(Y)));
    case RmwOp::Sub:
      return Int(int64_t(uint64_t(X) - uint64_t(Y)));
    case RmwOp::And:
      return Int(X & Y);
    case RmwOp::Or:
      return Int(X | Y);
    case RmwOp::Xor:
      return Int(X ^ Y);
    case RmwOp::Min:
      return Int(Less(Y, X) ? Y : X);
    case RmwOp::Max:
      return Int(Less(X, Y) ? Y : X);
    // PTX atom.inc/dec are unsigned: inc wraps to 0 at the bound, dec to it.
    case RmwOp::Inc:
      return Int(uint64_t(X) >= uint64_t(Y) ? 0 : X + 1);
    case RmwOp::Dec:
      return Int(X == 0 || uint64_t(X) > uint64_t(Y) ? Y : X - 1);
    default:
      break;
    }
    Invalid = true;
    return std::nullopt;
  }

  void noteWrite(RunState &S, const Event &W) {
    S.OwnWrites.push_back({W.Loc, W.V});
    std::vector<Value> &Vs = Written[W.Loc];
    auto It = std::lower_bound(Vs.begin(), Vs.end(), W.V);
    if (It == Vs.end() || !(*It == W.V))
      Vs.insert(It, W.V);
  }

  void finish(RunState &S) {
    if (Out.size() >= Opts.MaxTracesPerThread) {
      Incomplete = true;
      Stopped = true;
      return;
    }
    S.T.FinalRegs = S.Regs;
    Out.push_back(std::move(S.T));
  }

  /// Runs \p S to the end, branching at reads.
  void go(RunState S) {
    const std::vector<Op> &Ops = Th.Ops;
    while (!Stopped) {
      if (S.Pc >= Ops.size()) {
        finish(S);
        return;
      }
      size_t I = S.Pc;
      const Op &O = Ops[I];
      bool Exec = guardHolds(S, O);
      uint64_t GuardDeps = O.GuardReg >= 0 ? S.RegDeps[O.GuardReg] : 0;
      // A guarded instruction is a branch: what follows depends on the guard.
      S.CtrlDeps |= GuardDeps;
      if (!Exec) {
        ++S.Pc;
        continue;
      }
      switch (O.K) {
      case Op::Kind::Alu: {
        Value A = O.Src.size() > 0 ? operandValue(S, O.Src[0]) : Value{};
        Value B = O.Src.size() > 1 ? operandValue(S, O.Src[1]) : Value{};
        uint64_t D = 0;
        for (const Operand &Src : O.Src)
          D |= operandDeps(S, Src);
        std::optional<Value> R;
        if (O.Alu == litmus::AluOp::Setp) {
          std::optional<bool> C = compare(O, A, B);
          if (C)
            R = Value{-1, *C ? 1 : 0};
        } else {
          R = alu(O, A, B);
        }
        if (!R)
          return; // meaningless arithmetic on addresses: drop the trace
        setReg(S, O.Dst, *R, D);
        ++S.Pc;
        continue;
      }
      case Op::Kind::Branch: {
        if (O.Target <= int32_t(I)) {
          if (S.BackTaken[I] >= Opts.Unroll)
            return; // unrolled too often: drop, as herd does
          ++S.BackTaken[I];
        }
        assert(O.Target >= 0 && size_t(O.Target) <= Ops.size());
        S.Pc = size_t(O.Target);
        continue;
      }
      case Op::Kind::Fence: {
        Event E = makeEvent(O, I, EventKind::Fence);
        E.Ctrl = S.CtrlDeps;
        S.T.Events.push_back(E);
        ++S.Pc;
        continue;
      }
      case Op::Kind::Barrier: {
        Event E = makeEvent(O, I, EventKind::Barrier);
        E.Ctrl = S.CtrlDeps;
        E.BarrierInstance = O.BarrierInstance;
        E.BarrierId = O.BarrierId;
        if (O.BarrierIdReg >= 0) {
          Value Id = S.Regs[size_t(O.BarrierIdReg)];
          if (Id.isAddress())
            return; // an address as a barrier id: drop the trace
          E.BarrierId = Id.Int;
          E.Ctrl |= S.RegDeps[size_t(O.BarrierIdReg)];
        }
        if (O.BarrierQuorum.K != Operand::Kind::None) {
          Value Q = operandValue(S, O.BarrierQuorum);
          if (Q.isAddress())
            return;
          E.Quorum = std::max<int64_t>(Q.Int, 0);
          E.Ctrl |= operandDeps(S, O.BarrierQuorum);
        }
        E.Arrive = O.Arrive;
        std::pair<int32_t, int64_t> Key{E.BarrierInstance, E.BarrierId};
        // barrier.cluster: the k-th arrive and the k-th wait of a thread
        // are of one phase, so each is counted on its own.
        if (O.ClusterBarrier)
          Key.first = O.Arrive ? -2 : -3;
        int32_t Count = 0;
        bool Found = false;
        for (auto &[K, C] : S.BarrierCounts)
          if (K == Key) {
            Count = C++;
            Found = true;
          }
        if (!Found)
          S.BarrierCounts.push_back({Key, 1});
        E.BarrierCount = Count;
        S.T.Events.push_back(E);
        ++S.Pc;
        continue;
      }
      case Op::Kind::Store: {
        std::optional<int32_t> L = accessLoc(S, O);
        if (!L)
          return;
        Value V = O.Src.empty() ? Value{} : operandValue(S, O.Src[0]);
        Event E = makeEvent(O, I, EventKind::Write);
        E.Loc = physOf(*L);
        E.VLoc = genericOf(*L);
        E.V = V.isAddress() ? V : wrapValue(V, O.Bits, O.Signed);
        E.Addr = operandDeps(S, O.Addr);
        E.Data = O.Src.empty() ? 0 : operandDeps(S, O.Src[0]);
        E.Ctrl = S.CtrlDeps;
        S.T.Events.push_back(E);
        noteWrite(S, E);
        ++S.Pc;
        continue;
      }
      case Op::Kind::Load:
      case Op::Kind::Rmw: {
        std::optional<int32_t> L = accessLoc(S, O);
        if (!L)
          return;
        // What the read may return: the initial value, other threads'
        // values, and this run's own earlier writes (not its later ones).
        int32_t PL = physOf(*L);
        std::vector<Value> Vs = Visible[size_t(PL)];
        for (const auto &[WL, WV] : S.OwnWrites)
          if (WL == PL && std::find(Vs.begin(), Vs.end(), WV) == Vs.end())
            Vs.push_back(WV);
        assert(!Vs.empty());
        Steps += Vs.size();
        if (Steps > Opts.MaxReadsPerThread) {
          Incomplete = true;
          Stopped = true;
          return;
        }
        // Branch over the values; the last one continues in S itself.
        for (size_t K = 0; K + 1 < Vs.size() && !Stopped; ++K) {
          RunState Copy = S;
          if (doRead(Copy, O, I, *L, Vs[K]))
            go(std::move(Copy));
        }
        if (Stopped || !doRead(S, O, I, *L, Vs.back()))
          return;
        continue;
      }
      }
      assert(false && "unhandled op kind");
      return;
    }
  }

  /// Performs a load or atom at \p S.Pc reading \p Old; false drops the trace.
  bool doRead(RunState &S, const Op &O, size_t I, int32_t L, Value Old) {
    uint64_t AddrDeps = operandDeps(S, O.Addr);
    Event R = makeEvent(O, I, EventKind::Read);
    R.Loc = physOf(L);
    R.VLoc = genericOf(L);
    R.V = Old;
    R.Addr = AddrDeps;
    R.Ctrl = S.CtrlDeps;
    R.Atom = O.K == Op::Kind::Rmw;
    int32_t ReadIndex = int32_t(S.T.Events.size());
    std::optional<unsigned> Ord = addRead(S, R);
    if (!Ord)
      return false;
    uint64_t Self = uint64_t(1) << *Ord;
    Value Loaded = Old.isAddress() ? Old : wrapValue(Old, O.Bits, O.Signed);
    if (O.K == Op::Kind::Load && O.Mbar == litmus::MbarOp::Wait) {
      // The phase of parity Src[1] has completed: the pending count has
      // gone from E (Src[0]) down by a number of arrivals whose count of
      // whole phases has the other parity.
      if (Old.isAddress())
        return false;
      int64_t E = O.Src[0].Imm.Int, Done = (E - Old.Int) / std::max<int64_t>(E, 1);
      setReg(S, O.Dst, Value{-1, (Done & 1) != O.Src[1].Imm.Int ? 1 : 0}, Self);
      ++S.Pc;
      return true;
    }
    if (O.K == Op::Kind::Load) {
      setReg(S, O.Dst, Loaded, Self);
      ++S.Pc;
      return true;
    }
    std::vector<Value> Args;
    uint64_t DataDeps = 0;
    for (const Operand &Src : O.Src) {
      Args.push_back(operandValue(S, Src));
      DataDeps |= operandDeps(S, Src);
    }
    bool Invalid = false;
    std::optional<Value> New = rmwResult(O, Old, Args, Invalid);
    if (Invalid)
      return false;
    if (New) {
      Event W = makeEvent(O, I, EventKind::Write);
      W.Loc = R.Loc;
      W.VLoc = R.VLoc;
      W.V = *New;
      W.Atom = true;
      W.RmwRead = ReadIndex;
      W.Addr = AddrDeps;
      W.Data = DataDeps;
      W.Ctrl = S.CtrlDeps;
      S.T.Events.push_back(W);
      noteWrite(S, W);
    }
    setReg(S, O.Dst, Loaded, Self);
    ++S.Pc;
    return true;
  }
};

} // namespace

TraceSet model::computeTraces(const litmus::Program &P,
                              const TraceOptions &Opts) {
  size_t NumLocs = P.Locs.size(), NumThreads = P.Threads.size();
  TraceSet TS;
  // Written[t][l]: values thread t's runs write to l (sorted), so far.
  std::vector<std::vector<std::vector<Value>>> Written(
      NumThreads, std::vector<std::vector<Value>>(NumLocs));
  std::vector<std::vector<Value>> Visible(NumLocs);
  // A bound on the write events of one execution: each store and atom op
  // once, plus Unroll more times per backward branch over it (a second
  // visit of an op takes such a branch, and a run takes each at most
  // Unroll times; the bound may be loose, never too small). A value
  // in an execution that is not out of thin air comes from a chain of
  // reads-from through distinct writes, at most that long, and round R finds
  // every chain of length R; so once Round reaches the bound the values are
  // complete even if the guesses still grow (two atom.add of one location
  // guess 0, 1, 2, then 3, ..., which no single execution holds).
  size_t WritesPerExecution = 0;
  for (const litmus::ThreadProgram &T : P.Threads)
    for (size_t J = 0; J < T.Ops.size(); ++J) {
      if (T.Ops[J].K != litmus::Op::Kind::Store &&
          T.Ops[J].K != litmus::Op::Kind::Rmw)
        continue;
      size_t Over = 0;
      for (size_t I = J; I < T.Ops.size(); ++I)
        Over += T.Ops[I].K == litmus::Op::Kind::Branch &&
                T.Ops[I].Target <= int32_t(J);
      WritesPerExecution += 1 + Over * Opts.Unroll;
    }
  for (unsigned Round = 0;; ++Round) {
    // Total values per location, for the cap.
    std::vector<std::vector<Value>> All(NumLocs);
    for (size_t L = 0; L < NumLocs; ++L) {
      All[L].push_back(P.Locs[L].Init);
      for (size_t T = 0; T < NumThreads; ++T)
        for (const Value &V : Written[T][L])
          if (std::find(All[L].begin(), All[L].end(), V) == All[L].end()) {
            if (All[L].size() >= Opts.MaxValuesPerLocation) {
              TS.Incomplete = true;
              continue;
            }
            All[L].push_back(V);
          }
    }
    TS.Threads.assign(NumThreads, {});
    std::vector<std::vector<std::vector<Value>>> NewWritten = Written;
    for (size_t T = 0; T < NumThreads; ++T) {
      // A thread reads the initial value or what the others write.
      for (size_t L = 0; L < NumLocs; ++L) {
        Visible[L].assign(1, P.Locs[L].Init);
        for (size_t U = 0; U < NumThreads; ++U)
          if (U != T)
            for (const Value &V : Written[U][L])
              if (std::find(All[L].begin(), All[L].end(), V) != All[L].end() &&
                  std::find(Visible[L].begin(), Visible[L].end(), V) ==
                      Visible[L].end())
                Visible[L].push_back(V);
        std::sort(Visible[L].begin(), Visible[L].end());
      }
      ThreadRunner(P, P.Threads[T], Visible, NewWritten[T], Opts,
                   TS.Threads[T], TS.Incomplete)
          .run();
      std::vector<Trace> &Ts = TS.Threads[T];
      std::sort(Ts.begin(), Ts.end());
      Ts.erase(std::unique(Ts.begin(), Ts.end()), Ts.end());
    }
    bool Changed = NewWritten != Written;
    Written = std::move(NewWritten);
    if (!Changed || Round >= WritesPerExecution) {
      TS.Values = std::move(All);
      for (std::vector<Value> &Vs : TS.Values)
        std::sort(Vs.begin(), Vs.end());
      break;
    }
    if (Round + 1 >= Opts.MaxRounds) {
      TS.Incomplete = true;
      TS.Values = std::move(All);
      for (std::vector<Value> &Vs : TS.Values)
        std::sort(Vs.begin(), Vs.end());
      break;
    }
  }
  return TS;
}
