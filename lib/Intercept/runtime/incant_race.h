/*===- incant_race.h - Dynamic race checking: layouts and rules -----------===//
 *
 * Shared by the instrumenting pass (lib/Intercept/RaceAccesses.cpp), the
 * device code that instrumented kernels call and the checking kernels
 * (incant_race.cu), the injected library (inject_race.cpp) and the unit
 * tests, which run the same rules on the host over recorded access logs.
 * Everything here compiles as C++ for the host and as CUDA for the device;
 * the algorithms that touch memory are in incant_race_shadow.h.
 *
 * What the build adds to a unit <ID> for pass "race":
 *   __incant_race_<ID>        .global .b8[INCANT_RACE_UNIT_BYTES]: the device
 *                             address of the context's IncantRaceState
 *                             (u64) and the unit's slot (u32), set by the
 *                             library when the module is first used; zero
 *                             (checking off) otherwise.
 *   __incant_race_access_<ID> .func (addr .u64, info .u32): called before
 *                             every instrumented access; info encodes the
 *                             site and what the access is (INCANT_RACE_*).
 *   __incant_race_sync_<ID>   .func (kind .u32): called after every
 *                             barrier, warp barrier and fence.
 *
 * Happens-before, as the checker decides it (docs/race.md, "Dynamic"):
 * two accesses to a common byte, at least one a write, by two different
 * threads of one launch race unless
 *   - both are morally strong (atomic, or strong with a scope: .cta only
 *     for two threads of one block) and overlap completely;
 *   - a CTA barrier separates them: the later thread has passed more
 *     barriers than the earlier had at its access (per-thread counts; every
 *     thread of a block passes the same barriers);
 *   - they are lanes of one warp and a warp barrier separates them the same
 *     way (independent thread scheduling: nothing else orders lanes);
 *   - the earlier access was released: its thread executed a fence or a
 *     release operation of a scope that covers both threads after it, or a
 *     thread of its block did so after a barrier that followed it (this is
 *     how cooperative groups' grid.sync() and fenced locks and flags order
 *     blocks). The acquiring side is not checked, so a race whose reader
 *     lacks its acquire is missed, never invented.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_RACE_H
#define INCANT_RACE_H

#ifdef __CUDACC__
#define INCANT_RACE_HD __host__ __device__ __forceinline__
#else
#define INCANT_RACE_HD inline
#endif

#ifdef __CUDACC__
typedef unsigned int incant_u32;
typedef unsigned long long incant_u64;
#else
#include <stdint.h>
typedef uint32_t incant_u32;
typedef uint64_t incant_u64;
#endif

/* Names the pass adds (each followed by the unit id) and the names of the
 * same things in the runtime's PTX (incant_race.cu), which it renames. */
#define INCANT_RACE_PREFIX "__incant_race_"
#define INCANT_RACE_ACCESS_PREFIX "__incant_race_access_"
#define INCANT_RACE_SYNC_PREFIX "__incant_race_sync_"
#define INCANT_RACE_RT_UNIT "incant_race_unit"
#define INCANT_RACE_RT_ACCESS "incant_race_access"
#define INCANT_RACE_RT_SYNC "incant_race_sync"
#define INCANT_RACE_OBJ_PREFIX "__incant_race_obj_"
#define INCANT_RACE_COPY_PREFIX "__incant_race_copy_"
#define INCANT_RACE_RT_OBJ "incant_race_obj"
#define INCANT_RACE_RT_COPY "incant_race_copy"
#define INCANT_RACE_UNIT_BYTES 16
#define INCANT_RACE_MAX_UNITS 64 /* unit slots per process (6 bits) */

/* The info word of an access (the pass makes it a constant per site). */
#define INCANT_RACE_SITE_MASK 0x3ffffu /* site id within the unit        */
#define INCANT_RACE_MAX_SITES 0x40000u
#define INCANT_RACE_READ (1u << 18)
#define INCANT_RACE_WRITE (1u << 19)
#define INCANT_RACE_ATOMIC (1u << 20)
#define INCANT_RACE_SCOPE_SHIFT 21 /* 2 bits: 0 weak, then CTA, GPU, SYS */
#define INCANT_RACE_SIZE_SHIFT 23  /* 3 bits: log2 of the bytes, 0..4   */
#define INCANT_RACE_SPACE_SHIFT 26 /* 2 bits: INCANT_RACE_SPACE_*       */
#define INCANT_RACE_RELEASE (1u << 28) /* .release/.acq_rel/.sc: releases */
#define INCANT_RACE_ASYNC (1u << 29)   /* made by an asynchronous copy    */
/* The info word of __incant_race_copy: site, the destination's space
 * (shared or .shared::cluster) and: */
