/*===- incant_race_hooks.cu - What instrumented kernels call --------------===//
 *
 * Compiled to PTX (compute_70, -rdc) when incant is built; the pass "race"
 * copies these two functions into every unit it instruments, renamed after
 * the unit (incant_race.h says how), together with the unit's variable
 * incant_race_unit (the state pointer and the unit's slot).
 *
 *   incant_race_access(addr, info)  before every instrumented access: the
 *       intra-warp check of the lanes that run the same access together
 *       (at once), then the scheme: addr checks the shadow entry of each
 *       granule and records the access; stmt logs the warp's access for
 *       the checking kernels that run after the launch.
 *   incant_race_sync(kind)          after barriers and warp barriers,
 *                                   before fences.
 *   incant_race_obj(kind, addr, aux) around operations on synchronisation
 *       objects (named barriers with a count, mbarriers, the cluster
 *       barrier) and cp.async groups (INCANT_RACE_OBJ_*).
 *   incant_race_copy(dst, src, mbar, bytes, info)  before an asynchronous
 *       copy from global into shared memory.
 *
 * Compiled twice: for compute_75, and for compute_90 (modules for sm_90
 * and later), where distributed shared memory (an address in another
 * block of the cluster, generic or .shared::cluster) is checked as the
 * owning block's shared memory and the cluster barrier is followed.
 *
 * Both return at once when the unit's variable is zero (the program runs
 * without incant, or checking is off).
 *
 *===----------------------------------------------------------------------===*/
#include "incant_race_device.h"

extern "C" __device__ incant_u64 incant_race_unit[2];

namespace {

struct Who {
  incant_u32 Tid, Blk, Tpb, Lane, Warp;
  incant_u32 Geom[5];
};

__device__ __forceinline__ Who who() {
  Who W;
  W.Geom[0] = blockDim.x;
  W.Geom[1] = blockDim.y;
  W.Geom[2] = blockDim.z;
  W.Geom[3] = gridDim.x;
  W.Geom[4] = gridDim.y;
  W.Tpb = blockDim.x * blockDim.y * blockDim.z;
  W.Blk = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  incant_u32 T = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x +
                 threadIdx.x;
  W.Tid = W.Blk * W.Tpb + T;
  W.Lane = T % 32;
  W.Warp = W.Blk * ((W.Tpb + 31) / 32) + T / 32;
  return W;
}

/* The block of the cluster that owns shared address \p A and the offset in
 * its shared memory; false where \p A is not shared memory of the cluster.
 * \p Generic: a generic address, else a .shared::cluster one. */
__device__ __forceinline__ bool sharedOwner(incant_u64 A, bool Generic,
                                            const Who &W, incant_u32 &Blk,
                                            incant_u32 &Off) {
  Blk = W.Blk;
  if (Generic && __isShared((const void *)A)) {
    Off = (incant_u32)__cvta_generic_to_shared((const void *)A);
    return true;
  }
#if __CUDA_ARCH__ >= 900
  if (Generic && !__isClusterShared((const void *)A))
    return false;
  incant_u32 Rank, Mine, Nx, Ny, Cx, Cy, Cz;
  if (Generic) {
    asm("getctarank.u64 %0, %1;" : "=r"(Rank) : "l"(A));
  } else {
    asm("getctarank.shared::cluster.u32 %0, %1;" : "=r"(Rank) : "r"((incant_u32)A));
  }
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(Mine));
  if (Generic) {
    incant_u64 Own;
    asm("mapa.u64 %0, %1, %2;" : "=l"(Own) : "l"(A), "r"(Mine));
    Off = (incant_u32)__cvta_generic_to_shared((const void *)Own);
  } else {
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(Off) : "r"((incant_u32)A), "r"(Mine));
  }
  if (Rank == Mine)
    return true;
  asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(Nx));
  asm("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(Ny));
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(Cx));
  asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(Cy));
  asm("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(Cz));
  incant_u32 X = blockIdx.x - Cx + Rank % Nx;
  incant_u32 Y = blockIdx.y - Cy + (Rank / Nx) % Ny;
  incant_u32 Z = blockIdx.z - Cz + Rank / (Nx * Ny);
  Blk = (Z * gridDim.y + Y) * gridDim.x + X;
  return true;
#else
  if (!Generic) { // .shared::cluster in a module for an older target
    Off = (incant_u32)A;
    return true;
  }
  return false;
#endif
}

__device__ __forceinline__ IncantRaceState *state(incant_u32 &Unit) {
  const volatile incant_u64 *U = incant_race_unit;
  IncantRaceState *S = (IncantRaceState *)U[0];
  Unit = (incant_u32)U[1];
  return S;
}

} // namespace

