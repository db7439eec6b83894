//===- Programs.h - litmus::Programs built by hand, for tests ---*- C++ -*-===//
//
// Test support (as LLVM's Testing/Support): unit tests and bench programs
// build litmus::Programs directly, without the .litmus parser, through this
// one library. Two levels:
//
//  - a builder: addLoc, addThread and ThreadBuilder's ld/st/rmw/fence/...,
//    operands R(reg), I(imm), A(loc), conditions regEq/locEq/both/all;
//  - the classic shapes MP, SB, LB and CoRR, with a placement (threads in
//    different CTAs, one cluster, different warps of a CTA, one warp), an
//    optional fence between each thread's accesses and locations in global
//    or shared memory. Their accesses are ld/st.relaxed.gpu with an explicit
//    state space, into unsigned 32-bit registers r0 and r1 of every thread.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TESTING_PROGRAMS_H
#define INCANT_TESTING_PROGRAMS_H

#include "incant/Litmus/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace incant::handbuilt {

//===--- The builder ------------------------------------------------------===//

/// Appends ops to one thread of a Program.
class ThreadBuilder {
public:
  explicit ThreadBuilder(litmus::ThreadProgram &T) : T(T) {}

  /// Declares a register; returns its index.
  int reg(std::string Name, uint8_t Bits = 32, bool Signed = true);
  litmus::Op &add(litmus::Op O);
  static litmus::Op make(litmus::Op::Kind K);
  litmus::Op &ld(int Dst, litmus::Operand Addr,
                 litmus::Sem S = litmus::Sem::Weak);
  litmus::Op &st(litmus::Operand Addr, litmus::Operand V,
                 litmus::Sem S = litmus::Sem::Weak);
  /// A relaxed, GPU-scoped read-modify-write.
  litmus::Op &rmw(litmus::RmwOp R, int Dst, litmus::Operand Addr,
                  std::vector<litmus::Operand> Src);
  litmus::Op &fence(litmus::FenceKind K, litmus::Scope Sc);
  litmus::Op &bar(int Id);
  litmus::Op &alu(litmus::AluOp A, int Dst, std::vector<litmus::Operand> Src,
                  uint8_t Bits = 32, bool Signed = true);
  litmus::Op &setp(litmus::CmpOp C, int Dst, litmus::Operand A,
                   litmus::Operand B);
  litmus::Op &bra(int Target, int Guard = -1, bool Negated = false);
  int size() const { return int(T.Ops.size()); }

private:
  litmus::ThreadProgram &T;
};

/// Adds a 32-bit location; returns its index.
int addLoc(litmus::Program &P, std::string Name, int64_t Init = 0,
           litmus::Region R = litmus::Region::Global);

/// Adds a thread (its Id is its index) and returns a builder for it. The
/// builder refers into P.Threads, which holds up to 16 threads without
/// moving: add no more while builders are in use.
ThreadBuilder addThread(litmus::Program &P, litmus::Placement W = {});

inline litmus::Operand R(int Reg) { return litmus::Operand::reg(Reg); }
inline litmus::Operand I(int64_t V) { return litmus::Operand::imm(V); }
inline litmus::Operand A(int Loc) { return litmus::Operand::addr(Loc); }

/// `Thread:rReg = V`, `Loc = V`.
litmus::Cond regEq(int Thread, int Reg, int64_t V);
litmus::Cond locEq(int Loc, int64_t V);
/// A conjunction.
litmus::Cond both(litmus::Cond A, litmus::Cond B);
litmus::Cond all(std::vector<litmus::Cond> Kids);

//===--- Single ops of the classic shapes ---------------------------------===//

/// A relaxed, GPU-scoped access of location \p Loc in space \p Sp: a load
/// into register \p Reg, a store of \p V, or (Rmw) the start of an atom
/// for the caller to complete.
litmus::Op memOp(litmus::Op::Kind K, int Loc, int Reg, int64_t V,
                 litmus::Space Sp = litmus::Space::Global);

/// A fence of kind \p K at scope \p Sc (sem SC, or AcqRel for fence.acq_rel).
litmus::Op fenceOp(litmus::FenceKind K = litmus::FenceKind::FenceSC,
                   litmus::Scope Sc = litmus::Scope::GPU);

//===--- The classic shapes -----------------------------------------------===//

/// Where the two threads sit: different CTAs (in different clusters);
/// different CTAs of one cluster (the accesses then have cluster scope, so
/// that the cluster matters); different warps of one CTA; one warp.
enum class Place { CTA, Cluster, Warp, Lane };
/// The fence between each thread's two accesses: none, membar.gl,
/// fence.sc.gpu.
enum class FenceSel { None, MembarGl, FenceScGpu };

/// MP: T0 stores x then y, T1 loads y then x; exists (1:r0=1 /\ 1:r1=0).
litmus::Program mp(Place Pl = Place::CTA, FenceSel F = FenceSel::None,
                   bool Shared = false);
/// SB: each stores one location then loads the other;
/// exists (0:r0=0 /\ 1:r0=0).
litmus::Program sb(Place Pl = Place::CTA, FenceSel F = FenceSel::None,
                   bool Shared = false);
/// LB: each loads one location then stores the other;
/// exists (0:r0=1 /\ 1:r0=1).
litmus::Program lb(Place Pl = Place::CTA, FenceSel F = FenceSel::None,
                   bool Shared = false);
/// CoRR: T0 stores x, T1 loads x twice; exists (1:r0=1 /\ 1:r1=0).
litmus::Program corr(Place Pl = Place::CTA, bool Shared = false);

} // namespace incant::handbuilt

#endif // INCANT_TESTING_PROGRAMS_H
