//===- MemoryEvents.h - A kernel's memory accesses --------------*- C++ -*-===//
//
// Every instruction of a function that touches memory (ptx::memoryUse):
// loads, stores, atomics, asynchronous and bulk copies, wmma tiles,
// ldmatrix/stmatrix rows, surface and texture accesses, tensor-map
// writes, and the accesses the analysis cannot place (tcgen05, wgmma,
// unknown instructions: no object, named in Why), each with what a race checker
// needs: whether it reads and/or writes, how many bytes, whether it is
// atomic, strong (an atomic, or .relaxed/.acquire/.release with a scope)
// or volatile, the state space, and its address split into the object it
// points into and a byte offset (ThreadValues.h expressions).
//
// Objects: a pointer parameter (the kernel's pointer arguments are taken to
// point to distinct buffers, as GPUVerify does), a variable (.shared,
// .global, ...), or the CTA's dynamic shared memory (every `.extern
// .shared` array starts there). An address that comes from a loaded value
// (pointer chasing) has no known object; one whose offset depends on a
// loaded value (an index read from memory) is not affine. The race checker
// reports pairs of such accesses as unknown, never as safe.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_MEMORYEVENTS_H
#define INCANT_IR_MEMORYEVENTS_H

#include "incant/IR/Summary.h"
#include "incant/IR/SymExpr.h"

#include <optional>
#include <string>
#include <vector>

namespace incant::ir {

class ThreadValues;

enum class ObjectKind : uint8_t { Param, Variable, DynamicShared, Unknown };

struct MemoryObject {
  ObjectKind K = ObjectKind::Unknown;
  /// The parameter or variable ("$dynamic_shared" for dynamic shared).
  std::string Name;
  ptx::AddrSpace Space = ptx::AddrSpace::Generic;
  friend bool operator==(const MemoryObject &A, const MemoryObject &B) {
    return A.K == B.K && A.Name == B.Name;
  }
};

struct MemoryAccess {
  /// Kind, space, operation, effective semantics and scope, text, PTX line
  /// and source location (Event.Item is the body index).
  SummaryEvent Event;
  unsigned Item = 0;
  /// cp.async: 0 for the destination (a write), 1 for the source (a read).
  unsigned Part = 0;
  bool Reads = false, Writes = false;
  bool Atomic = false;   ///< atom, red
  bool Volatile = false; ///< ld/st.volatile
  /// Strong in the PTX memory model: atomic, or .relaxed, .acquire,
  /// .release, .acq_rel or .sc with a scope.
  bool Strong = false;
  ptx::Scope Scope = ptx::Scope::None; ///< Effective scope of a strong access.
  unsigned Bytes = 0;                  ///< 0 when unknown.
  /// The state space accessed (from the instruction, else from the object);
  /// Generic when neither tells.
  ptx::AddrSpace Space = ptx::AddrSpace::Generic;
  MemoryObject Object;
  ExprId Address = NoExpr;
  /// The byte offset into Object (Object known).
  ExprId Offset = NoExpr;
  /// An address made by `mapa` (distributed shared memory): the rank in
  /// the cluster of the CTA whose shared memory Object is; NoExpr for the
  /// executing CTA's own.
  ExprId Rank = NoExpr;
  /// The object is known and the offset depends on no loaded value.
  bool Affine = false;
  /// Why not Affine, in words.
  std::string Why;
  /// The offset depends on the results of ticket atomics (ticketAtomic):
  /// they differ between threads, but which values they take is not known.
  bool Ticketed = false;
  /// Completed after the instruction (cp.async, bulk copies, wgmma,
  /// tcgen05, st.async): barriers do not order it (ptx::MemoryUse::Async).
  bool Async = false;
  /// A warp-collective instruction (wmma, ldmatrix, stmatrix, ...): in one
  /// instance the lanes of a warp touch each byte once.
  bool Collective = false;
  /// OpenCL C's async_work_group_copy: one copy by the whole work-group,
  /// each element moved by whichever work-item (the element is the
  /// thread's choice); in one instance the work-items touch each element
  /// once.
  bool WorkGroup = false;
  /// Tensor memory (tcgen05), which only tcgen05 instructions touch.
  bool TensorMemory = false;
  /// An instruction the analysis does not know (or a form of one it does
  /// not: no address operand): any memory, tensor memory included.
  bool AnyMemory = false;
  /// A condition on the thread's choices that the access also needs
  /// (NoExpr: none): the row of a wmma tile a lane touches is below the
  /// tile's row count; a plain access at `c ? A : B` is two accesses, one
  /// with the condition c, the other with !c.
  ExprId Cond = NoExpr;
  /// Surface accesses: the coordinates after x (y, z, array layer), which
  /// must be equal for two accesses to meet; Offset is x in bytes.
  std::vector<ExprId> Coords;
  /// A plain st of one register or constant: the value stored (its bits;
  /// NoExpr for other accesses). Two stores of one value to one location
  /// leave it whichever lands last.
  ExprId Value = NoExpr;
};

/// Whether \p I hands out tickets: atom.add or atom.sub of a non-zero
/// integer constant, whose results differ between any two operations on
/// one location (two points of its modification order; no wrap-around),
/// or atom.inc, whose results differ between any b + 1 operations in a row
/// on one location (it wraps from b to 0: how often it runs there is the
/// race check's to bound).
bool ticketAtomic(const ptx::Instruction &I);

/// A call to one of OpenCL C's image functions (read_imagef, write_imagei,
/// ...), read from its mangled name.
struct ImageCall {
  bool Write = false;
  /// The image argument's access qualifier.
  enum Qualifier : uint8_t { ReadOnly, WriteOnly, ReadWrite } Image = ReadOnly;
  /// The coordinates that name a texel: x, then y, z or the array layer.
  unsigned Lanes = 0;
  bool IntCoords = true; ///< integer coordinates (not a sampler's floats)
  unsigned CoordArg = 1; ///< the coordinates' argument (after a sampler: 2)
};
std::optional<ImageCall> imageCall(const std::string &Callee);

/// The memory accesses of \p TV's function in body order.
std::vector<MemoryAccess> memoryAccesses(ThreadValues &TV);

/// The byte size of the access an ld, st, atom or red instruction makes
/// (vector width times element size); 0 if the type is not known.
unsigned accessBytes(const ptx::Instruction &I);

} // namespace incant::ir

#endif // INCANT_IR_MEMORYEVENTS_H
