//===- AnalysesTest.cpp - Thread values, uniformity, barriers, accesses ---===//
//
// On nvcc 13's PTX of Inputs/analyses.cu (checked in beside it).
//
//===----------------------------------------------------------------------===//
#include "incant/IR/AsyncCopies.h"
#include "incant/IR/Barriers.h"
#include "incant/IR/FunctionIR.h"
#include "incant/IR/Inliner.h"
#include "incant/IR/MemoryEvents.h"
#include "incant/IR/ThreadValues.h"
#include "incant/IR/Uniformity.h"

#include <gtest/gtest.h>

#include <memory>

using namespace incant;
using namespace incant::ir;

namespace {

std::shared_ptr<ptx::Module> loadModule() {
  std::string Error;
  auto File = SourceFile::read(
      std::string(INCANT_SOURCE_DIR) + "/unittests/IR/Inputs/analyses.ptx",
      Error);
  EXPECT_TRUE(File) << Error;
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  EXPECT_TRUE(M.has_value());
  return std::make_shared<ptx::Module>(std::move(*M));
}

/// One kernel of the module with its analyses.
/// The module of one PTX function's text, with the usual header; null if
/// it does not parse.
std::shared_ptr<ptx::Module> moduleOf(const std::string &Function) {
  auto File = std::make_shared<SourceFile>(
      "t.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n" + Function);
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  return M ? std::make_shared<ptx::Module>(std::move(*M)) : nullptr;
}

struct Kernel {
  std::shared_ptr<ptx::Module> M;
  std::unique_ptr<ModuleIR> IR;
  const FunctionIR *F = nullptr;
  ExprPool Pool;
  std::unique_ptr<ThreadValues> TV;
  std::vector<MemoryAccess> Accesses;

