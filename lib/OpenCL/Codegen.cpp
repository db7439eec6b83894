//===- Codegen.cpp - Emit OpenCL C from a litmus::Program ------------------===//
#include "incant/OpenCL/Codegen.h"

#include <fmt/format.h>
#include <set>

namespace incant::opencl {

namespace {

// harness.cl, embedded by CMake (HarnessSource.inc defines kHarnessSource).
#include "HarnessSource.inc"

using litmus::Op;
using litmus::Operand;

struct Emitter {
  const litmus::Program &P;
  const DeviceCaps &Caps;
  const std::shared_ptr<const SourceFile> &File;
  DiagnosticEngine &Diags;
  uint32_t LoopBound;
  std::string Out;
  std::set<std::string> Notes;
  bool Failed = false;
  bool HasShared = false;
  /// For the thread being emitted: registers that hold a location's address
  /// from their initialisation on and are never written; an access through
  /// one is an access to that location.
  std::vector<std::optional<litmus::Value>> ConstAddr;

  void findAddressRegisters(const litmus::ThreadProgram &T) {
    ConstAddr.assign(T.Regs.size(), std::nullopt);
    for (size_t R = 0; R < T.Regs.size(); ++R)
      if (T.Regs[R].Init.isAddress())
        ConstAddr[R] = T.Regs[R].Init;
    for (const Op &O : T.Ops)
      if (O.Dst >= 0 && size_t(O.Dst) < ConstAddr.size())
        ConstAddr[O.Dst] = std::nullopt;
  }
  bool isAddressRegister(int32_t R) const {
    return R >= 0 && size_t(R) < ConstAddr.size() && ConstAddr[R].has_value();
  }

  template <typename... Args>
  void line(fmt::format_string<Args...> F, Args &&...A) {
    Out += fmt::format(F, std::forward<Args>(A)...);
    Out += '\n';
  }

  void unsupported(const Op &O, const std::string &Why) {
    Diags.error(File, O.Range, "no faithful OpenCL form: " + Why);
    Failed = true;
  }

  static std::string literal(int64_t V) {
    // INT_MIN has no literal of type int in C.
    if (V == INT32_MIN)
      return "(-2147483647 - 1)";
    return fmt::format("{}", V);
  }

  /// A value operand as an int expression.
  std::optional<std::string> value(const Op &O, const Operand &A) {
    switch (A.K) {
    case Operand::Kind::Reg:
      if (isAddressRegister(A.Reg)) {
        unsupported(O, "a location's address used as a value");
        return std::nullopt;
      }
      return fmt::format("r{}", A.Reg);
    case Operand::Kind::Imm:
      if (A.Imm.Int < INT32_MIN || A.Imm.Int > UINT32_MAX) {
        unsupported(O, "immediates wider than 32 bits");
        return std::nullopt;
      }
      return literal(int32_t(uint32_t(A.Imm.Int)));
    case Operand::Kind::Addr:
      unsupported(O, "a location's address used as a value");
      return std::nullopt;
    case Operand::Kind::None:
      break;
    }
    unsupported(O, "missing operand");
    return std::nullopt;
  }

  /// The atomic object an access touches, and whether it is in local memory.
  std::optional<std::pair<std::string, bool>> address(const Op &O) {
    Operand A = O.Addr;
    if (A.K == Operand::Kind::Reg && isAddressRegister(A.Reg)) {
      A.K = Operand::Kind::Addr;
      A.Imm = *ConstAddr[A.Reg];
    }
    if (A.K != Operand::Kind::Addr || A.Imm.Loc < 0 ||
        size_t(A.Imm.Loc) >= P.Locs.size()) {
      unsupported(O, "an address computed at run time (only locations "
                     "and registers initialised to a location's address are "
                     "supported)");
      return std::nullopt;
    }
    if (A.Imm.Int != 0) {
      unsupported(O, "an offset from a location's address");
      return std::nullopt;
    }
    bool Shared = P.Locs[A.Imm.Loc].R == litmus::Region::Shared;
    return std::make_pair(
        fmt::format("&{}[a[{}]]", Shared ? "lmem" : "mem", A.Imm.Loc), Shared);
  }

