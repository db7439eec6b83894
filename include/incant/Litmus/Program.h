//===- Program.h - The lowered, dialect-neutral form of a litmus test -*- C++ -*-===//
//
// A litmus::Program is what every consumer of a litmus test works from: the
// checker (model::) enumerates its executions, and the harness backends
// (CUDA, OpenCL) generate code from it. It names no PTX syntax: registers,
// locations and labels are resolved to indices, instructions to Ops.
//
// Produced by lower() (Lower.h) from a parsed litmus::Test, which has already
// been checked for semantic errors; a Program is therefore well formed and
// its invariants are asserts, not diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LITMUS_PROGRAM_H
#define INCANT_LITMUS_PROGRAM_H

#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace incant::litmus {

/// Memory-ordering semantics of an access or fence.
enum class Sem : uint8_t {
  Weak,     ///< plain ld/st (PTX "weak"), including .ca/.cg/... cache ops
  Volatile, ///< ld/st.volatile (PTX: relaxed.sys for the memory model)
  Relaxed,
  Acquire,
  Release,
  AcqRel,
  SC, ///< fence.sc and membar
};

/// The scope qualifier of an instruction (not where its thread sits).
enum class Scope : uint8_t { None, CTA, Cluster, GPU, Sys };

/// Memory region of a location (from the memory map; default global).
enum class Region : uint8_t { Global, Shared };

/// State space written on the instruction (.global, .shared or generic);
/// SharedCluster is .shared::cluster: distributed shared memory, possibly
/// another CTA's of the cluster (its address from mapa).
enum class Space : uint8_t { Generic, Global, Shared, SharedCluster };

enum class CacheOp : uint8_t { None, CA, CG, CS, LU, CV, WB, WT };

/// Sub is Dat3M's atom.sub/red.sub (old - operand).
enum class RmwOp : uint8_t { Cas, Exch, Add, Inc, Dec, And, Or, Xor, Min, Max, Sub };

/// Which instruction a fence came from; membar.{cta,gl,sys} are kept apart
/// from fence.sc.{cta,gpu,sys} so that models can tell them apart. Proxy is
/// a proxy fence (`fence.proxy.K`): Op::Px says which.
enum class FenceKind : uint8_t { Membar, FenceSC, FenceAcqRel, Proxy };

/// The memory proxy an access goes through (PTX ISA, "Proxies"): generic
/// for ld/st/atom/red, or Dat3M's surface (sust, suld, suatom, sured),
/// texture (tld) and constant (cold) accesses. For a proxy fence, what it
/// orders: one of those proxies, or Alias (`fence.proxy.alias`: virtual
/// aliases of one physical location).
/// Async is the asynchronous proxy (cp.async.bulk, st.async, red.async).
enum class Proxy : uint8_t { Generic, Surface, Texture, Constant, Alias, Async };

/// What an access does to an mbarrier object (Location::Mbarrier > 0). The
/// model keeps an mbarrier's pending count: it starts at the arrivals it
/// expects per phase (plus one per transaction completed on it, see
/// lower()), an arrival or a completed transaction adds -1 (an Rmw), and a
/// wait (a Load) sets its destination to whether the phase of the parity
/// in Src[1] has completed, given the expected count in Src[0].
enum class MbarOp : uint8_t { None, Arrive, Wait, CompleteTx };

enum class CmpOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

enum class AluOp : uint8_t { Mov, Add, Sub, Mul, And, Or, Xor, Not, Cvt, Setp };

/// A run-time value: an integer, or the address of a location plus an offset.
struct Value {
  int32_t Loc = -1; ///< Location index if this is an address, else -1.
  int64_t Int = 0;  ///< The integer, or the byte offset from Loc.
  bool isAddress() const { return Loc >= 0; }
  friend bool operator==(const Value &, const Value &) = default;
  friend auto operator<=>(const Value &, const Value &) = default;
};

