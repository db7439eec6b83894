//===- Check.cpp - One kernel's accesses, barriers and verdicts -----------===//
#include "Checker.h"
#include "incant/IR/Inliner.h"
#include "incant/IR/Summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

namespace incant::race {

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Safe: return "safe";
  case Verdict::Race: return "race";
  case Verdict::Unknown: return "unknown";
  }
  return "?";
}

const char *relationName(Relation R) {
  switch (R) {
  case Relation::SameWarp: return "same warp";
  case Relation::SameBlock: return "same block";
  case Relation::OtherBlocks: return "different blocks";
  }
  return "?";
}

std::vector<unsigned> KernelReport::unproved() const {
  std::vector<unsigned> Out;
  for (unsigned I = 0; I < Accesses.size(); ++I)
    if (!Accesses[I].Proved)
      Out.push_back(I);
  return Out;
}

uint32_t Checker::lineOf(unsigned Item) const {
  // Code the inliner made has no position: that of what precedes it.
  for (unsigned I = Item + 1; I-- > 0;) {
    uint32_t L = std::visit([](const auto &N) { return N.Range.Begin.Line; },
                            F.function().Body[I]);
    if (L)
      return L;
  }
  return 0;
}

std::string Checker::whereText(unsigned Item) const {
  // An opaque value may come from a body item that is no instruction (a
  // variable's address): it has a PTX line, no debug location.
  if (!F.isInstruction(Item))
    return fmt::format("PTX line {}", Item < F.function().Body.size()
                                          ? lineOf(Item)
                                          : 0);
  const ir::DebugLoc &L = F.loc(Item);
  if (const ir::SourceFrame *Fr = L.userFrame()) {
    std::string File = Fr->File;
    size_t Slash = File.find_last_of('/');
    if (Slash != std::string::npos)
      File = File.substr(Slash + 1);
    return fmt::format("{}:{}", File.empty() ? "?" : File, Fr->Line);
  }
  return fmt::format("PTX line {}", lineOf(Item));
}

//===-- Collecting --------------------------------------------------------===//

void Checker::launchBounds() {
  // .reqntid fixes the block (CUDA refuses any other launch; OpenCL C's
  // reqd_work_group_size, which the compilation carries into .reqntid);
  // .maxntid (__launch_bounds__) bounds its size.
  for (const ptx::PerfDirective &D : F.function().Perf) {
    if (D.Values.empty() || D.Values.size() > 3)
      continue;
    int64_t Total = 1;
    for (uint64_t V : D.Values)
      Total *= static_cast<int64_t>(std::min<uint64_t>(V, 1 << 20));
    if (D.Name == ".maxntid" && Total < O.Launch.MaxThreads) {
      O.Launch.MaxThreads = Total;
      R.Assumptions.push_back(fmt::format(
          "at most {} threads per block: the kernel's .maxntid "
          "(__launch_bounds__)",
          Total));
    } else if (D.Name == ".reqntid") {
      std::array<int64_t, 3> Dims = {1, 1, 1};
      for (size_t K = 0; K < D.Values.size(); ++K)
        Dims[K] = static_cast<int64_t>(D.Values[K]);
      bool Given = false, Same = true;
      for (unsigned K = 0; K < 3; ++K) {
        Given |= O.Launch.Block[K].has_value();
        Same &= !O.Launch.Block[K] || *O.Launch.Block[K] == Dims[K];
      }
      if (!Same) {
        R.Notes.push_back(fmt::format(
            "the block given differs from the kernel's .reqntid {},{},{}{}: "
            "such a launch is refused",
            Dims[0], Dims[1], Dims[2],
            O.OpenCLBuiltins ? " (reqd_work_group_size)" : ""));
        continue;
      }
      if (!Given)
        R.Assumptions.push_back(fmt::format(
            "blockDim = ({},{},{}): the kernel's {}", Dims[0], Dims[1],
            Dims[2], O.OpenCLBuiltins ? "reqd_work_group_size" : ".reqntid"));
      O.Launch.setBlock(Dims);
      O.Launch.MaxThreads = std::min(O.Launch.MaxThreads, Total);
    }
  }
}

