//===- RepairTest.cpp - Barrier repair against the real race checker ------===//
//
// On nvcc 13's PTX of Inputs/kernels.cu: each kernel lacks a barrier, has
// one too many, or one in the wrong place; the repair is checked against
// the race checker on the rewritten module, which ptxas must accept.
//
//===----------------------------------------------------------------------===//
#include "Ptxas.h"
#include "incant/Repair/Repair.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::repair;

namespace {

ptx::Module module() {
  std::string Error;
  auto File = SourceFile::read(std::string(INCANT_SOURCE_DIR) +
                                   "/unittests/Repair/Inputs/kernels.ptx",
                               Error);
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  EXPECT_TRUE(M.has_value()) << Error;
  return M ? std::move(*M) : ptx::Module();
}

struct Repaired {
  ModuleRepair R;
  ptx::Module Fixed;
};

/// One block unless \p O says otherwise: most kernels here do not read
/// blockIdx (launched with several blocks, they race between blocks).
Options oneBlock() {
  Options O;
  O.Race.Launch.setGrid({1, 1, 1});
  return O;
}

Repaired repair(const std::string &Kernel, Options O = oneBlock()) {
  O.Race.Kernel = Kernel;
  ptx::Module M = module();
  Repaired Out{repairModule(M, O), module()};
  EXPECT_TRUE(Out.R.Error.empty()) << Out.R.Error;
  EXPECT_EQ(Out.R.Kernels.size(), 1u);
  DiagnosticEngine Diags;
  EXPECT_TRUE(applyRepairs(Out.Fixed, Out.R, Diags));
  return Out;
}

/// Why a kernel could not be repaired, for failure messages.
std::string problems(const KernelRepair &K) {
  std::string S;
  for (const std::string &P : K.Problems)
    S += P + "\n";
  return S;
}

/// The rewritten module, checked again from its printed text.
race::KernelReport recheck(const Repaired &X, const Options &O,
                           const std::string &Kernel) {
  std::string Text = ptx::printModule(X.Fixed);
  auto File = std::make_shared<SourceFile>("fixed.ptx", Text);
  DiagnosticEngine Diags;
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  EXPECT_TRUE(M.has_value());
  race::Options RO = O.Race;
  RO.Kernel = Kernel;
  race::ModuleReport R = race::checkModule(*M, RO);
  EXPECT_EQ(R.Kernels.size(), 1u);
  if (std::string(INCANT_PTXAS).size()) {
    std::string Log;
    EXPECT_TRUE(ptxastest::assemble(Text, "sm_90", false, Kernel, Log))
        << Log;
  }
  return R.Kernels.empty() ? race::KernelReport() : R.Kernels[0];
}

TEST(Repair, CostsFollowGPURepair) {
  EXPECT_EQ(barrierCost(ir::BarrierKind::CTA, 0), 2u);
  EXPECT_EQ(barrierCost(ir::BarrierKind::CTA, 2), 200u);
  EXPECT_EQ(barrierCost(ir::BarrierKind::Grid, 0), 26u);
  EXPECT_EQ(barrierCost(ir::BarrierKind::Grid, 1), 44u);
  // A warp barrier costs less than a block barrier at its depth and more
  // than one a loop further out.
  EXPECT_EQ(barrierCost(ir::BarrierKind::Warp, 0), 1u);
  EXPECT_EQ(barrierCost(ir::BarrierKind::Warp, 1), 10u);
}

TEST(Repair, OneBarrierBetweenStoreAndNeighboursLoad) {
  Options O = oneBlock();
  Repaired X = repair("_Z8neighborPiPKi", O);
  const KernelRepair &K = X.R.Kernels.at(0);
  EXPECT_EQ(K.Result, Outcome::Repaired) << problems(K);
  ASSERT_EQ(K.Added.size(), 1u);
  EXPECT_EQ(K.Added[0].Kind, ir::BarrierKind::CTA);
  EXPECT_EQ(K.Added[0].LoopDepth, 0u);
  EXPECT_EQ(K.Added[0].Loc.userFrame()->Line, 11u); // before out[t] = ...
  EXPECT_EQ(K.After.Races, 0u);
  race::KernelReport R = recheck(X, O, "_Z8neighborPiPKi");
  EXPECT_EQ(R.Races, 0u);
  EXPECT_EQ(R.Divergent, 0u);
}

TEST(Repair, ReductionGetsBarriersInItsLoop) {
  Options O = oneBlock();
  Repaired X = repair("_Z6reducePfPKf", O);
  const KernelRepair &K = X.R.Kernels.at(0);
  EXPECT_EQ(K.Result, Outcome::Repaired) << problems(K);
  unsigned InLoop = 0;
  for (const Change &C : K.Added)
    InLoop += C.LoopDepth == 1;
  EXPECT_GE(InLoop, 1u);
  race::KernelReport R = recheck(X, O, "_Z6reducePfPKf");
  EXPECT_EQ(R.Races, 0u);
  EXPECT_EQ(R.Divergent, 0u);
}

TEST(Repair, UnnecessaryBarrierIsRemoved) {
  Options O = oneBlock();
  Repaired X = repair("_Z3ownPiPKi", O);
  const KernelRepair &K = X.R.Kernels.at(0);
  EXPECT_EQ(K.Result, Outcome::Repaired) << problems(K);
  EXPECT_TRUE(K.Added.empty());
  ASSERT_EQ(K.Removed.size(), 1u);
  EXPECT_EQ(K.Removed[0].Why, "unnecessary");
  race::KernelReport R = recheck(X, O, "_Z3ownPiPKi");
  EXPECT_TRUE(R.Barriers.empty());
  EXPECT_EQ(R.Races, 0u);

  O.Remove = false;
  Repaired Kept = repair("_Z3ownPiPKi", O);
  EXPECT_EQ(Kept.R.Kernels.at(0).Result, Outcome::Clean);
}

TEST(Repair, DivergentBarrierIsHoisted) {
  Options O = oneBlock();
  Repaired X = repair("_Z9divergentPiPKi", O);
  const KernelRepair &K = X.R.Kernels.at(0);
  EXPECT_EQ(K.Result, Outcome::Repaired) << problems(K);
  ASSERT_EQ(K.Removed.size(), 1u);
  EXPECT_EQ(K.Removed[0].Why, "divergent");
  ASSERT_EQ(K.Added.size(), 1u);
  EXPECT_EQ(K.Added[0].Loc.userFrame()->Line, 44u); // out[t] = s[t ^ 1]
  race::KernelReport R = recheck(X, O, "_Z9divergentPiPKi");
  EXPECT_EQ(R.Races, 0u);
  EXPECT_EQ(R.Divergent, 0u);
}

TEST(Repair, InterBlockRaceNeedsGridLevel) {
  Options O;
  Repaired X = repair("_Z8exchangePiS_", O);
  EXPECT_EQ(X.R.Kernels.at(0).Result, Outcome::Unrepairable)
      << X.R.Kernels[0].Added.size() << " added, first at line "
      << (X.R.Kernels[0].Added.empty() ? 0 : X.R.Kernels[0].Added[0].PtxLine);
  ASSERT_FALSE(X.R.Kernels[0].Problems.empty());
  EXPECT_NE(X.R.Kernels[0].Problems[0].find("--grid-level"), std::string::npos)
      << X.R.Kernels[0].Problems[0];

  O.GridLevel = true;
  Repaired G = repair("_Z8exchangePiS_", O);
  const KernelRepair &K = G.R.Kernels.at(0);
  EXPECT_EQ(K.Result, Outcome::Repaired) << problems(K);
  ASSERT_EQ(K.Added.size(), 1u);
  EXPECT_EQ(K.Added[0].Kind, ir::BarrierKind::Grid);
  EXPECT_EQ(K.Added[0].Cost, 26u);
  // The inserted sequence is recognised as a grid barrier.
  race::KernelReport R = recheck(G, O, "_Z8exchangePiS_");
  EXPECT_EQ(R.Races, 0u);
  bool Grid = false;
  for (const race::BarrierResult &B : R.Barriers)
    Grid |= B.Kind == ir::BarrierKind::Grid;
  EXPECT_TRUE(Grid);
}

TEST(Repair, RaceOnOneLocationCannotBeRepaired) {
  Options O;
  O.Race.Launch.setGrid({1, 1, 1});
  Repaired X = repair("_Z4samePi", O);
  const KernelRepair &K = X.R.Kernels.at(0);
  EXPECT_EQ(K.Result, Outcome::Unrepairable);
  ASSERT_FALSE(K.Problems.empty());
  EXPECT_NE(K.Problems[0].find("no barrier"), std::string::npos)
      << K.Problems[0];
  EXPECT_TRUE(K.Added.empty());
}

} // namespace