#define INCANT_RACE_COPY_MBAR (1u << 30) /* completes on an mbarrier (bulk) */

#define INCANT_RACE_WEAK 0u
#define INCANT_RACE_SCOPE_CTA 1u
#define INCANT_RACE_SCOPE_GPU 2u
#define INCANT_RACE_SCOPE_SYS 3u

#define INCANT_RACE_SPACE_GENERIC 0u
#define INCANT_RACE_SPACE_GLOBAL 1u
#define INCANT_RACE_SPACE_SHARED 2u
#define INCANT_RACE_SPACE_CLUSTER 3u /* .shared::cluster: the owner's shared */

/* Kinds of __incant_race_sync. */
#define INCANT_RACE_SYNC_CTA 0u       /* bar.sync, barrier.sync, bar.red, bar.arrive */
#define INCANT_RACE_SYNC_WARP 1u      /* bar.warp.sync                   */
#define INCANT_RACE_SYNC_FENCE_CTA 2u /* fence/membar at CTA scope       */
#define INCANT_RACE_SYNC_FENCE_GPU 3u /* fence/membar at GPU or system scope */

/* Schemes (IncantRaceState::scheme; 0: checking off). */
#define INCANT_RACE_SCHEME_ADDR 1u
#define INCANT_RACE_SCHEME_STMT 2u

/* Hazards, in the order their names are listed. */
#define INCANT_RACE_RAW 0u /* write, then read  */
#define INCANT_RACE_WAR 1u /* read, then write  */
#define INCANT_RACE_WAW 2u /* write, then write */

/* Counters (IncantRaceState::counters), accumulated over launches. */
#define INCANT_RACE_CNT_ACCESSES 0    /* thread accesses checked          */
#define INCANT_RACE_CNT_WARP_ACCESSES 1 /* warp-level executions of sites */
#define INCANT_RACE_CNT_SHADOW_FULL 2 /* accesses with no shadow entry free */
#define INCANT_RACE_CNT_BUSY 3        /* accesses skipped: entry being claimed */
#define INCANT_RACE_CNT_LOG_FULL 4    /* stmt: thread accesses not logged */
#define INCANT_RACE_CNT_HITS_LOST 5   /* races not folded: table full    */
#define INCANT_RACE_CNT_HAZARDS 6     /* races seen (before folding)     */
#define INCANT_RACE_CNT_CAPPED 7      /* stmt: comparisons cut at the cap */
#define INCANT_RACE_CNT_SPACE_OTHER 8 /* generic accesses to local/const memory */
#define INCANT_RACE_CNT_SYNC_LOST 9   /* sync operations not followed (below) */
#define INCANT_RACE_CNT_COPY_BYTES 10 /* bytes of asynchronous copies checked */
#define INCANT_RACE_COUNTERS 16
/* Counters are spread over this many copies to avoid one hot word. */
#define INCANT_RACE_COUNTER_COPIES 32

/* The per-context state every instrumented kernel reaches through its
 * unit's variable. The library writes it once, then only `launch` (and the
 * sizes when buffers grow) before each launch. */