void Checker::assumeDimensions() {
  if (!O.UnreadDimensionsAreOne)
    return;
  // Which ids and sizes the kernel's accesses and barriers depend on (not
  // merely read: inlined built-ins read all three dimensions).
  std::set<std::pair<ir::SymKind, unsigned>> Used;
  auto Note = [&](ExprId E) {
    if (E == NoExpr)
      return;
    for (unsigned Y : Pool.symbolsOf(E))
      Used.insert({Pool.symbol(Y).K, Pool.symbol(Y).Dim});
  };
  for (const Item &It : Items) {
    // grid.sync()'s own accesses find thread 0 of the CTA whatever its shape.
    if (It.GridSync)
      continue;
    Note(It.A.Offset);
    Note(It.A.Address);
    if (F.isInstruction(It.A.Item))
      Note(TV.execCond(It.A.Item));
  }
  for (const ir::Barrier &B : Bars) {
    // A grid barrier is entered at the first bar.sync of its sequence.
    bool Grid = B.Kind == ir::BarrierKind::Grid && B.GridStart != NoNode;
    unsigned At = Grid ? B.GridStart : B.Item;
    Note(B.Assumed ? TV.pathCond(F.blockOf(At)) : TV.execCond(At));
  }
  for (const ir::LoopVarInfo &V : TV.loopVars()) {
    Note(V.Init);
    Note(V.Update);
  }
  static const char *Dims[] = {"x", "y", "z"};
  // x stays open: a kernel that never uses %tid.x is still launched with
  // many threads, and all of them do its work.
  for (unsigned D = 1; D < 3; ++D) {
    std::string X = Dims[D];
    if (!O.Launch.Block[D] && !Used.count({ir::SymKind::Tid, D}) &&
        !Used.count({ir::SymKind::Ntid, D})) {
      O.Launch.Block[D] = 1;
      R.Assumptions.push_back(fmt::format(
          "blockDim.{} = 1: no access or barrier depends on %tid.{} or %ntid.{}",
          X, X, X));
    }
    if (!O.Launch.Grid[D] && !Used.count({ir::SymKind::Ctaid, D}) &&
        !Used.count({ir::SymKind::Nctaid, D})) {
      O.Launch.Grid[D] = 1;
      O.Launch.BlockIdx[D].reset(); // one block stands for every block
      R.Assumptions.push_back(fmt::format(
          "gridDim.{} = 1: no access or barrier depends on %ctaid.{} or "
          "%nctaid.{}",
          X, X, X));
    }
  }
}