extern "C" __device__ __noinline__ void incant_race_access(incant_u64 Addr,
                                                           incant_u32 Info) {
  incant_u32 Unit;
  IncantRaceState *S = state(Unit);
  if (!S)
    return;
  incant_u32 Scheme = *(volatile incant_u32 *)&S->scheme;
  if (!Scheme)
    return;
  IncantRaceDeviceChecker C = {S};
  Who W = who();
  incant_u32 Space = incant_race_info_space(Info);
  incant_u32 Blk = W.Blk; // whose shared memory
  if (Space == INCANT_RACE_SPACE_GENERIC && __isGlobal((const void *)Addr)) {
    Space = INCANT_RACE_SPACE_GLOBAL;
  } else if (Space == INCANT_RACE_SPACE_GENERIC ||
             Space == INCANT_RACE_SPACE_CLUSTER) {
    incant_u32 Off;
    if (!sharedOwner(Addr, Space == INCANT_RACE_SPACE_GENERIC, W, Blk, Off)) {
      C.count(INCANT_RACE_CNT_SPACE_OTHER, 1, W.Warp);
      return; // local or constant memory: private or read-only
    }
    Space = INCANT_RACE_SPACE_SHARED;
    Addr = Off;
  }
  incant_u64 Logged = IncantRaceDeviceChecker::logged(Space, Blk, Addr);

  // The lanes running this access together; the first counts them. Lanes
  // that reached this function from different access sites can run it
  // together (independent thread scheduling reconverges them here), so
  // the group is the active lanes with the same info word (the same site).
  incant_u32 Active = __activemask();
  incant_u32 Group = __match_any_sync(Active, Info);
  incant_u32 First = __ffs(Group) - 1;
  if (W.Lane == First) {
    C.count(INCANT_RACE_CNT_ACCESSES, __popc(Group), W.Warp);
    C.count(INCANT_RACE_CNT_WARP_ACCESSES, 1, W.Warp);
  }

  // Intra-warp: lanes of this instruction that touch the same address.
  incant_u32 Peers = __match_any_sync(Active, Logged) & Group;
  incant_u32 Leader = __ffs(Peers) - 1;
  if (__popc(Peers) > 1 && W.Lane == Leader)
    C.intraWarp(W.Tid, W.Tid - W.Lane + (__ffs(Peers & ~(1u << Leader)) - 1),
                Unit, Info, Space, Logged, W.Geom, W.Warp);

  if (Scheme == INCANT_RACE_SCHEME_STMT) {
    incant_u32 Pos = 0;
    if (W.Lane == First)
      Pos = atomicAdd(&S->logCount, 1u);
    Pos = __shfl_sync(Group, Pos, First);
    if (Pos >= S->logCap) {
      if (W.Lane == First)
        C.count(INCANT_RACE_CNT_LOG_FULL, __popc(Group), W.Warp);
      return;
    }
    if (Info & INCANT_RACE_RELEASE)
      C.release(W.Tid, W.Blk, incant_race_info_scope(Info), Pos);
    IncantRaceLogEntry *L = (IncantRaceLogEntry *)S->log + Pos;
    C.logLane(L, W.Lane, W.Tid, Logged);
    if (W.Lane == First)
      IncantRaceDeviceChecker::logHeader(L, W.Warp, Unit, Info, Group, W.Geom);
    return;
  }

  // addr: every lane releases; one lane per address records the access (a
  // second lane of the same address was compared above and would add
  // nothing).
  if (Info & INCANT_RACE_RELEASE)
    C.release(W.Tid, W.Blk, incant_race_info_scope(Info), 0);
  if (W.Lane == Leader)
    C.recordAccess(W.Tid, Blk, Unit, Info & ~INCANT_RACE_RELEASE, Space,
                   Addr, W.Geom, W.Warp);
}

extern "C" __device__ __noinline__ void incant_race_sync(incant_u32 Kind) {
  incant_u32 Unit;
  IncantRaceState *S = state(Unit);
  if (!S || !*(volatile incant_u32 *)&S->scheme)
    return;
  IncantRaceDeviceChecker C = {S};
  Who W = who();
  switch (Kind) {
  case INCANT_RACE_SYNC_CTA:
    C.barrier(W.Tid);
    break;
  case INCANT_RACE_SYNC_WARP:
    C.warpBarrier(W.Tid);
    break;
  default:
    C.release(W.Tid, W.Blk,
              Kind == INCANT_RACE_SYNC_FENCE_CTA ? INCANT_RACE_SCOPE_CTA
                                                 : INCANT_RACE_SCOPE_GPU,
              *(volatile incant_u32 *)&S->logCount);
    break;
  }
}