struct IncantRaceState {
  incant_u32 launch;    /* 1..65535: tags shadow keys of this launch     */
  incant_u32 scheme;    /* INCANT_RACE_SCHEME_*; 0 turns checking off    */
  incant_u32 shadowMask; /* shadow entries - 1 (a power of two)          */
  incant_u32 maxProbe;  /* shadow slots tried before giving up           */
  incant_u32 threadCap; /* IncantRaceThread entries (>= threads launched) */
  incant_u32 blockCap;  /* IncantRaceBlock entries (>= blocks launched)  */
  incant_u32 logCap;    /* stmt: IncantRaceLogEntry entries              */
  incant_u32 hitMask;   /* race table entries - 1                        */
  incant_u32 walkCap;   /* stmt: comparisons per access at most          */
  incant_u32 logCount;  /* stmt: entries used in this launch             */
  incant_u64 shadow;    /* IncantRaceEntry[shadowMask + 1]               */
  incant_u64 threads;   /* IncantRaceThread[threadCap]                   */
  incant_u64 blocks;    /* IncantRaceBlock[blockCap]                     */
  incant_u64 log;       /* stmt: IncantRaceLogEntry[logCap]              */
    incant_u64 next;      /* stmt: u32 [logCap * 32]: bucket chains        */
  incant_u64 hits;      /* IncantRaceHit[hitMask + 1]                    */
  incant_u64 counters;  /* u64 [INCANT_RACE_COUNTERS * COPIES]           */
  incant_u64 syncs;     /* IncantRaceSync[threadCap]                      */
};

/* Per thread of the launch (index: linear block * threads per block +
 * linear thread), zeroed before each launch. */
struct IncantRaceThread {
  incant_u32 bar;  /* CTA barriers passed                               */
  incant_u32 ws;   /* warp barriers passed                              */
  incant_u32 relC; /* releases of CTA or wider scope                    */
  incant_u32 relG; /* releases of GPU or system scope                   */
  /* stmt: the log position of the last releases (count, position). */
  incant_u32 ringC[4][2];
  incant_u32 ringG[4][2];
};

/* Per block of the launch, zeroed before each launch: the highest barrier
 * count at which one of its threads released (CTA or wider, GPU or wider),
 * and for stmt (epoch, log position) of the last releases. */
struct IncantRaceBlock {
  incant_u32 relC, relG;
  incant_u32 nC, nG;
  incant_u32 ringC[4][2];
  incant_u32 ringG[4][2];
  incant_u32 obj[32][4]; /* IncantRaceObj per object (INCANT_RACE_OBJS) */
};

/* An access as the shadow keeps it: two words.
 *   w0: global thread index (32) | unit slot (6) | site (18) | flags (8)
 *   w1: barriers (16) | warp barriers (10) | CTA releases (8) |
 *       GPU releases (8) | object releases (10) | byte mask (4) | check (8)
 * A record is read and written in one 16-byte access (entries are 16-byte
 * aligned); the check (a hash of w0) catches a record torn all the same,
 * which is then ignored (a race may be missed, none is invented). */
#define INCANT_RACE_F_READ 0x01u
#define INCANT_RACE_F_WRITE 0x02u
#define INCANT_RACE_F_ATOMIC 0x04u
#define INCANT_RACE_F_SCOPE_SHIFT 3 /* 2 bits */
#define INCANT_RACE_F_VALID 0x20u
/* Made by an asynchronous copy on behalf of the thread that issued it: it
 * lasts from the issue to the copy's completion, so the issuing thread's
 * own later accesses can race with it, and only what is ordered after the
 * completion (w1: incant_race_w1_async) is ordered after it. */
#define INCANT_RACE_F_ASYNC 0x40u

struct IncantRaceRec {
  incant_u64 w0, w1;
};

/* One shadow entry: a 4-byte granule of global memory or of one block's
 * shared memory, in the current launch. key: launch (16) | space (1) |
 * granule (47); 0 is empty; INCANT_RACE_KEY_BUSY is set while a thread
 * claims it. */
#define INCANT_RACE_KEY_BUSY (1ull << 63)
struct IncantRaceEntry {
  incant_u64 key;
  incant_u64 pad;
  struct IncantRaceRec write; /* the last write                         */
  struct IncantRaceRec read1; /* the last read since it                 */
  struct IncantRaceRec read2; /* another read by a different thread     */
};

/* One folded race: both sides' sites, the hazard and the space, how often
 * it was seen, and the first occurrence's threads and address. */
struct IncantRaceHit {
  incant_u64 key;    /* 0 empty; see incant_race_hit_key                */
  incant_u64 count;
  incant_u64 addr;   /* global address, or shared offset                */
  incant_u32 tidA, tidB; /* global thread indices (earlier, later)      */
  incant_u32 ntidX, ntidY, ntidZ, nctaidX, nctaidY, launch;
  incant_u32 claimed, pad;
};