  explicit Kernel(const std::string &Name,
                  std::shared_ptr<ptx::Module> Mod = loadModule())
      : M(std::move(Mod)) {
    IR = std::make_unique<ModuleIR>(*M);
    F = IR->find(Name);
    EXPECT_NE(F, nullptr) << Name;
    TV = std::make_unique<ThreadValues>(*M, *F, Pool);
    Accesses = memoryAccesses(*TV);
  }
  /// The first access whose instruction starts with \p Text.
  const MemoryAccess &access(const std::string &Text) const {
    for (const MemoryAccess &A : Accesses)
      if (A.Event.Text.rfind(Text, 0) == 0)
        return A;
    ADD_FAILURE() << "no access " << Text;
    return Accesses.front();
  }
  std::string str(ExprId E) { return Pool.str(E); }
};

TEST(IRSymExpr, PolynomialsAreCanonical) {
  ExprPool P;
  Symbol T, N;
  T.K = SymKind::Tid;
  N.K = SymKind::Ntid;
  ExprId X = P.sym(T), Y = P.sym(N);
  // tid + 1 + ntid*tid and (tid + 1) + tid*ntid are one expression.
  ExprId A = P.add(P.add(X, P.constant(1)), P.mul(Y, X));
  ExprId B = P.add(P.mul(X, Y), P.add(P.constant(1), X));
  EXPECT_EQ(A, B);
  EXPECT_EQ(P.sub(A, A), P.constant(0));
  // shl by a constant is a product; products distribute.
  EXPECT_EQ(P.shl(X, P.constant(2)), P.mul(X, P.constant(4)));
  EXPECT_EQ(P.mul(P.add(X, P.constant(1)), P.constant(4)),
            P.add(P.mul(X, P.constant(4)), P.constant(4)));
  AffineForm F = P.affine(A);
  EXPECT_EQ(F.Const, 1);
  EXPECT_EQ(F.Terms.size(), 2u);
  // Comparisons whose difference is constant are decided.
  EXPECT_EQ(P.asBoolConst(P.cmp(CmpKind::Lt, X, P.add(X, P.constant(1)), true)),
            true);
  // c || !c and c && !c.
  ExprId C = P.cmp(CmpKind::Lt, X, Y, false);
  EXPECT_EQ(P.asBoolConst(P.lor(C, P.lnot(C))), true);
  EXPECT_EQ(P.asBoolConst(P.land(C, P.lnot(C))), false);
  EXPECT_EQ(P.lnot(P.lnot(C)), C);
  EXPECT_EQ(P.str(A), "(tid.x + tid.x*ntid.x + 1)");
}

TEST(IRThreadValues, GlobalIdAddress) {
  Kernel K("_Z3gidPi");
  ASSERT_EQ(K.Accesses.size(), 1u);
  const MemoryAccess &A = K.Accesses[0];
  EXPECT_TRUE(A.Writes);
  EXPECT_EQ(A.Bytes, 4u);
  EXPECT_EQ(A.Space, ptx::AddrSpace::Global);
  EXPECT_EQ(A.Object.K, ObjectKind::Param);
  EXPECT_EQ(A.Object.Name, "_Z3gidPi_param_0");
  EXPECT_TRUE(A.Affine);
  EXPECT_EQ(K.str(A.Offset), "(4*tid.x + 4*ntid.x*ctaid.x)");
  EXPECT_EQ(K.Pool.asBoolConst(K.TV->execCond(A.Item)), true);
}

TEST(IRThreadValues, GridStrideInduction) {
  Kernel K("_Z6stridePii");
  const MemoryAccess &St = K.access("st.global");
  // i = gid + iter * (ntid * nctaid): an induction variable of the loop.
  EXPECT_EQ(K.str(St.Offset),
            "(4*tid.x + 4*ntid.x*ctaid.x + 4*ntid.x*nctaid.x*iter0)");
  EXPECT_EQ(K.str(K.TV->execCond(St.Item)),
            "((tid.x + ntid.x*ctaid.x) < _Z6stridePii_param_1)");
  bool Found = false;
  for (const LoopVarInfo &V : K.TV->loopVars())
    if (V.Step != NoExpr) {
      Found = true;
      EXPECT_EQ(K.str(V.Step), "ntid.x*nctaid.x");
    }
  EXPECT_TRUE(Found);
  // The loop goes on while the next i is below n.
  std::string Back = K.str(K.TV->backEdgeCond(0));
  EXPECT_NE(Back.find("ntid.x*nctaid.x*iter0"), std::string::npos) << Back;
  EXPECT_NE(Back.find("< _Z6stridePii_param_1"), std::string::npos) << Back;
}

TEST(IRThreadValues, LoopCarriedValueAndGuards) {
  Kernel K("_Z6reducePfPKf");
  const MemoryAccess &Rd = K.access("ld.shared.f32 %f3");
  // s[t + k]: k halves each iteration, not an induction variable but a
  // geometric one: iteration i holds (ntid.x >> 1) >> i.
  EXPECT_EQ(K.str(Rd.Offset), "(4*tid.x + 4*((ntid.x >> 1) >> iter0))");
  EXPECT_EQ(K.str(K.TV->execCond(Rd.Item)),
            "((tid.x < ((ntid.x >> 1) >> iter0)) && ((ntid.x >> 1) != 0))");
  ASSERT_FALSE(K.TV->loopVars().empty());
  const LoopVarInfo &V = K.TV->loopVars().back();
  EXPECT_EQ(V.Step, NoExpr);
  EXPECT_EQ(K.str(V.Init), "(ntid.x >> 1)");
  EXPECT_EQ(K.str(V.Update), "(%r13@loop0 >> 1)");
  // After the loop, guarded by t == 0.
  const MemoryAccess &Out = K.access("st.global");
  EXPECT_EQ(K.str(Out.Offset), "4*ctaid.x");
  EXPECT_EQ(K.str(K.TV->execCond(Out.Item)), "(tid.x == 0)");
}

TEST(IRUniformity, BranchesAndBarriers) {
  Kernel K("_Z6reducePfPKf");
  Uniformity U(*K.F);
  const MemoryAccess &Rd = K.access("ld.shared.f32 %f3");
  // `if (t < k)` depends on the thread; the loop itself does not.
  EXPECT_EQ(U.exec(Rd.Item), Variance::Thread);
  std::vector<Barrier> Bars = findBarriers(*K.F, *K.TV);
  ASSERT_EQ(Bars.size(), 2u);
  for (const Barrier &B : Bars) {
    EXPECT_EQ(B.Kind, BarrierKind::CTA);
    EXPECT_EQ(U.exec(B.Item), Variance::Grid);
  }

  Kernel D("_Z7divergePi");
  Uniformity UD(*D.F);
  std::vector<Barrier> DB = findBarriers(*D.F, *D.TV);
  ASSERT_EQ(DB.size(), 1u);
  EXPECT_EQ(UD.exec(DB[0].Item), Variance::Thread);
  EXPECT_EQ(D.str(D.TV->execCond(DB[0].Item)), "(tid.x <= 15)");
}

// An inlined call's result comes back through a .param variable that each
// call sequence declares anew: a load of it is as uniform as the store
// that reaches it, not as the other sequences' stores to the same name.
TEST(IRUniformity, InlinedCallResultsThroughParamVariables) {
  std::shared_ptr<ptx::Module> M = moduleOf(R"(.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 %r<7>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_param_0];
	{
	.param .b32 retval0;
	mov.u32 %r1, %tid.x;
	st.param.b32 [retval0+0], %r1;
	ld.param.b32 %r2, [retval0+0];
	}
	{
	.param .b32 retval0;
	mov.u32 %r3, %ntid.x;
	st.param.b32 [retval0+0], %r3;
	ld.param.b32 %r4, [retval0+0];
	}
	add.s32 %r6, %r4, %r2;
	st.global.u32 [%rd1], %r6;
	ret;
}
)");
  ASSERT_TRUE(M);
  Kernel K("k", M);
  Uniformity U(*K.F);
  auto Reg = [&](const std::string &Name) {
    for (unsigned R = 0; R < K.F->registers().size(); ++R)
      if (K.F->registers()[R].Name == Name)
        return U.reg(R);
    ADD_FAILURE() << "no register " << Name;
    return Variance::Grid;
  };
  EXPECT_EQ(Reg("%r2"), Variance::Thread);
  EXPECT_EQ(Reg("%r4"), Variance::Grid);
  EXPECT_EQ(Reg("%r6"), Variance::Thread);
}

