//===- RaceTest.cpp - Verdicts, witnesses and assumed barriers ------------===//
//
// On nvcc 13's PTX of unittests/IR/Inputs/analyses.cu.
//
//===----------------------------------------------------------------------===//
#include "incant/IR/Rewriter.h"
#include "incant/Race/Race.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

using namespace incant;
using namespace incant::race;

namespace {

const ptx::Module &module() {
  static std::optional<ptx::Module> M = [] {
    std::string Error;
    auto File = SourceFile::read(
        std::string(INCANT_SOURCE_DIR) + "/unittests/IR/Inputs/analyses.ptx",
        Error);
    DiagnosticEngine Diags;
    return ptx::parseModule(File, Diags);
  }();
  EXPECT_TRUE(M.has_value());
  return *M;
}

KernelReport check(const std::string &Kernel, Options O = {}) {
  O.Kernel = Kernel;
  ModuleReport R = checkModule(module(), O);
  EXPECT_TRUE(R.Error.empty()) << R.Error;
  EXPECT_EQ(R.Kernels.size(), 1u);
  return R.Kernels.empty() ? KernelReport() : R.Kernels[0];
}

TEST(Race, IndependentAccessesAreSafe) {
  for (const char *K : {"_Z3gidPi", "_Z6stridePii", "_Z6reducePfPKf",
                        "_Z4tilePfi", "_Z5fixedPi", "_Z5callsPi"}) {
    Options O;
    std::string Name = K;
    // Kernels that do not read blockIdx are for one block.
    if (Name == "_Z5fixedPi" || Name == "_Z5callsPi")
      O.Launch.setGrid({1, 1, 1});
    if (Name == "_Z4tilePfi") {
      // The tile is 16x16, the matrix too.
      O.Launch.setBlock({16, 16, 1});
      O.Launch.setGrid({1, 1, 1});
      O.Launch.Params["1"] = 16;
    }
    KernelReport R = check(K, O);
    EXPECT_EQ(R.Races, 0u) << K;
    EXPECT_EQ(R.Unknown, 0u) << K;
    EXPECT_EQ(R.Divergent, 0u) << K;
    EXPECT_GT(R.Safe, 0u) << K;
    EXPECT_TRUE(R.unproved().empty()) << K;
  }
}

TEST(Race, KernelTimeLimitLeavesPairsUnknownNeverSafe) {
  // A limit that has passed before the first query: what the solver would
  // have proved safe (or racy) is unknown, with the reason.
  Options O;
  O.KernelSeconds = 1e-9;
  for (const char *K : {"_Z3gidPi", "_Z7divergePi"}) {
    KernelReport R = check(K, O);
    EXPECT_EQ(R.Safe, 0u) << K;
    EXPECT_EQ(R.Races + R.Divergent, 0u) << K;
    EXPECT_GT(R.Unknown + R.UnknownBarriers, 0u) << K;
    for (const PairResult &P : R.Pairs)
      EXPECT_NE(P.Reason.find("time limit"), std::string::npos) << P.Reason;
  }
  // No limit: the same kernel is proved safe.
  EXPECT_GT(check("_Z3gidPi").Safe, 0u);
}

TEST(Race, DemangledNameSelectsTheKernel) {
  KernelReport R = check("gid");
  EXPECT_EQ(R.Name, "_Z3gidPi");
  Options O;
  O.Kernel = "nosuch";
  EXPECT_FALSE(checkModule(module(), O).Error.empty());
}

TEST(Race, DivergentBarrierHasAWitness) {
  KernelReport R = check("_Z7divergePi");
  ASSERT_EQ(R.Barriers.size(), 1u);
  const BarrierResult &B = R.Barriers[0];
  EXPECT_EQ(B.V, Verdict::Race);
  ASSERT_TRUE(B.W.has_value());
  EXPECT_LE(B.W->A.Tid[0], 15);
  EXPECT_GE(B.W->B.Tid[0], 16);
  EXPECT_EQ(B.W->A.Ctaid, B.W->B.Ctaid);
  EXPECT_EQ(R.Divergent, 1u);
}

TEST(Race, LoadedIndexIsUnknownNotSafe) {
  KernelReport R = check("_Z6gatherPiPKi");
  EXPECT_EQ(R.Races, 0u);
  EXPECT_GT(R.Unknown, 0u);
  bool Found = false;
  for (const PairResult &P : R.Pairs)
    if (P.V == Verdict::Unknown) {
      Found = true;
      EXPECT_NE(P.Reason.find("loaded value"), std::string::npos) << P.Reason;
    }
  EXPECT_TRUE(Found);
  // The store through the loaded index is one the dynamic checker must
  // instrument.
  std::vector<unsigned> U = R.unproved();
  ASSERT_EQ(U.size(), 1u);
  EXPECT_TRUE(R.Accesses[U[0]].Writes);
}

TEST(Race, ScopedAtomicsAcrossBlocks) {
  KernelReport R = check("_Z7atomicsPiS_");
  // atomicAdd (gpu scope) never races; atomicAdd_block (cta scope) does
  // between threads of two blocks.
  ASSERT_EQ(R.Races, 1u);
  for (const PairResult &P : R.Pairs) {
    const Access &A = R.Accesses[P.First];
    if (A.Scope == "gpu") {
      EXPECT_EQ(P.V, Verdict::Safe);
    } else {
      EXPECT_EQ(P.V, Verdict::Race);
      EXPECT_EQ(P.Rel, Relation::OtherBlocks);
      ASSERT_TRUE(P.W.has_value());
      EXPECT_NE(P.W->A.Ctaid, P.W->B.Ctaid);
      EXPECT_FALSE(P.Hint.empty());
    }
  }
}

TEST(Race, WitnessGivesThreadsAndOffsets) {
  // Without the loop's barrier the reduction races: a thread reads s[t+k]
  // that another writes as its s[t'] in another iteration.
  KernelReport Base = check("_Z6reducePfPKf");
  Options O;
  for (const BarrierResult &B : Base.Barriers)
    if (B.PtxLine > Base.Barriers.front().PtxLine)
      O.Removed.insert(B.Item);
  ASSERT_EQ(O.Removed.size(), 1u);
  KernelReport R = check("_Z6reducePfPKf", O);
  EXPECT_GT(R.Races, 0u);
  for (const PairResult &P : R.Pairs) {
    if (P.V != Verdict::Race)
      continue;
    ASSERT_TRUE(P.W.has_value());
    const Witness &W = *P.W;
    const Access &A = R.Accesses[P.First], &B = R.Accesses[P.Second];
    EXPECT_TRUE(A.Writes || B.Writes);
    // The two offsets overlap.
    EXPECT_LT(W.A.Offset, W.B.Offset + static_cast<int64_t>(B.Bytes));
    EXPECT_LT(W.B.Offset, W.A.Offset + static_cast<int64_t>(A.Bytes));
    EXPECT_NE(W.A.Tid, W.B.Tid);
    EXPECT_EQ(W.A.Ctaid, W.B.Ctaid); // shared memory: one block
    EXPECT_LE(W.BlockDim[0], 1024);
  }
}

TEST(Race, AssumedBarrierRepairsARace) {
  // What barrier repair does: put a barrier back where the race is and
  // check again without rewriting the module.
  KernelReport Base = check("_Z6reducePfPKf");
  unsigned LoopBarrier = 0;
  for (const BarrierResult &B : Base.Barriers)
    LoopBarrier = std::max(LoopBarrier, B.Item);
  Options O;
  O.Removed.insert(LoopBarrier);
  O.Extra.push_back({LoopBarrier, ir::BarrierKind::CTA});
  KernelReport R = check("_Z6reducePfPKf", O);
  EXPECT_EQ(R.Races, 0u);
  EXPECT_EQ(R.Divergent, 0u);
  bool Assumed = false;
  for (const BarrierResult &B : R.Barriers)
    Assumed |= B.Assumed && B.V == Verdict::Safe;
  EXPECT_TRUE(Assumed);
}

TEST(Race, RepairByAssumptionMatchesRepairByRewriting) {
  // The transpose through shared memory, launched as written, without its
  // barrier: the racing pairs say where one is needed; assuming a barrier
  // there and inserting one into the module give the same verdict.
  ptx::Module M = module();
  unsigned Func = 0;
  for (unsigned I = 0; I < M.Items.size(); ++I)
    if (auto *F = std::get_if<ptx::Function>(&M.Items[I]);
        F && F->Name == "_Z4tilePfi") {
      Func = I;
      auto &Body = F->Body;
      auto Bar = std::find_if(Body.begin(), Body.end(), [](const auto &B) {
        const auto *In = std::get_if<ptx::Instruction>(&B);
        return In && In->Op == ptx::Opcode::Bar;
      });
      ASSERT_NE(Bar, Body.end());
      Body.erase(Bar);
    }
  Options O;
  O.Kernel = "_Z4tilePfi";
  O.Launch.setBlock({16, 16, 1});
  O.Launch.setGrid({1, 1, 1});
  O.Launch.Params["1"] = 16;
  KernelReport Racy = checkModule(M, O).Kernels.at(0);
  ASSERT_GT(Racy.Races, 0u);
  // Before the later access of every racing pair.
  std::set<unsigned> Before;
  for (const PairResult &P : Racy.Pairs)
    if (P.V == Verdict::Race) {
      const Access &A = Racy.Accesses[P.First], &B = Racy.Accesses[P.Second];
      EXPECT_TRUE(P.W.has_value());
      EXPECT_EQ(P.Sources, std::vector<unsigned>{ir::NoNode}); // the entry
      Before.insert(std::max(A.Item, B.Item));
    }
  Options Assumed = O;
  for (unsigned Item : Before)
    Assumed.Extra.push_back({Item, ir::BarrierKind::CTA});
  KernelReport Fixed = checkModule(M, Assumed).Kernels.at(0);
  EXPECT_EQ(Fixed.Races, 0u);
  EXPECT_EQ(Fixed.Unknown, 0u);
  EXPECT_TRUE(Fixed.unproved().empty());

  DiagnosticEngine Diags;
  ir::Rewriter RW(M, Diags);
  for (unsigned Item : Before)
    ASSERT_TRUE(RW.insertBefore(Func, Item, "bar.sync 0;")); // no calls:
                                                             // Item is the
                                                             // module's too
  RW.apply();
  KernelReport Rewritten = checkModule(M, O).Kernels.at(0);
  EXPECT_EQ(Rewritten.Races, 0u);
  EXPECT_EQ(Rewritten.Safe, Fixed.Safe);
  EXPECT_EQ(Rewritten.Barriers.size(), Fixed.Barriers.size());
}

TEST(Race, KernelsWithoutBlockIdxRaceAcrossBlocks) {
  // Every block's thread t stores i to A[t*1000 + i]: the same value to the
  // same bytes, a benign race that is safe by default and a race without
  // the tolerance.
  EXPECT_EQ(check("_Z5fixedPi").Races, 0u);
  Options O;
  O.NoBenign = true;
  KernelReport R = check("_Z5fixedPi", O);
  EXPECT_GT(R.Races, 0u);
  for (const PairResult &P : R.Pairs)
    if (P.V == Verdict::Race) {
      EXPECT_EQ(P.Rel, Relation::OtherBlocks);
      EXPECT_EQ(P.W->A.Tid, P.W->B.Tid);
    }
}

TEST(Race, TransposeRacesUnlessLaunchedAsWritten) {
  // Any geometry: blocks wider than the 16x17 tile alias its rows, and
  // every block transposes the same part of A.
  KernelReport R = check("_Z4tilePfi");
  EXPECT_EQ(R.Races, 3u);
  bool Blocks = false;
  for (const PairResult &P : R.Pairs)
    Blocks |= P.V == Verdict::Race && P.Rel == Relation::OtherBlocks;
  EXPECT_TRUE(Blocks);
}

TEST(Race, LaunchGeometryAndParameters) {
  // With n = 32 threads per block and a given n, the grid-stride loop is
  // safe as before; the check also answers for a given geometry.
  Options O;
  O.Launch.setBlock({32, 1, 1});
  O.Launch.setGrid({4, 1, 1});
  O.Launch.Params["1"] = 1000;
  KernelReport R = check("_Z6stridePii", O);
  EXPECT_EQ(R.Races, 0u);
  EXPECT_EQ(R.Unknown, 0u);
  // The kernel reads only x: y and z are taken to be 1 when not given.
  KernelReport S = check("_Z3gidPi");
  EXPECT_EQ(S.Assumptions.size(), 4u); // blockDim.y, .z, gridDim.y, .z
}

TEST(Race, JsonCarriesPositionsAndVerdicts) {
  Options O;
  O.Kernel = "_Z6gatherPiPKi";
  nlohmann::json J = reportToJson(checkModule(module(), O));
  const nlohmann::json &K = J["kernels"][0];
  EXPECT_EQ(K["name"], "_Z6gatherPiPKi");
  ASSERT_FALSE(K["pairs"].empty());
  const nlohmann::json &P = K["pairs"][0];
  EXPECT_TRUE(P.contains("first_item"));
  EXPECT_TRUE(P.contains("interval_sources"));
  EXPECT_EQ(K["unproved"].size(), 1u);
  EXPECT_EQ(K["accesses"][0]["origin"]["function"], "_Z6gatherPiPKi");
  std::ostringstream OS;
  printReport(checkModule(module(), O), OS, false);
  EXPECT_NE(OS.str().find("unknown: 1 pair"), std::string::npos) << OS.str();
}

} // namespace

TEST(Race, VerificationStopsAtTheFirstFailure) {
  // A yes-or-no check (repair's "may this barrier go?") stops at the
  // first race; a kernel that verifies is checked whole, as without it.
  KernelReport Base = check("_Z6reducePfPKf");
  Options O;
  O.StopBeyondUnknown = 0;
  KernelReport Whole = check("_Z6reducePfPKf", O);
  EXPECT_FALSE(Whole.Partial);
  EXPECT_EQ(Whole.Pairs.size(), Base.Pairs.size());
  EXPECT_EQ(Whole.Safe, Base.Safe);
  for (const BarrierResult &B : Base.Barriers)
    if (B.PtxLine > Base.Barriers.front().PtxLine)
      O.Removed.insert(B.Item);
  KernelReport Stopped = check("_Z6reducePfPKf", O);
  EXPECT_TRUE(Stopped.Partial);
  EXPECT_EQ(Stopped.Races, 1u);
  O.StopBeyondUnknown.reset();
  KernelReport Full = check("_Z6reducePfPKf", O);
  EXPECT_FALSE(Full.Partial);
  EXPECT_GE(Full.Pairs.size(), Stopped.Pairs.size());
}