  std::optional<std::string> scope(const Op &O, bool Shared) {
    litmus::Scope Sc = O.Sc;
    if (O.S == litmus::Sem::Volatile)
      Sc = litmus::Scope::Sys;
    if (Shared) {
      // Every thread of a shared-memory test is in one work-group.
      return "memory_scope_work_group";
    }
    switch (Sc) {
    case litmus::Scope::CTA:
      return "memory_scope_work_group";
    case litmus::Scope::Cluster:
      Notes.insert(".cluster scope is emitted as device scope (OpenCL has no "
                   "cluster)");
      return "memory_scope_device";
    case litmus::Scope::None:
    case litmus::Scope::GPU:
      return "memory_scope_device";
    case litmus::Scope::Sys:
      if (Caps.ScopeAllDevices)
        return "memory_scope_all_svm_devices";
      // All threads of a test run on one device, so .sys and .gpu order the
      // same set of threads.
      return "memory_scope_device";
    }
    return "memory_scope_device";
  }

  std::optional<std::string> order(const Op &O, bool IsLoad, bool IsStore) {
    using litmus::Sem;
    switch (O.S) {
    case Sem::Weak:
      Notes.insert("weak (plain) accesses are emitted as relaxed atomics: a "
                   "racy non-atomic access is undefined in OpenCL C");
      return "memory_order_relaxed";
    case Sem::Volatile:
    case Sem::Relaxed:
      return "memory_order_relaxed";
    case Sem::Acquire:
      if (IsStore) {
        unsupported(O, "a store with acquire semantics");
        return std::nullopt;
      }
      break;
    case Sem::Release:
      if (IsLoad) {
        unsupported(O, "a load with release semantics");
        return std::nullopt;
      }
      break;
    case Sem::AcqRel:
      if (IsLoad || IsStore) {
        unsupported(O, "a plain load or store with acq_rel semantics");
        return std::nullopt;
      }
      break;
    case Sem::SC:
      if (!Caps.OrderSeqCst) {
        unsupported(O, "the device lacks seq_cst atomics");
        return std::nullopt;
      }
      return "memory_order_seq_cst";
    }
    if (!Caps.OrderAcqRel) {
      unsupported(O, "the device lacks acquire/release atomics");
      return std::nullopt;
    }
    switch (O.S) {
    case Sem::Acquire:
      return "memory_order_acquire";
    case Sem::Release:
      return "memory_order_release";
    default:
      return "memory_order_acq_rel";
    }
  }

  /// Wraps an int expression to the op's width and signedness, as the
  /// model does (32-bit values are kept as int bit patterns).
  static std::string wrap(const Op &O, const std::string &E) {
    if (O.Bits == 1)
      return fmt::format("(({}) != 0)", E);
    if (O.Bits == 8)
      return O.Signed ? fmt::format("(int)(char)({})", E)
                      : fmt::format("(int)(uchar)({})", E);
    if (O.Bits == 16)
      return O.Signed ? fmt::format("(int)(short)({})", E)
                      : fmt::format("(int)(ushort)({})", E);
    return fmt::format("({})", E);
  }

  bool checkWidth(const Op &O) {
    if (O.Bits > 32) {
      unsupported(O, "64-bit values (registers and locations are 32-bit "
                     "ints in the OpenCL harness)");
      return false;
    }
    return true;
  }

