/*===- incant_race_shadow.h - The checking algorithms, host and device ----===//
 *
 * The two schemes' memory-touching algorithms, written once over a memory
 * policy `Mem` so that the device (incant_race.cu: atomics and volatile
 * accesses) and the unit tests (plain host memory, replaying recorded
 * access logs) run the same code:
 *
 *   Mem::ld64(p), Mem::st64(p, v), Mem::cas64(p, cmp, v) -> old,
 *   Mem::add64(p, v) -> old, Mem::ld32(p), Mem::add32(p, v) -> old,
 *   Mem::exch32(p, v) -> old, Mem::max32(p, v), Mem::fence()
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
    if (!incant_race_rec_valid(A) || !incant_race_conflict(A, Mine, Tpb) ||
        incant_race_ordered_by_barriers(A, Mine, Tpb) ||
        incant_race_released(A, Mine, now(A, Tpb)))
      return 0;
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
    struct IncantRaceRec W = ldRec(&E->write);
    struct IncantRaceRec R1 = ldRec(&E->read1);
    struct IncantRaceRec R2 = ldRec(&E->read2);
    incant_u32 F = incant_race_rec_flags(Mine.w0);
    incant_u32 Me = incant_race_rec_tid(Mine.w0);
    against(W, Mine, Space, Addr, Geom, Copy);
    if (F & INCANT_RACE_F_WRITE) {
      against(R1, Mine, Space, Addr, Geom, Copy);
      against(R2, Mine, Space, Addr, Geom, Copy);
      stRec(&E->write, Mine);
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
        stRec(&E->read1, Mine);
      return;
    }
    if (!V1) {
      stRec(&E->read1, Mine);
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
    stRec(&E->read1, Mine);
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
      Mine.w1 = incant_race_w1(W0, Bar, Ws, RelC, RelG,
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
                           Mem::ld32(&T->relC), Mem::ld32(&T->relG));
  }
  INCANT_RACE_HD static void logHeader(struct IncantRaceLogEntry *L,
                                       incant_u32 Warp, incant_u32 Unit,
                                       incant_u32 Info, incant_u32 Mask,
                                       const incant_u32 *Geom) {
    L->warp = Warp;
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

  //===-- stmt: the statement log -----------------------------------------===//

  /// The counter word of a lane's access (IncantRaceLogEntry::ctr).
  INCANT_RACE_HD static incant_u64 ctrWord(incant_u32 Bar, incant_u32 Ws,
                                           incant_u32 RelC, incant_u32 RelG) {
    return ((incant_u64)(Bar & 0xffffu) << 48) |
           ((incant_u64)(Ws & 0xffffu) << 32) |
           ((incant_u64)(RelC & 0xffffu) << 16) | (RelG & 0xffffu);
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
    incant_u32 Bar, Ws, RelC, RelG; ///< Low 16 bits, as logged.
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
    I.Tid = (L->warp / Warps) * I.Tpb + (L->warp % Warps) * 32 + Lane;
    I.Where = L->site >> 8;
    I.Flags = L->site & 0xffu;
    I.Addr = L->addr[Lane];
    I.Mask = chunkMask(I.Addr, 1u << ((L->geom[1] >> 16) & 7u));
    incant_u64 C = L->ctr[Lane];
    I.Bar = (incant_u32)(C >> 48) & 0xffffu;
    I.Ws = (incant_u32)(C >> 32) & 0xffffu;
    I.RelC = (incant_u32)(C >> 16) & 0xffffu;
    I.RelG = (incant_u32)C & 0xffffu;
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

  /// The first release after count \p After (16 bits) in a thread's ring
  /// made at log position at most \p Pos; an overwritten ring counts as
  /// released (a race may be missed, none is invented).
  INCANT_RACE_HD static int threadReleased(incant_u32 Total,
                                           const incant_u32 (*Ring)[2],
                                           incant_u32 After, incant_u32 Pos) {
    incant_u32 Full = Total - ((Total - After) & 0xffffu);
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
    int Same = A.Tid / A.Tpb == B.Tid / B.Tpb;
    if (Same) {
      if (incant_race_ahead(B.Bar, A.Bar, 16))
        return 1;
      if ((A.Tid % A.Tpb) / 32 == (B.Tid % B.Tpb) / 32 &&
          incant_race_ahead(B.Ws, A.Ws, 16))
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
    if (A.Tid == B.Tid || !(A.Mask & B.Mask) ||
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