/* stmt: one executed instrumented access of one warp (GRace's statement
 * table entry): the site, the lanes that ran it, and per lane the address
 * (global: the address; shared: bit 63, the block's index << 18 and the
 * offset) and counters (barriers 16, warp barriers 12, CTA releases 12,
 * GPU releases 12, object releases 12). */
struct IncantRaceLogEntry {
  incant_u32 warp;    /* block * warps per block + warp of the block     */
  incant_u32 site;    /* unit slot (6) | site (18) | flags (8): w0's low half */
  incant_u32 mask;    /* lanes that ran it                               */
  incant_u32 geom[4]; /* ntid.x | ntid.y << 16; ntid.z | log2(bytes) << 16;
                         nctaid.x; nctaid.y                               */
  incant_u32 done;    /* asynchronous copies: their completion (INCANT_RACE_DONE_*) */
  incant_u64 addr[32];
  incant_u64 ctr[32];
};

/*===-- Synchronisation objects -------------------------------------------===*
 *
 * Named barriers with a thread count, mbarriers and the cluster barrier are
 * objects with phases. Every arrival takes a ticket of its object (before
 * the arriving instruction runs); ticket n (from 1) is in phase
 * (n - 1) / count. A thread that arrives releases its earlier accesses into
 * that phase (its ring of releases keeps the object and phase); a thread
 * that saw a phase complete (bar.sync's wait, a successful mbarrier
 * test_wait/try_wait, barrier.cluster.wait) has acquired every phase up to
 * it. An access of thread A is ordered before a later one of thread B when
 * A arrived after it at a phase that B had acquired before its access (one
 * step: a chain through a third thread's objects alone is not followed;
 * chains through CTA barriers are, by their counts).
 *
 * Objects per block: 0..15 the named barriers, 16..30 the block's mbarriers
 * (by address; two at one slot make it unknown), 31 the cluster barrier
 * (kept in the cluster's first block). */
#define INCANT_RACE_OBJS 32u
#define INCANT_RACE_OBJ_MBAR 16u
#define INCANT_RACE_OBJ_MBARS 15u
#define INCANT_RACE_OBJ_CLUSTER 31u
#define INCANT_RACE_RING 8u    /* releases and acquisitions kept per thread */
#define INCANT_RACE_WAITS 4u   /* cp.async waits and mbarrier bindings kept */
#define INCANT_RACE_UNKNOWN 0xffffffffu /* an object whose phases are lost */

/* Kinds of __incant_race_obj (kind, address or id, aux). */
#define INCANT_RACE_OBJ_BAR_ARRIVE 1u  /* before bar.sync/red/arrive id, count */
#define INCANT_RACE_OBJ_BAR_WAIT 2u    /* after bar.sync/red id, count      */
#define INCANT_RACE_OBJ_CLUSTER_ARRIVE 3u /* before barrier.cluster.arrive  */
#define INCANT_RACE_OBJ_CLUSTER_WAIT 4u   /* after barrier.cluster.wait     */
#define INCANT_RACE_OBJ_MBAR_INIT 5u   /* after mbarrier.init [a], count     */
#define INCANT_RACE_OBJ_MBAR_ARRIVE 6u /* before mbarrier.arrive [a]{, count} */
#define INCANT_RACE_OBJ_MBAR_LOST 7u   /* mbarrier.arrive_drop, .inval: phases lost */
#define INCANT_RACE_OBJ_MBAR_WAIT 8u   /* after a test_wait/try_wait that succeeded;
                                          aux: parity | has parity << 1  */
#define INCANT_RACE_OBJ_CP_COMMIT 9u   /* cp.async.commit_group              */
#define INCANT_RACE_OBJ_CP_WAIT 10u    /* after cp.async.wait_group aux      */
#define INCANT_RACE_OBJ_CP_WAIT_ALL 11u /* after cp.async.wait_all           */
#define INCANT_RACE_OBJ_CP_MBAR 12u    /* cp.async.mbarrier.arrive [a]; aux: .noinc */
#define INCANT_RACE_OBJ_GENERIC 0x100u /* or-ed in: the address is generic   */

/* The completion of a copy (incant_race_w1_async, 22 bits): how it is
 * observed, by an mbarrier phase (object, phase) or by the issuing
 * thread's cp.async.wait_group (its group). */
