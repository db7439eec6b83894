//===- MemoryEvents.cpp - The memory accesses of a kernel, symbolically ---===//
#include "incant/IR/MemoryEvents.h"
#include "incant/IR/ThreadValues.h"
#include "incant/IR/AsyncCopies.h"

#include <fmt/format.h>

#include <algorithm>

#include <set>

namespace incant::ir {

using ptx::AddrSpace;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

/// Bytes of one element named by a type modifier the instruction decoder
/// leaves in Mods (packed and 8-bit float types).
static unsigned modifierBytes(const std::string &T) {
  if (T == ".f16x2" || T == ".bf16x2" || T == ".e4m3x4" || T == ".e5m2x4")
    return 4;
  if (T == ".f16" || T == ".bf16" || T == ".e4m3x2" || T == ".e5m2x2")
    return 2;
  if (T == ".e4m3" || T == ".e5m2")
    return 1;
  return 0;
}

unsigned accessBytes(const Instruction &I) {
  unsigned Vec = 1, Elem = 0;
  for (const ptx::Modifier &M : I.Mods) {
    if (M.Text == ".v2")
      Vec = 2;
    else if (M.Text == ".v4")
      Vec = 4;
    else if (M.Text == ".v8")
      Vec = 8;
    else if (unsigned B = modifierBytes(M.Text))
      Elem = B;
  }
  if (!I.Types.empty() && I.Types[0].K != ptx::Type::Pred)
    Elem = (I.Types[0].Bits + 7) / 8;
  return Elem * Vec;
}

bool ticketAtomic(const Instruction &I) {
  if (I.Op != Opcode::Atom || I.Ops.size() < 3)
    return false;
  bool Int = !I.Types.empty() && I.Types[0].K != ptx::Type::F;
  if (I.Atom == ptx::AtomOp::Inc)
    return Int && I.Ops.size() == 3;
  if (I.Atom != ptx::AtomOp::Add && I.Atom != ptx::AtomOp::Sub)
    return false;
  const Operand &V = I.Ops.back();
  return Int && V.K == Operand::Imm && V.Value != 0;
}

namespace {
std::string paramKey(const Symbol &S) {
  return S.Offset ? S.Name + "+" + std::to_string(S.Offset) : S.Name;
}

/// Parameters that hold pointers: declared `.ptr`, or converted with cvta
/// (nvcc converts each pointer argument with cvta.to.global).
std::set<std::string> pointerParams(ThreadValues &TV) {
  std::set<std::string> Out;
  const FunctionIR &F = TV.function();
  for (const ptx::Variable &V : F.function().Params)
    if (V.IsPtr)
      Out.insert(V.Name);
  for (unsigned Item : F.instructions()) {
    if (F.inst(Item).Op != Opcode::Cvta || F.inst(Item).Ops.size() < 2)
      continue;
    ExprId V = TV.operand(Item, 1);
    for (unsigned S : TV.pool().symbolsOf(V))
      if (TV.pool().symbol(S).K == SymKind::Param)
        Out.insert(paramKey(TV.pool().symbol(S)));
  }
  return Out;
}

bool is64BitParam(const ThreadValues &TV, const Symbol &S) {
  for (const ptx::Variable &V : TV.function().function().Params)
    if (V.Name == S.Name)
      return V.Type == ".u64" || V.Type == ".b64" || V.Type == ".s64" ||
             (V.Type == ".b8" && !V.Dims.empty()); // a struct argument
  return false;
}

AddrSpace spaceOfVariable(const ptx::Variable &V) {
  return V.Space == AddrSpace::Param ? AddrSpace::Param : V.Space;
}

void splitAddress(ThreadValues &TV, const std::set<std::string> &Ptrs,
                  MemoryAccess &A);

/// An address `mapa(a, r) + k` (mapa's result is opaque to ThreadValues):
/// the access is to offset k of what `a` points to, in the shared memory
/// of the CTA of rank r in the cluster. False if the address is not one.
bool mappedAddress(ThreadValues &TV, const std::set<std::string> &Ptrs,
                   MemoryAccess &A) {
  ExprPool &P = TV.pool();
  AffineForm F = P.affine(A.Address);
  for (const auto &[M, K] : F.Terms) {
    const Symbol *S = M.size() == 1 && K == 1 ? P.asSymbol(M[0]) : nullptr;
    if (!S || S->K != SymKind::Opaque || S->Item == ~0u ||
        !TV.function().isInstruction(S->Item))
      continue;
    // splitAddress below adds symbols to the pool: S does not outlive it.
    const unsigned Mapa = S->Item;
    const Instruction &I = TV.function().inst(Mapa);
    if (I.Name != "mapa" || I.Ops.size() < 3)
      continue;
    AffineForm Rest = F;
    Rest.Terms.erase(M);
    MemoryAccess Local = A;
    Local.Address = P.add(TV.operand(Mapa, 1), P.fromAffine(Rest));
    Local.Rank = NoExpr;
    splitAddress(TV, Ptrs, Local);
    if (Local.Object.K == ObjectKind::Unknown)
      return false;
    Local.Address = A.Address;
    Local.Rank = TV.operand(Mapa, 2);
    Local.Space = AddrSpace::SharedCluster;
    A = std::move(Local);
    return true;
  }
  return false;
}

/// The space of an access once its object is known: a generic address
/// takes its object's; a .shared::cluster operand that names a shared
/// variable itself (a bulk copy's destination) is in the executing CTA's
/// own window; a mapped one stays .shared::cluster.
void settleSpace(MemoryAccess &A) {
  if (A.Space == AddrSpace::Generic && A.Rank == NoExpr)
    A.Space = A.Object.Space;
  if (A.Space == AddrSpace::SharedCluster && A.Rank == NoExpr &&
      A.Object.Space == AddrSpace::Shared)
    A.Space = AddrSpace::Shared;
}

/// Splits \p Address into an object and an offset.
void splitAddress(ThreadValues &TV, const std::set<std::string> &Ptrs,
                  MemoryAccess &A) {
  ExprPool &P = TV.pool();
  AffineForm F = P.affine(A.Address);
  std::vector<std::vector<ExprId>> Vars, Params, WideParams;
  for (const auto &[M, K] : F.Terms) {
    if (K != 1 || M.size() != 1)
      continue;
    const Symbol *S = P.asSymbol(M[0]);
    if (!S)
      continue;
    if (S->K == SymKind::VarAddr && !TV.isParam(S->Name))
      Vars.push_back(M);
    else if (S->K == SymKind::Param && Ptrs.count(paramKey(*S)))
      Params.push_back(M);
    else if (S->K == SymKind::Param && is64BitParam(TV, *S))
      WideParams.push_back(M);
  }
  const std::vector<ExprId> *Base = nullptr;
  if (Vars.size() == 1)
    Base = &Vars[0];
  else if (Vars.empty() && Params.size() == 1)
    Base = &Params[0];
  else if (Vars.empty() && Params.empty() && WideParams.size() == 1)
    Base = &WideParams[0];
  if (!Base && mappedAddress(TV, Ptrs, A))
    return;
  if (!Base) {
    A.Object = MemoryObject();
    bool Loaded = P.mentions(A.Address, [](const Symbol &S) {
      return S.K == SymKind::Opaque && !S.Uniform;
    });
    A.Why = Loaded ? "the address is computed from a loaded value (a pointer "
                     "read from memory)"
                   : "the address is not a variable or pointer parameter plus "
                     "an offset";
    return;
  }
  const Symbol &S = *P.asSymbol((*Base)[0]);
  if (S.K == SymKind::VarAddr) {
    const ptx::Variable *V = TV.findVariable(S.Name);
    A.Object.K = ObjectKind::Variable;
    A.Object.Name = S.Name;
    A.Object.Space = V ? spaceOfVariable(*V) : AddrSpace::Generic;
    if (V && V->Space == AddrSpace::Shared && V->Link == ptx::Linkage::Extern) {
      A.Object.K = ObjectKind::DynamicShared;
      A.Object.Name = "$dynamic_shared";
    }
  } else {
    A.Object.K = ObjectKind::Param;
    A.Object.Name = paramKey(S);
    A.Object.Space = AddrSpace::Global;
    // `.param .u64 .ptr .shared`: OpenCL's __local pointer arguments.
    for (const ptx::Variable &V : TV.function().function().Params)
      if (V.Name == S.Name && V.IsPtr && V.PtrSpace != AddrSpace::Generic)
        A.Object.Space = V.PtrSpace;
  }
  AffineForm Rest = F;
  Rest.Terms.erase(*Base);
  A.Offset = P.fromAffine(Rest);
  const FunctionIR &Fn = TV.function();
  auto Ticket = [&](const Symbol &Y) {
    return Y.Part == 0 && Fn.isInstruction(Y.Item) &&
           ticketAtomic(Fn.inst(Y.Item));
  };
  bool Loaded = P.mentions(A.Offset, [&](const Symbol &Y) {
    return Y.K == SymKind::Opaque && !Y.Uniform && !Ticket(Y);
  });
  A.Ticketed = P.mentions(A.Offset, [&](const Symbol &Y) {
    return Y.K == SymKind::Opaque && Ticket(Y);
  });
  if (Loaded) {
    A.Why = "the offset depends on a loaded value (an index read from memory)";
    return;
  }
  A.Affine = true;
}

/// A select between addresses (`selp.b64 %rd, %a, %b, %p`: `c ? A : B`,
/// a double buffer's halves): \p A's address as the sum of one select and
/// the rest, split into the access of either side, each with the side's
/// condition (MemoryAccess::Cond). Empty when the address has no such
/// select, or a side's object is still not known.
std::vector<MemoryAccess> selectSides(ThreadValues &TV,
                                      const std::set<std::string> &Ptrs,
                                      const MemoryAccess &A, unsigned Depth) {
  ExprPool &P = TV.pool();
  AffineForm F = P.affine(A.Address);
  const std::vector<ExprId> *Sel = nullptr;
  for (const auto &[M, K] : F.Terms)
    if (K == 1 && M.size() == 1 && P.node(M[0]).O == Op::Select) {
      if (Sel)
        return {}; // two selects: four sides
      Sel = &M;
    }
  if (!Sel)
    return {};
  const ExprNode &N = P.node((*Sel)[0]);
  ExprId C = N.Ops[0], Then = N.Ops[1], Else = N.Ops[2];
  AffineForm Rest = F;
  Rest.Terms.erase(*Sel);
  ExprId Base = P.fromAffine(Rest);
  std::vector<MemoryAccess> Out;
  for (auto [Side, Cond] : {std::pair{Then, C}, std::pair{Else, P.lnot(C)}}) {
    MemoryAccess S = A;
    S.Address = P.add(Base, Side);
    S.Cond = A.Cond == NoExpr ? Cond : P.land(A.Cond, Cond);
    S.Object = MemoryObject();
    S.Why.clear();
    splitAddress(TV, Ptrs, S);
    if (S.Object.K != ObjectKind::Unknown) {
      Out.push_back(std::move(S));
      continue;
    }
    std::vector<MemoryAccess> More =
        Depth ? selectSides(TV, Ptrs, S, Depth - 1) : std::vector<MemoryAccess>();
    if (More.empty())
      return {};
    Out.insert(Out.end(), More.begin(), More.end());
  }
  return Out;
}
} // namespace

namespace {
/// The event of an instruction the summary does not report (wmma, surface
/// accesses, ...), with its text, position and loop depth.
SummaryEvent eventOf(const FunctionIR &F, unsigned Item, EventKind K) {
  if (std::optional<SummaryEvent> E = summaryEvent(F, Item))
    return *E;
  const Instruction &I = F.inst(Item);
  SummaryEvent E;
  E.Kind = K;
  const char *Sp = ptx::addrSpaceName(I.ASpace);
  E.Space = *Sp ? Sp + 1 : "generic";
  E.Op = I.Name;
  E.Brief = I.Name;
  E.Text = ptx::printInstruction(I);
  E.Item = Item;
  E.PtxLine = I.Range.Begin.Line;
  E.Loc = F.loc(Item);
  E.LoopDepth = F.loops().depth(F.blockOf(Item));
  return E;
}

/// Semantics and scope of a plain access (ld, st, atom, red, multimem).
void setStrength(const Instruction &I, MemoryAccess &A) {
  A.Volatile = I.S == ptx::Sem::Volatile;
  if (A.Atomic) {
    A.Strong = true;
    A.Scope = I.Sc == ptx::Scope::None ? ptx::Scope::GPU : I.Sc;
  } else if (I.S == ptx::Sem::Relaxed || I.S == ptx::Sem::Acquire ||
             I.S == ptx::Sem::Release || I.S == ptx::Sem::AcqRel ||
             I.S == ptx::Sem::SC) {
    A.Strong = I.Sc != ptx::Scope::None;
    A.Scope = I.Sc;
  }
}

/// The state spaces an instruction names, in order (a copy's destination
/// first).
std::vector<AddrSpace> spacesOf(const Instruction &I) {
  std::vector<AddrSpace> Out;
  for (const ptx::Modifier &M : I.Mods)
    if (std::optional<AddrSpace> S = ptx::addrSpaceOf(M.Text))
      Out.push_back(*S);
  return Out;
}

MemoryAccess start(const FunctionIR &F, unsigned Item, EventKind K,
                   const ptx::MemoryUse &U) {
  MemoryAccess A;
  A.Event = eventOf(F, Item, K);
  A.Item = Item;
  A.Reads = U.Reads;
  A.Writes = U.Writes;
  A.Atomic = U.Atomic;
  A.Async = U.Async;
  A.Collective = U.Collective;
  A.TensorMemory = U.TensorMemory;
  return A;
}

EventKind kindOf(const ptx::MemoryUse &U) {
  return U.Atomic ? EventKind::Atomic
         : U.Writes ? EventKind::Store
                    : EventKind::Load;
}

/// The value a plain `st [a], v` stores: a register's value or an integer
/// or floating-point constant's bits; NoExpr for vectors and other forms.
ExprId storedValue(ThreadValues &TV, unsigned Item) {
  const Instruction &I = TV.function().inst(Item);
  if (I.Op != Opcode::St || I.Ops.size() != 2 ||
      I.Ops[0].K != Operand::Address)
    return NoExpr;
  const Operand &V = I.Ops[1];
  if (V.K == Operand::FloatImm)
    return V.FloatForm ? TV.pool().constant(V.Value) : NoExpr;
  if (V.K != Operand::Reg && V.K != Operand::Imm)
    return NoExpr;
  return TV.operand(Item, 1);
}

/// ld, st, atom, red, multimem, cp.async and bulk copies: an access per
/// address operand (destination, source).
void plainAccesses(ThreadValues &TV, const std::set<std::string> &Ptrs,
                   unsigned Item, const ptx::MemoryUse &U,
                   std::vector<MemoryAccess> &Out) {
  const FunctionIR &F = TV.function();
  const Instruction &I = F.inst(Item);
  bool Copy = U.K == ptx::MemoryUse::Copy || U.K == ptx::MemoryUse::Bulk;
  if (!Copy && I.Op != Opcode::Other && !summaryEvent(F, Item))
    return; // .param, .local, .const: not shared between threads
  std::vector<unsigned> AddrOps;
  for (unsigned K = 0; K < I.Ops.size(); ++K)
    if (I.Ops[K].K == Operand::Address)
      AddrOps.push_back(K);
  std::vector<AddrSpace> Spaces = spacesOf(I);
  for (unsigned Part = 0; Part < AddrOps.size() && Part < (Copy ? 2u : 1u);
       ++Part) {
    MemoryAccess A = start(F, Item, Copy ? EventKind::AsyncCopy : kindOf(U), U);
    A.Part = Part;
    if (Copy) {
      // The destination is written (and read by a reduction), the source
      // read.
      A.Writes = Part == 0;
      A.Reads = Part == 1 || (I.Name == "cp" && I.hasMod(".reduce"));
      A.Atomic = false;
    }
    setStrength(I, A);
    const Operand &O = I.Ops[AddrOps[Part]];
    if (Copy) {
      // cp.async{.bulk}.dst.src [dst], [src], size: the size in bytes.
      A.Bytes = 0;
      if (I.Ops.size() > 2 && I.Ops[2].K != Operand::Address)
        if (auto C = TV.pool().asConst(TV.operand(Item, 2)); C && *C > 0)
          A.Bytes = static_cast<unsigned>(*C);
      A.Space = Part < Spaces.size() ? Spaces[Part]
                : Part == 0           ? AddrSpace::Shared
                                      : AddrSpace::Global;
    } else {
      A.Bytes = accessBytes(I);
      A.Space = I.ASpace;
      A.Value = storedValue(TV, Item);
    }
    if (!O.Elems.empty()) {
      // [tensorMap, {coordinates}]: the tensor map says where.
      A.Address = NoExpr;
      A.Why = fmt::format("{} reaches global memory through a tensor map, "
                          "which the analysis does not read",
                          I.Name + (I.Mods.empty() ? "" : I.Mods[0].Text));
    } else {
      A.Address = TV.operand(Item, AddrOps[Part]);
      splitAddress(TV, Ptrs, A);
      // A plain ld or st at `c ? A : B`: an access of each side. (Strong
      // and atomic accesses stay one: synchronisation through memory
      // finds them by their instruction.)
      if (A.Object.K == ObjectKind::Unknown && !Copy && !A.Atomic &&
          !A.Strong && !A.Volatile) {
        std::vector<MemoryAccess> Sides = selectSides(TV, Ptrs, A, 2);
        for (MemoryAccess &S : Sides) {
          settleSpace(S);
          Out.push_back(std::move(S));
        }
        if (!Sides.empty())
          continue;
      }
    }
    settleSpace(A);
    Out.push_back(std::move(A));
  }
}

/// OpenCL C's async_work_group_copy(dst, src, n, event) and
/// async_work_group_strided_copy(dst, src, n, stride, event), calls clang
/// leaves to the library: the work-group moves n elements and which
/// work-item moves which is the implementation's, so the element is the
/// thread's choice k below n (as a wmma tile's line is). The destination
/// is written and the source read at dst + k and src + k elements, the
/// global side k * stride elements for the strided form.
void workGroupCopyAccesses(ThreadValues &TV, const std::set<std::string> &Ptrs,
                           unsigned Item, const WorkGroupCopyCall &C,
                           std::vector<MemoryAccess> &Out) {
  const FunctionIR &F = TV.function();
  ExprPool &P = TV.pool();
  const char *Name = C.Strided ? "async_work_group_strided_copy"
                               : "async_work_group_copy";
  ExprId K = TV.choice(Item, 210, "element of the work-group copy");
  ExprId N = TV.callArgument(Item, 2);
  ExprId Stride = C.Strided ? TV.callArgument(Item, 3) : P.constant(1);
  ExprId Within = P.cmp(CmpKind::Ge, K, P.constant(0), true);
  if (N != NoExpr)
    Within = P.land(Within, P.cmp(CmpKind::Lt, K, N, true));
  ptx::MemoryUse U;
  U.K = ptx::MemoryUse::Copy;
  U.Async = true;
  for (unsigned Part : {0u, 1u}) {
    MemoryAccess A = start(F, Item, EventKind::AsyncCopy, U);
    A.Event.Kind = EventKind::AsyncCopy;
    A.Event.Op = A.Event.Brief = Name;
    A.Event.Text = fmt::format("{} ({})", Name, Part ? "source" : "destination");
    A.Part = Part;
    A.Writes = Part == 0;
    A.Reads = Part == 1;
    A.WorkGroup = true;
    A.Space = Part ? C.Src : C.Dst;
    A.Bytes = C.ElemBytes;
    A.Address = TV.callArgument(Item, Part);
    bool StridedSide = C.Strided && A.Space == AddrSpace::Global;
    ExprId Elems = StridedSide ? (Stride == NoExpr ? NoExpr : P.mul(K, Stride)) : K;
    std::vector<MemoryAccess> Sides;
    if (A.Address == NoExpr) {
      A.Why = fmt::format("the {} of {} is not known", Part ? "source" : "destination", Name);
    } else {
      splitAddress(TV, Ptrs, A);
      if (A.Object.K == ObjectKind::Unknown)
        Sides = selectSides(TV, Ptrs, A, 2);
    }
    if (Sides.empty())
      Sides.push_back(std::move(A));
    for (MemoryAccess &S : Sides) {
      if (S.Affine && Elems == NoExpr) {
        S.Affine = false;
        S.Why = fmt::format("the stride of {} is not known", Name);
      } else if (S.Affine) {
        S.Offset = P.add(S.Offset, P.mul(Elems, P.constant(C.ElemBytes)));
      }
      S.Cond = S.Cond == NoExpr ? Within : P.land(S.Cond, Within);
      settleSpace(S);
      Out.push_back(std::move(S));
    }
  }
}

} // namespace

std::optional<ImageCall> imageCall(const std::string &Callee) {
  // _Z<len>{read,write}_image{f,i,ui,h}<len>ocl_image<kind>_<ro|wo|rw>...
  if (Callee.rfind("_Z", 0) != 0)
    return std::nullopt;
  size_t At = 2, Len = 0;
  while (At < Callee.size() && Len <= Callee.size() &&
         std::isdigit(static_cast<unsigned char>(Callee[At])))
    Len = Len * 10 + static_cast<size_t>(Callee[At++] - '0');
  if (Len == 0 || Len > Callee.size() - At)
    return std::nullopt;
  std::string Name = Callee.substr(At, Len), Rest = Callee.substr(At + Len);
  ImageCall C;
  if (Name.rfind("write_image", 0) == 0)
    C.Write = true;
  else if (Name.rfind("read_image", 0) != 0)
    return std::nullopt;
  size_t K = 0, TLen = 0;
  while (K < Rest.size() && TLen <= Rest.size() &&
         std::isdigit(static_cast<unsigned char>(Rest[K])))
    TLen = TLen * 10 + static_cast<size_t>(Rest[K++] - '0');
  if (TLen > Rest.size() - K)
    return std::nullopt;
  std::string Type = Rest.substr(K, TLen);
  if (Type.rfind("ocl_image", 0) != 0 || Type.size() < 12)
    return std::nullopt;
  std::string Q = Type.substr(Type.size() - 3);
  C.Image = Q == "_wo"   ? ImageCall::WriteOnly
            : Q == "_rw" ? ImageCall::ReadWrite
                         : ImageCall::ReadOnly;
  std::string Kind = Type.substr(9, Type.size() - 12);
  C.Lanes = Kind.rfind("1d_array", 0) == 0 || Kind.rfind("2d", 0) == 0 ? 2 : 1;
  if (Kind.rfind("2d_array", 0) == 0 || Kind.rfind("3d", 0) == 0)
    C.Lanes = 3;
  std::string Args = Rest.substr(K + TLen);
  if (Args.rfind("11ocl_sampler", 0) == 0) {
    C.CoordArg = 2;
    Args = Args.substr(13);
  }
  // The coordinates: int, or Dv<N>_i; float ones (Dv<N>_f, f) go through
  // a sampler's filtering.
  C.IntCoords = Args.rfind("i", 0) == 0 ||
                (Args.rfind("Dv", 0) == 0 &&
                 Args.find("_i") == Args.find_first_not_of("0123456789", 2));
  return C;
}

namespace {

/// write_image* (and read_image* of a read_write image): the texel at
/// integer coordinates of the image argument; x is the offset in texels,
/// the others (Coords) must be equal for two accesses to meet.
void imageAccess(ThreadValues &TV, unsigned Item, const ImageCall &C,
                 std::vector<MemoryAccess> &Out) {
  ExprPool &P = TV.pool();
  ptx::MemoryUse U;
  U.K = ptx::MemoryUse::Surface;
  U.Writes = C.Write;
  U.Reads = !C.Write;
  MemoryAccess A = start(TV.function(), Item, C.Write ? EventKind::Store : EventKind::Load, U);
  A.Event.Kind = C.Write ? EventKind::Store : EventKind::Load;
  A.Event.Text = A.Event.Op = A.Event.Brief =
      C.Write ? "write_image (texel)" : "read_image (texel)";
  A.Space = AddrSpace::Global;
  A.Bytes = 1; // a texel: both accesses touch one image of one format
  const Symbol *S = P.asSymbol(TV.callArgument(Item, 0));
  if (S && S->K == SymKind::Param) {
    A.Object.K = ObjectKind::Param;
    A.Object.Name = paramKey(*S);
    A.Object.Space = AddrSpace::Global;
  }
  std::vector<ExprId> Lanes;
  for (unsigned L = 0; L < C.Lanes; ++L)
    Lanes.push_back(TV.callArgumentLane(Item, C.CoordArg, C.Lanes == 1 ? 0 : L));
  auto Loaded = [&](ExprId E) {
    return P.mentions(E, [](const Symbol &Y) {
      return Y.K == SymKind::Opaque && !Y.Uniform;
    });
  };
  if (A.Object.K == ObjectKind::Unknown)
    A.Why = "the image is not a kernel parameter";
  else if (!C.IntCoords)
    A.Why = "an image read through a sampler at float coordinates: which "
            "texels it touches is the sampler's";
  else if (std::find(Lanes.begin(), Lanes.end(), NoExpr) != Lanes.end())
    A.Why = "image coordinates the analysis cannot read";
  else if (std::any_of(Lanes.begin(), Lanes.end(), Loaded))
    A.Why = "the image coordinates depend on a loaded value";
  else {
    A.Offset = Lanes[0];
    A.Coords.assign(Lanes.begin() + 1, Lanes.end());
    A.Affine = true;
  }
  Out.push_back(std::move(A));
}

/// wmma.load/store: the warp's tile, Lines lines of LineElems elements,
/// Stride elements apart; each lane may touch any line (the fragment
/// layout is the implementation's), so the line is the thread's choice.
void tileAccess(ThreadValues &TV, const std::set<std::string> &Ptrs,
                unsigned Item, const ptx::MemoryUse &U,
                std::vector<MemoryAccess> &Out) {
  const Instruction &I = TV.function().inst(Item);
  ExprPool &P = TV.pool();
  MemoryAccess A = start(TV.function(), Item, kindOf(U), U);
  A.Space = I.ASpace;
  A.Address = TV.operand(Item, U.Operand);
  splitAddress(TV, Ptrs, A);
  settleSpace(A);
  std::optional<ptx::MatrixTile> T = ptx::matrixTile(I);
  if (!T) {
    A.Affine = false;
    A.Why = "a wmma tile whose shape, layout or element type is not known";
  } else if (A.Affine) {
    ExprId Line = TV.choice(Item, 200, "line of the wmma tile");
    ExprId Stride = T->StrideOperand >= 0
                        ? TV.operand(Item, static_cast<unsigned>(T->StrideOperand))
                        : P.constant(T->LineElems);
    // Sub-byte elements (.s4, .u4, .b1): the stride counts elements too.
    ExprId Elems = P.mul(Line, Stride);
    A.Offset = P.add(A.Offset,
                     T->ElemBits % 8
                         ? P.div(P.mul(Elems, P.constant(T->ElemBits)),
                                 P.constant(8), false)
                         : P.mul(Elems, P.constant(T->ElemBits / 8)));
    A.Bytes = T->LineElems * T->ElemBits / 8;
    A.Cond = P.land(P.cmp(CmpKind::Ge, Line, P.constant(0), true),
                    P.cmp(CmpKind::Lt, Line, P.constant(T->Lines), true));
  }
  Out.push_back(std::move(A));
}

/// suld, sust, sured: the element at (x, y, z, layer) of the surface the
/// handle names; x counts bytes (.b), the others must be equal.
void surfaceAccess(ThreadValues &TV, unsigned Item, const ptx::MemoryUse &U,
                   std::vector<MemoryAccess> &Out) {
  const Instruction &I = TV.function().inst(Item);
  ExprPool &P = TV.pool();
  MemoryAccess A = start(TV.function(), Item, kindOf(U), U);
  setStrength(I, A);
  A.Space = AddrSpace::Global;
  A.Bytes = accessBytes(I);
  ExprId Handle = TV.addressBase(Item, U.Operand);
  const Symbol *S = P.asSymbol(Handle);
  if (S && (S->K == SymKind::Param || S->K == SymKind::VarAddr)) {
    A.Object.K = S->K == SymKind::Param ? ObjectKind::Param : ObjectKind::Variable;
    A.Object.Name = S->K == SymKind::Param ? paramKey(*S) : S->Name;
    A.Object.Space = AddrSpace::Global;
  }
  bool Layered = I.hasMod(".a1d") || I.hasMod(".a2d");
  unsigned Dims = I.hasMod(".3d") ? 3 : I.hasMod(".2d") || I.hasMod(".a2d") ? 2 : 1;
  std::vector<ExprId> C;
  for (unsigned K = 0; K < Dims + Layered; ++K)
    C.push_back(TV.addressCoordinate(Item, U.Operand, K));
  if (A.Object.K == ObjectKind::Unknown)
    A.Why = "the surface handle is not a kernel parameter or variable";
  else if (I.hasMod(".p"))
    A.Why = "a formatted surface access (.p): its x coordinate counts "
            "elements of a format the analysis does not know";
  else if (I.hasMod(".clamp"))
    A.Why = "clamped surface coordinates (.clamp): different coordinates "
            "can touch one element";
  else if (std::find(C.begin(), C.end(), NoExpr) != C.end())
    A.Why = "surface coordinates the analysis cannot read";
  else {
    // .a1d: {layer, x}; .a2d: {layer, x, y}.
    A.Offset = C[Layered ? 1 : 0];
    for (unsigned K = 0; K < C.size(); ++K)
      if (K != (Layered ? 1u : 0u))
        A.Coords.push_back(C[K]);
    A.Affine = !P.mentions(A.Offset, [](const Symbol &Y) {
      return Y.K == SymKind::Opaque && !Y.Uniform;
    });
    for (ExprId E : A.Coords)
      A.Affine &= !P.mentions(E, [](const Symbol &Y) {
        return Y.K == SymKind::Opaque && !Y.Uniform;
      });
    if (!A.Affine)
      A.Why = "the surface coordinates depend on a loaded value";
  }
  Out.push_back(std::move(A));
}
} // namespace

std::vector<MemoryAccess> memoryAccesses(ThreadValues &TV) {
  const FunctionIR &F = TV.function();
  std::set<std::string> Ptrs = pointerParams(TV);
  std::vector<MemoryAccess> Out;
  for (unsigned Item : F.instructions()) {
    const Instruction &I = F.inst(Item);
    if (std::optional<WorkGroupCopyCall> C = workGroupCopyCall(calleeOf(I))) {
      workGroupCopyAccesses(TV, Ptrs, Item, *C, Out);
      continue;
    }
    // A read-only image is not written while the kernel runs: its reads
    // touch nothing another work-item writes.
    if (std::optional<ImageCall> C = imageCall(calleeOf(I))) {
      if (C->Write || C->Image == ImageCall::ReadWrite)
        imageAccess(TV, Item, *C, Out);
      continue;
    }
    ptx::MemoryUse U = ptx::memoryUse(I);
    switch (U.K) {
    case ptx::MemoryUse::None:
      break;
    case ptx::MemoryUse::Plain:
    case ptx::MemoryUse::Copy:
    case ptx::MemoryUse::Bulk:
      plainAccesses(TV, Ptrs, Item, U, Out);
      break;
    case ptx::MemoryUse::Tile:
      tileAccess(TV, Ptrs, Item, U, Out);
      break;
    case ptx::MemoryUse::Surface:
      surfaceAccess(TV, Item, U, Out);
      break;
    case ptx::MemoryUse::Rows:
    case ptx::MemoryUse::Fixed:
    case ptx::MemoryUse::Texture: {
      // ldmatrix/stmatrix: each lane one 16-byte row; tensormap.replace,
      // discard, tcgen05.alloc: a block at the address; tex: a read
      // through a texture handle, of memory the kernel does not write.
      MemoryAccess A = start(F, Item, kindOf(U), U);
      A.Bytes = U.K == ptx::MemoryUse::Rows ? 16 : U.Bytes;
      A.Space = I.ASpace;
      if (U.K == ptx::MemoryUse::Texture) {
        A.Space = AddrSpace::Tex;
        A.Bytes = accessBytes(I);
        A.Address = TV.addressBase(Item, U.Operand);
      } else {
        A.Address = TV.operand(Item, U.Operand);
      }
      splitAddress(TV, Ptrs, A);
      settleSpace(A);
      Out.push_back(std::move(A));
      break;
    }
    case ptx::MemoryUse::Opaque:
    case ptx::MemoryUse::Unknown: {
      std::string What = I.Name + (I.Mods.empty() ? "" : I.Mods[0].Text);
      MemoryAccess A = start(F, Item, kindOf(U), U);
      A.Space = I.Name == "wgmma" || I.Name == "clusterlaunchcontrol"
                    ? AddrSpace::Shared
                    : AddrSpace::Generic;
      A.AnyMemory = U.K == ptx::MemoryUse::Unknown;
      A.Why = U.K == ptx::MemoryUse::Unknown && I.Op != ptx::Opcode::Unknown
                  ? fmt::format("'{}' without an address operand is a form "
                                "the analysis does not know: it may read and "
                                "write any memory",
                                What)
              : U.K == ptx::MemoryUse::Unknown
                  ? fmt::format("'{}' is an instruction the analysis does not "
                                "know: it may read and write any memory",
                                I.Name)
              : U.TensorMemory
                  ? fmt::format("{} accesses tensor memory, which the "
                                "analysis does not model",
                                What)
                  : fmt::format("{} accesses memory the analysis cannot "
                                "place (through descriptors)",
                                What);
      Out.push_back(A);
      if (I.Name == "tcgen05" && (I.hasMod(".cp") || I.hasMod(".mma"))) {
        // Also shared memory, through matrix descriptors.
        A.Part = 1;
        A.TensorMemory = false;
        A.Writes = false;
        A.Space = AddrSpace::Shared;
        A.Why = fmt::format("{} reads shared memory through matrix "
                            "descriptors, which the analysis does not follow",
                            What);
        Out.push_back(std::move(A));
      }
      break;
    }
    }
  }
  return Out;
}

} // namespace incant::ir