// A register nvcc reuses: thread 0's own value on one path, then one that
// a load every thread makes defines again. Each use reads only the
// definitions that reach it; a LoadVariance says what the load returns.
TEST(IRUniformity, EachUseReadsTheDefinitionsThatReachIt) {
  std::shared_ptr<ptx::Module> M = moduleOf(R"(.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	setp.ne.s32 %p1, %r2, 0;
	@%p1 bra $L_join;
	add.s32 %r1, %r2, 7;
	st.global.u32 [%rd1], %r1;
$L_join:
	bar.sync 0;
	add.s32 %r3, %r1, 1;
	ld.global.u32 %r1, [%rd1];
	add.s32 %r4, %r1, 1;
	setp.lt.s32 %p2, %r4, 5;
	@%p2 bra $L_end;
	bar.sync 0;
$L_end:
	ret;
}
)");
  ASSERT_TRUE(M);
  Kernel K("k", M);
  auto RegNo = [&](const std::string &Name) {
    unsigned R = K.F->findRegister(Name);
    EXPECT_NE(R, NoNode) << Name;
    return R;
  };
  auto Item = [&](const std::string &Text) {
    for (unsigned I : K.F->instructions())
      if (ptx::printInstruction(K.F->inst(I)).find(Text) == 0)
        return I;
    ADD_FAILURE() << "no instruction " << Text;
    return 0u;
  };
  unsigned Add3 = Item("add.s32 %r3"), Add4 = Item("add.s32 %r4");
  unsigned Load = Item("ld.global.u32 %r1");
  // Without knowing the load: after the join %r1 is thread 0's or the
  // block's, and the load's result is the thread's own.
  Uniformity U(*K.F);
  EXPECT_EQ(U.at(RegNo("%r1"), Add3), Variance::Thread);
  EXPECT_EQ(U.at(RegNo("%r1"), Add4), Variance::Thread);
  EXPECT_EQ(U.reg(RegNo("%r4")), Variance::Thread);
  // A load every thread makes alike (as the race checker says of a value
  // broadcast after a barrier): what reaches the second add is the
  // load's alone, whatever thread 0 wrote before.
  Uniformity UL(*K.F, [&](unsigned I) -> std::optional<Variance> {
    if (I == Load)
      return Variance::Grid;
    return std::nullopt;
  });
  EXPECT_EQ(UL.at(RegNo("%r1"), Add3), Variance::Thread);
  EXPECT_EQ(UL.at(RegNo("%r1"), Add4), Variance::Grid);
  EXPECT_EQ(UL.reg(RegNo("%r4")), Variance::Grid);
  EXPECT_EQ(UL.reg(RegNo("%r1")), Variance::Thread); // over all definitions
  // The branch on %r4 is uniform, so the barrier under it is too.
  std::vector<Barrier> Bars = findBarriers(*K.F, *K.TV);
  ASSERT_EQ(Bars.size(), 2u);
  EXPECT_EQ(U.exec(Bars[1].Item), Variance::Thread);
  EXPECT_EQ(UL.exec(Bars[1].Item), Variance::Grid);
}