#define INCANT_RACE_DONE_MBAR (1u << 21)
INCANT_RACE_HD incant_u32 incant_race_done_mbar(incant_u32 Obj,
                                                incant_u32 Phase) {
  return INCANT_RACE_DONE_MBAR | (Obj & 31u) << 16 | (Phase & 0xffffu);
}
INCANT_RACE_HD incant_u32 incant_race_done_group(incant_u32 Group) {
  return Group & 0xffffu;
}

/* Per block and object, zeroed before each launch. */
struct IncantRaceObj {
  incant_u32 arrivals;  /* tickets taken                                  */
  incant_u32 count;     /* arrivals per phase (0: not known)              */
  incant_u32 completed; /* phases seen complete                           */
  incant_u32 addr;      /* mbarriers: shared address + 1; UNKNOWN: shared */
};

/* Per thread: what it released and acquired through objects, and its
 * asynchronous copies. Made valid for a launch by the thread itself on its
 * first use (launch); a stale one reads as empty. */
struct IncantRaceSync {
  incant_u32 launch;   /* IncantRaceState::launch when it was made valid */
  incant_u32 sy;       /* arrivals made (releases)                       */
  incant_u32 nacq;     /* acquisitions made                              */
  incant_u32 cluster;  /* the cluster's first block + 1 (0: none seen)   */
  incant_u32 rel[INCANT_RACE_RING][3]; /* seq, object, phase, by seq % RING */
  incant_u32 acqs[INCANT_RACE_RING][3]; /* object, phases, log position  */
  incant_u32 acq[INCANT_RACE_OBJS];    /* phases acquired, per object    */
  incant_u32 committed; /* cp.async groups committed                     */
  incant_u32 nwait, nbind, pad;
  /* cp.async waits: groups complete, barriers, arrivals, log position. */
  incant_u32 waits[INCANT_RACE_WAITS][4];
  /* cp.async.mbarrier.arrive: groups up to, object, phase. */
  incant_u32 binds[INCANT_RACE_WAITS][3];
};

/*===-- Encoding ----------------------------------------------------------===*/

INCANT_RACE_HD incant_u32 incant_race_info_site(incant_u32 Info) {
  return Info & INCANT_RACE_SITE_MASK;
}
INCANT_RACE_HD incant_u32 incant_race_info_scope(incant_u32 Info) {
  return (Info >> INCANT_RACE_SCOPE_SHIFT) & 3u;
}
INCANT_RACE_HD incant_u32 incant_race_info_bytes(incant_u32 Info) {
  return 1u << ((Info >> INCANT_RACE_SIZE_SHIFT) & 7u);
}
INCANT_RACE_HD incant_u32 incant_race_info_space(incant_u32 Info) {
  return (Info >> INCANT_RACE_SPACE_SHIFT) & 3u;
}

/* The flags byte of a record from an info word. */
INCANT_RACE_HD incant_u32 incant_race_flags(incant_u32 Info) {
  incant_u32 F = INCANT_RACE_F_VALID;
  if (Info & INCANT_RACE_READ)
    F |= INCANT_RACE_F_READ;
  if (Info & INCANT_RACE_WRITE)
    F |= INCANT_RACE_F_WRITE;
  if (Info & INCANT_RACE_ATOMIC)
    F |= INCANT_RACE_F_ATOMIC;
  if (Info & INCANT_RACE_ASYNC)
    F |= INCANT_RACE_F_ASYNC;
  F |= incant_race_info_scope(Info) << INCANT_RACE_F_SCOPE_SHIFT;
  return F;
}