  void emitRmw(const Op &O, const std::string &Ptr, const std::string &Ord,
               const std::string &Sc) {
    using litmus::RmwOp;
    std::string Dst = O.Dst >= 0 ? fmt::format("r{}", O.Dst) : "rmw_sink";
    std::optional<std::string> A =
        O.Src.size() > 0 ? value(O, O.Src[0]) : std::nullopt;
    if (!A)
      return;
    // The failure order of a cas may not be release or acq_rel.
    std::string Fail = Ord == "memory_order_release"  ? "memory_order_relaxed"
                       : Ord == "memory_order_acq_rel" ? "memory_order_acquire"
                                                       : Ord;
    const char *Native = nullptr;
    switch (O.Rmw) {
    case RmwOp::Cas: {
      std::optional<std::string> B =
          O.Src.size() > 1 ? value(O, O.Src[1]) : std::nullopt;
      if (!B)
        return;
      line("  {{ int e = {}; atomic_compare_exchange_strong_explicit({}, &e, "
           "{}, {}, {}, {}); {} = e; }}",
           *A, Ptr, *B, Ord, Fail, Sc, Dst);
      return;
    }
    case RmwOp::Exch:
      line("  {} = atomic_exchange_explicit({}, {}, {}, {});", Dst, Ptr, *A,
           Ord, Sc);
      return;
    case RmwOp::Add:
      Native = "add";
      break;
    case RmwOp::Sub:
      Native = "sub";
      break;
    case RmwOp::And:
      Native = "and";
      break;
    case RmwOp::Or:
      Native = "or";
      break;
    case RmwOp::Xor:
      Native = "xor";
      break;
    case RmwOp::Min:
      Native = O.Signed ? "min" : nullptr;
      break;
    case RmwOp::Max:
      Native = O.Signed ? "max" : nullptr;
      break;
    case RmwOp::Inc:
    case RmwOp::Dec:
      break;
    }
    if (Native && O.Bits == 32) {
      line("  {} = atomic_fetch_{}_explicit({}, {}, {}, {});", Dst, Native,
           Ptr, *A, Ord, Sc);
      return;
    }
    // No single OpenCL operation: a compare-and-swap loop computing the new
    // value from the old one is the same atomic read-modify-write.
    std::string New;
    std::string Old = wrap(O, "o");
    std::string Arg = wrap(O, *A);
    auto Less = [&](const std::string &X, const std::string &Y) {
      return O.Signed ? fmt::format("({} < {})", X, Y)
                      : fmt::format("((uint){} < (uint){})", X, Y);
    };
    switch (O.Rmw) {
    case RmwOp::Add:
      New = wrap(O, fmt::format("{} + {}", Old, Arg));
      break;
    case RmwOp::Sub:
      New = wrap(O, fmt::format("{} - {}", Old, Arg));
      break;
    case RmwOp::And:
      New = wrap(O, fmt::format("{} & {}", Old, Arg));
      break;
    case RmwOp::Or:
      New = wrap(O, fmt::format("{} | {}", Old, Arg));
      break;
    case RmwOp::Xor:
      New = wrap(O, fmt::format("{} ^ {}", Old, Arg));
      break;
    case RmwOp::Min:
      New = fmt::format("({} ? {} : {})", Less(Arg, Old), Arg, Old);
      break;
    case RmwOp::Max:
      New = fmt::format("({} ? {} : {})", Less(Old, Arg), Arg, Old);
      break;
    case RmwOp::Inc: // PTX: unsigned; wraps to 0 at the bound
      New = fmt::format("((uint){0} >= (uint){1} ? 0 : {0} + 1)", Old, Arg);
      break;
    case RmwOp::Dec: // PTX: unsigned; wraps to the bound at 0 or above it
      New = fmt::format("({0} == 0 || (uint){0} > (uint){1} ? {1} : {0} - 1)",
                        Old, Arg);
      break;
    default:
      return;
    }
    line("  {{ int o = atomic_load_explicit({}, memory_order_relaxed, {});",
         Ptr, Sc);
    line("    while (!atomic_compare_exchange_weak_explicit({}, &o, {}, {}, "
         "{}, {}))",
         Ptr, New, Ord, Fail, Sc);
    line("      ;");
    line("    {} = o; }}", Dst);
  }