extern "C" __device__ __noinline__ void
incant_race_obj(incant_u32 Kind, incant_u64 Addr, incant_u32 Aux) {
  incant_u32 Unit;
  IncantRaceState *S = state(Unit);
  if (!S || !*(volatile incant_u32 *)&S->scheme)
    return;
  IncantRaceDeviceChecker C = {S};
  Who W = who();
  incant_u32 Pos = *(volatile incant_u32 *)&S->logCount;
  incant_u32 K = Kind & 0xffu, Blk = W.Blk, A = (incant_u32)Addr;
  if ((K >= INCANT_RACE_OBJ_MBAR_INIT && K <= INCANT_RACE_OBJ_MBAR_WAIT) ||
      K == INCANT_RACE_OBJ_CP_MBAR) {
    if (!sharedOwner(Addr, Kind & INCANT_RACE_OBJ_GENERIC, W, Blk, A)) {
      C.count(INCANT_RACE_CNT_SYNC_LOST, 1, W.Warp);
      return;
    }
    if (Blk != W.Blk) {
      // Another block's mbarrier: its phases are not followed.
      C.mbarLost(Blk, A, W.Warp);
      return;
    }
  }
  switch (K) {
  case INCANT_RACE_OBJ_BAR_ARRIVE:
    C.arrive(W.Tid, Blk, A & 15u, Aux ? Aux : W.Tpb, 1, 1, W.Warp);
    break;
  case INCANT_RACE_OBJ_BAR_WAIT:
    C.waitOwn(W.Tid, Blk, A & 15u, Pos, W.Warp);
    break;
  case INCANT_RACE_OBJ_CLUSTER_ARRIVE:
  case INCANT_RACE_OBJ_CLUSTER_WAIT: {
#if __CUDA_ARCH__ >= 900
    incant_u32 N, Cx, Cy, Cz;
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(N));
    asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(Cx));
    asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(Cy));
    asm("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(Cz));
    incant_u32 First = ((blockIdx.z - Cz) * gridDim.y + (blockIdx.y - Cy)) *
                           gridDim.x + (blockIdx.x - Cx);
    if (K == INCANT_RACE_OBJ_CLUSTER_ARRIVE)
      C.clusterArrive(W.Tid, First, N * W.Tpb, W.Warp);
    else
      C.clusterWait(W.Tid, First, Pos, W.Warp);
#else
    C.count(INCANT_RACE_CNT_SYNC_LOST, 1, W.Warp);
#endif
    break;
  }
  case INCANT_RACE_OBJ_MBAR_INIT:
    C.mbarInit(Blk, A, Aux, W.Warp);
    break;
  case INCANT_RACE_OBJ_MBAR_ARRIVE:
    C.arrive(W.Tid, Blk, C.mbarObj(Blk, A, 0, W.Warp), 0, Aux ? Aux : 1, 1,
             W.Warp);
    break;
  case INCANT_RACE_OBJ_MBAR_LOST:
    C.mbarLost(Blk, A, W.Warp);
    break;
  case INCANT_RACE_OBJ_MBAR_WAIT:
    C.mbarWait(W.Tid, Blk, A, Aux, Pos, W.Warp);
    break;
  case INCANT_RACE_OBJ_CP_COMMIT:
    C.cpCommit(W.Tid);
    break;
  case INCANT_RACE_OBJ_CP_WAIT:
  case INCANT_RACE_OBJ_CP_WAIT_ALL:
    C.cpWait(W.Tid, Aux, K == INCANT_RACE_OBJ_CP_WAIT_ALL, Pos);
    break;
  case INCANT_RACE_OBJ_CP_MBAR:
    C.cpMbarArrive(W.Tid, Blk, A, Aux, W.Warp);
    break;
  default:
    C.count(INCANT_RACE_CNT_SYNC_LOST, 1, W.Warp);
    break;
  }
}

extern "C" __device__ __noinline__ void
incant_race_copy(incant_u64 Dst, incant_u64 Src, incant_u64 Mbar,
                 incant_u32 Bytes, incant_u32 Info) {
  incant_u32 Unit;
  IncantRaceState *S = state(Unit);
  if (!S || !*(volatile incant_u32 *)&S->scheme)
    return;
  IncantRaceDeviceChecker C = {S};
  Who W = who();
  bool Cluster = incant_race_info_space(Info) == INCANT_RACE_SPACE_CLUSTER;
  incant_u32 Blk, Off, MBlk, MOff;
  if (!sharedOwner(Dst, false, W, Blk, Off) || (!Cluster && Blk != W.Blk)) {
    C.count(INCANT_RACE_CNT_SPACE_OTHER, 1, W.Warp);
    return;
  }
  incant_u32 Done;
  if (Info & INCANT_RACE_COPY_MBAR) {
    // The mbarrier is in the destination's block.
    if (!sharedOwner(Mbar, false, W, MBlk, MOff) || MBlk != Blk) {
      C.count(INCANT_RACE_CNT_SYNC_LOST, 1, W.Warp);
      return;
    }
    Done = C.bulkDone(Blk, MOff, W.Warp);
  } else {
    Done = C.groupDone(W.Tid);
  }
  C.copy(W.Tid, W.Warp, W.Lane, Blk, Unit, incant_race_info_site(Info), Off,
         Src, Bytes, Done, W.Geom);
}