INCANT_RACE_HD incant_u64 incant_race_w0(incant_u32 Tid, incant_u32 Unit,
                                         incant_u32 Site, incant_u32 Flags) {
  return ((incant_u64)Tid << 32) | ((incant_u64)(Unit & 63u) << 26) |
         ((incant_u64)(Site & INCANT_RACE_SITE_MASK) << 8) | (Flags & 0xffu);
}
INCANT_RACE_HD incant_u32 incant_race_rec_tid(incant_u64 W0) {
  return (incant_u32)(W0 >> 32);
}
INCANT_RACE_HD incant_u32 incant_race_rec_unit(incant_u64 W0) {
  return (incant_u32)(W0 >> 26) & 63u;
}
INCANT_RACE_HD incant_u32 incant_race_rec_site(incant_u64 W0) {
  return (incant_u32)(W0 >> 8) & INCANT_RACE_SITE_MASK;
}
INCANT_RACE_HD incant_u32 incant_race_rec_flags(incant_u64 W0) {
  return (incant_u32)W0 & 0xffu;
}
/* unit (6) | site (18): a site of the process. */
INCANT_RACE_HD incant_u32 incant_race_rec_where(incant_u64 W0) {
  return (incant_u32)(W0 >> 8) & 0xffffffu;
}

INCANT_RACE_HD incant_u32 incant_race_check(incant_u64 W0) {
  incant_u64 H = W0 * 0x9E3779B97F4A7C15ull;
  return (incant_u32)(H >> 56) | 1u; /* 8 bits, never 0 */
}

INCANT_RACE_HD incant_u64 incant_race_w1(incant_u64 W0, incant_u32 Bar,
                                         incant_u32 Ws, incant_u32 RelC,
                                         incant_u32 RelG, incant_u32 Sy,
                                         incant_u32 Mask) {
  return ((incant_u64)(Bar & 0xffffu) << 48) |
         ((incant_u64)(Ws & 0x3ffu) << 38) |
         ((incant_u64)(RelC & 0xffu) << 30) |
         ((incant_u64)(RelG & 0xffu) << 22) |
         ((incant_u64)(Sy & 0x3ffu) << 12) | ((incant_u64)(Mask & 0xfu) << 8) |
         incant_race_check(W0);
}
INCANT_RACE_HD incant_u32 incant_race_rec_bar(incant_u64 W1) {
  return (incant_u32)(W1 >> 48) & 0xffffu;
}
INCANT_RACE_HD incant_u32 incant_race_rec_ws(incant_u64 W1) {
  return (incant_u32)(W1 >> 38) & 0x3ffu;
}
INCANT_RACE_HD incant_u32 incant_race_rec_relc(incant_u64 W1) {
  return (incant_u32)(W1 >> 30) & 0xffu;
}
INCANT_RACE_HD incant_u32 incant_race_rec_relg(incant_u64 W1) {
  return (incant_u32)(W1 >> 22) & 0xffu;
}
INCANT_RACE_HD incant_u32 incant_race_rec_sy(incant_u64 W1) {
  return (incant_u32)(W1 >> 12) & 0x3ffu;
}
INCANT_RACE_HD incant_u32 incant_race_rec_mask(incant_u64 W1) {
  return (incant_u32)(W1 >> 8) & 0xfu;
}

/* An asynchronous copy's record (INCANT_RACE_F_ASYNC): its completion in
 * place of the counters (bits 47-12): INCANT_RACE_DONE_* (1), the object
 * (5) and the phase or cp.async group (16). */
INCANT_RACE_HD incant_u64 incant_race_w1_async(incant_u64 W0,
                                               incant_u32 Done,
                                               incant_u32 Mask) {
  return ((incant_u64)(Done & 0x3fffffu) << 12) |
         ((incant_u64)(Mask & 0xfu) << 8) | incant_race_check(W0);
}
INCANT_RACE_HD incant_u32 incant_race_rec_done(incant_u64 W1) {
  return (incant_u32)(W1 >> 12) & 0x3fffffu;
}

/* Whether a record holds an access (and is not torn). */
INCANT_RACE_HD int incant_race_rec_valid(struct IncantRaceRec R) {
  return (R.w0 & INCANT_RACE_F_VALID) &&
         (incant_u32)(R.w1 & 0xffu) == incant_race_check(R.w0);
}

/*===-- The rules ---------------------------------------------------------===*/

/* The count b has reached is ahead of a's: (b - a) mod 2^Bits is in
 * [1, 2^(Bits-1)). Counts are kept modulo 2^Bits; a difference of half
 * the range or more reads as "not ahead". */
INCANT_RACE_HD int incant_race_ahead(incant_u32 B, incant_u32 A,
                                     unsigned Bits) {
  incant_u32 M = (Bits >= 32) ? 0xffffffffu : ((1u << Bits) - 1u);
  incant_u32 D = (B - A) & M;
  return D != 0 && D < (1u << (Bits - 1));
}