  void emitOp(const litmus::ThreadProgram &T, size_t I) {
    const Op &O = T.Ops[I];
    bool Guarded = O.GuardReg >= 0;
    if (Guarded) {
      line("  if ({}r{}) {{", O.GuardNegated ? "!" : "", O.GuardReg);
    }
    if (O.ClusterBarrier || O.Mbar != litmus::MbarOp::None || O.Async >= 0 ||
        O.MapaRank >= 0 || O.Sp == litmus::Space::SharedCluster) {
      unsupported(O, "Hopper's clusters, mbarriers and asynchronous copies "
                     "(OpenCL C has none; the CUDA backend runs them)");
      if (Guarded)
        line("  }}");
      return;
    }
    switch (O.K) {
    case Op::Kind::Load:
    case Op::Kind::Store:
    case Op::Kind::Rmw: {
      if (!checkWidth(O))
        break;
      if (O.Px != litmus::Proxy::Generic) {
        unsupported(O, "an access through the surface, texture or constant "
                       "proxy (OpenCL C has no such accesses to a buffer)");
        break;
      }
      if (O.Cache != litmus::CacheOp::None)
        Notes.insert("cache operators (.ca, .cg, ...) are dropped: OpenCL C "
                     "has no cache control");
      auto A = address(O);
      if (!A)
        break;
      bool IsLoad = O.K == Op::Kind::Load, IsStore = O.K == Op::Kind::Store;
      auto Ord = order(O, IsLoad, IsStore);
      auto Sc = scope(O, A->second);
      if (!Ord || !Sc)
        break;
      if (IsLoad) {
        if (O.Dst < 0)
          break;
        line("  r{} = {};", O.Dst,
             wrap(O, fmt::format("atomic_load_explicit({}, {}, {})", A->first,
                                 *Ord, *Sc)));
      } else if (IsStore) {
        std::optional<std::string> V =
            O.Src.empty() ? std::nullopt : value(O, O.Src[0]);
        if (V)
          line("  atomic_store_explicit({}, {}, {}, {});", A->first,
               wrap(O, *V), *Ord, *Sc);
        else if (O.Src.empty())
          unsupported(O, "a store without a value");
      } else {
        emitRmw(O, A->first, *Ord, *Sc);
      }
      break;
    }
    case Op::Kind::Fence: {
      if (O.Fence == litmus::FenceKind::Proxy) {
        unsupported(O, "a proxy fence (fence.proxy)");
        break;
      }
      const char *Ord = O.Fence == litmus::FenceKind::FenceAcqRel
                            ? "memory_order_acq_rel"
                            : "memory_order_seq_cst";
      if ((O.Fence == litmus::FenceKind::FenceAcqRel && !Caps.OrderAcqRel) ||
          (O.Fence != litmus::FenceKind::FenceAcqRel && !Caps.OrderSeqCst)) {
        unsupported(O, "the device lacks the fence's memory order");
        break;
      }
      Op Tmp = O;
      Tmp.S = litmus::Sem::Relaxed;
      auto Sc = scope(Tmp, false);
      line("  atomic_work_item_fence({}, {}, {});",
           HasShared ? "CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE"
                     : "CLK_GLOBAL_MEM_FENCE",
           Ord, *Sc);
      break;
    }
    case Op::Kind::Barrier:
      unsupported(O, "bar.sync inside a test (the harness runs several "
                     "instances per work-group, so a work-group barrier "
                     "would not be reached by all its work-items)");
      break;
    case Op::Kind::Alu: {
      if (!checkWidth(O) || O.Dst < 0)
        break;
      std::vector<std::string> S;
      for (const Operand &A : O.Src) {
        auto V = value(O, A);
        if (!V)
          break;
        S.push_back(*V);
      }
      if (S.size() != O.Src.size())
        break;
      auto Need = [&](size_t N) {
        if (S.size() < N)
          unsupported(O, "too few operands");
        return S.size() >= N;
      };
      std::string E;
      using litmus::AluOp;
      switch (O.Alu) {
      case AluOp::Mov:
      case AluOp::Cvt:
        if (Need(1))
          E = wrap(O, S[0]);
        break;
      case AluOp::Add:
      case AluOp::Sub:
      case AluOp::Mul:
      case AluOp::And:
      case AluOp::Or:
      case AluOp::Xor: {
        if (!Need(2))
          break;
        const char *Sym = O.Alu == AluOp::Add   ? "+"
                          : O.Alu == AluOp::Sub ? "-"
                          : O.Alu == AluOp::Mul ? "*"
                          : O.Alu == AluOp::And ? "&"
                          : O.Alu == AluOp::Or  ? "|"
                                                : "^";
        // Unsigned arithmetic: wraps without undefined behaviour.
        E = wrap(O, fmt::format("(int)((uint){} {} (uint){})", S[0], Sym, S[1]));
        break;
      }
      case AluOp::Not:
        if (Need(1))
          E = O.Bits == 1 ? fmt::format("({} == 0)", S[0])
                          : wrap(O, fmt::format("~{}", S[0]));
        break;
      case AluOp::Setp: {
        if (!Need(2))
          break;
        static const char *Syms[] = {"==", "!=", "<", "<=", ">", ">="};
        std::string X = wrap(O, S[0]), Y = wrap(O, S[1]);
        if (!O.Signed) {
          X = "(uint)" + X;
          Y = "(uint)" + Y;
        }
        E = fmt::format("({} {} {})", X, Syms[unsigned(O.Cmp)], Y);
        break;
      }
      }
      if (!E.empty())
        line("  r{} = {};", O.Dst, E);
      break;
    }
    case Op::Kind::Branch: {
      if (O.Target < 0 || size_t(O.Target) > T.Ops.size()) {
        unsupported(O, "a branch to nowhere");
        break;
      }
      if (size_t(O.Target) <= I) {
        // Backward: bounded, so a spinning test always ends.
        // Reaching the bound marks the instance: it ran out, so its final
        // state is no outcome (counted apart by incant_collect).
        line("  if (++steps > {}) {{ out[INCANT_CUT_SLOT] = 1; goto L_end; }}",
             LoopBound);
      }
      if (size_t(O.Target) == T.Ops.size())
        line("  goto L_end;");
      else
        line("  goto L{};", O.Target);
      break;
    }
    }
    if (Guarded)
      line("  }}");
  }