TEST(IRBarriers, IntervalsAndLoopIterations) {
  Kernel K("_Z6reducePfPKf");
  std::vector<Barrier> Bars = findBarriers(*K.F, *K.TV);
  BarrierIntervals BI(*K.F, Bars, PairScope::CTA);
  ASSERT_EQ(BI.sources().size(), 3u); // entry and two barriers
  EXPECT_TRUE(BI.synchronised(0));
  const MemoryAccess &First = K.access("st.shared.f32 [%r3], %f1");
  const MemoryAccess &InLoop = K.access("st.shared.f32 [%r3], %f4");
  const MemoryAccess &After = K.access("ld.shared.f32 %f5");
  // The first store is before both barriers; the loop's accesses follow
  // the first barrier (iteration 0) or the loop's barrier through the back
  // edge (the next iteration).
  EXPECT_FALSE(BI.mayShareInterval(First.Item, InLoop.Item));
  std::vector<std::pair<unsigned, uint32_t>> R;
  for (const auto &X : BI.reach(InLoop.Item))
    R.emplace_back(X.Source, X.Crossed);
  EXPECT_EQ(R, (std::vector<std::pair<unsigned, uint32_t>>{{1, 0}, {2, 1}}));
  EXPECT_EQ(BI.sourceLoops(2), std::vector<unsigned>{0});
  EXPECT_TRUE(BI.mayShareInterval(InLoop.Item, After.Item));

  // A barrier assumed before the read after the loop cuts it off.
  Barrier Extra;
  Extra.Item = After.Item;
  Extra.Assumed = true;
  Bars.push_back(Extra);
  BarrierIntervals BX(*K.F, Bars, PairScope::CTA);
  EXPECT_FALSE(BX.mayShareInterval(InLoop.Item, After.Item));
  // Threads of different blocks: no CTA barrier orders them.
  BarrierIntervals BG(*K.F, findBarriers(*K.F, *K.TV), PairScope::Grid);
  EXPECT_TRUE(BG.mayShareInterval(First.Item, After.Item));
}

TEST(IRMemoryEvents, TwoDimensionsAndParameters) {
  Kernel K("_Z4tilePfi");
  const MemoryAccess &St = K.access("st.shared");
  EXPECT_EQ(K.str(St.Offset), "(4*tid.x + 68*tid.y)"); // s[16][17]
  EXPECT_EQ(St.Object.K, ObjectKind::Variable);
  EXPECT_EQ(St.Object.Space, ptx::AddrSpace::Shared);
  const MemoryAccess &Ld = K.access("ld.global");
  EXPECT_EQ(K.str(Ld.Offset), "(4*tid.x + 4*_Z4tilePfi_param_1*tid.y)");
}

TEST(IRMemoryEvents, LoadedIndexIsNotAffine) {
  Kernel K("_Z6gatherPiPKi");
  const MemoryAccess &St = K.access("st.global");
  EXPECT_EQ(St.Object.Name, "_Z6gatherPiPKi_param_0");
  EXPECT_FALSE(St.Affine);
  EXPECT_NE(St.Why.find("loaded value"), std::string::npos) << St.Why;
  EXPECT_TRUE(K.access("ld.global").Affine);
}

TEST(IRMemoryEvents, AtomicsAndScopes) {
  Kernel K("_Z7atomicsPiS_");
  ASSERT_EQ(K.Accesses.size(), 2u);
  for (const MemoryAccess &A : K.Accesses) {
    EXPECT_TRUE(A.Atomic && A.Strong && A.Reads && A.Writes);
    EXPECT_EQ(A.Bytes, 4u);
  }
  EXPECT_EQ(K.Accesses[0].Scope, ptx::Scope::GPU); // atomicAdd
  EXPECT_EQ(K.Accesses[1].Scope, ptx::Scope::CTA); // atomicAdd_block
}