/* Whether two strong accesses are morally strong for threads of one block
 * (\p SameBlock) or of two: each scope must include both threads. */
INCANT_RACE_HD int incant_race_morally_strong(incant_u32 FlagsA,
                                              incant_u32 FlagsB,
                                              int SameBlock) {
  incant_u32 Sa = (FlagsA >> INCANT_RACE_F_SCOPE_SHIFT) & 3u;
  incant_u32 Sb = (FlagsB >> INCANT_RACE_F_SCOPE_SHIFT) & 3u;
  if (!Sa || !Sb)
    return 0;
  if (SameBlock)
    return 1;
  return Sa >= INCANT_RACE_SCOPE_GPU && Sb >= INCANT_RACE_SCOPE_GPU;
}

/* The hazard of an earlier access with flags \p A and a later one with
 * \p B that conflict (at least one writes). */
INCANT_RACE_HD incant_u32 incant_race_hazard(incant_u32 A, incant_u32 B) {
  if ((A & INCANT_RACE_F_WRITE) && (B & INCANT_RACE_F_WRITE))
    return INCANT_RACE_WAW;
  return (A & INCANT_RACE_F_WRITE) ? INCANT_RACE_RAW : INCANT_RACE_WAR;
}

/* What the ordering rules need to know besides the two records: the
 * threads per block of the launch, and the release counts of the earlier
 * access's thread and block as they are when the later access runs
 * (RelC/RelG of its thread, full 32-bit; BlockRelC/G the highest barrier
 * count at which a thread of its block released). */
struct IncantRaceNow {
  incant_u32 Tpb;
  incant_u32 RelC, RelG;
  incant_u32 BlockRelC, BlockRelG;
};

/* Whether the earlier access \p A and the later access \p B (both valid,
 * of different threads) are ordered without the release rules. */
INCANT_RACE_HD int incant_race_ordered_by_barriers(struct IncantRaceRec A,
                                                   struct IncantRaceRec B,
                                                   incant_u32 Tpb) {
  incant_u32 Ta = incant_race_rec_tid(A.w0), Tb = incant_race_rec_tid(B.w0);
  if (Ta / Tpb != Tb / Tpb)
    return 0;
  if (incant_race_ahead(incant_race_rec_bar(B.w1), incant_race_rec_bar(A.w1),
                        16))
    return 1;
  if ((Ta % Tpb) / 32u == (Tb % Tpb) / 32u &&
      incant_race_ahead(incant_race_rec_ws(B.w1), incant_race_rec_ws(A.w1),
                        10))
    return 1;
  return 0;
}

/* Whether the earlier access was released before the later one, given
 * \p N (its thread's and block's releases now). */
INCANT_RACE_HD int incant_race_released(struct IncantRaceRec A,
                                        struct IncantRaceRec B,
                                        struct IncantRaceNow N) {
  incant_u32 Ta = incant_race_rec_tid(A.w0), Tb = incant_race_rec_tid(B.w0);
  int Same = Ta / N.Tpb == Tb / N.Tpb;
  incant_u32 Bar = incant_race_rec_bar(A.w1);
  if (Same)
    return ((N.RelC - incant_race_rec_relc(A.w1)) & 0xffu) != 0 ||
           incant_race_ahead(N.BlockRelC, Bar, 16);
  return ((N.RelG - incant_race_rec_relg(A.w1)) & 0xffu) != 0 ||
         incant_race_ahead(N.BlockRelG, Bar, 16);
}

/* Whether two accesses can race at all: different threads, a common byte,
 * a write, not morally strong. */
INCANT_RACE_HD int incant_race_conflict(struct IncantRaceRec A,
                                        struct IncantRaceRec B,
                                        incant_u32 Tpb) {
  incant_u32 Ta = incant_race_rec_tid(A.w0), Tb = incant_race_rec_tid(B.w0);
  incant_u32 Fa = incant_race_rec_flags(A.w0), Fb = incant_race_rec_flags(B.w0);
  incant_u32 Ma = incant_race_rec_mask(A.w1), Mb = incant_race_rec_mask(B.w1);
  /* A copy races with later accesses of the thread that issued it. */
  if ((Ta == Tb && !(Fa & INCANT_RACE_F_ASYNC)) || !(Ma & Mb))
    return 0;
  if (!((Fa | Fb) & INCANT_RACE_F_WRITE))
    return 0;
  if (Ma == Mb && incant_race_morally_strong(Fa, Fb, Ta / Tpb == Tb / Tpb))
    return 0;
  return 1;
}

