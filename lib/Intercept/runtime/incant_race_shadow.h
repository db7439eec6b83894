/*===- incant_race_shadow.h - The checking algorithms, host and device ----===//
 *
 * The two schemes' memory-touching algorithms, written once over a memory
 * policy `Mem` so that the device (incant_race.cu: atomics and volatile
 * accesses) and the unit tests (plain host memory, replaying recorded
 * access logs) run the same code:
 *
 *   Mem::ld64(p), Mem::st64(p, v), Mem::cas64(p, cmp, v) -> old,
 *   Mem::add64(p, v) -> old, Mem::ld32(p), Mem::add32(p, v) -> old,
 *   Mem::exch32(p, v) -> old, Mem::cas32(p, cmp, v) -> old,
 *   Mem::max32(p, v), Mem::fence()
 *
 * addr scheme (GRace-addr, per address): every 4-byte granule a launch
 * touches has a shadow entry (IncantRaceEntry) with its last write and two
 * reads since; each access is checked against them at once and recorded.
 * stmt scheme (GRace-stmt, per statement): every warp-level execution of
 * an instrumented access is logged (IncantRaceLogEntry); after the launch,
 * the checking kernels group the logged lane accesses by 16-byte chunk and
 * compare every pair (up to a cap per access), so each racing pair of
 * statements is found with its threads.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_RACE_SHADOW_H
#define INCANT_RACE_SHADOW_H

#include "incant_race.h"

#define INCANT_RACE_SPIN 4096 /* polls of a slot being claimed, at most */
#define INCANT_RACE_NOW 0xffffffffu /* addr: "now" as a log position */