void Checker::collectAccesses() {
  Asyncs = ir::asyncCopies(F);
  for (ir::MemoryAccess &A : ir::memoryAccesses(TV)) {
    Access X;
    X.Item = A.Item;
    X.Part = A.Part;
    X.PtxLine = A.Event.PtxLine;
    X.Loc = A.Event.Loc;
    X.Text = A.Event.Text;
    X.Reads = A.Reads;
    X.Writes = A.Writes;
    X.Atomic = A.Atomic;
    X.Volatile = A.Volatile;
    X.Strong = A.Strong;
    X.Sem = A.Event.Sem;
    X.Scope = A.Strong ? scopeText(A.Scope) : A.Event.Scope;
    X.Space = spaceName(A.Space);
    X.Object = A.Object.Name;
    X.Offset = A.Offset == NoExpr ? "" : Pool.str(A.Offset);
    X.Bytes = A.Bytes;
    X.Affine = A.Affine && A.Bytes != 0;
    X.Why = A.Affine && A.Bytes == 0 ? "the access size is not known" : A.Why;
    bool Sync = false;
    // A grid.sync() that Options::Removed takes out keeps its GridStart:
    // its own accesses go with it.
    for (const ir::Barrier &B : Bars)
      if (B.GridStart != NoNode && A.Item > B.GridStart &&
          A.Item < B.Item && F.dominates(B.GridStart, A.Item))
        Sync = true;
    if (Sync)
      X.Why = "part of grid.sync()";
    R.Accesses.push_back(X);
    Items.push_back({std::move(A), false, Sync});
  }
  // Calls: what the callee does is not followed; one that may touch memory
  // counts as an access of unknown address that reads and writes.
  std::set<std::string> Pure;
  for (unsigned I : F.instructions()) {
    const ptx::Instruction &In = F.inst(I);
    if (In.Op != ptx::Opcode::Call)
      continue;
    std::optional<ir::SummaryEvent> E = ir::summaryEvent(F, I);
    std::string Callee = E ? E->Op : "?";
    const ptx::Function *Fn = ir::definitionOf(M, Callee);
    bool Touches = true, Barrier = false;
    if (Fn && Fn->HasBody) {
      Touches = false;
      for (const ptx::BodyItem &B : Fn->Body)
        if (const auto *CI = std::get_if<ptx::Instruction>(&B)) {
          if (CI->Op == ptx::Opcode::Bar || CI->Op == ptx::Opcode::BarWarp) {
            Barrier = true;
            continue;
          }
          ptx::MemoryUse U = ptx::memoryUse(*CI);
          bool Private = U.K == ptx::MemoryUse::Plain &&
                         (CI->ASpace == AddrSpace::Param ||
                          CI->ASpace == AddrSpace::Local ||
                          (CI->ASpace == AddrSpace::Const && !U.Writes));
          Touches |= CI->Op == ptx::Opcode::Call ||
                     (U.K != ptx::MemoryUse::None && !Private);
        }
    } else if (Fn && !Fn->HasBody && Callee.rfind("vprintf", 0) == 0) {
      Touches = false; // printf's buffer is not the program's memory
    } else if (Fn && !Fn->HasBody &&
               (ir::workGroupCopyCall(Callee) || ir::isWaitGroupEvents(Callee) ||
                ir::isOpenCLPrefetch(Callee) || ir::imageCall(Callee) ||
                (O.OpenCLBuiltins &&
                 Callee == "__translate_sampler_initializer"))) {
      // OpenCL C's work-group copies and image accesses are accesses of
      // their own (memoryAccesses); the wait, the prefetch, a read-only
      // image's reads and a sampler's constant touch no memory.
      Touches = false;
      if (std::optional<ir::ImageCall> Im = ir::imageCall(Callee);
          Im && Im->Image == ir::ImageCall::ReadOnly && !Im->Write &&
          ReadOnlyImages.insert(Callee).second && ReadOnlyImages.size() == 1)
        R.Assumptions.push_back(
            "a read_only image is not written while the kernel runs (OpenCL "
            "C forbids writing it, or passing it as a write_only argument "
            "too)");
    } else if (Fn && !Fn->HasBody && O.OpenCLBuiltins &&
               pureOpenCLBuiltin(Callee)) {
      Touches = false;
    } else if (Fn && !Fn->HasBody && O.PureExternals &&
               !(O.OpenCLBuiltins && Callee.rfind("_Z", 0) == 0)) {
      // Not OpenCL C's own built-ins (overloaded, so mangled; a kernel's
      // functions are not): async_work_group_copy, the image writes, the
      // atomics and vstore touch memory, whatever the option says.
      Touches = false;
      std::string Name = ir::demangle(Callee); // "" for a C name
      Pure.insert(Name.empty() ? Callee : Name);
    }
    if (Barrier)
      CallNote = fmt::format("the call to {} at {} contains a barrier, which "
                             "the analysis does not follow{}",
                             Callee, whereText(I),
                             O.KeptCalls.count(I)
                                 ? " (" + O.KeptCalls.at(I) + ")"
                                 : std::string());
    if (!Touches && !Barrier)
      continue;
    Access X;
    X.Item = I;
    X.PtxLine = lineOf(I);
    X.Loc = F.loc(I);
    X.Text = ptx::printInstruction(In);
    X.Reads = X.Writes = true;
    X.Space = "generic";
    auto Kept = O.KeptCalls.find(I);
    X.Why = Kept == O.KeptCalls.end()
                ? fmt::format("a call to {}, whose accesses are not followed",
                              Callee)
                : fmt::format("a call to {} left a call ({}), whose accesses "
                              "are not followed",
                              Callee, Kept->second);
    R.Accesses.push_back(X);
    ir::MemoryAccess A;
    A.Item = I;
    A.Reads = A.Writes = true;
    A.Space = AddrSpace::Generic;
    A.Why = X.Why;
    Items.push_back({std::move(A), true});
  }
  if (!CallNote.empty())
    R.Notes.push_back(CallNote);
  if (!Pure.empty()) {
    std::string Names;
    for (const std::string &N : Pure)
      Names += (Names.empty() ? "" : ", ") + N;
    R.OptionAssumptions.push_back(fmt::format(
        "{} {} declared without a body: assumed to touch no memory and to "
        "reach no barrier (--assume-pure-externals)",
        Names, Pure.size() == 1 ? "is" : "are"));
  }
}