/* The fold key of a race: both sites, hazard and space. Never 0. */
INCANT_RACE_HD incant_u64 incant_race_hit_key(incant_u32 WhereA,
                                              incant_u32 WhereB,
                                              incant_u32 Hazard,
                                              incant_u32 Space) {
  return ((incant_u64)(WhereA & 0xffffffu) << 40) |
         ((incant_u64)(WhereB & 0xffffffu) << 16) |
         ((incant_u64)(Hazard & 3u) << 4) | ((incant_u64)(Space & 3u) << 2) |
         1u;
}
INCANT_RACE_HD incant_u32 incant_race_hit_where_a(incant_u64 K) {
  return (incant_u32)(K >> 40) & 0xffffffu;
}
INCANT_RACE_HD incant_u32 incant_race_hit_where_b(incant_u64 K) {
  return (incant_u32)(K >> 16) & 0xffffffu;
}
INCANT_RACE_HD incant_u32 incant_race_hit_hazard(incant_u64 K) {
  return (incant_u32)(K >> 4) & 3u;
}
INCANT_RACE_HD incant_u32 incant_race_hit_space(incant_u64 K) {
  return (incant_u32)(K >> 2) & 3u;
}

/* The shadow key of a granule (4 bytes) in the current launch. Shared
 * memory is per block: its granule is the block's index and the offset. */
INCANT_RACE_HD incant_u64 incant_race_key(incant_u32 Launch, incant_u32 Space,
                                          incant_u64 Granule) {
  return ((incant_u64)(Launch & 0xffffu) << 47) |
         ((incant_u64)(Space == INCANT_RACE_SPACE_SHARED) << 46) |
         (Granule & ((1ull << 46) - 1));
}
INCANT_RACE_HD incant_u32 incant_race_key_launch(incant_u64 K) {
  return (incant_u32)(K >> 47) & 0xffffu;
}

/* stmt: the key of the 16-byte chunk of a logged lane address. */
#define INCANT_RACE_LOG_SHARED (1ull << 63)
INCANT_RACE_HD incant_u64 incant_race_chunk_key(incant_u32 Launch,
                                                incant_u64 Logged) {
  return incant_race_key(Launch,
                         (Logged & INCANT_RACE_LOG_SHARED)
                             ? INCANT_RACE_SPACE_SHARED
                             : INCANT_RACE_SPACE_GLOBAL,
                         (Logged & ~INCANT_RACE_LOG_SHARED) >> 4);
}

/* The slot a key hashes to. Eight consecutive granules stay together; their
 * group number goes through MurmurHash3's 64-bit finalizer (public domain),
 * whose every output bit depends on every input bit, so the table's mask can
 * take the low bits. (A bare product with 0x9E3779B97F4A7C15, read at bits
 * 29 to 47, put 131,072 consecutive groups on 16,559 slots: half the
 * granules of two 2 MB arrays found no free entry within 64 probes of a
 * table of 4M.) */
INCANT_RACE_HD incant_u32 incant_race_slot(incant_u64 K, incant_u32 Mask) {
  incant_u64 H = K >> 3;
  H ^= H >> 33;
  H *= 0xff51afd7ed558ccdull;
  H ^= H >> 33;
  H *= 0xc4ceb9fe1a85ec53ull;
  H ^= H >> 33;
  return (incant_u32)((H << 3) | (K & 7u)) & Mask;
}

/* The 4-bit byte mask of an access of \p Bytes bytes at \p Addr within its
 * granule (accesses are naturally aligned). */
INCANT_RACE_HD incant_u32 incant_race_byte_mask(incant_u64 Addr,
                                                incant_u32 Bytes) {
  if (Bytes >= 4)
    return 0xfu;
  return (((1u << Bytes) - 1u) << (Addr & 3u)) & 0xfu;
}

#endif /* INCANT_RACE_H */
