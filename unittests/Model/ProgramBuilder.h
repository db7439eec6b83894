//===- ProgramBuilder.h - Build litmus::Programs by hand in tests ---------===//
#ifndef INCANT_UNITTESTS_MODEL_PROGRAMBUILDER_H
#define INCANT_UNITTESTS_MODEL_PROGRAMBUILDER_H

#include "incant/Cat/Model.h"
#include "incant/Litmus/Program.h"

#include <memory>
#include <optional>
#include <string>

namespace incant::model::test {

using litmus::Op;
using litmus::Operand;

/// Appends ops to one thread of a Program.
class ThreadBuilder {
public:
  explicit ThreadBuilder(litmus::ThreadProgram &T) : T(T) {}

  int reg(std::string Name, uint8_t Bits = 32, bool Signed = true) {
    litmus::Register R;
    R.Name = std::move(Name);
    R.Bits = Bits;
    R.Signed = Signed;
    R.IsPred = Bits == 1;
    T.Regs.push_back(R);
    return int(T.Regs.size() - 1);
  }
  Op &add(Op O) {
    T.Ops.push_back(std::move(O));
    return T.Ops.back();
  }
  static Op make(Op::Kind K) {
    Op O{};
    O.K = K;
    return O;
  }
  Op &ld(int Dst, Operand Addr, litmus::Sem S = litmus::Sem::Weak) {
    Op O = make(Op::Kind::Load);
    O.Dst = Dst;
    O.Addr = Addr;
    O.S = S;
    return add(O);
  }
  Op &st(Operand Addr, Operand V, litmus::Sem S = litmus::Sem::Weak) {
    Op O = make(Op::Kind::Store);
    O.Addr = Addr;
    O.Src = {V};
    O.S = S;
    return add(O);
  }
  Op &rmw(litmus::RmwOp R, int Dst, Operand Addr, std::vector<Operand> Src) {
    Op O = make(Op::Kind::Rmw);
    O.Rmw = R;
    O.Dst = Dst;
    O.Addr = Addr;
    O.Src = std::move(Src);
    O.S = litmus::Sem::Relaxed;
    O.Sc = litmus::Scope::GPU;
    return add(O);
  }
  Op &fence(litmus::FenceKind K, litmus::Scope Sc) {
    Op O = make(Op::Kind::Fence);
    O.Fence = K;
    O.Sc = Sc;
    O.S = K == litmus::FenceKind::FenceAcqRel ? litmus::Sem::AcqRel
                                              : litmus::Sem::SC;
    return add(O);
  }
  Op &bar(int Id) {
    Op O = make(Op::Kind::Barrier);
    O.BarrierId = Id;
    return add(O);
  }
  Op &alu(litmus::AluOp A, int Dst, std::vector<Operand> Src,
          uint8_t Bits = 32, bool Signed = true) {
    Op O = make(Op::Kind::Alu);
    O.Alu = A;
    O.Dst = Dst;
    O.Src = std::move(Src);
    O.Bits = Bits;
    O.Signed = Signed;
    return add(O);
  }
  Op &setp(litmus::CmpOp C, int Dst, Operand A, Operand B) {
    Op &O = alu(litmus::AluOp::Setp, Dst, {A, B});
    O.Cmp = C;
    return O;
  }
  Op &bra(int Target, int Guard = -1, bool Negated = false) {
    Op O = make(Op::Kind::Branch);
    O.Target = Target;
    O.GuardReg = Guard;
    O.GuardNegated = Negated;
    return add(O);
  }
  int size() const { return int(T.Ops.size()); }

private:
  litmus::ThreadProgram &T;
};

inline int addLoc(litmus::Program &P, std::string Name, int64_t Init = 0) {
  litmus::Location L;
  L.Name = std::move(Name);
  L.Init = litmus::Value{-1, Init};
  P.Locs.push_back(L);
  return int(P.Locs.size() - 1);
}

inline ThreadBuilder addThread(litmus::Program &P, litmus::Placement W = {}) {
  // Builders keep a reference into P.Threads: never reallocate under them.
  if (P.Threads.capacity() < 16)
    P.Threads.reserve(16);
  litmus::ThreadProgram T;
  T.Id = int32_t(P.Threads.size());
  T.Where = W;
  P.Threads.push_back(T);
  return ThreadBuilder(P.Threads.back());
}

inline Operand R(int Reg) { return Operand::reg(Reg); }
inline Operand I(int64_t V) { return Operand::imm(V); }
inline Operand A(int Loc) { return Operand::addr(Loc); }

inline litmus::Cond regEq(int Thread, int Reg, int64_t V) {
  return litmus::Cond::eq(litmus::Term::reg(Thread, Reg),
                          litmus::Term::constant(V));
}
inline litmus::Cond locEq(int Loc, int64_t V) {
  return litmus::Cond::eq(litmus::Term::loc(Loc), litmus::Term::constant(V));
}
inline litmus::Cond both(litmus::Cond A, litmus::Cond B) {
  litmus::Cond C;
  C.K = litmus::Cond::And;
  C.Kids = {std::move(A), std::move(B)};
  return C;
}

/// A cat model from text; fails the test if it does not load.
inline std::optional<cat::Model> catModel(const std::string &Text) {
  DiagnosticEngine Diags;
  auto F = std::make_shared<SourceFile>("test.cat", Text);
  return cat::Model::parse(F, Diags);
}

} // namespace incant::model::test

#endif