void Checker::collectBarriers() {
  Bars = ir::findBarriers(F, TV);
  for (ir::Barrier &B : Bars)
    if (O.Removed.count(B.Item)) {
      B.Kind = ir::BarrierKind::NoOrder;
      B.Note = "assumed removed";
    }
  for (const AssumedBarrier &A : O.Extra) {
    if (!F.isInstruction(A.Item))
      continue;
    ir::Barrier B;
    B.Item = A.Item;
    B.Kind = A.Kind;
    B.Assumed = true;
    Bars.push_back(B);
  }
  std::sort(Bars.begin(), Bars.end(), [](const ir::Barrier &A, const ir::Barrier &B) {
    return A.Item != B.Item ? A.Item < B.Item : A.Assumed > B.Assumed;
  });
  for (const ir::Barrier &B : Bars)
    HasWarpBarriers |= B.Kind == ir::BarrierKind::Warp;
  Warp = std::make_unique<ir::BarrierIntervals>(F, Bars, PairScope::Warp);
  Cta = std::make_unique<ir::BarrierIntervals>(F, Bars, PairScope::CTA);
  Grid = std::make_unique<ir::BarrierIntervals>(F, Bars, PairScope::Grid);
}

bool pureOpenCLBuiltin(const std::string &Mangled) {
  // _Z<length><name><parameters>: a name OpenCL C defines as a function of
  // values only, with no pointer among its parameters (fract, frexp, modf,
  // remquo, sincos and lgamma_r write through one and are not).
  static const std::set<std::string> Names = {
      // math
      "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2",
      "atanh", "atanpi", "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh",
      "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "fdim",
      "floor", "fma", "fmax", "fmin", "fmod", "hypot", "ilogb", "ldexp",
      "lgamma", "log", "log2", "log10", "log1p", "logb", "mad", "maxmag",
      "minmag", "nan", "nextafter", "pow", "pown", "powr", "remainder", "rint",
      "rootn", "round", "rsqrt", "sin", "sinh", "sinpi", "sqrt", "tan", "tanh",
      "tanpi", "tgamma", "trunc", "half_cos", "half_divide", "half_exp",
      "half_exp2", "half_exp10", "half_log", "half_log2", "half_log10",
      "half_powr", "half_recip", "half_rsqrt", "half_sin", "half_sqrt",
      "half_tan", "native_cos", "native_divide", "native_exp", "native_exp2",
      "native_exp10", "native_log", "native_log2", "native_log10",
      "native_powr", "native_recip", "native_rsqrt", "native_sin",
      "native_sqrt", "native_tan",
      // integer
      "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clamp", "clz", "ctz",
      "mad_hi", "mad_sat", "max", "min", "mul_hi", "rotate", "sub_sat",
      "upsample", "popcount", "mad24", "mul24",
      // common
      "degrees", "mix", "radians", "step", "smoothstep", "sign",
      // geometric
      "cross", "dot", "distance", "length", "normalize", "fast_distance",
      "fast_length", "fast_normalize",
      // relational
      "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless",
      "islessequal", "islessgreater", "isfinite", "isinf", "isnan",
      "isnormal", "isordered", "isunordered", "signbit", "any", "all",
      "bitselect", "select",
      // vector
      "shuffle", "shuffle2",
      // image queries
      "get_image_width", "get_image_height", "get_image_depth",
      "get_image_dim", "get_image_array_size", "get_image_channel_data_type",
      "get_image_channel_order", "get_image_num_samples",
      "get_image_num_mip_levels"};
  if (Mangled.rfind("_Z", 0) != 0)
    return false;
  size_t At = 2, Len = 0;
  while (At < Mangled.size() && std::isdigit(static_cast<unsigned char>(Mangled[At])))
    Len = Len * 10 + (Mangled[At++] - '0');
  if (Len == 0 || At + Len > Mangled.size())
    return false;
  std::string Name = Mangled.substr(At, Len);
  // convert_<type>[_sat][_<rounding>] converts a value.
  return (Names.count(Name) || Name.rfind("convert_", 0) == 0) &&
         Mangled.find('P', At + Len) == std::string::npos;
}