  void emitRole(const litmus::ThreadProgram &T, size_t Index,
                uint32_t RegBase) {
    findAddressRegisters(T);
    std::set<int32_t> Targets;
    for (const Op &O : T.Ops)
      if (O.K == Op::Kind::Branch)
        Targets.insert(O.Target);
    line("// Thread {} (role {})", T.Id, Index);
    line("static void incant_role_{}(__global atomic_int *mem, __local "
         "atomic_int *lmem, __global const uint *a, __global int *out, "
         "__global atomic_uint *stats) {{",
         Index);
    line("  (void)mem; (void)lmem; (void)a; (void)stats;");
    line("  uint steps = 0; int rmw_sink = 0; (void)steps; (void)rmw_sink;");
    for (size_t R = 0; R < T.Regs.size(); ++R) {
      const litmus::Register &Reg = T.Regs[R];
      if (isAddressRegister(int32_t(R))) {
        line("  int r{} = 0; // holds the address of location {}", R,
             ConstAddr[R]->Loc);
        continue;
      }
      if (Reg.Init.isAddress()) {
        Diags.error(File, T.Ops.empty() ? SourceRange{} : T.Ops[0].Range,
                    "no faithful OpenCL form: register '" + Reg.Name +
                        "' holds a location's address and is overwritten");
        Failed = true;
      }
      if (Reg.Bits > 32) {
        Diags.error(File, T.Ops.empty() ? SourceRange{} : T.Ops[0].Range,
                    "no faithful OpenCL form: 64-bit register '" + Reg.Name +
                        "'");
        Failed = true;
      }
      line("  int r{} = {};", R, literal(int32_t(Reg.Init.Int)));
    }
    for (size_t I = 0; I < T.Ops.size(); ++I) {
      if (Targets.count(int32_t(I)))
        line("L{}:;", I);
      emitOp(T, I);
    }
    line("L_end:;");
    for (size_t R = 0; R < T.Regs.size(); ++R)
      line("  out[{}] = r{};", RegBase + R, R);
    line("}}");
    line("");
  }
};

} // namespace

std::string_view harnessSource() { return kHarnessSource; }

std::optional<GeneratedKernel>
generateKernel(const litmus::Program &P, const DeviceCaps &Caps,
               const harness::Incantations &Inc, uint32_t LoopBound,
               const std::shared_ptr<const SourceFile> &File,
               DiagnosticEngine &Diags) {
  Emitter E{P, Caps, File, Diags, LoopBound, {}, {}, false, false, {}};
  GeneratedKernel K;
  std::vector<uint32_t> RegBase;
  bool HasLoop = false;
  for (const litmus::ThreadProgram &T : P.Threads) {
    RegBase.push_back(K.RegsPerInstance);
    K.RegsPerInstance += uint32_t(T.Regs.size());
    for (size_t I = 0; I < T.Ops.size(); ++I)
      HasLoop |= T.Ops[I].K == Op::Kind::Branch && T.Ops[I].Target >= 0 &&
                 size_t(T.Ops[I].Target) <= I;
  }
  if (HasLoop)
    K.CutSlot = int32_t(K.RegsPerInstance++);
  K.NumObs = uint32_t(std::max<size_t>(P.Observe.size(), 1)) + (HasLoop ? 1 : 0);
  for (size_t I = 0; I != P.Locs.size(); ++I) {
    const litmus::Location &L = P.Locs[I];
    if (L.phys(int32_t(I)) != int32_t(I)) {
      Diags.error(File, {}, "no faithful OpenCL form: location '" + L.Name +
                                "' is a virtual alias of another");
      E.Failed = true;
    }
    if (L.R == litmus::Region::Shared)
      ++K.NumShared;
    if (L.Init.isAddress()) {
      Diags.error(File, {}, "no faithful OpenCL form: location '" + L.Name +
                                "' holds another location's address");
      E.Failed = true;
    }
  }
  E.HasShared = K.NumShared > 0;

  E.line("// Generated by incant: the test's roles as OpenCL C, followed by");
  E.line("// the harness (lib/OpenCL/runtime/harness.cl).");
  E.line("#define INCANT_GENERATED 1");
  E.line("#define INCANT_NUM_ROLES {}", P.Threads.size());
  E.line("#define INCANT_NUM_LOCS {}", std::max<size_t>(P.Locs.size(), 1));
  E.line("#define INCANT_NUM_OBS {}", K.NumObs);
  if (HasLoop)
    E.line("#define INCANT_CUT_SLOT {}", K.CutSlot);
  E.line("#define INCANT_REGS_PER_INSTANCE {}",
         std::max<uint32_t>(K.RegsPerInstance, 1));
  E.line("#define INCANT_NUM_SHARED {}", K.NumShared);
  if (Inc.MemStress)
    E.line("#define INCANT_MEM_STRESS 1");
  if (Inc.PreStress)
    E.line("#define INCANT_PRE_STRESS 1");
  if (Inc.BankConflicts)
    E.line("#define INCANT_BANK_CONFLICTS 1");
  if (Inc.SpinBarrier) {
    E.line("#define INCANT_SPIN_BARRIER 1");
    E.line("#define INCANT_BARRIER_POLLS {}u", std::max<uint32_t>(Inc.BarrierPolls, 1));
  }
  E.line("#define INCANT_STRESS_ITERATIONS {}u", Inc.StressIterations);
  E.line("#define INCANT_PRE_STRESS_ITERATIONS {}u", Inc.PreStressIterations);
  uint32_t Patch = std::max<uint32_t>(Inc.StressPatch, 1);
  uint32_t Locs = std::max<uint32_t>(Inc.StressLocs, 1);
  E.line("#define INCANT_STRESS_PATCH {}u", Patch);
  E.line("#define INCANT_STRESS_LOCS {}u", Locs);
  E.line("#define INCANT_STRESS_SEQ(P) \\");
  for (const harness::StressAccess &A : Inc.StressSeq) {
    uint32_t Off = (A.Loc % Locs) * Patch;
    if (A.IsStore)
      E.line("  atomic_store_explicit(&(P)[{}], 1, memory_order_relaxed, "
             "memory_scope_device); \\",
             Off);
    else
      E.line("  sink += atomic_load_explicit(&(P)[{}], memory_order_relaxed, "
             "memory_scope_device); \\",
             Off);
  }
  E.line("");
  E.line("");

  E.line("static int incant_init_value(int loc) {{");
  E.line("  switch (loc) {{");
  for (size_t L = 0; L < P.Locs.size(); ++L)
    E.line("  case {}: return {};", L, Emitter::literal(int32_t(P.Locs[L].Init.Int)));
  E.line("  default: return 0;");
  E.line("  }}");
  E.line("}}");
  E.line("static int incant_is_shared(int loc) {{");
  E.line("  switch (loc) {{");
  for (size_t L = 0; L < P.Locs.size(); ++L)
    if (P.Locs[L].R == litmus::Region::Shared)
      E.line("  case {}: return 1;", L);
  E.line("  default: return 0;");
  E.line("  }}");
  E.line("}}");
  E.line("");

  for (size_t T = 0; T < P.Threads.size(); ++T)
    E.emitRole(P.Threads[T], T, RegBase[T]);

  E.line("static void incant_run_role(int role, __global atomic_int *mem, "
         "__local atomic_int *lmem, __global const uint *a, __global int "
         "*out, __global atomic_uint *stats) {{");
  E.line("  switch (role) {{");
  for (size_t T = 0; T < P.Threads.size(); ++T)
    E.line("  case {0}: incant_role_{0}(mem, lmem, a, out, stats); break;", T);
  E.line("  default: break;");
  E.line("  }}");
  E.line("}}");
  E.line("");

  E.line("static void incant_observe(int *v, __global const int *regs, "
         "__global atomic_int *mem, __global const uint *a, __global const "
         "int *sf) {{");
  E.line("  (void)regs; (void)mem; (void)a; (void)sf;");
  if (P.Observe.empty())
    E.line("  v[0] = 0;");
  if (HasLoop)
    E.line("  v[{}] = regs[INCANT_CUT_SLOT] != 0;", K.NumObs - 1);
  for (size_t I = 0; I < P.Observe.size(); ++I) {
    const litmus::Observed &O = P.Observe[I];
    if (O.Thread < 0) {
      K.ObserveRegOffset.push_back(-1);
      if (P.Locs[O.Index].R == litmus::Region::Shared)
        E.line("  v[{}] = sf[{}];", I, O.Index);
      else
        E.line("  v[{}] = atomic_load_explicit(&mem[a[{}]], "
               "memory_order_relaxed, memory_scope_device);",
               I, O.Index);
    } else {
      if (P.Threads[O.Thread].Regs[O.Index].Init.isAddress()) {
        Diags.error(File, {}, "no faithful OpenCL form: the condition "
                              "observes register '" +
                                  P.Threads[O.Thread].Regs[O.Index].Name +
                                  "', which holds an address");
        E.Failed = true;
      }
      uint32_t Off = RegBase[O.Thread] + uint32_t(O.Index);
      K.ObserveRegOffset.push_back(int32_t(Off));
      E.line("  v[{}] = regs[{}];", I, Off);
    }
  }
  E.line("}}");
  E.line("");
  E.line("#define INCANT_LMEM_WORDS 1");
  if (E.Failed)
    return std::nullopt;
  K.Source = std::move(E.Out);
  K.Source += harnessSource();
  K.BuildOptions = Caps.CVersion >= 300 ? "-cl-std=CL3.0" : "-cl-std=CL2.0";
  K.Notes.assign(E.Notes.begin(), E.Notes.end());
  return K;
}

} // namespace incant::opencl