/// An operand of an Op: a register, an immediate, or a location's address.
struct Operand {
  // Scoped: the unscoped enumerators would clash with the fields Reg and Imm.
  enum class Kind : uint8_t { None, Reg, Imm, Addr } K = Kind::None;
  int32_t Reg = -1;  ///< Register index within the thread, for Reg.
  Value Imm;         ///< For Imm (integer) and Addr (address of a location).
  static Operand reg(int32_t R) { return {Kind::Reg, R, {}}; }
  static Operand imm(int64_t V) { return {Kind::Imm, -1, Value{-1, V}}; }
  static Operand addr(int32_t Loc) { return {Kind::Addr, -1, Value{Loc, 0}}; }
};

/// One dialect-neutral operation of a thread.
struct Op {
  // Scoped: the unscoped enumerators would clash with the fields Rmw, Fence
  // and Alu.
  enum class Kind : uint8_t {
    Load,    ///< Dst <- [Addr]
    Store,   ///< [Addr] <- Src[0]
    Rmw,     ///< Dst <- [Addr]; [Addr] <- f(old, Src...) (atom; red has Dst=-1)
    Fence,   ///< membar / fence
    Barrier, ///< bar.sync / bar.arrive (CTA-wide execution barrier), and
             ///< barrier.cluster.arrive / .wait (ClusterBarrier set)
    Alu,     ///< Dst <- f(Src...)
    Branch,  ///< if guard: goto Target
  } K;

  // Guard (@p / @!p); GuardReg < 0 means unconditional.
  int32_t GuardReg = -1;
  bool GuardNegated = false;

  int32_t Dst = -1;             ///< Destination register, or -1.
  Operand Addr;                 ///< Load/Store/Rmw: the address.
  std::vector<Operand> Src;     ///< Store: {value}; Rmw: {operand} or {cmp, new} for cas; Alu: inputs.

  Sem S = Sem::Weak;
  Scope Sc = Scope::None;
  Space Sp = Space::Generic;
  CacheOp Cache = CacheOp::None;
  RmwOp Rmw = RmwOp::Add;
  FenceKind Fence = FenceKind::Membar;
  AluOp Alu = AluOp::Mov;
  CmpOp Cmp = CmpOp::Eq;        ///< For setp.
  bool Signed = true;           ///< Signedness of the operation's type.
  uint8_t Bits = 32;            ///< Width of the operation's type (1 for pred).
  Proxy Px = Proxy::Generic;    ///< Load/Store/Rmw: its proxy; proxy fence: what it orders.
  int32_t Target = -1;          ///< For Branch: index of the target Op (may equal size() for "end").

  /// Barrier: barrier events of one CTA meet when they have the same
  /// instance and the same id (and are the k-th of that pair in their
  /// threads). PTX's `bar.sync a` has instance -1 and id a; Dat3M's
  /// `bar.cta.sync I[, ID[, QUORUM]]` has instance I and id ID, or
  /// BarrierId -1 when it names none. docs/checker.md has the semantics.
  int32_t BarrierInstance = -1;
  int32_t BarrierId = 0;        ///< The id if it is an integer (-1: none).
  int32_t BarrierIdReg = -1;    ///< Register holding the id, else -1.
  Operand BarrierQuorum;        ///< Dat3M's quorum (Kind::None if absent).
  bool Arrive = false;          ///< bar.arrive: waits for nobody.
  /// barrier.cluster.arrive (Arrive, S Release or Relaxed) or .wait (S
  /// Acquire): the k-th arrive of each thread of the cluster precedes the
  /// k-th wait of every thread of it.
  bool ClusterBarrier = false;
  MbarOp Mbar = MbarOp::None;   ///< Load/Rmw on an mbarrier object.
  /// The ops of one asynchronous instruction (cp.async.bulk, st.async,
  /// red.async: its async-proxy accesses, the proxy fence that completes
  /// it and its mbarrier complete_tx) share an id; -1 for other ops.
  int32_t Async = -1;
  /// A fence that waits for this thread's bulk async-groups to complete
  /// (cp.async.bulk.wait_group 0); Fence is Proxy with Px Async.
  bool AsyncWait = false;
  /// An op of a bulk async-group copy (cp.async.bulk ... .bulk_group),
  /// which wait_group completes.
  bool BulkGroup = false;
  /// An Alu Mov from mapa: Src[0] is the location's address, and the CTA
  /// of this rank in the thread's cluster holds it (Sp SharedCluster for
  /// `mapa.shared::cluster`, else Generic); -1 for other ops.
  int32_t MapaRank = -1;