//===-- The kernel --------------------------------------------------------===//

KernelReport Checker::run() {
  R.Name = F.name();
  R.Demangled = ir::demangle(F.name());
  R.PtxLine = F.function().Range.Begin.Line;
  bool UnknownWrites = false;
  for (const Item &It : Items)
    UnknownWrites |= It.A.Writes && (It.Call || It.A.Object.K == ir::ObjectKind::Unknown);
  ReadOnly.assign(Items.size(), 0);
  for (unsigned I = 0; I < Items.size(); ++I) {
    if (Items[I].Call)
      continue;
    // (A load through `c ? A : B` is two accesses, of which one ran: its
    // value is neither's alone.)
    if ((F.inst(Items[I].A.Item).Op == ptx::Opcode::Ld ||
         F.inst(Items[I].A.Item).Op == ptx::Opcode::Ldu ||
         ticket(Items[I].A.Item) || onceCas(I) || unchangingAtomic(I)) &&
        Items[I].A.Cond == NoExpr)
      LoadAt[Items[I].A.Item] = I;
    bool Written = UnknownWrites;
    for (const Item &W : Items)
      Written |= W.A.Writes && W.A.Object == Items[I].A.Object;
    ReadOnly[I] = !Written && Items[I].A.Object.K != ir::ObjectKind::Unknown;
  }
  // Now that read-only memory and broadcast loads are known, the
  // uniformity analysis takes them in (what depends on a value every
  // thread reads alike is not thread-variant).
  U = ir::Uniformity(F, [this](unsigned Item) { return loadVariance(Item); });
  if (!F.loops().irreducibleEdges().empty())
    R.Notes.push_back("the control flow is irreducible: loops without a "
                      "single header are not analysed as loops");

  size_t Done = 0, Total = Items.size() * (Items.size() + 1) / 2;
  unsigned Unknowns = 0;
  for (unsigned I = 0; I < Items.size() && !R.Partial; ++I)
    for (unsigned J = I; J < Items.size() && !R.Partial; ++J) {
      if (O.Progress)
        O.Progress(R.Name, Done++, Total);
      size_t Before = R.Pairs.size();
      checkPair(I, J);
      if (!O.StopBeyondUnknown || R.Pairs.size() == Before)
        continue;
      const PairResult &P = R.Pairs.back();
      Unknowns += P.V == Verdict::Unknown;
      R.Partial = Unknowns > *O.StopBeyondUnknown ||
                  (P.V == Verdict::Race && !benignCandidate(P));
    }
  if (!O.Launch.Unsatisfiable.empty())
    for (PairResult &P : R.Pairs)
      if (P.V == Verdict::Safe) {
        P.V = Verdict::Unknown;
        P.Reason = "safe only vacuously: no launch satisfies " +
                   O.Launch.Unsatisfiable;
      }
  if (!CallNote.empty())
    for (PairResult &P : R.Pairs)
      if (P.V == Verdict::Safe && P.Reason.find("barrier") != std::string::npos) {
        P.V = Verdict::Unknown;
        P.Reason = CallNote;
      }

  for (const ir::Barrier &Bar : Bars) {
    BarrierResult B;
    B.Item = Bar.Item;
    B.PtxLine = lineOf(Bar.Item);
    B.Loc = F.loc(Bar.Item);
    B.Text = !Bar.Assumed ? ptx::printInstruction(F.inst(Bar.Item))
             : Bar.Kind == ir::BarrierKind::Warp ? "bar.warp.sync -1 (assumed)"
             : Bar.Kind == ir::BarrierKind::Cluster
                 ? "barrier.cluster.arrive; barrier.cluster.wait (assumed)"
             : Bar.Kind == ir::BarrierKind::CopyWait
                 ? "cp.async.wait_all; bar.sync 0 (assumed)"
                 : "bar.sync 0 (assumed)";
    B.Kind = Bar.Kind;
    B.Assumed = Bar.Assumed;
    B.Note = Bar.Note;
    if (Bar.Kind == ir::BarrierKind::CTA || Bar.Kind == ir::BarrierKind::Grid ||
        Bar.Kind == ir::BarrierKind::Cluster ||
        Bar.Kind == ir::BarrierKind::CopyWait ||
        (Bar.Kind == ir::BarrierKind::Warp && Bar.Assumed))
      checkBarrier(B, Bar);
    else if (Named.Ok && countedBarrier(Bar.Item))
      B.Reason = "a named barrier: orders the accesses of the threads that "
                 "meet in one of its generations (not checked for divergence)";
    else if (F.inst(Bar.Item).Op == ptx::Opcode::Mbarrier)
      B.Reason = "an mbarrier operation: orders the threads of its phases "
                 "(followed as phases, not as barrier intervals; not checked "
                 "for divergence)";
    else
      B.Reason = Bar.Kind == ir::BarrierKind::Warp
                     ? "warp barriers are not checked for divergence"
                     : "orders nothing here: " + Bar.Note;
    R.Divergent += B.V == Verdict::Race;
    R.UnknownBarriers += B.V == Verdict::Unknown;
    R.Barriers.push_back(std::move(B));
  }

  benignPairs();
  for (const PairResult &P : R.Pairs) {
    R.Races += P.V == Verdict::Race;
    R.Safe += P.V == Verdict::Safe;
    R.Unknown += P.V == Verdict::Unknown;
    if (P.V != Verdict::Safe) {
      R.Accesses[P.First].Proved = false;
      R.Accesses[P.Second].Proved = false;
    }
  }
  return std::move(R);
}

