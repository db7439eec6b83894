//===- Programs.cpp - litmus::Programs built by hand, for tests -----------===//
#include "incant/Testing/Programs.h"

namespace incant::handbuilt {

using litmus::Op;
using litmus::Operand;

int ThreadBuilder::reg(std::string Name, uint8_t Bits, bool Signed) {
  litmus::Register Rg;
  Rg.Name = std::move(Name);
  Rg.Bits = Bits;
  Rg.Signed = Signed;
  Rg.IsPred = Bits == 1;
  T.Regs.push_back(Rg);
  return int(T.Regs.size() - 1);
}

Op &ThreadBuilder::add(Op O) {
  T.Ops.push_back(std::move(O));
  return T.Ops.back();
}

Op ThreadBuilder::make(Op::Kind K) {
  Op O{};
  O.K = K;
  return O;
}

Op &ThreadBuilder::ld(int Dst, Operand Addr, litmus::Sem S) {
  Op O = make(Op::Kind::Load);
  O.Dst = Dst;
  O.Addr = Addr;
  O.S = S;
  return add(O);
}

Op &ThreadBuilder::st(Operand Addr, Operand V, litmus::Sem S) {
  Op O = make(Op::Kind::Store);
  O.Addr = Addr;
  O.Src = {V};
  O.S = S;
  return add(O);
}

Op &ThreadBuilder::rmw(litmus::RmwOp Rm, int Dst, Operand Addr,
                       std::vector<Operand> Src) {
  Op O = make(Op::Kind::Rmw);
  O.Rmw = Rm;
  O.Dst = Dst;
  O.Addr = Addr;
  O.Src = std::move(Src);
  O.S = litmus::Sem::Relaxed;
  O.Sc = litmus::Scope::GPU;
  return add(O);
}

Op &ThreadBuilder::fence(litmus::FenceKind K, litmus::Scope Sc) {
  return add(fenceOp(K, Sc));
}

Op &ThreadBuilder::bar(int Id) {
  Op O = make(Op::Kind::Barrier);
  O.BarrierId = Id;
  return add(O);
}

Op &ThreadBuilder::alu(litmus::AluOp Al, int Dst, std::vector<Operand> Src,
                       uint8_t Bits, bool Signed) {
  Op O = make(Op::Kind::Alu);
  O.Alu = Al;
  O.Dst = Dst;
  O.Src = std::move(Src);
  O.Bits = Bits;
  O.Signed = Signed;
  return add(O);
}

Op &ThreadBuilder::setp(litmus::CmpOp C, int Dst, Operand X, Operand Y) {
  Op &O = alu(litmus::AluOp::Setp, Dst, {X, Y});
  O.Cmp = C;
  return O;
}

Op &ThreadBuilder::bra(int Target, int Guard, bool Negated) {
  Op O = make(Op::Kind::Branch);
  O.Target = Target;
  O.GuardReg = Guard;
  O.GuardNegated = Negated;
  return add(O);
}

int addLoc(litmus::Program &P, std::string Name, int64_t Init,
           litmus::Region Rg) {
  litmus::Location L;
  L.Name = std::move(Name);
  L.Init = litmus::Value{-1, Init};
  L.R = Rg;
  P.Locs.push_back(L);
  return int(P.Locs.size() - 1);
}

ThreadBuilder addThread(litmus::Program &P, litmus::Placement W) {
  if (P.Threads.capacity() < 16)
    P.Threads.reserve(16);
  litmus::ThreadProgram T;
  T.Id = int32_t(P.Threads.size());
  T.Where = W;
  P.Threads.push_back(T);
  return ThreadBuilder(P.Threads.back());
}

litmus::Cond regEq(int Thread, int Reg, int64_t V) {
  return litmus::Cond::eq(litmus::Term::reg(Thread, Reg),
                          litmus::Term::constant(V));
}

litmus::Cond locEq(int Loc, int64_t V) {
  return litmus::Cond::eq(litmus::Term::loc(Loc), litmus::Term::constant(V));
}

litmus::Cond all(std::vector<litmus::Cond> Kids) {
  litmus::Cond C;
  C.K = litmus::Cond::And;
  C.Kids = std::move(Kids);
  return C;
}

litmus::Cond both(litmus::Cond X, litmus::Cond Y) {
  return all({std::move(X), std::move(Y)});
}

Op memOp(Op::Kind K, int Loc, int Reg, int64_t V, litmus::Space Sp) {
  Op O = ThreadBuilder::make(K);
  O.Addr = Operand::addr(Loc);
  O.S = litmus::Sem::Relaxed;
  O.Sc = litmus::Scope::GPU;
  O.Sp = Sp;
  if (K == Op::Kind::Load)
    O.Dst = Reg;
  else
    O.Src = {Operand::imm(V)};
  return O;
}

Op fenceOp(litmus::FenceKind K, litmus::Scope Sc) {
  Op O = ThreadBuilder::make(Op::Kind::Fence);
  O.Fence = K;
  O.Sc = Sc;
  O.S = K == litmus::FenceKind::FenceAcqRel ? litmus::Sem::AcqRel
                                            : litmus::Sem::SC;
  return O;
}

namespace {

/// Two threads placed as \p Pl says, each with unsigned 32-bit registers r0
/// and r1; locations x and y in global or shared memory.
litmus::Program twoThreads(const std::string &Name, Place Pl, bool Shared) {
  litmus::Program P;
  P.Name = Name;
  auto Rg = Shared ? litmus::Region::Shared : litmus::Region::Global;
  addLoc(P, "x", 0, Rg);
  addLoc(P, "y", 0, Rg);
  for (int T = 0; T < 2; ++T) {
    litmus::Placement W;
    switch (Pl) {
    case Place::CTA:
      W.CTA = T;
      W.Cluster = T;
      break;
    case Place::Cluster:
      W.CTA = T;
      break;
    case Place::Warp:
      W.Warp = T;
      break;
    case Place::Lane:
      break;
    }
    ThreadBuilder B = addThread(P, W);
    B.reg("r0", 32, false);
    B.reg("r1", 32, false);
  }
  return P;
}

/// The shapes' accesses: relaxed.gpu, or cluster-scoped with Place::Cluster
/// (so that a cluster launch is needed); the fence between them.
struct Access {
  Place Pl;
  FenceSel F;
  litmus::Space Sp;
  Access(Place Pl, FenceSel F, bool Shared)
      : Pl(Pl), F(F),
        Sp(Shared ? litmus::Space::Shared : litmus::Space::Global) {}
  Op mem(Op::Kind K, int Loc, int Reg, int64_t V) const {
    Op O = memOp(K, Loc, Reg, V, Sp);
    if (Pl == Place::Cluster)
      O.Sc = litmus::Scope::Cluster;
    return O;
  }
  void fence(std::vector<Op> &Ops) const {
    if (F != FenceSel::None)
      Ops.push_back(fenceOp(F == FenceSel::MembarGl
                                ? litmus::FenceKind::Membar
                                : litmus::FenceKind::FenceSC,
                            litmus::Scope::GPU));
  }
};

} // namespace

litmus::Program mp(Place Pl, FenceSel F, bool Shared) {
  Access X(Pl, F, Shared);
  litmus::Program P = twoThreads("MP", Pl, Shared);
  auto &T0 = P.Threads[0].Ops, &T1 = P.Threads[1].Ops;
  T0.push_back(X.mem(Op::Kind::Store, 0, -1, 1));
  X.fence(T0);
  T0.push_back(X.mem(Op::Kind::Store, 1, -1, 1));
  T1.push_back(X.mem(Op::Kind::Load, 1, 0, 0));
  X.fence(T1);
  T1.push_back(X.mem(Op::Kind::Load, 0, 1, 0));
  P.Condition = both(regEq(1, 0, 1), regEq(1, 1, 0));
  P.Observe = {{1, 0}, {1, 1}};
  return P;
}

/// SB and LB: thread T accesses location T (\p First), then the other
/// location (the other kind of access); the weak outcome has r0 = \p Weak
/// in both threads.
static litmus::Program crossed(const std::string &Name, Op::Kind First,
                               int64_t Weak, Place Pl, FenceSel F,
                               bool Shared) {
  Access X(Pl, F, Shared);
  litmus::Program P = twoThreads(Name, Pl, Shared);
  Op::Kind Second = First == Op::Kind::Store ? Op::Kind::Load : Op::Kind::Store;
  for (int T = 0; T < 2; ++T) {
    auto &Ops = P.Threads[T].Ops;
    // Loads go to r0, stores write 1.
    Ops.push_back(X.mem(First, T, 0, 1));
    X.fence(Ops);
    Ops.push_back(X.mem(Second, 1 - T, 0, 1));
  }
  P.Condition = both(regEq(0, 0, Weak), regEq(1, 0, Weak));
  P.Observe = {{0, 0}, {1, 0}};
  return P;
}

litmus::Program sb(Place Pl, FenceSel F, bool Shared) {
  return crossed("SB", Op::Kind::Store, 0, Pl, F, Shared);
}

litmus::Program lb(Place Pl, FenceSel F, bool Shared) {
  return crossed("LB", Op::Kind::Load, 1, Pl, F, Shared);
}

litmus::Program corr(Place Pl, bool Shared) {
  Access X(Pl, FenceSel::None, Shared);
  litmus::Program P = twoThreads("CoRR", Pl, Shared);
  P.Threads[0].Ops.push_back(X.mem(Op::Kind::Store, 0, -1, 1));
  P.Threads[1].Ops.push_back(X.mem(Op::Kind::Load, 0, 0, 0));
  P.Threads[1].Ops.push_back(X.mem(Op::Kind::Load, 0, 1, 0));
  P.Condition = both(regEq(1, 0, 1), regEq(1, 1, 0));
  P.Observe = {{1, 0}, {1, 1}};
  return P;
}

} // namespace incant::handbuilt
