//===- TestPrograms.h - Hand-built Programs for harness and backend tests -*- C++ -*-===//
//
// Built directly as litmus::Program, so these tests do not depend on the
// parser. Threads sit in different CTAs unless a placement is given.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_UNITTESTS_HARNESS_TESTPROGRAMS_H
#define INCANT_UNITTESTS_HARNESS_TESTPROGRAMS_H

#include "incant/Litmus/Program.h"

#include <string>
#include <vector>

namespace incant::testprog {

using namespace litmus;

inline Op store(int32_t Loc, int64_t V, Sem S = Sem::Weak,
                Scope Sc = Scope::None) {
  Op O{};
  O.K = Op::Kind::Store;
  O.Addr = Operand::addr(Loc);
  O.Src = {Operand::imm(V)};
  O.S = S;
  O.Sc = Sc;
  return O;
}

inline Op load(int32_t Dst, int32_t Loc, Sem S = Sem::Weak,
               Scope Sc = Scope::None) {
  Op O{};
  O.K = Op::Kind::Load;
  O.Dst = Dst;
  O.Addr = Operand::addr(Loc);
  O.S = S;
  O.Sc = Sc;
  return O;
}

inline Op fence(Scope Sc = Scope::GPU, FenceKind FK = FenceKind::FenceSC) {
  Op O{};
  O.K = Op::Kind::Fence;
  O.S = Sem::SC;
  O.Sc = Sc;
  O.Fence = FK;
  return O;
}

inline Cond regEq(int32_t T, int32_t R, int64_t V) {
  return Cond::eq(Term::reg(T, R), Term::constant(V));
}

inline Cond conj(std::vector<Cond> Kids) {
  Cond C;
  C.K = Cond::And;
  C.Kids = std::move(Kids);
  return C;
}

inline ThreadProgram thread(int32_t Id, int NumRegs, std::vector<Op> Ops,
                            Placement Where) {
  ThreadProgram T;
  T.Id = Id;
  T.Where = Where;
  for (int I = 0; I < NumRegs; ++I)
    T.Regs.push_back({"r" + std::to_string(I), 32, true, false, {}});
  T.Ops = std::move(Ops);
  return T;
}

inline Program twoThreads(std::string Name, std::vector<Op> T0, int R0,
                          std::vector<Op> T1, int R1, Cond C,
                          std::vector<Observed> Obs, Placement P0 = {0, 0, 0, 0},
                          Placement P1 = {0, 0, 1, 0}) {
  Program P;
  P.Name = std::move(Name);
  P.Locs = {{"x", {}, Region::Global}, {"y", {}, Region::Global}};
  P.Threads = {thread(0, R0, std::move(T0), P0), thread(1, R1, std::move(T1), P1)};
  P.Condition = std::move(C);
  P.Observe = std::move(Obs);
  return P;
}

/// SB: x=1; r0=y || y=1; r0=x; exists (0:r0=0 /\ 1:r0=0)
inline Program SB(bool Fenced = false) {
  std::vector<Op> A = {store(0, 1), load(0, 1)};
  std::vector<Op> B = {store(1, 1), load(0, 0)};
  if (Fenced) {
    A.insert(A.begin() + 1, fence());
    B.insert(B.begin() + 1, fence());
  }
  return twoThreads(Fenced ? "SB+fences" : "SB", A, 1, B, 1,
                    conj({regEq(0, 0, 0), regEq(1, 0, 0)}), {{0, 0}, {1, 0}});
}

/// MP: x=1; y=1 || r0=y; r1=x; exists (1:r0=1 /\ 1:r1=0)
inline Program MP() {
  return twoThreads("MP", {store(0, 1), store(1, 1)}, 0,
                    {load(0, 1), load(1, 0)}, 2,
                    conj({regEq(1, 0, 1), regEq(1, 1, 0)}), {{1, 0}, {1, 1}});
}

/// LB: r0=x; y=1 || r0=y; x=1; exists (0:r0=1 /\ 1:r0=1)
inline Program LB() {
  return twoThreads("LB", {load(0, 0), store(1, 1)}, 1,
                    {load(0, 1), store(0, 1)}, 1,
                    conj({regEq(0, 0, 1), regEq(1, 0, 1)}), {{0, 0}, {1, 0}});
}

/// CoRR: x=1 || r0=x; r1=x; exists (1:r0=1 /\ 1:r1=0)
inline Program CoRR() {
  return twoThreads("CoRR", {store(0, 1)}, 0, {load(0, 0), load(1, 0)}, 2,
                    conj({regEq(1, 0, 1), regEq(1, 1, 0)}), {{1, 0}, {1, 1}});
}

} // namespace incant::testprog

#endif // INCANT_UNITTESTS_HARNESS_TESTPROGRAMS_H