KernelReport checkKernel(const ptx::Module &M, const ir::FunctionIR &F,
                         const Options &O) {
  Checker C(M, F, O);
  return C.run();
}

ModuleReport checkModule(const ptx::Module &Given, const Options &O) {
  ModuleReport MR;
  if (Given.File)
    MR.File = Given.File->name();
  ir::Inlined In = ir::inlineCalls(Given, 8, 200000, O.CallTargets);
  const ptx::Module &M = In.M;
  ir::ModuleIR IR(M);
  bool Found = false;
  for (const ir::FunctionIR &F : IR.functions()) {
    if (!F.function().IsEntry)
      continue;
    if (!O.Kernel.empty() && !ir::kernelNameMatches(F.name(), O.Kernel))
      continue;
    Found = true;
    Options OK = O;
    if (auto Kept = In.Kept.find(F.name()); Kept != In.Kept.end())
      for (const auto &[Item, Why] : Kept->second)
        OK.KeptCalls[Item] = Why;
    auto Known = O.HostLaunches.find(F.name());
    if (Known == O.HostLaunches.end()) {
      MR.Kernels.push_back(checkKernel(M, F, OK));
    } else {
      for (const KnownLaunch &L : Known->second) {
        Options OL = OK;
        OL.Launch = L.Launch;
        MR.Kernels.push_back(checkKernel(M, F, OL));
        MR.Kernels.back().Launch = L.Description;
      }
    }
  }
  for (KernelReport &K : MR.Kernels) {
    if (auto Notes = O.CallTargetNotes.find(K.Name);
        Notes != O.CallTargetNotes.end())
      K.OptionAssumptions.insert(K.OptionAssumptions.end(),
                                 Notes->second.begin(), Notes->second.end());
    const ir::FunctionIR *Fp = IR.find(K.Name);
    if (!Fp)
      continue;
    const ir::FunctionIR &F = *Fp;
    // Positions in the module as given.
    auto Orig = In.Origins.find(F.name());
    auto Map = [&](unsigned Item, std::string &Fn, unsigned &At,
                   std::vector<std::pair<std::string, unsigned>> *Calls) {
      Fn = F.name();
      At = Item;
      if (Orig != In.Origins.end() && Item < Orig->second.size()) {
        Fn = Orig->second[Item].Function;
        At = Orig->second[Item].Item;
        if (Calls)
          *Calls = Orig->second[Item].Calls;
      }
    };
    for (Access &A : K.Accesses)
      Map(A.Item, A.OriginFunction, A.OriginItem, &A.OriginCalls);
    for (BarrierResult &B : K.Barriers)
      Map(B.Item, B.OriginFunction, B.OriginItem, nullptr);
  }
  if (!Found)
    MR.Error = ir::noKernelNamed(IR, O.Kernel);
  return MR;
}

} // namespace incant::race