template <class Mem> struct IncantRaceChecker {
  struct IncantRaceState *S;

  INCANT_RACE_HD incant_u64 *counter(unsigned Which, unsigned Copy) const {
    return (incant_u64 *)S->counters +
           (Copy % INCANT_RACE_COUNTER_COPIES) * INCANT_RACE_COUNTERS + Which;
  }
  INCANT_RACE_HD void count(unsigned Which, incant_u64 N, unsigned Copy) const {
    Mem::add64(counter(Which, Copy), N);
  }

  INCANT_RACE_HD struct IncantRaceThread *thread(incant_u32 Tid) const {
    return (struct IncantRaceThread *)S->threads + (Tid % S->threadCap);
  }
  INCANT_RACE_HD struct IncantRaceBlock *block(incant_u32 Blk) const {
    return (struct IncantRaceBlock *)S->blocks + (Blk % S->blockCap);
  }

  //===-- Races -----------------------------------------------------------===//

  /// Folds one race into the table: counted, and the first one of its key
  /// keeps its threads and address.
  INCANT_RACE_HD void hit(incant_u64 Key, incant_u32 TidA, incant_u32 TidB,
                          incant_u64 Addr, const incant_u32 *Geom,
                          unsigned Copy) const {
    count(INCANT_RACE_CNT_HAZARDS, 1, Copy);
    struct IncantRaceHit *T = (struct IncantRaceHit *)S->hits;
    incant_u64 H = Key * 0x9E3779B97F4A7C15ull;
    for (incant_u32 I = 0; I <= S->hitMask && I < 64; ++I) {
      struct IncantRaceHit *E = T + ((incant_u32)(H >> 40) + I) % (S->hitMask + 1);
      incant_u64 K = Mem::ld64(&E->key);
      if (K == 0)
        K = Mem::cas64(&E->key, 0, Key);
      if (K != 0 && K != Key)
        continue;
      Mem::add64(&E->count, 1);
      if (K == 0 || Mem::exch32(&E->claimed, 1) == 0) {
        E->addr = Addr;
        E->tidA = TidA;
        E->tidB = TidB;
        E->ntidX = Geom[0];
        E->ntidY = Geom[1];
        E->ntidZ = Geom[2];
        E->nctaidX = Geom[3];
        E->nctaidY = Geom[4];
        E->launch = S->launch;
        if (K == 0)
          Mem::exch32(&E->claimed, 1);
      }
      return;
    }
    count(INCANT_RACE_CNT_HITS_LOST, 1, Copy);
  }

  /// The release counts of the thread and block of record \p A now.
  INCANT_RACE_HD struct IncantRaceNow now(struct IncantRaceRec A,
                                          incant_u32 Tpb) const {
    incant_u32 T = incant_race_rec_tid(A.w0);
    struct IncantRaceThread *Th = thread(T);
    struct IncantRaceBlock *B = block(T / Tpb);
    struct IncantRaceNow N;
    N.Tpb = Tpb;
    N.RelC = Mem::ld32(&Th->relC);
    N.RelG = Mem::ld32(&Th->relG);
    N.BlockRelC = Mem::ld32(&B->relC);
    N.BlockRelG = Mem::ld32(&B->relG);
    return N;
  }

  /// Checks \p Mine against the earlier record \p A; reports a race.
  INCANT_RACE_HD int against(struct IncantRaceRec A, struct IncantRaceRec Mine,
                             incant_u32 Space, incant_u64 Addr,
                             const incant_u32 *Geom, unsigned Copy) const {
    incant_u32 Tpb = Geom[0] * Geom[1] * Geom[2];
    if (!incant_race_rec_valid(A) || !incant_race_conflict(A, Mine, Tpb))
      return 0;
    incant_u32 Ta = incant_race_rec_tid(A.w0), Tb = incant_race_rec_tid(Mine.w0);
    if (incant_race_rec_flags(A.w0) & INCANT_RACE_F_ASYNC) {
      if (asyncOrdered(incant_race_rec_done(A.w1), Ta, Tb, Tpb,
                       incant_race_rec_bar(Mine.w1), INCANT_RACE_NOW))
        return 0;
    } else if (incant_race_ordered_by_barriers(A, Mine, Tpb) ||
               incant_race_released(A, Mine, now(A, Tpb)) ||
               syncOrdered(Ta, incant_race_rec_sy(A.w1), 10, Tb, Tpb,
                           INCANT_RACE_NOW)) {
      return 0;
    }
    incant_u32 Hz = incant_race_hazard(incant_race_rec_flags(A.w0),
                                       incant_race_rec_flags(Mine.w0));
    hit(incant_race_hit_key(incant_race_rec_where(A.w0),
                            incant_race_rec_where(Mine.w0), Hz, Space),
        incant_race_rec_tid(A.w0), incant_race_rec_tid(Mine.w0), Addr, Geom,
        Copy);
    return 1;
  }

  //===-- addr: the shadow ------------------------------------------------===//

  INCANT_RACE_HD struct IncantRaceRec ldRec(struct IncantRaceRec *P) const {
    struct IncantRaceRec R;
    Mem::ld128(&P->w0, &R.w0, &R.w1);
    return R;
  }
  INCANT_RACE_HD void stRec(struct IncantRaceRec *P,
                            struct IncantRaceRec R) const {
    Mem::st128(&P->w0, R.w0, R.w1);
  }

  /// The shadow entry of \p Key, claimed if new; null when none is free or
  /// the entry stays busy (counted).
  INCANT_RACE_HD struct IncantRaceEntry *entry(incant_u64 Key,
                                               unsigned Copy) const {
    struct IncantRaceEntry *T = (struct IncantRaceEntry *)S->shadow;
    incant_u32 Slot = incant_race_slot(Key, S->shadowMask);
    incant_u32 Launch = S->launch & 0xffffu;
    for (incant_u32 I = 0; I < S->maxProbe; ++I) {
      struct IncantRaceEntry *E = T + ((Slot + I) & S->shadowMask);
      incant_u64 K = Mem::ld64(&E->key);
      for (unsigned Spin = 0; K == (Key | INCANT_RACE_KEY_BUSY); ++Spin) {
        if (Spin == INCANT_RACE_SPIN) {
          count(INCANT_RACE_CNT_BUSY, 1, Copy);
          return 0;
        }
        K = Mem::ld64(&E->key);
      }
      if (K == Key)
        return E;
      // Empty, or left by an earlier launch: claim it, clear it, publish.
      if (K == 0 || (!(K & INCANT_RACE_KEY_BUSY) &&
                     incant_race_key_launch(K) != Launch)) {
        if (Mem::cas64(&E->key, K, Key | INCANT_RACE_KEY_BUSY) != K) {
          --I; // someone else took it: look at it again
          continue;
        }
        struct IncantRaceRec Z = {0, 0};
        stRec(&E->write, Z);
        stRec(&E->read1, Z);
        stRec(&E->read2, Z);
        Mem::fence();
        Mem::st64(&E->key, Key);
        return E;
      }
    }
    count(INCANT_RACE_CNT_SHADOW_FULL, 1, Copy);
    return 0;
  }

  /// addr scheme: checks one access (one granule) against its entry and
  /// records it. \p Other is a second lane of the same warp that made the
  /// same access in the same instruction (reads only; ~0u if none).
  INCANT_RACE_HD void access(struct IncantRaceEntry *E,
                             struct IncantRaceRec Mine, incant_u32 Space,
                             incant_u64 Addr, const incant_u32 *Geom,
                             unsigned Copy) const {
    access(E, Mine, Mine, Space, Addr, Geom, Copy);
  }
  /// The same, recording \p Keep in place of \p Mine (an asynchronous
  /// copy: checked as its thread's access at the issue, kept as the copy's).
  INCANT_RACE_HD void access(struct IncantRaceEntry *E,
                             struct IncantRaceRec Mine,
                             struct IncantRaceRec Keep, incant_u32 Space,
                             incant_u64 Addr, const incant_u32 *Geom,
                             unsigned Copy) const {
    struct IncantRaceRec W = ldRec(&E->write);
    struct IncantRaceRec R1 = ldRec(&E->read1);
    struct IncantRaceRec R2 = ldRec(&E->read2);
    incant_u32 F = incant_race_rec_flags(Mine.w0);
    incant_u32 Me = incant_race_rec_tid(Mine.w0);
    against(W, Mine, Space, Addr, Geom, Copy);
    if (F & INCANT_RACE_F_WRITE) {
      against(R1, Mine, Space, Addr, Geom, Copy);
      against(R2, Mine, Space, Addr, Geom, Copy);
      stRec(&E->write, Keep);
      struct IncantRaceRec Z = {0, 0};
      if (R1.w0)
        stRec(&E->read1, Z);
      if (R2.w0)
        stRec(&E->read2, Z);
      return;
    }
    // A read: keep the last reader and one other.
    int V1 = incant_race_rec_valid(R1), V2 = incant_race_rec_valid(R2);
    if (V1 && incant_race_rec_tid(R1.w0) == Me) {
      if (R1.w1 != Mine.w1 || R1.w0 != Mine.w0)
        stRec(&E->read1, Keep);
      return;
    }
    if (!V1) {
      stRec(&E->read1, Keep);
      return;
    }
    incant_u32 Tpb = Geom[0] * Geom[1] * Geom[2];
    // Two readers already, both unordered with this one: a later write
    // that races with this read races with one of them too.
    if (V2 && incant_race_rec_tid(R2.w0) != Me &&
        !incant_race_ordered_by_barriers(R1, Mine, Tpb) &&
        !incant_race_ordered_by_barriers(R2, Mine, Tpb))
      return;
    stRec(&E->read2, R1);
    stRec(&E->read1, Keep);
  }

  /// addr scheme: the access of thread \p Tid (block \p Blk) with info
  /// word \p Info to \p Addr (global address, or shared offset), for the
  /// lanes of its warp that touch the same address in the same instruction
  /// (they were compared with each other already: intraWarp). A release
  /// (INCANT_RACE_RELEASE) is counted first.
  INCANT_RACE_HD void recordAccess(incant_u32 Tid, incant_u32 Blk,
                                   incant_u32 Unit, incant_u32 Info,
                                   incant_u32 Space, incant_u64 Addr,
                                   const incant_u32 *Geom,
                                   unsigned Copy) const {
    if (Info & INCANT_RACE_RELEASE)
      release(Tid, Blk, incant_race_info_scope(Info), 0);
    struct IncantRaceThread *T = thread(Tid);
    incant_u32 Bar = Mem::ld32(&T->bar), Ws = Mem::ld32(&T->ws);
    incant_u32 RelC = Mem::ld32(&T->relC), RelG = Mem::ld32(&T->relG);
    incant_u32 Sy = syncCount(Tid);
    incant_u32 Bytes = incant_race_info_bytes(Info);
    incant_u64 W0 = incant_race_w0(Tid, Unit, incant_race_info_site(Info),
                                   incant_race_flags(Info));
    incant_u32 Granules = Bytes > 4 ? Bytes / 4 : 1;
    incant_u64 G0 = Space == INCANT_RACE_SPACE_SHARED
                        ? ((incant_u64)Blk << 16) | ((Addr & 0x3ffffu) >> 2)
                        : Addr >> 2;
    incant_u64 Logged = logged(Space, Blk, Addr);
    for (incant_u32 G = 0; G < Granules; ++G) {
      struct IncantRaceEntry *E =
          entry(incant_race_key(S->launch, Space, G0 + G), Copy);
      if (!E)
        continue;
      struct IncantRaceRec Mine;
      Mine.w0 = W0;
      Mine.w1 = incant_race_w1(W0, Bar, Ws, RelC, RelG, Sy,
                               Granules > 1 ? 0xfu
                                            : incant_race_byte_mask(Addr, Bytes));
      access(E, Mine, Space, Logged + 4 * G, Geom, Copy);
    }
  }

  /// The address as the log and the race table keep it: global addresses
  /// as they are, shared offsets with INCANT_RACE_LOG_SHARED and the block.
  INCANT_RACE_HD static incant_u64 logged(incant_u32 Space, incant_u32 Blk,
                                          incant_u64 Addr) {
    return Space == INCANT_RACE_SPACE_SHARED
               ? INCANT_RACE_LOG_SHARED | ((incant_u64)Blk << 18) |
                     (Addr & 0x3ffffu)
               : Addr;
  }

  /// Two lanes of one warp (\p Tid, \p Other) made the same access to the
  /// same address in one instruction: a race if it writes and is not
  /// morally strong (reported at once, in both schemes).
  INCANT_RACE_HD int intraWarp(incant_u32 Tid, incant_u32 Other,
                               incant_u32 Unit, incant_u32 Info,
                               incant_u32 Space, incant_u64 Logged,
                               const incant_u32 *Geom, unsigned Copy) const {
    incant_u32 F = incant_race_flags(Info);
    if (!(F & INCANT_RACE_F_WRITE) || incant_race_morally_strong(F, F, 1))
      return 0;
    incant_u32 Where = (Unit & 63u) << 18 | incant_race_info_site(Info);
    hit(incant_race_hit_key(Where, Where, INCANT_RACE_WAW, Space), Tid, Other,
        Logged, Geom, Copy);
    return 1;
  }

  /// stmt: lane \p Lane's part of its warp's log entry \p L (its address
  /// and counters), and, for the first lane, the entry's header.
  INCANT_RACE_HD void logLane(struct IncantRaceLogEntry *L, unsigned Lane,
                              incant_u32 Tid, incant_u64 Logged) const {
    struct IncantRaceThread *T = thread(Tid);
    L->addr[Lane] = Logged;
    L->ctr[Lane] = ctrWord(Mem::ld32(&T->bar), Mem::ld32(&T->ws),
                           Mem::ld32(&T->relC), Mem::ld32(&T->relG),
                           syncCount(Tid));
  }
  INCANT_RACE_HD static void logHeader(struct IncantRaceLogEntry *L,
                                       incant_u32 Warp, incant_u32 Unit,
                                       incant_u32 Info, incant_u32 Mask,
                                       const incant_u32 *Geom,
                                       incant_u32 Done = 0) {
    L->warp = Warp;
    L->done = Done;
    L->site = (incant_u32)incant_race_w0(0, Unit, incant_race_info_site(Info),
                                         incant_race_flags(Info));
    L->mask = Mask;
    L->geom[0] = Geom[0] | Geom[1] << 16;
    L->geom[1] = Geom[2] | ((Info >> INCANT_RACE_SIZE_SHIFT) & 7u) << 16;
    L->geom[2] = Geom[3];
    L->geom[3] = Geom[4];
  }

  //===-- Synchronisation -------------------------------------------------===//

  /// A CTA barrier passed by thread \p Tid.
  INCANT_RACE_HD void barrier(incant_u32 Tid) const {
    struct IncantRaceThread *T = thread(Tid);
    Mem::st32(&T->bar, Mem::ld32(&T->bar) + 1);
  }
  INCANT_RACE_HD void warpBarrier(incant_u32 Tid) const {
    struct IncantRaceThread *T = thread(Tid);
    Mem::st32(&T->ws, Mem::ld32(&T->ws) + 1);
  }
  /// A release (fence, or release operation) of scope \p Scope by \p Tid
  /// of block \p Blk; \p Pos is the log position now (stmt).
  INCANT_RACE_HD void release(incant_u32 Tid, incant_u32 Blk,
                              incant_u32 Scope, incant_u32 Pos) const {
    struct IncantRaceThread *T = thread(Tid);
    struct IncantRaceBlock *B = block(Blk);
    incant_u32 Bar = Mem::ld32(&T->bar);
    incant_u32 C = Mem::ld32(&T->relC) + 1;
    Mem::st32(&T->relC, C);
    Mem::max32(&B->relC, Bar);
    int Stmt = S->scheme == INCANT_RACE_SCHEME_STMT;
    if (Stmt) {
      Mem::st32(&T->ringC[C % 4][0], C);
      Mem::st32(&T->ringC[C % 4][1], Pos);
      incant_u32 N = Mem::add32(&B->nC, 1);
      Mem::st32(&B->ringC[N % 4][0], Bar);
      Mem::st32(&B->ringC[N % 4][1], Pos);
    }
    if (Scope < INCANT_RACE_SCOPE_GPU)
      return;
    incant_u32 G = Mem::ld32(&T->relG) + 1;
    Mem::st32(&T->relG, G);
    Mem::max32(&B->relG, Bar);
    if (Stmt) {
      Mem::st32(&T->ringG[G % 4][0], G);
      Mem::st32(&T->ringG[G % 4][1], Pos);
      incant_u32 N = Mem::add32(&B->nG, 1);
      Mem::st32(&B->ringG[N % 4][0], Bar);
      Mem::st32(&B->ringG[N % 4][1], Pos);
    }
  }

  //===-- Synchronisation objects (incant_race.h says what they are) -----===//

  INCANT_RACE_HD struct IncantRaceSync *syncOf(incant_u32 Tid) const {
    return (struct IncantRaceSync *)S->syncs + (Tid % S->threadCap);
  }
  /// Thread \p Tid's own state, made valid for this launch on first use.
  INCANT_RACE_HD struct IncantRaceSync *mySync(incant_u32 Tid) const {
    struct IncantRaceSync *Y = syncOf(Tid);
    if (Mem::ld32(&Y->launch) != S->launch) {
      incant_u32 *W = (incant_u32 *)Y;
      for (unsigned I = 1; I < sizeof(struct IncantRaceSync) / 4; ++I)
        Mem::st32(W + I, 0);
      Mem::fence();
      Mem::st32(&Y->launch, S->launch);
    }
    return Y;
  }
  /// Another thread's state; null where it has none in this launch.
  INCANT_RACE_HD struct IncantRaceSync *seenSync(incant_u32 Tid) const {
    struct IncantRaceSync *Y = syncOf(Tid);
    return Mem::ld32(&Y->launch) == S->launch ? Y : 0;
  }
  /// The object releases thread \p Tid has made.
  INCANT_RACE_HD incant_u32 syncCount(incant_u32 Tid) const {
    struct IncantRaceSync *Y = seenSync(Tid);
    return Y ? Mem::ld32(&Y->sy) : 0;
  }
  /// Object \p O of block \p Blk: arrivals, count, completed, addr.
  INCANT_RACE_HD incant_u32 *objOf(incant_u32 Blk, incant_u32 O) const {
    return block(Blk)->obj[O % INCANT_RACE_OBJS];
  }

  /// Thread \p Tid arrives \p N times at object \p O of block \p Blk
  /// (\p Count arrivals per phase where the instruction names it). With
  /// \p Release its accesses so far are released into the phase of its
  /// first ticket; otherwise the arrival is only counted.
  INCANT_RACE_HD void arrive(incant_u32 Tid, incant_u32 Blk, incant_u32 O,
                             incant_u32 Count, incant_u32 N, int Release,
                             unsigned Copy) const {
    incant_u32 *Ob = objOf(Blk, O);
    if (Count)
      Mem::st32(&Ob[1], Count);
    incant_u32 T = Mem::add32(&Ob[0], N) + 1;
    if (!Release)
      return;
    incant_u32 C = Mem::ld32(&Ob[1]);
    if (!C || Mem::ld32(&Ob[3]) == INCANT_RACE_UNKNOWN)
      count(INCANT_RACE_CNT_SYNC_LOST, 1, Copy);
    // An object whose phases are lost releases into phase 0, which every
    // acquisition of it covers (a race may be missed, none is invented).
    pushRelease(mySync(Tid), O, C ? (T - 1) / C : 0);
  }
  INCANT_RACE_HD void pushRelease(struct IncantRaceSync *Y, incant_u32 O,
                                  incant_u32 Phase) const {
    incant_u32 Seq = Mem::ld32(&Y->sy) + 1;
    incant_u32 *E = Y->rel[Seq % INCANT_RACE_RING];
    Mem::st32(&E[0], 0);
    Mem::st32(&E[1], O);
    Mem::st32(&E[2], Phase);
    Mem::fence();
    Mem::st32(&E[0], Seq);
    Mem::st32(&Y->sy, Seq);
  }
  /// Thread \p Tid has seen phases up to \p Phases - 1 of object \p O of
  /// its block (or cluster) complete, at log position \p Pos.
  INCANT_RACE_HD void acquire(incant_u32 Tid, incant_u32 O, incant_u32 Phases,
                              incant_u32 Pos) const {
    struct IncantRaceSync *Y = mySync(Tid);
    if (Phases > Mem::ld32(&Y->acq[O]))
      Mem::st32(&Y->acq[O], Phases);
    incant_u32 N = Mem::ld32(&Y->nacq);
    incant_u32 *E = Y->acqs[N % INCANT_RACE_RING];
    Mem::st32(&E[0], O);
    Mem::st32(&E[1], Phases);
    Mem::st32(&E[2], Pos);
    Mem::st32(&Y->nacq, N + 1);
  }
  /// The phase of thread \p Tid's last arrival at object \p O, or
  /// INCANT_RACE_UNKNOWN where none is kept.
  INCANT_RACE_HD incant_u32 ownPhase(incant_u32 Tid, incant_u32 O) const {
    struct IncantRaceSync *Y = mySync(Tid);
    incant_u32 Sy = Mem::ld32(&Y->sy);
    for (incant_u32 K = 0; K < INCANT_RACE_RING && K < Sy; ++K) {
      incant_u32 *E = Y->rel[(Sy - K) % INCANT_RACE_RING];
      if (Mem::ld32(&E[0]) == Sy - K && Mem::ld32(&E[1]) == O)
        return Mem::ld32(&E[2]);
    }
    return INCANT_RACE_UNKNOWN;
  }
  /// After a barrier that waits for its own arrival (bar.sync with a
  /// count, barrier.cluster.wait): the phase it arrived in is complete.
  INCANT_RACE_HD void waitOwn(incant_u32 Tid, incant_u32 Blk, incant_u32 O,
                              incant_u32 Pos, unsigned Copy) const {
    incant_u32 P = ownPhase(Tid, O);
    if (P == INCANT_RACE_UNKNOWN) {
      count(INCANT_RACE_CNT_SYNC_LOST, 1, Copy);
      acquire(Tid, O, INCANT_RACE_UNKNOWN, Pos);
      return;
    }
    Mem::max32(&objOf(Blk, O)[2], P + 1);
    acquire(Tid, O, P + 1, Pos);
  }

  /// barrier.cluster.arrive and .wait of thread \p Tid, whose cluster's
  /// first block is \p First (\p Threads threads in the cluster).
  INCANT_RACE_HD void clusterArrive(incant_u32 Tid, incant_u32 First,
                                    incant_u32 Threads, unsigned Copy) const {
    Mem::st32(&mySync(Tid)->cluster, First + 1);
    arrive(Tid, First, INCANT_RACE_OBJ_CLUSTER, Threads, 1, 1, Copy);
  }
  INCANT_RACE_HD void clusterWait(incant_u32 Tid, incant_u32 First,
                                  incant_u32 Pos, unsigned Copy) const {
    Mem::st32(&mySync(Tid)->cluster, First + 1);
    waitOwn(Tid, First, INCANT_RACE_OBJ_CLUSTER, Pos, Copy);
  }

  /// The object of the mbarrier at shared offset \p Addr of block \p Blk;
  /// with \p Init the slot is claimed for it. Two mbarriers at one slot,
  /// or one whose init was not seen, make it unknown (counted).
  INCANT_RACE_HD incant_u32 mbarObj(incant_u32 Blk, incant_u32 Addr, int Init,
                                    unsigned Copy) const {
    incant_u32 O = INCANT_RACE_OBJ_MBAR + (Addr >> 3) % INCANT_RACE_OBJ_MBARS;
    incant_u32 *Ob = objOf(Blk, O);
    incant_u32 Cur = Mem::ld32(&Ob[3]);
    if (Cur == 0 && Init)
      Cur = Mem::cas32(&Ob[3], 0, Addr + 1);
    if (Cur != 0 && Cur != Addr + 1) {
      if (Cur != INCANT_RACE_UNKNOWN)
        Mem::st32(&Ob[3], INCANT_RACE_UNKNOWN);
      count(INCANT_RACE_CNT_SYNC_LOST, 1, Copy);
    } else if (Cur == 0 && !Init) {
      Mem::st32(&Ob[3], INCANT_RACE_UNKNOWN);
      count(INCANT_RACE_CNT_SYNC_LOST, 1, Copy);
    }
    return O;
  }
  INCANT_RACE_HD void mbarInit(incant_u32 Blk, incant_u32 Addr,
                               incant_u32 Count, unsigned Copy) const {
    incant_u32 *Ob = objOf(Blk, mbarObj(Blk, Addr, 1, Copy));
    Mem::st32(&Ob[0], 0);
    Mem::st32(&Ob[2], 0);
    Mem::st32(&Ob[1], Count);
  }
  /// mbarrier.arrive_drop or .inval: its phases are not followed any more.
  INCANT_RACE_HD void mbarLost(incant_u32 Blk, incant_u32 Addr,
                               unsigned Copy) const {
    incant_u32 *Ob = objOf(Blk, mbarObj(Blk, Addr, 0, Copy));
    Mem::st32(&Ob[3], INCANT_RACE_UNKNOWN);
    count(INCANT_RACE_CNT_SYNC_LOST, 1, Copy);
  }
  /// A test_wait/try_wait of thread \p Tid on the mbarrier at \p Addr
  /// succeeded; \p Aux: the phase parity | has parity << 1 (without one it
  /// waited for the phase of its own last arrival).
  INCANT_RACE_HD void mbarWait(incant_u32 Tid, incant_u32 Blk, incant_u32 Addr,
                               incant_u32 Aux, incant_u32 Pos,
                               unsigned Copy) const {
    incant_u32 O = mbarObj(Blk, Addr, 0, Copy);
    incant_u32 *Ob = objOf(Blk, O);
    incant_u32 C = Mem::ld32(&Ob[1]);
    if (!C || Mem::ld32(&Ob[3]) == INCANT_RACE_UNKNOWN) {
      acquire(Tid, O, INCANT_RACE_UNKNOWN, Pos);
      return;
    }
    incant_u32 Full = Mem::ld32(&Ob[0]) / C; // phases with every arrival
    incant_u32 Phases;
    if (Aux & 2u) {
      // The latest of those with the parity waited for; none yet: the
      // wait for the phase before the first succeeds at once.
      if (Full == 0 || (Full == 1 && (Aux & 1u)))
        return;
      incant_u32 J = Full - 1;
      if ((J & 1u) != (Aux & 1u))
        J -= 1;
      Phases = J + 1;
    } else {
      incant_u32 P = ownPhase(Tid, O);
      Phases = P == INCANT_RACE_UNKNOWN ? Full : P + 1;
    }
    Mem::max32(&Ob[2], Phases);
    acquire(Tid, O, Phases, Pos);
  }
  /// The phase in which copies bound now to object \p O of block \p Blk
  /// complete: the current one; where every arrival of a phase is in and
  /// it was not seen complete, that phase (its transactions pending).
  INCANT_RACE_HD incant_u32 copyPhase(incant_u32 Blk, incant_u32 O) const {
    incant_u32 *Ob = objOf(Blk, O);
    incant_u32 C = Mem::ld32(&Ob[1]), A = Mem::ld32(&Ob[0]);
    if (!C || Mem::ld32(&Ob[3]) == INCANT_RACE_UNKNOWN)
      return 0;
    incant_u32 K = A / C;
    if (A % C || K == 0)
      return K;
    return Mem::ld32(&Ob[2]) >= K ? K : K - 1;
  }
  /// The completion of a bulk copy issued now that completes on the
  /// mbarrier at \p Addr of block \p Blk.
  INCANT_RACE_HD incant_u32 bulkDone(incant_u32 Blk, incant_u32 Addr,
                                     unsigned Copy) const {
    incant_u32 O = mbarObj(Blk, Addr, 0, Copy);
    return incant_race_done_mbar(O, copyPhase(Blk, O));
  }
  /// cp.async.mbarrier.arrive{.noinc}: thread \p Tid's cp.async copies so
  /// far complete in the current phase of the mbarrier at \p Addr.
  INCANT_RACE_HD void cpMbarArrive(incant_u32 Tid, incant_u32 Blk,
                                   incant_u32 Addr, int Noinc,
                                   unsigned Copy) const {
    struct IncantRaceSync *Y = mySync(Tid);
    incant_u32 O = mbarObj(Blk, Addr, 0, Copy);
    incant_u32 P = copyPhase(Blk, O);
    if (Noinc) // one of the phase's expected arrivals
      arrive(Tid, Blk, O, 0, 1, 0, Copy);
    incant_u32 N = Mem::ld32(&Y->nbind);
    incant_u32 *E = Y->binds[N % INCANT_RACE_WAITS];
    Mem::st32(&E[0], Mem::ld32(&Y->committed) + 1);
    Mem::st32(&E[1], O);
    Mem::st32(&E[2], P);
    Mem::fence();
    Mem::st32(&Y->nbind, N + 1);
  }
  INCANT_RACE_HD void cpCommit(incant_u32 Tid) const {
    struct IncantRaceSync *Y = mySync(Tid);
    Mem::st32(&Y->committed, Mem::ld32(&Y->committed) + 1);
  }
  /// cp.async.wait_group \p N (\p All: wait_all, which commits first).
  INCANT_RACE_HD void cpWait(incant_u32 Tid, incant_u32 N, int All,
                             incant_u32 Pos) const {
    struct IncantRaceSync *Y = mySync(Tid);
    incant_u32 Cm = Mem::ld32(&Y->committed) + (All ? 1 : 0);
    Mem::st32(&Y->committed, Cm);
    incant_u32 K = Mem::ld32(&Y->nwait);
    incant_u32 *E = Y->waits[K % INCANT_RACE_WAITS];
    Mem::st32(&E[0], Cm >= N ? Cm - N : 0);
    Mem::st32(&E[1], Mem::ld32(&thread(Tid)->bar));
    Mem::st32(&E[2], Mem::ld32(&Y->sy));
    Mem::st32(&E[3], Pos);
    Mem::fence();
    Mem::st32(&Y->nwait, K + 1);
  }
  /// The completion of a cp.async of thread \p Tid issued now: its group.
  INCANT_RACE_HD incant_u32 groupDone(incant_u32 Tid) const {
    return incant_race_done_group(Mem::ld32(&mySync(Tid)->committed) + 1);
  }

  /// The phases of object \p O that thread state \p Y had acquired at log
  /// position \p Pos (INCANT_RACE_NOW: now); INCANT_RACE_UNKNOWN where its
  /// ring no longer says (taken as acquired).
  INCANT_RACE_HD incant_u32 acquiredAt(struct IncantRaceSync *Y, incant_u32 O,
                                       incant_u32 Pos) const {
    if (Pos == INCANT_RACE_NOW)
      return Mem::ld32(&Y->acq[O]);
    incant_u32 N = Mem::ld32(&Y->nacq), Best = 0;
    int Seen = 0;
    for (incant_u32 K = 0; K < INCANT_RACE_RING && K < N; ++K) {
      incant_u32 *E = Y->acqs[(N - 1 - K) % INCANT_RACE_RING];
      if (Mem::ld32(&E[2]) <= Pos && Mem::ld32(&E[0]) == O) {
        Seen = 1;
        if (Mem::ld32(&E[1]) > Best)
          Best = Mem::ld32(&E[1]);
      }
    }
    return (N > INCANT_RACE_RING && !Seen) ? INCANT_RACE_UNKNOWN : Best;
  }
  /// Whether \p Acquired phases (INCANT_RACE_UNKNOWN: all) cover phase
  /// \p Phase (16 bits where \p Bits is 16).
  INCANT_RACE_HD static int covers(incant_u32 Acquired, incant_u32 Phase,
                                   unsigned Bits) {
    if (Acquired == INCANT_RACE_UNKNOWN)
      return 1;
    if (Bits < 32)
      return incant_race_ahead(Acquired & ((1u << Bits) - 1u), Phase, Bits);
    return Acquired > Phase;
  }

  /// Whether thread \p Ta, which had made \p SyA object releases (low
  /// \p Bits bits) at an access, arrived after it at a phase that thread
  /// \p Tb had acquired at log position \p Pos.
  INCANT_RACE_HD int syncOrdered(incant_u32 Ta, incant_u32 SyA, unsigned Bits,
                                 incant_u32 Tb, incant_u32 Tpb,
                                 incant_u32 Pos) const {
    struct IncantRaceSync *Ya = seenSync(Ta);
    if (!Ya)
      return 0;
    incant_u32 Sy = Mem::ld32(&Ya->sy);
    incant_u32 M = Bits >= 32 ? 0xffffffffu : ((1u << Bits) - 1u);
    incant_u32 From = Sy - ((Sy - SyA) & M);
    if (From == Sy)
      return 0;
    if (Sy - From > INCANT_RACE_RING)
      return 1; // the releases after it are no longer kept
    struct IncantRaceSync *Yb = seenSync(Tb);
    if (!Yb)
      return 0;
    int SameBlock = Ta / Tpb == Tb / Tpb;
    incant_u32 Ca = Mem::ld32(&Ya->cluster);
    int SameCluster = Ca && Ca == Mem::ld32(&Yb->cluster);
    for (incant_u32 Q = From + 1; Q - From <= Sy - From; ++Q) {
      incant_u32 *E = Ya->rel[Q % INCANT_RACE_RING];
      if (Mem::ld32(&E[0]) != Q)
        return 1; // overwritten since
      incant_u32 O = Mem::ld32(&E[1]);
      if (O == INCANT_RACE_OBJ_CLUSTER ? !SameCluster : !SameBlock)
        continue;
      if (covers(acquiredAt(Yb, O, Pos), Mem::ld32(&E[2]), 32))
        return 1;
    }
    return 0;
  }

  /// Whether an asynchronous copy of thread \p Ta with completion \p Done
  /// is ordered before an access of thread \p Tb (barrier count \p BarB, 16
  /// bits) at log position \p Pos: \p Tb saw the copy's mbarrier phase
  /// complete, or \p Ta waited for the copy's group and then \p Ta itself,
  /// or a CTA barrier or object release after that wait, orders \p Tb.
  INCANT_RACE_HD int asyncOrdered(incant_u32 Done, incant_u32 Ta, incant_u32 Tb,
                                  incant_u32 Tpb, incant_u32 BarB,
                                  incant_u32 Pos) const {
    struct IncantRaceSync *Ya = seenSync(Ta), *Yb = seenSync(Tb);
    int SameBlock = Ta / Tpb == Tb / Tpb;
    if (Done & INCANT_RACE_DONE_MBAR)
      return SameBlock && Yb &&
             covers(acquiredAt(Yb, (Done >> 16) & 31u, Pos), Done & 0xffffu,
                    16);
    if (!Ya)
      return 0;
    incant_u32 G = Done & 0xffffu;
    incant_u32 N = Mem::ld32(&Ya->nwait);
    for (incant_u32 K = 0; K < INCANT_RACE_WAITS && K < N; ++K) {
      incant_u32 *W = Ya->waits[(N - 1 - K) % INCANT_RACE_WAITS];
      if (((Mem::ld32(&W[0]) - G) & 0xffffu) >= 0x8000u)
        continue; // that wait left the group pending
      if (Ta == Tb) {
        if (Mem::ld32(&W[3]) <= Pos)
          return 1;
        continue;
      }
      if (SameBlock && (incant_race_ahead(BarB, Mem::ld32(&W[1]) & 0xffffu, 16) ||
                        syncOrdered(Ta, Mem::ld32(&W[2]), 32, Tb, Tpb, Pos)))
        return 1;
    }
    if (N > INCANT_RACE_WAITS &&
        ((Mem::ld32(&Ya->waits[N % INCANT_RACE_WAITS][0]) - G) & 0xffffu) <
            0x8000u)
      return 1; // an older wait, no longer kept, may have ordered it
    incant_u32 NB = Mem::ld32(&Ya->nbind);
    for (incant_u32 K = 0; K < INCANT_RACE_WAITS && K < NB; ++K) {
      incant_u32 *B = Ya->binds[(NB - 1 - K) % INCANT_RACE_WAITS];
      if (((Mem::ld32(&B[0]) - G) & 0xffffu) >= 0x8000u || !SameBlock || !Yb)
        continue;
      if (covers(acquiredAt(Yb, Mem::ld32(&B[1]), Pos), Mem::ld32(&B[2]), 32))
        return 1;
    }
    return NB > INCANT_RACE_WAITS;
  }

  //===-- Asynchronous copies ---------------------------------------------===//

  /// Thread \p Tid (block \p Blk, warp \p Warp, lane \p Lane) issues a copy
  /// of \p Bytes bytes from global \p Src to offset \p Dst of block
  /// \p DstBlk's shared memory, completed as \p Done says: the write of
  /// the destination and the read of the source, each checked as the
  /// thread's own access now and kept as the copy's until its completion.
  /// \p Site: the copy's site; \p Pos: stmt, the log position now.
  INCANT_RACE_HD void copy(incant_u32 Tid, incant_u32 Warp, unsigned Lane,
                           incant_u32 DstBlk, incant_u32 Unit, incant_u32 Site,
                           incant_u32 Dst, incant_u64 Src, incant_u32 Bytes,
                           incant_u32 Done, const incant_u32 *Geom) const {
    count(INCANT_RACE_CNT_COPY_BYTES, Bytes, Warp);
    incant_u32 Sizes = Bytes >= 16 ? 4 : Bytes >= 8 ? 3 : 2;
    incant_u32 W = Site | INCANT_RACE_WRITE | INCANT_RACE_ASYNC |
                   Sizes << INCANT_RACE_SIZE_SHIFT |
                   INCANT_RACE_SPACE_SHARED << INCANT_RACE_SPACE_SHIFT;
    incant_u32 R = Site | INCANT_RACE_READ | INCANT_RACE_ASYNC |
                   Sizes << INCANT_RACE_SIZE_SHIFT |
                   INCANT_RACE_SPACE_GLOBAL << INCANT_RACE_SPACE_SHIFT;
    if (S->scheme == INCANT_RACE_SCHEME_STMT) {
      logCopy(Tid, Warp, Lane, Unit, W, logged(INCANT_RACE_SPACE_SHARED, DstBlk, Dst),
              Bytes, Done, Geom);
      logCopy(Tid, Warp, Lane, Unit, R, Src, Bytes, Done, Geom);
      return;
    }
    recordCopy(Tid, DstBlk, Unit, W, INCANT_RACE_SPACE_SHARED, Dst, Bytes, Done,
               Geom, Warp);
    recordCopy(Tid, DstBlk, Unit, R, INCANT_RACE_SPACE_GLOBAL, Src, Bytes, Done,
               Geom, Warp);
  }
  /// addr: one side of a copy, granule by granule.
  INCANT_RACE_HD void recordCopy(incant_u32 Tid, incant_u32 Blk, incant_u32 Unit,
                                 incant_u32 Info, incant_u32 Space,
                                 incant_u64 Addr, incant_u32 Bytes,
                                 incant_u32 Done, const incant_u32 *Geom,
                                 unsigned Copy) const {
    struct IncantRaceThread *T = thread(Tid);
    incant_u32 Site = incant_race_info_site(Info);
    incant_u32 F = incant_race_flags(Info);
    incant_u64 W0 = incant_race_w0(Tid, Unit, Site, F & ~INCANT_RACE_F_ASYNC);
    incant_u64 K0 = incant_race_w0(Tid, Unit, Site, F);
    struct IncantRaceRec Mine, Keep;
    Mine.w0 = W0;
    Mine.w1 = incant_race_w1(W0, Mem::ld32(&T->bar), Mem::ld32(&T->ws),
                             Mem::ld32(&T->relC), Mem::ld32(&T->relG),
                             syncCount(Tid), 0xfu);
    Keep.w0 = K0;
    Keep.w1 = incant_race_w1_async(K0, Done, 0xfu);
    incant_u64 G0 = Space == INCANT_RACE_SPACE_SHARED
                        ? ((incant_u64)Blk << 16) | ((Addr & 0x3ffffu) >> 2)
                        : Addr >> 2;
    incant_u64 Logged = logged(Space, Blk, Addr);
    for (incant_u32 G = 0; G < (Bytes + 3) / 4; ++G) {
      struct IncantRaceEntry *E =
          entry(incant_race_key(S->launch, Space, G0 + G), Copy);
      if (E)
        access(E, Mine, Keep, Space, Logged + 4 * G, Geom, Copy);
    }
  }
  /// stmt: one side of a copy in log entries of 32 chunks of 16 bytes (or
  /// one of \p Bytes where less), all of the issuing lane.
  INCANT_RACE_HD void logCopy(incant_u32 Tid, incant_u32 Warp, unsigned Lane,
                              incant_u32 Unit, incant_u32 Info,
                              incant_u64 Logged, incant_u32 Bytes,
                              incant_u32 Done, const incant_u32 *Geom) const {
    incant_u32 Chunks = Bytes >= 16 ? Bytes / 16 : 1;
    incant_u32 Entries = (Chunks + 31) / 32;
    incant_u32 Pos = Mem::add32(&S->logCount, Entries);
    for (incant_u32 K = 0; K < Entries; ++K) {
      if (Pos + K >= S->logCap) {
        count(INCANT_RACE_CNT_LOG_FULL, Chunks - 32 * K, Warp);
        return;
      }
      struct IncantRaceLogEntry *L = (struct IncantRaceLogEntry *)S->log + Pos + K;
      incant_u32 N = Chunks - 32 * K < 32 ? Chunks - 32 * K : 32;
      for (incant_u32 J = 0; J < N; ++J)
        logLane(L, J, Tid, Logged + 16ull * (32 * K + J));
      logHeader(L, Warp, Unit, Info, N >= 32 ? 0xffffffffu : (1u << N) - 1u,
                Geom, Done | (Lane & 31u) << 22);
    }
  }

  //===-- stmt: the statement log -----------------------------------------===//

  /// The counter word of a lane's access (IncantRaceLogEntry::ctr).
  INCANT_RACE_HD static incant_u64 ctrWord(incant_u32 Bar, incant_u32 Ws,
                                           incant_u32 RelC, incant_u32 RelG,
                                           incant_u32 Sy) {
    return ((incant_u64)(Bar & 0xffffu) << 48) |
           ((incant_u64)(Ws & 0xfffu) << 36) |
           ((incant_u64)(RelC & 0xfffu) << 24) |
           ((incant_u64)(RelG & 0xfffu) << 12) | (Sy & 0xfffu);
  }

  /// The byte mask of an access within its 16-byte chunk.
  INCANT_RACE_HD static incant_u32 chunkMask(incant_u64 Addr,
                                             incant_u32 Bytes) {
    incant_u32 M = Bytes >= 16 ? 0xffffu : ((1u << Bytes) - 1u);
    return (M << (Addr & 15u)) & 0xffffu;
  }

  /// What phase 2 knows of one lane access of the log.
  struct Item {
    incant_u32 Index; ///< Log entry * 32 + lane.
    incant_u32 Tid, Where, Flags, Mask, Tpb;
    incant_u32 Bar, Ws, RelC, RelG, Sy; ///< As logged (16 or 12 bits).
    incant_u32 Done; ///< An asynchronous copy's completion.
    incant_u64 Addr;
  };

  INCANT_RACE_HD Item item(incant_u32 Index) const {
    const struct IncantRaceLogEntry *L =
        (const struct IncantRaceLogEntry *)S->log + Index / 32;
    unsigned Lane = Index % 32;
    Item I;
    I.Index = Index;
    I.Tpb = L->geom[0] & 0xffffu;
    I.Tpb *= (L->geom[0] >> 16) * (L->geom[1] & 0xffffu);
    incant_u32 Warps = (I.Tpb + 31) / 32;
    I.Where = L->site >> 8;
    I.Flags = L->site & 0xffu;
    // A copy's entry holds one chunk per lane, all of the issuing lane.
    unsigned Who = (I.Flags & INCANT_RACE_F_ASYNC) ? (L->done >> 22) & 31u
                                                    : Lane;
    I.Tid = (L->warp / Warps) * I.Tpb + (L->warp % Warps) * 32 + Who;
    I.Done = L->done & 0x3fffffu;
    I.Addr = L->addr[Lane];
    I.Mask = chunkMask(I.Addr, 1u << ((L->geom[1] >> 16) & 7u));
    incant_u64 C = L->ctr[Lane];
    I.Bar = (incant_u32)(C >> 48) & 0xffffu;
    I.Ws = (incant_u32)(C >> 36) & 0xfffu;
    I.RelC = (incant_u32)(C >> 24) & 0xfffu;
    I.RelG = (incant_u32)(C >> 12) & 0xfffu;
    I.Sy = (incant_u32)C & 0xfffu;
    return I;
  }

  /// Which chain of its chunk an item goes on: 0 plain writes, 1 strong
  /// writes (atomics, strong stores), 2 reads.
  INCANT_RACE_HD static unsigned chainOf(incant_u32 Flags) {
    if (!(Flags & INCANT_RACE_F_WRITE))
      return 2;
    return (Flags >> INCANT_RACE_F_SCOPE_SHIFT) & 3u ? 1 : 0;
  }

  /// Phase 1: puts lane access \p Index on its chunk's chain.
  INCANT_RACE_HD void bucket(incant_u32 Index, unsigned Copy) const {
    const struct IncantRaceLogEntry *L =
        (const struct IncantRaceLogEntry *)S->log + Index / 32;
    if (!(L->mask >> (Index % 32) & 1u))
      return;
    incant_u64 Key = incant_race_chunk_key(S->launch, L->addr[Index % 32]);
    struct IncantRaceEntry *E = entry(Key, Copy);
    if (!E)
      return;
    // The entry's records hold the chains' heads (item + 1; 0 ends).
    incant_u32 *Heads = (incant_u32 *)&E->write;
    incant_u32 *Next = (incant_u32 *)S->next;
    Next[Index] = Mem::exch32(&Heads[chainOf(L->site & 0xffu)], Index + 1);
  }

  /// The first release after count \p After (12 bits) in a thread's ring
  /// made at log position at most \p Pos; an overwritten ring counts as
  /// released (a race may be missed, none is invented).
  INCANT_RACE_HD static int threadReleased(incant_u32 Total,
                                           const incant_u32 (*Ring)[2],
                                           incant_u32 After, incant_u32 Pos) {
    incant_u32 Full = Total - ((Total - After) & 0xfffu);
    if (Full == Total)
      return 0;
    incant_u32 First = Full + 1;
    if (Total - First >= 4)
      return 1;
    return Mem::ld32(&Ring[First % 4][0]) == First &&
           Mem::ld32(&Ring[First % 4][1]) <= Pos;
  }

  /// A release by a thread of the block after barrier count \p Bar (16
  /// bits) at log position at most \p Pos.
  INCANT_RACE_HD static int blockReleased(incant_u32 Total,
                                          const incant_u32 (*Ring)[2],
                                          incant_u32 Bar, incant_u32 Pos) {
    incant_u32 Kept = Total < 4 ? Total : 4;
    incant_u32 OldestPos = 0xffffffffu;
    int OldestAhead = 0;
    for (incant_u32 I = 0; I < Kept; ++I) {
      incant_u32 Epoch = Mem::ld32(&Ring[I][0]), At = Mem::ld32(&Ring[I][1]);
      int Ahead = incant_race_ahead(Epoch & 0xffffu, Bar, 16);
      if (Ahead && At <= Pos)
        return 1;
      if (At < OldestPos) {
        OldestPos = At;
        OldestAhead = Ahead;
      }
    }
    return Total > 4 && OldestAhead;
  }

  /// Whether the earlier item \p A is ordered before the later \p B.
  INCANT_RACE_HD int ordered(const Item &A, const Item &B) const {
    incant_u32 Pos = B.Index / 32;
    if (A.Flags & INCANT_RACE_F_ASYNC)
      return asyncOrdered(A.Done, A.Tid, B.Tid, A.Tpb, B.Bar, Pos);
    if (syncOrdered(A.Tid, A.Sy, 12, B.Tid, A.Tpb, Pos))
      return 1;
    int Same = A.Tid / A.Tpb == B.Tid / B.Tpb;
    if (Same) {
      if (incant_race_ahead(B.Bar, A.Bar, 16))
        return 1;
      if ((A.Tid % A.Tpb) / 32 == (B.Tid % B.Tpb) / 32 &&
          incant_race_ahead(B.Ws, A.Ws, 12))
        return 1;
    }
    struct IncantRaceThread *T = thread(A.Tid);
    struct IncantRaceBlock *K = block(A.Tid / A.Tpb);
    if (Same)
      return threadReleased(Mem::ld32(&T->relC), T->ringC, A.RelC, Pos) ||
             blockReleased(Mem::ld32(&K->nC), K->ringC, A.Bar, Pos);
    return threadReleased(Mem::ld32(&T->relG), T->ringG, A.RelG, Pos) ||
           blockReleased(Mem::ld32(&K->nG), K->ringG, A.Bar, Pos);
  }

  /// Whether items \p A and \p B can race (as incant_race_conflict).
  INCANT_RACE_HD static int conflict(const Item &A, const Item &B) {
    if ((A.Tid == B.Tid && !(A.Flags & INCANT_RACE_F_ASYNC)) ||
        !(A.Mask & B.Mask) ||
        !((A.Flags | B.Flags) & INCANT_RACE_F_WRITE))
      return 0;
    return !(A.Mask == B.Mask &&
             incant_race_morally_strong(A.Flags, B.Flags,
                                        A.Tid / A.Tpb == B.Tid / B.Tpb));
  }

  /// Phase 2: compares lane access \p Index with the earlier accesses of
  /// its chunk that it can race with (pairs are found from their later
  /// side; the lanes of one logged instruction were compared when it ran).
  INCANT_RACE_HD void pairs(incant_u32 Index, unsigned Copy) const {
    const struct IncantRaceLogEntry *L =
        (const struct IncantRaceLogEntry *)S->log + Index / 32;
    if (!(L->mask >> (Index % 32) & 1u))
      return;
    Item B = item(Index);
    incant_u64 Key = incant_race_chunk_key(S->launch, B.Addr);
    struct IncantRaceEntry *E = entry(Key, Copy);
    if (!E)
      return;
    const incant_u32 *Heads = (const incant_u32 *)&E->write;
    const incant_u32 *Next = (const incant_u32 *)S->next;
    unsigned Mine = chainOf(B.Flags);
    incant_u32 Geom[5] = {L->geom[0] & 0xffffu, L->geom[0] >> 16,
                          L->geom[1] & 0xffffu, L->geom[2], L->geom[3]};
    incant_u32 Walked = 0;
    for (unsigned C = 0; C < 3; ++C) {
      // Reads race only with writes; strong writes with strong writes
      // only at CTA scope (gpu-scope atomics of two blocks never do).
      if (Mine == 2 && C == 2)
        continue;
      if (Mine == 1 && C == 1 &&
          ((B.Flags >> INCANT_RACE_F_SCOPE_SHIFT) & 3u) >=
              INCANT_RACE_SCOPE_GPU)
        continue;
      for (incant_u32 J = Mem::ld32(&Heads[C]); J; J = Next[J - 1]) {
        incant_u32 AI = J - 1;
        if (AI / 32 >= Index / 32)
          continue; // not earlier, or the same instruction
        if (++Walked > S->walkCap) {
          count(INCANT_RACE_CNT_CAPPED, 1, Copy);
          return;
        }
        Item A = item(AI);
        if ((A.Addr >> 4) != (B.Addr >> 4) || !conflict(A, B) ||
            ordered(A, B))
          continue;
        incant_u32 Space = (B.Addr & INCANT_RACE_LOG_SHARED) ? INCANT_RACE_SPACE_SHARED
                                          : INCANT_RACE_SPACE_GLOBAL;
        hit(incant_race_hit_key(A.Where, B.Where,
                                incant_race_hazard(A.Flags, B.Flags), Space),
            A.Tid, B.Tid, B.Addr, Geom, Copy);
      }
    }
  }
};

#endif /* INCANT_RACE_SHADOW_H */
