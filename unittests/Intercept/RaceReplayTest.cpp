//===- RaceReplayTest.cpp - The dynamic race checker on recorded logs -----===//
//
// Each log runs through both schemes (addr: the shadow, checked at every
// access; stmt: the log, checked by the two phases the checking kernels
// run after a launch) with the code the device runs (RaceReplay.h), and
// must give the same races.
//
//===----------------------------------------------------------------------===//
#include "RaceReplay.h"

#include <gtest/gtest.h>

#include <set>

#include <tuple>

namespace {

using namespace incant::racetest;

constexpr unsigned Addr = INCANT_RACE_SCHEME_ADDR, Stmt = INCANT_RACE_SCHEME_STMT;

/// (first site, second site, hazard) of every race found.
std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>
races(const std::string &Log, unsigned Scheme, ReplayOptions O = {}) {
  O.Scheme = Scheme;
  ReplayResult R = replay(Log, O);
  EXPECT_EQ(R.Error, "");
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> V;
  for (const Found &F : R.Races)
    V.emplace_back(F.SiteA, F.SiteB, F.Hazard);
  return V;
}

using Races = std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>;

/// The races of \p Log under both schemes.
void expectBoth(const std::string &Log, const Races &Want) {
  EXPECT_EQ(races(Log, Addr), Want) << "addr scheme\n" << Log;
  EXPECT_EQ(races(Log, Stmt), Want) << "stmt scheme\n" << Log;
}

TEST(RaceReplay, SharedMemoryAcrossWarpsWithoutBarrier) {
  // s[t] = t; ... = s[(t + 1) % n] with warps 0 and 1 of one block.
  expectBoth("launch 64 1\n"
             "w0 write shared 4 0x0 site=1 lanes=0,31 step=4\n"
             "w1 write shared 4 0x80 site=1 lanes=0 step=4\n"
             "w0 read shared 4 0x80 site=2 lanes=31\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, BarrierOrdersTheBlock) {
  expectBoth("launch 64 1\n"
             "w0 write shared 4 0x0 site=1 lanes=0,31 step=4\n"
             "w1 write shared 4 0x80 site=1 lanes=0 step=4\n"
             "bar 0\n"
             "w0 read shared 4 0x80 site=2 lanes=31\n"
             "w1 write shared 4 0x0 site=3 lanes=0\n",
             {});
}

TEST(RaceReplay, ReadThenWriteInOneInterval) {
  expectBoth("launch 64 1\n"
             "w1 read shared 4 0x10 site=1 lanes=5\n"
             "w0 write shared 4 0x10 site=2 lanes=3\n",
             {{1, 2, INCANT_RACE_WAR}});
}

TEST(RaceReplay, SharedMemoryIsPerBlock) {
  // The same offset in two blocks is two locations.
  expectBoth("launch 32 2\n"
             "w0 write shared 4 0x10 site=1 lanes=0\n"
             "w1 write shared 4 0x10 site=2 lanes=0\n",
             {});
}

TEST(RaceReplay, SameInstructionSameAddressInOneWarp) {
  // Two lanes of one store write one word: an intra-warp race, found at
  // once; two lanes reading it are not.
  expectBoth("launch 32 1\n"
             "w0 write global 4 0x1000 site=7 lanes=2,9\n"
             "w0 read global 4 0x2000 site=8 lanes=2,9\n",
             {{7, 7, INCANT_RACE_WAW}});
}

TEST(RaceReplay, LanesOfOneWarpNeedSyncwarp) {
  // Independent thread scheduling: two instructions of one warp are
  // unordered unless __syncwarp() lies between.
  std::string Racy = "launch 32 1\n"
                     "w0 write shared 4 0x0 site=1 lanes=0\n"
                     "w0 read shared 4 0x0 site=2 lanes=5\n";
  expectBoth(Racy, {{1, 2, INCANT_RACE_RAW}});
  expectBoth("launch 32 1\n"
             "w0 write shared 4 0x0 site=1 lanes=0\n"
             "syncwarp 0\n"
             "w0 read shared 4 0x0 site=2 lanes=5\n",
             {});
}

TEST(RaceReplay, SyncwarpDoesNotOrderOtherWarps) {
  expectBoth("launch 64 1\n"
             "w0 write shared 4 0x0 site=1 lanes=0\n"
             "syncwarp 0\n"
             "syncwarp 1\n"
             "w1 read shared 4 0x0 site=2 lanes=0\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, OneThreadIsOrdered) {
  expectBoth("launch 32 1\n"
             "w0 write global 4 0x100 site=1 lanes=4\n"
             "w0 read global 4 0x100 site=2 lanes=4\n"
             "w0 write global 4 0x100 site=3 lanes=4\n",
             {});
}

TEST(RaceReplay, GlobalMemoryAcrossBlocks) {
  // Barriers order one block only.
  expectBoth("launch 32 2\n"
             "w0 write global 4 0x100 site=1 lanes=0\n"
             "bar 0\n"
             "bar 1\n"
             "w1 read global 4 0x100 site=2 lanes=0\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, AtomicsDoNotRaceWithAtomics) {
  expectBoth("launch 32 4\n"
             "w0 atomic global 4 0x100 site=1 lanes=0\n"
             "w1 atomic global 4 0x100 site=1 lanes=0\n"
             "w2 red global 4 0x100 site=2 lanes=3\n"
             "w3 atomic global 4 0x100 site=1 lanes=0,1,2\n",
             {});
}

TEST(RaceReplay, PlainAccessRacesWithAtomic) {
  expectBoth("launch 32 2\n"
             "w0 atomic global 4 0x100 site=1 lanes=0\n"
             "w1 read global 4 0x100 site=2 lanes=0\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, BlockScopedAtomicsOfTwoBlocksRace) {
  // atomicAdd_block in two blocks: .cta scope does not include both.
  expectBoth("launch 32 2\n"
             "w0 atomic global 4 0x100 site=1 lanes=0 scope=cta\n"
             "w1 atomic global 4 0x100 site=1 lanes=0 scope=cta\n",
             {{1, 1, INCANT_RACE_WAW}});
  expectBoth("launch 64 1\n"
             "w0 atomic global 4 0x100 site=1 lanes=0 scope=cta\n"
             "w1 atomic global 4 0x100 site=1 lanes=0 scope=cta\n",
             {});
}

TEST(RaceReplay, StrongRelaxedAccessesDoNotRace) {
  // cuda::atomic_ref loads and stores: ld/st.relaxed.gpu.
  expectBoth("launch 32 2\n"
             "w0 write global 4 0x100 site=1 lanes=0 scope=gpu\n"
             "w1 read global 4 0x100 site=2 lanes=0 scope=sys\n",
             {});
  // Volatile is data: plain accesses race.
  expectBoth("launch 32 2\n"
             "w0 write global 4 0x100 site=1 lanes=0\n"
             "w1 read global 4 0x100 site=2 lanes=0 scope=gpu\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, DifferentBytesOfOneWordDoNotRace) {
  expectBoth("launch 32 2\n"
             "w0 write global 1 0x100 site=1 lanes=0\n"
             "w1 write global 1 0x101 site=2 lanes=0\n"
             "w1 write global 2 0x102 site=3 lanes=0\n",
             {});
  expectBoth("launch 32 2\n"
             "w0 write global 1 0x101 site=1 lanes=0\n"
             "w1 read global 2 0x100 site=2 lanes=0\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, VectorAccessesCoverEveryWord) {
  // A 16-byte store and a 4-byte read of its third word.
  expectBoth("launch 32 2\n"
             "w0 write global 16 0x100 site=1 lanes=0\n"
             "w1 read global 4 0x108 site=2 lanes=0\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, FenceReleasesAcrossBlocks) {
  // A message through a flag (a fenced write, then an atomic flag): the
  // writer fenced after its write, so the reader in another block is
  // ordered after it.
  expectBoth("launch 32 2\n"
             "w0 write global 4 0x100 site=1 lanes=0\n"
             "fence gpu 0\n"
             "w0 atomic global 4 0x200 site=2 lanes=0\n"
             "w1 atomic global 4 0x200 site=3 lanes=0\n"
             "w1 read global 4 0x100 site=4 lanes=0\n",
             {});
  // The same without the fence (the -nf variants of the case studies).
  expectBoth("launch 32 2\n"
             "w0 write global 4 0x100 site=1 lanes=0\n"
             "w0 atomic global 4 0x200 site=2 lanes=0\n"
             "w1 atomic global 4 0x200 site=3 lanes=0\n"
             "w1 read global 4 0x100 site=4 lanes=0\n",
             {{1, 4, INCANT_RACE_RAW}});
  // A fence of CTA scope does not order two blocks.
  expectBoth("launch 32 2\n"
             "w0 write global 4 0x100 site=1 lanes=0\n"
             "fence cta 0\n"
             "w1 read global 4 0x100 site=4 lanes=0\n",
             {{1, 4, INCANT_RACE_RAW}});
}

TEST(RaceReplay, ReleaseOperationReleases) {
  expectBoth("launch 32 2\n"
             "w0 write global 4 0x100 site=1 lanes=0\n"
             "w0 red global 4 0x200 site=2 lanes=0 release\n"
             "w1 read global 4 0x100 site=3 lanes=0\n",
             {});
}

TEST(RaceReplay, GridSyncOrdersBlocks) {
  // CUDA 13's grid.sync(): bar.sync, thread 0 releases (atom.add.release),
  // spins, bar.sync. A write by any thread of block 0 before it is ordered
  // before a read in block 1 after it.
  std::string Log = "launch 64 2\n"
                    "w1 write global 4 0x100 site=1 lanes=7\n"
                    "bar 0\n"
                    "bar 1\n"
                    "w0 atomic global 4 0x400 site=2 lanes=0 release\n"
                    "w2 atomic global 4 0x400 site=2 lanes=0 release\n"
                    "w2 read global 4 0x400 site=3 lanes=0 scope=gpu\n"
                    "bar 0\n"
                    "bar 1\n"
                    "w3 read global 4 0x100 site=4 lanes=9\n";
  expectBoth(Log, {});
  // Without the grid barrier it is a race.
  expectBoth("launch 64 2\n"
             "w1 write global 4 0x100 site=1 lanes=7\n"
             "bar 0\n"
             "bar 1\n"
             "w3 read global 4 0x100 site=4 lanes=9\n",
             {{1, 4, INCANT_RACE_RAW}});
}

TEST(RaceReplay, ReleaseBeforeTheWriteOrdersNothing) {
  expectBoth("launch 32 2\n"
             "fence gpu 0\n"
             "w0 write global 4 0x100 site=1 lanes=0\n"
             "w1 read global 4 0x100 site=2 lanes=0\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, WriteAfterManyReaders) {
  // Reads by many threads, then a write by another block: a WAR race.
  expectBoth("launch 64 2\n"
             "w0 read global 4 0x100 site=1 lanes=0,1,2,3\n"
             "w1 read global 4 0x100 site=1 lanes=0,1,2,3\n"
             "w2 write global 4 0x100 site=2 lanes=5\n",
             {{1, 2, INCANT_RACE_WAR}});
}

TEST(RaceReplay, FullShadowIsCountedNotOverrun) {
  ReplayOptions O;
  O.ShadowEntries = 4;
  O.MaxProbe = 4;
  std::string Log = "launch 32 1\n"
                    "w0 write global 4 0x1000 site=1 lanes=0,1,2,3,4,5,6,7 "
                    "step=4\n";
  O.Scheme = Addr;
  ReplayResult R = replay(Log, O);
  EXPECT_EQ(R.Error, "");
  EXPECT_EQ(R.Counters[INCANT_RACE_CNT_SHADOW_FULL], 4u);
  EXPECT_EQ(R.Counters[INCANT_RACE_CNT_ACCESSES], 8u);
}

TEST(RaceReplay, FullLogIsCountedNotOverrun) {
  ReplayOptions O;
  O.Scheme = Stmt;
  O.LogEntries = 2;
  ReplayResult R = replay("launch 32 2\n"
                          "w0 write global 4 0x100 site=1 lanes=0,1 step=4\n"
                          "w1 read global 4 0x100 site=2 lanes=0\n"
                          "w1 read global 4 0x104 site=3 lanes=0,1,2\n",
                          O);
  EXPECT_EQ(R.Error, "");
  EXPECT_EQ(R.Counters[INCANT_RACE_CNT_LOG_FULL], 3u);
  ASSERT_EQ(R.Races.size(), 1u); // what was logged is still checked
  EXPECT_EQ(R.Races[0].SiteA, 1u);
  EXPECT_EQ(R.Races[0].SiteB, 2u);
}

TEST(RaceReplay, FullRaceTableIsCounted) {
  ReplayOptions O;
  O.Hits = 2;
  std::string Log = "launch 32 2\n";
  for (int S = 0; S < 6; ++S)
    Log += "w0 write global 4 " + std::to_string(0x100 + 4 * S) +
           " site=" + std::to_string(10 + S) + " lanes=0\n" +
           "w1 read global 4 " + std::to_string(0x100 + 4 * S) +
           " site=" + std::to_string(20 + S) + " lanes=0\n";
  for (unsigned Scheme : {Addr, Stmt}) {
    O.Scheme = Scheme;
    ReplayResult R = replay(Log, O);
    EXPECT_EQ(R.Races.size(), 2u);
    EXPECT_EQ(R.Counters[INCANT_RACE_CNT_HAZARDS], 6u);
    EXPECT_EQ(R.Counters[INCANT_RACE_CNT_HITS_LOST], 4u);
  }
}

TEST(RaceReplay, FoldedRacesAreCounted) {
  // 8 lanes of warp 1 read what 8 lanes of warp 0 wrote: one race of two
  // statements, 8 times, with the first occurrence's threads.
  for (unsigned Scheme : {Addr, Stmt}) {
    ReplayOptions O;
    O.Scheme = Scheme;
    ReplayResult R =
        replay("launch 64 1\n"
               "w0 write shared 4 0x0 site=1 lanes=0,1,2,3,4,5,6,7 step=4\n"
               "w1 read shared 4 0x0 site=2 lanes=0,1,2,3,4,5,6,7 step=4\n",
               O);
    ASSERT_EQ(R.Races.size(), 1u);
    EXPECT_EQ(R.Races[0].Count, 8u);
    EXPECT_EQ(R.Races[0].TidA, 0u);
    EXPECT_EQ(R.Races[0].TidB, 32u);
    EXPECT_EQ(R.Races[0].Space, INCANT_RACE_SPACE_SHARED);
  }
}

TEST(RaceReplay, StmtFindsEveryPairAddrTheLast) {
  // Two writes by different threads, then a read: stmt reports both
  // statement pairs; addr compares the read with the last write only.
  std::string Log = "launch 32 3\n"
                    "w0 write global 4 0x100 site=1 lanes=0\n"
                    "w1 write global 4 0x100 site=2 lanes=0\n"
                    "w2 read global 4 0x100 site=3 lanes=0\n";
  EXPECT_EQ(races(Log, Stmt), (Races{{1, 2, INCANT_RACE_WAW},
                                     {1, 3, INCANT_RACE_RAW},
                                     {2, 3, INCANT_RACE_RAW}}));
  EXPECT_EQ(races(Log, Addr),
            (Races{{1, 2, INCANT_RACE_WAW}, {2, 3, INCANT_RACE_RAW}}));
}

TEST(RaceReplay, ComparisonsAreCapped) {
  ReplayOptions O;
  O.Scheme = Stmt;
  O.Walk = 2;
  std::string Log = "launch 32 8\n";
  for (int W = 0; W < 6; ++W)
    Log += "w" + std::to_string(W) + " read global 4 0x100 site=1 lanes=0\n";
  Log += "w7 write global 4 0x100 site=2 lanes=0\n";
  ReplayResult R = replay(Log, O);
  EXPECT_EQ(R.Counters[INCANT_RACE_CNT_CAPPED], 1u);
  ASSERT_EQ(R.Races.size(), 1u);
  EXPECT_EQ(R.Races[0].Count, 2u);
}

TEST(RaceReplay, MalformedLogsAreReported) {
  EXPECT_NE(replay("launch 32\n", {}).Error, "");
  EXPECT_NE(replay("w0 poke global 4 0x0\n", {}).Error, "");
  EXPECT_NE(replay("jump\n", {}).Error, "");
}

//===-- Synchronisation objects and asynchronous copies -------------------===//

// Warp-specialised producer and consumer on named barriers (warp 0
// produces, warp 1 consumes, 64 threads): bar.arrive 1, 64 after the
// tile is written, bar.sync 1, 64 before it is read; the consumer frees
// the stage with bar.arrive 2, 64 and the producer waits on bar.sync 2, 64
// before it writes the stage again.
const char *NamedProduce = "w0 write shared 4 0x0 site=1 step=4\n"
                           "named-arrive w0 id=1 count=64\n";
TEST(RaceReplay, NamedBarrierOrdersProducerAndConsumer) {
  expectBoth(std::string("launch 64 1\n") + NamedProduce +
                 "named-arrive w1 id=1 count=64\n"
                 "named-wait w1 id=1\n"
                 "w1 read shared 4 0x0 site=2 step=4\n"
                 "named-arrive w1 id=2 count=64\n"
                 "named-arrive w0 id=2 count=64\n"
                 "named-wait w0 id=2\n"
                 "w0 write shared 4 0x0 site=3 step=4\n",
             {});
}

TEST(RaceReplay, ReadBeforeTheNamedBarrierRaces) {
  expectBoth(std::string("launch 64 1\n") + NamedProduce +
                 "w1 read shared 4 0x0 site=2 step=4\n"
                 "named-arrive w1 id=1 count=64\n"
                 "named-wait w1 id=1\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, ArrivingEarlyDoesNotFreeTheStage) {
  // The consumer arrives at the "stage free" barrier before it reads: the
  // producer's next write races with the read (namedbar -nf).
  expectBoth(std::string("launch 64 1\n") + NamedProduce +
                 "named-arrive w1 id=1 count=64\n"
                 "named-wait w1 id=1\n"
                 "named-arrive w1 id=2 count=64\n"
                 "named-arrive w0 id=2 count=64\n"
                 "named-wait w0 id=2\n"
                 "w1 read shared 4 0x0 site=2 step=4\n"
                 "w0 write shared 4 0x0 site=3 step=4\n",
             {{2, 3, INCANT_RACE_WAR}});
}

TEST(RaceReplay, BarArriveIsNotABarrierForTheArriver) {
  // bar.arrive does not wait: the producer's write after it is not ordered
  // with the consumer's read before its own bar.sync.
  expectBoth("launch 64 1\n"
             "w1 read shared 4 0x0 site=2 step=4\n"
             "named-arrive w0 id=1 count=64\n"
             "w0 write shared 4 0x0 site=1 step=4\n"
             "named-arrive w1 id=1 count=64\n"
             "named-wait w1 id=1\n",
             {{2, 1, INCANT_RACE_WAR}});
}

TEST(RaceReplay, NamedBarrierPhasesAreCounted) {
  // A read that acquired phase 0 is not ordered after a write released
  // into phase 1.
  expectBoth("launch 64 1\n"
             "named-arrive w0 id=1 count=64\n"
             "named-arrive w1 id=1 count=64\n"
             "named-wait w1 id=1\n"
             "w0 write shared 4 0x0 site=1 step=4\n"
             "named-arrive w0 id=1 count=64\n"
             "w1 read shared 4 0x0 site=2 step=4\n",
             {{1, 2, INCANT_RACE_RAW}});
}

// mbarrier phases: warp 0 writes and arrives (count 32), warp 1 waits on
// the phase's parity and reads.
TEST(RaceReplay, MbarrierPhaseOrdersArriversAndWaiters) {
  std::string Init = "launch 64 1\n"
                     "mbar-init w0 0x400 count=32\n"
                     "bar 0\n"
                     "w0 write shared 4 0x0 site=1 step=4\n"
                     "mbar-arrive w0 0x400\n";
  expectBoth(Init + "mbar-wait w1 0x400 parity=0\n"
                    "w1 read shared 4 0x0 site=2 step=4\n",
             {});
  expectBoth(Init + "w1 read shared 4 0x0 site=2 step=4\n"
                    "mbar-wait w1 0x400 parity=0\n",
             {{1, 2, INCANT_RACE_RAW}});
  // The next phase's write is not ordered by the first phase's wait.
  expectBoth(Init + "mbar-wait w1 0x400 parity=0\n"
                    "w0 write shared 4 0x80 site=3 step=4\n"
                    "mbar-arrive w0 0x400\n"
                    "w1 read shared 4 0x80 site=4 step=4\n",
             {{3, 4, INCANT_RACE_RAW}});
  // A wait that only sees the parity of the phase before the first (it
  // succeeds at once) acquires nothing.
  expectBoth(Init + "mbar-wait w1 0x400 parity=1\n"
                    "w1 read shared 4 0x0 site=2 step=4\n",
             {{1, 2, INCANT_RACE_RAW}});
}

// cp.async with its groups: lane i of warp 0 copies word i into shared
// memory, commits and waits; a CTA barrier after the wait orders the other
// warp's reads.
const char *CpAsync = "launch 64 1\n"
                      "cp-async w0 0x0 0x1000 4 site=1 step=4\n"
                      "cp-commit w0\n";
TEST(RaceReplay, CpAsyncCompletesAtItsWait) {
  expectBoth(std::string(CpAsync) + "cp-wait w0 0\n"
                                    "bar 0\n"
                                    "w1 read shared 4 0x0 site=2 step=4\n",
             {});
  // The barrier before the wait does not order the copy.
  expectBoth(std::string(CpAsync) + "bar 0\n"
                                    "w1 read shared 4 0x0 site=2 step=4\n"
                                    "cp-wait w0 0\n",
             {{1, 2, INCANT_RACE_RAW}});
  // wait_group 1 leaves the last group pending.
  expectBoth(std::string(CpAsync) + "cp-wait w0 1\n"
                                    "bar 0\n"
                                    "w1 read shared 4 0x0 site=2 step=4\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, CpAsyncRacesWithItsOwnThreadUntilTheWait) {
  expectBoth(std::string(CpAsync) + "w0 read shared 4 0x0 site=2 step=4\n"
                                    "cp-wait-all w0\n",
             {{1, 2, INCANT_RACE_RAW}});
  expectBoth(std::string(CpAsync) + "cp-wait-all w0\n"
                                    "w0 read shared 4 0x0 site=2 step=4\n",
             {});
}

TEST(RaceReplay, CpAsyncReadsItsSourceUntilItCompletes) {
  // A write of the global source by another block while the copy runs.
  expectBoth("launch 32 2\n"
             "cp-async w0 0x0 0x1000 4 site=1 lanes=0\n"
             "w1 write global 4 0x1000 site=2 lanes=0\n",
             {{1, 2, INCANT_RACE_WAR}});
}

// cuda::memcpy_async on a cuda::barrier (asyncpipe): every lane copies
// its word (cp.async.mbarrier.arrive binds the copy to the barrier's
// phase), arrives and waits with its token, then reads its neighbour's.
TEST(RaceReplay, CpAsyncOnAnMbarrier) {
  std::string Issue = "launch 32 1\n"
                      "mbar-init w0 0x400 count=32\n"
                      "bar 0\n"
                      "cp-async w0 0x0 0x1000 4 site=1 step=4\n"
                      "cp-mbar w0 0x400\n";
  expectBoth(Issue + "mbar-arrive w0 0x400\n"
                     "mbar-wait w0 0x400\n"
                     "w0 read shared 4 0x4 site=2 step=4\n",
             {});
  expectBoth(Issue + "w0 read shared 4 0x4 site=2 step=4\n"
                     "mbar-arrive w0 0x400\n"
                     "mbar-wait w0 0x400\n",
             {{1, 2, INCANT_RACE_RAW}});
}

// A bulk copy (TMA) on an mbarrier's transactions (tmapipe): lane 0
// arrives with expect_tx and copies a 256-byte tile; both warps wait on
// the phase's parity and read; a CTA barrier frees the stage, and the
// second use of it completes phase 1.
TEST(RaceReplay, BulkCopyCompletesOnTheMbarrierPhase) {
  std::string First = "launch 64 1\n"
                      "mbar-init w0 0x800 count=1\n"
                      "bar 0\n"
                      "mbar-arrive w0 0x800 lanes=0\n"
                      "bulk w0 0x0 0x10000 256 0x800 site=1\n";
  std::string Wait0 = "mbar-wait w0 0x800 parity=0\n"
                      "mbar-wait w1 0x800 parity=0\n";
  std::string Read = "w0 read shared 4 0x0 site=2 step=4\n"
                     "w1 read shared 4 0x80 site=2 step=4\n";
  expectBoth(First + Wait0 + Read + "bar 0\n"
                 "mbar-arrive w0 0x800 lanes=0\n"
                 "bulk w0 0x0 0x10100 256 0x800 site=3\n"
                 "mbar-wait w0 0x800 parity=1\n"
                 "mbar-wait w1 0x800 parity=1\n" +
                 Read,
             {});
  // The twin that reads the stage before waiting on its phase.
  expectBoth(First + Read + Wait0, {{1, 2, INCANT_RACE_RAW}});
  // Reading the second copy with only the first phase acquired.
  expectBoth(First + Wait0 + Read + "bar 0\n"
                 "mbar-arrive w0 0x800 lanes=0\n"
                 "bulk w0 0x0 0x10100 256 0x800 site=3\n" +
                 Read,
             {{3, 2, INCANT_RACE_RAW}});
}

// Distributed shared memory: block 0 of a 2-block cluster reads block 1's
// shared word (owner=1) that block 1 wrote; barrier.cluster.arrive/wait
// (cluster.sync()) between them orders it.
TEST(RaceReplay, ClusterBarrierOrdersDistributedSharedMemory) {
  std::string Write = "launch 32 2 cluster=2\n"
                      "w1 write shared 8 0x100 site=1 lanes=0\n";
  std::string Sync = "cluster-arrive w0\n"
                     "cluster-arrive w1\n"
                     "cluster-wait w0\n"
                     "cluster-wait w1\n";
  std::string Read = "w0 read shared 8 0x100 site=2 lanes=0 owner=1\n";
  expectBoth(Write + Sync + Read, {});
  expectBoth(Write + Read + Sync, {{1, 2, INCANT_RACE_RAW}});
  // Block 0's own word at the same offset is another location.
  expectBoth(Write + "w0 read shared 8 0x100 site=2 lanes=0\n", {});
  // Two clusters: the barrier of one does not order the other's blocks.
  expectBoth("launch 32 4 cluster=2\n"
             "w3 write shared 8 0x100 site=1 lanes=0\n"
             "cluster-arrive w0\ncluster-arrive w1\n"
             "cluster-arrive w2\ncluster-arrive w3\n"
             "cluster-wait w0\ncluster-wait w1\n"
             "cluster-wait w2\ncluster-wait w3\n"
             "w0 read shared 8 0x100 site=2 lanes=0 owner=3\n",
             {{1, 2, INCANT_RACE_RAW}});
}

TEST(RaceReplay, UnknownMbarrierIsCountedNotInvented) {
  // A wait on an mbarrier whose init was not seen: its phases are lost
  // (counted), and the wait is taken to order everything.
  ReplayOptions O;
  O.Scheme = Addr;
  ReplayResult R = replay("launch 64 1\n"
                          "w0 write shared 4 0x0 site=1 step=4\n"
                          "mbar-arrive w0 0x400\n"
                          "mbar-wait w1 0x400 parity=0\n"
                          "w1 read shared 4 0x0 site=2 step=4\n",
                          O);
  EXPECT_EQ(R.Error, "");
  EXPECT_TRUE(R.Races.empty());
  EXPECT_GT(R.Counters[INCANT_RACE_CNT_SYNC_LOST], 0u);
}

//===-- The encodings -----------------------------------------------------===//

TEST(RaceEncoding, RecordsRoundTrip) {
  incant_u64 W0 = incant_race_w0(123456, 5, 0x2abcd, INCANT_RACE_F_VALID |
                                                         INCANT_RACE_F_WRITE);
  EXPECT_EQ(incant_race_rec_tid(W0), 123456u);
  EXPECT_EQ(incant_race_rec_unit(W0), 5u);
  EXPECT_EQ(incant_race_rec_site(W0), 0x2abcdu);
  EXPECT_EQ(incant_race_rec_where(W0), (5u << 18) | 0x2abcdu);
  incant_u64 W1 = incant_race_w1(W0, 70000, 4097, 1030, 7, 2000, 0x6);
  EXPECT_EQ(incant_race_rec_bar(W1), 70000u & 0xffffu);
  EXPECT_EQ(incant_race_rec_ws(W1), 4097u & 0x3ffu);
  EXPECT_EQ(incant_race_rec_relc(W1), 1030u & 0xffu);
  EXPECT_EQ(incant_race_rec_relg(W1), 7u);
  EXPECT_EQ(incant_race_rec_sy(W1), 2000u & 0x3ffu);
  EXPECT_EQ(incant_race_rec_mask(W1), 0x6u);
  incant_u64 A1 = incant_race_w1_async(W0, incant_race_done_mbar(17, 300), 0xf);
  EXPECT_EQ(incant_race_rec_done(A1), incant_race_done_mbar(17, 300));
  EXPECT_EQ(incant_race_rec_mask(A1), 0xfu);
  IncantRaceRec R = {W0, W1};
  EXPECT_TRUE(incant_race_rec_valid(R));
  R.w0 ^= 1ull << 40; // torn: another access's first word
  EXPECT_FALSE(incant_race_rec_valid(R));
  incant_u64 K = incant_race_hit_key(0x12345, 0x54321, INCANT_RACE_WAR,
                                     INCANT_RACE_SPACE_SHARED);
  EXPECT_EQ(incant_race_hit_where_a(K), 0x12345u);
  EXPECT_EQ(incant_race_hit_where_b(K), 0x54321u);
  EXPECT_EQ(incant_race_hit_hazard(K), INCANT_RACE_WAR);
  EXPECT_EQ(incant_race_hit_space(K), INCANT_RACE_SPACE_SHARED);
}

// The addr shadow's linear probing needs keys spread over the whole table:
// two 2 MB arrays (1M granules, a quarter of a 4M-entry table) as one
// launch's accesses touch them, each given the first free slot within the
// device's 64 probes.
TEST(RaceEncoding, SlotsSpreadConsecutiveGranules) {
  const incant_u32 Mask = (1u << 22) - 1;
  std::vector<incant_u64> Table(size_t(Mask) + 1, 0);
  unsigned Full = 0;
  std::set<incant_u32> Groups;
  for (incant_u64 Base : {0x7f3a00000000ull, 0x7f3a00200000ull})
    for (incant_u64 I = 0; I < (1u << 19); ++I) {
      incant_u64 K =
          incant_race_key(1, INCANT_RACE_SPACE_GLOBAL, (Base + 4 * I) >> 2);
      incant_u32 S = incant_race_slot(K, Mask);
      Groups.insert(S >> 3);
      unsigned P = 0;
      while (P < 64 && Table[(S + P) & Mask] && Table[(S + P) & Mask] != K)
        ++P;
      if (P == 64)
        ++Full;
      else
        Table[(S + P) & Mask] = K;
    }
  EXPECT_LT(Full, 1000u) << "of 1,048,576 granules";
  EXPECT_GT(Groups.size(), 110000u)
      << "of 131,072 groups of eight (at random, 115,973 expected)";
}

TEST(RaceEncoding, CountsAheadModulo) {
  EXPECT_TRUE(incant_race_ahead(5, 4, 16));
  EXPECT_FALSE(incant_race_ahead(4, 4, 16));
  EXPECT_FALSE(incant_race_ahead(3, 4, 16));
  EXPECT_TRUE(incant_race_ahead(2, 0xffff, 16)); // wrapped
  EXPECT_TRUE(incant_race_ahead(1, 0xfff, 12));
}

TEST(RaceEncoding, ByteMasks) {
  EXPECT_EQ(incant_race_byte_mask(0x100, 4), 0xfu);
  EXPECT_EQ(incant_race_byte_mask(0x101, 1), 0x2u);
  EXPECT_EQ(incant_race_byte_mask(0x102, 2), 0xcu);
  EXPECT_EQ(incant_race_byte_mask(0x100, 8), 0xfu);
}

TEST(RaceEncoding, LayoutsMatchTheDevice) {
  // The device code indexes these tables; their sizes are part of the ABI
  // between incant_race_hooks.cu, incant_race_check.cu and the library.
  EXPECT_EQ(sizeof(IncantRaceEntry), 64u);
  EXPECT_EQ(sizeof(IncantRaceHit), 64u);
  EXPECT_EQ(sizeof(IncantRaceThread) % 4, 0u);
  EXPECT_EQ(sizeof(IncantRaceBlock) % 4, 0u);
  EXPECT_EQ(sizeof(IncantRaceLogEntry), 32u + 32 * 16);
}

} // namespace