TEST(IRThreadValues, NotEqualLoopStops) {
  // for (i = 0; i < 1000; ++i), unrolled by 8: the loop runs while the
  // counter, 8 per iteration, is not 1000.
  Kernel K("_Z5fixedPi");
  std::vector<ThreadValues::StopPoint> S = K.TV->stopPoints(0);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_EQ(S[0].Coeff, 8);
  EXPECT_EQ(K.Pool.asConst(S[0].Rest), -992); // 8*j + 8 - 1000 == 0 at j 124
}

TEST(IRInliner, CallsBecomeBodies) {
  std::shared_ptr<ptx::Module> M = loadModule();
  Kernel Before("_Z5callsPi", M);
  EXPECT_TRUE(Before.Accesses.empty()); // the store is in put()

  Inlined In = inlineCalls(*M);
  auto Copy = std::make_shared<ptx::Module>(std::move(In.M));
  Kernel After("_Z5callsPi", Copy);
  ASSERT_EQ(After.Accesses.size(), 1u);
  const MemoryAccess &St = After.Accesses[0];
  // put(A, threadIdx.x, 7) stores A[threadIdx.x]: the arguments reach the
  // callee through its .param variables.
  EXPECT_EQ(St.Object.Name, "_Z5callsPi_param_0");
  EXPECT_EQ(After.str(St.Offset), "4*tid.x");
  const std::vector<Origin> &O = In.Origins.at("_Z5callsPi");
  EXPECT_EQ(O[St.Item].Function, "_Z3putPiii");
  ASSERT_EQ(O[St.Item].Calls.size(), 1u);
  EXPECT_EQ(O[St.Item].Calls[0].first, "_Z5callsPi");
  EXPECT_TRUE(In.Kept.empty());
}

/// A kernel of the module \p Text (which must parse).
Kernel kernelOf(const std::string &Text, const std::string &Name) {
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M =
      ptx::parseModule(std::make_shared<SourceFile>("k.ptx", Text), Diags);
  EXPECT_TRUE(M.has_value()) << Text;
  return Kernel(Name, std::make_shared<ptx::Module>(std::move(*M)));
}

TEST(IRMemoryEvents, MatrixRowsWithoutAnAddressMayTouchAnyMemory) {
  // ptxas refuses an ldmatrix with no address operand; the analyses take
  // it as touching any memory (the address operand was read out of the
  // operand list's bounds).
  Kernel K = kernelOf(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<4>;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1};
	ret;
}
)",
                      "k");
  ASSERT_EQ(K.Accesses.size(), 1u);
  EXPECT_TRUE(K.Accesses[0].AnyMemory);
  EXPECT_NE(K.Accesses[0].Why.find("without an address operand"),
            std::string::npos)
      << K.Accesses[0].Why;
}

TEST(IRMemoryEvents, MappedAddressOfAnotherRank) {
  // mapa's address operand is first evaluated while the mapped address is
  // split, adding symbols to the pool (the mapa symbol was read after that,
  // from freed memory: AddressSanitizer, found by RaceFuzzer).
  Kernel K = kernelOf(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
.reqnctapercluster 2, 1, 1
{
	.reg .b32 %r<8>;
	.shared .align 4 .b8 buf[512];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, buf;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	mov.u32 %r6, %cluster_ctarank;
	xor.b32 %r7, %r6, 1;
	mapa.shared::cluster.u32 %r5, %r4, %r7;
	st.shared::cluster.u32 [%r5+4], %r1;
	ret;
}
)",
                      "k");
  const MemoryAccess &A = K.access("st.shared::cluster");
  EXPECT_EQ(A.Space, ptx::AddrSpace::SharedCluster);
  EXPECT_EQ(A.Object.Name, "buf");
  EXPECT_NE(A.Rank, NoExpr);
}

} // namespace

