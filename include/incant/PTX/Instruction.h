//===- Instruction.h - One PTX instruction: AST, parser, printer -*- C++ -*-===//
//
// The project's PTX instruction layer. A Statement is what one line of PTX
// code (or one litmus cell) holds: labels, then optionally one instruction
// with an optional guard. Every node carries the SourceRange the parser set.
//
// The parser keeps the modifiers as written, in order (Instruction::Mods),
// and also decodes them into fields (semantics, scope, state space, ...).
// Identifiers cannot be told apart (register or symbol) without the
// declarations around the instruction, so the parser classifies them by
// position: a name where an address goes is a Symbol, a name where a value
// goes is a Reg, and the target of a branch is a Label. Users of the layer
// re-resolve a Reg that turns out to name a symbol.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_PTX_INSTRUCTION_H
#define INCANT_PTX_INSTRUCTION_H

#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::ptx {

enum class Opcode : uint8_t {
  Ld, St, Atom, Red, Membar, Fence, Bar, Mov, Add, Sub, Mul, And, Or, Xor,
  Not, Cvt, Setp, Bra,
  /// Dat3M's compare-and-branch pseudo-instructions `beq a, b, L` (also
  /// bne, blt, ble, bgt, bge); Cmp holds the comparison.
  CmpBra,

  // Only parseModule produces the opcodes below (litmus cells keep the small
  // set above). Instruction::Name says which instruction a family member is.
  Ret,            ///< ret
  Exit,           ///< exit
  Trap,           ///< trap, brkpt
  Call,           ///< call: Ops are [(rets)], callee, [(args)], [prototype]
  Brx,            ///< brx.idx
  BarWarp,        ///< bar.warp.sync
  BarrierCluster, ///< barrier.cluster.arrive / .wait
  Shfl,           ///< shfl.sync
  Vote,           ///< vote.sync
  Match,          ///< match.any/all.sync
  Redux,          ///< redux.sync
  Activemask,     ///< activemask
  CpAsync,        ///< cp.async.*, cp.reduce.async.*, cp.async.bulk.*
  Mbarrier,       ///< mbarrier.*
  Tensor,         ///< mma, wmma, wgmma, ldmatrix, stmatrix, movmatrix, tcgen05
  Cvta,           ///< cvta (generic <-> state space conversion)
  Ldu,            ///< ldu
  Prefetch,       ///< prefetch, prefetchu, applypriority, discard
  /// Any other instruction of the PTX ISA (arithmetic, selp, mad, ...). The
  /// first operand is its destination.
  Other,
  /// An opcode the parser does not know (newer PTX): kept with its modifiers
  /// and operands so that it prints back; the parser warned about it.
  Unknown,
};

/// Every PTX state space; Instruction::ASpace and declarations use it.
/// (StateSpace above is the litmus subset and stays Generic for the rest.)
enum class AddrSpace : uint8_t {
  Generic, Reg, SReg, Const, Global, Local, Param,
  Shared,        ///< .shared and .shared::cta
  SharedCluster, ///< .shared::cluster
  Tex,
};
/// ".global", ".shared::cluster", ... ("" for Generic).
const char *addrSpaceName(AddrSpace S);
/// The state space a modifier names (".global", ".shared::cta", ...).
std::optional<AddrSpace> addrSpaceOf(std::string_view Modifier);

enum class Sem : uint8_t { None, Weak, Volatile, Relaxed, Acquire, Release, AcqRel, SC };
/// membar.gl decodes to GPU.
enum class Scope : uint8_t { None, CTA, Cluster, GPU, Sys };
enum class StateSpace : uint8_t { Generic, Global, Shared };
enum class CacheOp : uint8_t { None, CA, CG, CS, LU, CV, WB, WT };
/// Sub is Dat3M's `atom.sub`/`red.sub` (litmus cells only; not PTX).
enum class AtomOp : uint8_t { None, Cas, Exch, Add, Inc, Dec, And, Or, Xor, Min, Max, Sub };
/// The memory proxy of an access, or what a proxy fence (`fence.proxy.K`)
/// orders. In litmus cells, Dat3M's surface, texture and constant accesses
/// (`sust`, `suld`, `suatom`, `sured`, `tld`, `cold`) are ld/st/atom/red
/// with their proxy; a proxy fence is a Fence with Px set and no semantics.
enum class Proxy : uint8_t { Generic, Surface, Texture, Constant, Alias };
enum class CmpOp : uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs };

/// A PTX fundamental type: .s32, .u64, .b32, .pred, ...
/// parseType reads only S, U, B and Pred (what litmus tests declare);
/// parseAnyType also reads F (.f16, .f32, .f64) and .b128. Other types
/// (.bf16, .f16x2, .e4m3, ...) stay in Instruction::Mods only.
struct Type {
  enum Kind : uint8_t { S, U, B, Pred, F } K = S;
  uint8_t Bits = 32; ///< 1 for Pred.
  bool isSigned() const { return K == S; }
  friend bool operator==(const Type &, const Type &) = default;
};

/// Parses ".s32" etc. (with the dot); nullopt if not a type name.
std::optional<Type> parseType(std::string_view Text);
/// Like parseType, and also .f16, .f32, .f64 and .b128.
std::optional<Type> parseAnyType(std::string_view Text);
/// ".s32", ".pred", ...
std::string typeName(Type T);

/// A modifier as written, with its dot: ".relaxed".
struct Modifier {
  std::string Text;
  SourceRange Range;
};

struct Operand {
  enum Kind : uint8_t {
    Reg,     ///< A name where a value goes (register, or a symbol's address).
    Imm,     ///< An integer (Value).
    Symbol,  ///< A bare name where an address goes: `ld.weak r0, x`.
    Address, ///< `[base]`, `[base+off]`, `[base-off]` or `[off]` (Name empty).
    Label,   ///< A branch target.
    // Only parseModule produces the kinds below.
    FloatImm, ///< 0f3F800000 (FloatForm 'f'), 0d... ('d'): Value holds the
              ///< bits; a decimal literal (FloatForm 0) keeps its text in Name.
    Vector,   ///< `{%r1, %r2, _}`: Elems (also a braced initializer list).
    List,     ///< `(%r1, param0)`: call return values and arguments: Elems.
    Pair,     ///< `%p1|%p2` (setp, shfl, elect): Elems has the two.
    Generic,  ///< `generic(sym)` or `generic(sym)+8` in an initializer.
  } K = Reg;
  std::string Name;  ///< Reg/Symbol/Label name; Address base (may be empty).
  int64_t Value = 0; ///< Imm value; Address byte offset. For a Reg or Symbol
                     ///< in a module, a constant offset (`sym+8`).
  bool Hex = false;  ///< Imm written in hex (kept for printing).
  SourceRange Range;
  /// Vector, List and Pair elements; for an Address, a tensor or texture
  /// coordinate vector (`[tex, {%f1, %f2}]`) as its one element.
  std::vector<Operand> Elems;
  bool Negated = false; ///< `!%p1` (a negated predicate source).
  char FloatForm = 0;   ///< 'f', 'd' or 0; see FloatImm.
  /// An offset was written, even `+0`: ptxas in debug mode (-G) assembles
  /// `[%SP+0]` differently from `[%SP]`, so the printer keeps it.
  bool ExplicitOffset = false;
};

struct Guard {
  std::string Reg;
  bool Negated = false;
  SourceRange Range;
};

struct Instruction {
  Opcode Op = Opcode::Mov;
  std::string Name; ///< The opcode as written: "ld", "barrier", "goto".
  SourceRange NameRange;
  std::vector<Modifier> Mods; ///< Raw modifiers, in order.
  std::optional<Guard> G;
  std::vector<Operand> Ops;

  // Decoded from Mods.
  Sem S = Sem::None;
  Scope Sc = Scope::None;
  Proxy Px = Proxy::Generic;
  StateSpace Space = StateSpace::Generic;
  CacheOp Cache = CacheOp::None;
  AtomOp Atom = AtomOp::None;
  CmpOp Cmp = CmpOp::None;
  std::vector<Type> Types; ///< cvt has two (destination first).

  // Filled by parseModule only (parseStatement leaves the defaults).
  /// The full state space (.param, .local, .const, .shared::cluster, ...).
  AddrSpace ASpace = AddrSpace::Generic;
  /// For Opcode::Unknown whose operands did not parse: the operand text as
  /// written, printed back after the modifiers; Ops is then empty.
  std::string Verbatim;

  SourceRange Range;

  /// Whether the modifier \p Text (with its dot) is present.
  bool hasMod(std::string_view Text) const {
    for (const Modifier &M : Mods)
      if (M.Text == Text)
        return true;
    return false;
  }
};

struct Label {
  std::string Name;
  SourceRange Range;
};