  SourceRange Range;            ///< The instruction in the litmus file.
};

/// Where a thread sits in the GPU hierarchy, from the scope tree. Two threads
/// share a level iff their ids at that level (and all levels above) are equal.
struct Placement {
  int32_t Device = 0;
  int32_t Cluster = 0;
  int32_t CTA = 0;
  int32_t Warp = 0;
};

struct Register {
  std::string Name;
  uint8_t Bits = 32;     ///< 1 for .pred
  bool Signed = true;
  bool IsPred = false;
  Value Init;            ///< 0 unless initialised (possibly to an address).
};

struct ThreadProgram {
  int32_t Id = 0;                 ///< The N of TN / PN.
  Placement Where;
  std::vector<Register> Regs;
  std::vector<Op> Ops;
};

struct Location {
  std::string Name;
  Value Init;            ///< Usually an integer; may be another location's address.
  Region R = Region::Global;
  /// Width of the location's values: 64 if some access to it is 64 bits
  /// wide or its initial value needs 64 bits (or is an address), else 32.
  uint8_t Bits = 32;
  /// Virtual aliases (`y @ generic aliases x;`): the location whose physical
  /// memory this name maps to (its own index unless it is an alias), and
  /// its generic address: its own index for a location and a generic alias,
  /// the target's for an alias through another proxy (`s @ surface aliases
  /// x;` names x as seen by surface accesses). Accesses to one physical
  /// location are `loc`, to one generic address `vloc`.
  int32_t Phys = -1;
  int32_t Generic = -1;
  /// An mbarrier object (shared memory) expecting this many arrivals per
  /// phase; 0 for an ordinary location.
  int32_t Mbarrier = 0;
  int32_t phys(int32_t Self) const { return Phys < 0 ? Self : Phys; }
  int32_t generic(int32_t Self) const { return Generic < 0 ? Self : Generic; }
};

/// One side of a comparison in the final condition: a register's or a
/// location's final value, or a constant. Condition.h says how two sides
/// compare (the register-width rule).
struct Term {
  enum class Kind : uint8_t { Const, Reg, Loc } K = Kind::Const;
  int32_t Thread = -1; ///< Index into Program::Threads, for Reg.
  int32_t Index = -1;  ///< Register index in that thread, or location index.
  Value V;             ///< For Const (an integer or a location's address).
  static Term reg(int32_t Thread, int32_t Reg) {
    return {Kind::Reg, Thread, Reg, {}};
  }
  static Term loc(int32_t Loc) { return {Kind::Loc, -1, Loc, {}}; }
  static Term constant(Value V) { return {Kind::Const, -1, -1, V}; }
  static Term constant(int64_t V) { return constant(Value{-1, V}); }
};

/// The final condition's proposition, over final register and memory values.
struct Cond {
  enum Kind : uint8_t { True, False, Eq, Not, And, Or } K = True;
  Term Lhs, Rhs;         ///< For Eq.
  std::vector<Cond> Kids; ///< For Not (one), And, Or.
  static Cond eq(Term A, Term B) {
    Cond C;
    C.K = Eq;
    C.Lhs = A;
    C.Rhs = B;
    return C;
  }
};

enum class Quantifier : uint8_t { Exists, NotExists, Forall };

/// A register or location named in the condition (or a `locations` list):
/// what the "States" lines print, in order.
struct Observed {
  int32_t Thread = -1; ///< -1 for a memory location.
  int32_t Index = -1;  ///< Register index (in Thread) or location index.
};

struct Program {
  std::string Name;
  std::vector<Location> Locs;
  std::vector<ThreadProgram> Threads;
  Quantifier Q = Quantifier::Exists;
  Cond Condition;
  std::vector<Observed> Observe;
};

} // namespace incant::litmus

#endif // INCANT_LITMUS_PROGRAM_H