TEST(IRAsyncCopies, OpenCLWorkGroupCopyNames) {
  auto C = workGroupCopyCall("_Z21async_work_group_copyPU3AS3fPU3AS1Kfm9ocl_event");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->ElemBytes, 4u);
  EXPECT_EQ(C->Dst, ptx::AddrSpace::Shared);
  EXPECT_EQ(C->Src, ptx::AddrSpace::Global);
  EXPECT_FALSE(C->Strided);
  EXPECT_EQ(C->EventArg, 3u);
  // float3 is stored as float4; the second pointer names the first's type.
  C = workGroupCopyCall(
      "_Z29async_work_group_strided_copyPU3AS1Dv3_fPU3AS3KS_mm9ocl_event");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->ElemBytes, 16u);
  EXPECT_EQ(C->Dst, ptx::AddrSpace::Global);
  EXPECT_EQ(C->Src, ptx::AddrSpace::Shared);
  EXPECT_TRUE(C->Strided);
  EXPECT_EQ(C->EventArg, 4u);
  C = workGroupCopyCall("_Z21async_work_group_copyPU3AS3cPU3AS1Kcm9ocl_event");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->ElemBytes, 1u);
  EXPECT_FALSE(workGroupCopyCall("_Z17wait_group_eventsiP9ocl_event"));
  EXPECT_TRUE(isWaitGroupEvents("_Z17wait_group_eventsiP9ocl_event"));
  EXPECT_TRUE(isOpenCLPrefetch("_Z8prefetchPU3AS1Kfm"));
  EXPECT_FALSE(workGroupCopyCall("async_work_group_copy"));
}

TEST(IRMemoryEvents, OpenCLWorkGroupCopyIsAnElementOfTheThreadsChoice) {
  // async_work_group_copy(tile, p + 256 * group, 64, 0) as clang calls it.
  Kernel K = kernelOf(R"(.version 8.0
.target sm_90
.address_size 64
.extern .func  (.param .b64 func_retval0) _Z21async_work_group_copyPU3AS3fPU3AS1Kfm9ocl_event
(
	.param .b64 a, .param .b64 b, .param .b64 c, .param .b64 d
)
;
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 tile[256];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %ctaid.x;
	mul.wide.u32 %rd2, %r1, 256;
	add.s64 %rd3, %rd1, %rd2;
	mov.u64 %rd4, tile;
	mov.u64 %rd5, 64;
	mov.u64 %rd6, 0;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd4;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd3;
	.param .b64 param2;
	st.param.b64 [param2+0], %rd5;
	.param .b64 param3;
	st.param.b64 [param3+0], %rd6;
	.param .b64 retval0;
	call.uni (retval0), _Z21async_work_group_copyPU3AS3fPU3AS1Kfm9ocl_event, (param0, param1, param2, param3);
	ld.param.b64 %rd7, [retval0+0];
	}
	ret;
}
)",
                      "k");
  ASSERT_EQ(K.Accesses.size(), 2u);
  const MemoryAccess &Dst = K.Accesses[0], &Src = K.Accesses[1];
  EXPECT_TRUE(Dst.Writes && !Dst.Reads && Dst.WorkGroup && Dst.Async);
  EXPECT_TRUE(Src.Reads && !Src.Writes && Src.WorkGroup);
  EXPECT_EQ(Dst.Object.Name, "tile");
  EXPECT_EQ(Src.Object.K, ObjectKind::Param);
  EXPECT_EQ(Dst.Bytes, 4u);
  EXPECT_TRUE(Dst.Affine && Src.Affine);
  EXPECT_NE(Dst.Cond, NoExpr); // the element is below n
  EXPECT_NE(K.str(Dst.Offset).find("element of the work-group copy"),
            std::string::npos)
      << K.str(Dst.Offset);
  EXPECT_EQ(Dst.Event.Text, "async_work_group_copy (destination)");
  EXPECT_EQ(K.TV->callArgument(K.Accesses[0].Item, 2), K.Pool.constant(64));
  EXPECT_NE(K.TV->callResult(K.Accesses[0].Item), NoExpr);
}

TEST(IRAsyncCopies, MangledNamesOutOfBoundsAreNotCalls) {
  // Names a hostile module may call: lengths past the end, digits that
  // overflow, truncated types.
  for (const char *N :
       {"_Z", "_Z0", "_Z99read_imagef", "_Z11read_imagef99ocl_image2d_ro",
        "_Z11read_imagef14ocl_image2d", "_Z99999999999999999999999999abc",
        "_Z21async_work_group_copyPU3AS", "_Z21async_work_group_copyPU3AS3Dv",
        "_Z21async_work_group_copyPU3AS3Dv4", "_Z12write_imagei1"}) {
    EXPECT_FALSE(imageCall(N).has_value() && imageCall(N)->Lanes == 0) << N;
    (void)workGroupCopyCall(N);
    (void)isWaitGroupEvents(N);
    (void)isOpenCLPrefetch(N);
  }
  EXPECT_FALSE(imageCall("_Z99read_imagef"));
  EXPECT_FALSE(workGroupCopyCall("_Z99999999999999999999999999abc"));
}