/// Labels and at most one instruction (a litmus cell, a line of code).
struct Statement {
  std::vector<Label> Labels;
  std::optional<Instruction> Inst;
  SourceRange Range;
  bool empty() const { return Labels.empty() && !Inst; }
};

/// Parses bytes [Begin, End) of \p File as one statement: `L0:`,
/// `@!p ld.global.cg.s32 r0, [r1+4]`, both, or nothing. A trailing ';' is
/// allowed. Reports errors to \p Diags and returns nullopt on error.
std::optional<Statement> parseStatement(std::shared_ptr<const SourceFile> File,
                                        uint32_t Begin, uint32_t End,
                                        DiagnosticEngine &Diags);

/// How many leading operands of a module instruction are written (0 or 1;
/// a Pair `%r1|%p1` or a Vector `{%r1, %r2}` counts as one operand that
/// defines several registers). 0 for stores, reductions, barriers, fences,
/// branches, calls (their results are in the first List operand), cp.async,
/// prefetches, instructions whose first operand is an address or an
/// immediate, and nanosleep, stackrestore, pmevent, setmaxnreg,
/// griddepcontrol; `bar.red` defines its first operand.
unsigned numDefOperands(const Instruction &I);

/// How a module instruction touches the program's memory, by the PTX ISA's
/// semantics of its family: what a race checker must count. The state
/// space (Instruction::ASpace) and the address operands say where.
struct MemoryUse {
  enum Kind : uint8_t {
    None,    ///< No memory of the program: arithmetic, control, fences,
             ///< barriers, prefetches, queries (txq, suq), mbarrier objects.
    Plain,   ///< ld, ldu, st, atom, red, multimem.ld_reduce/st/red: one
             ///< access at the address operand, as wide as its type and
             ///< vector modifiers.
    Copy,    ///< cp.async (not bulk): destination [0] and source [1].
    Bulk,    ///< cp.async.bulk*, cp.reduce.async.bulk*, multimem.cp.*:
             ///< destination and source, completed later (Async).
    Tile,    ///< wmma.load / wmma.store: the warp's whole tile, in rows of
             ///< a stride (see MatrixTile).
    Rows,    ///< ldmatrix, stmatrix: each lane one 16-byte row at its
             ///< own address.
    Surface, ///< suld, sust, sured: a surface element at coordinates.
    Texture, ///< tex, tld4: a read through a texture handle.
    Fixed,   ///< Bytes at the address operand: tensormap.replace and
             ///< .cp_fenceproxy (128), discard (128), tcgen05.alloc (4).
    /// Memory the analysis cannot place: tcgen05.ld/st/cp/mma/shift
    /// (tensor memory, and shared memory through matrix descriptors),
    /// wgmma.mma_async (shared memory through descriptors),
    /// clusterlaunchcontrol.try_cancel.
    Opaque,
    Unknown, ///< An opcode the parser does not know (Opcode::Unknown).
  } K = None;
  bool Reads = false, Writes = false;
  bool Atomic = false; ///< sured, multimem.red: a read-modify-write.
  /// Performed after the instruction, until a later wait or mbarrier
  /// completes it: a barrier right after it does not order it.
  bool Async = false;
  /// Executed by the whole warp together (.sync.aligned): one instance by
  /// the lanes of one warp touches each byte once.
  bool Collective = false;
  bool TensorMemory = false; ///< Touches tensor memory (tcgen05).
  unsigned Bytes = 0;        ///< Fixed: the bytes at the address.
  unsigned Operand = 0;      ///< The address operand (all but Copy, Bulk).
};
MemoryUse memoryUse(const Instruction &I);

/// A wmma.load/wmma.store tile: Lines lines of LineElems elements of
/// ElemBits bits each, the lines Stride elements apart (the stride operand,
/// or LineElems when none is written).
struct MatrixTile {
  unsigned Lines = 0, LineElems = 0, ElemBits = 0;
  int StrideOperand = -1; ///< -1: none written.
};
/// The tile of a wmma.load/store, or nullopt when its shape, matrix,
/// layout or element type is not one the PTX ISA defines.
std::optional<MatrixTile> matrixTile(const Instruction &I);

/// The canonical text of an instruction (no trailing ';').
std::string printInstruction(const Instruction &I);
/// Labels ("L0: ") followed by the instruction.
std::string printStatement(const Statement &S);
std::string printOperand(const Operand &O);

} // namespace incant::ptx

#endif // INCANT_PTX_INSTRUCTION_H
