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
  if (Space == INCANT_RACE_SPACE_GENERIC) {
    if (__isShared((const void *)Addr)) {
      Space = INCANT_RACE_SPACE_SHARED;
      Addr = __cvta_generic_to_shared((const void *)Addr);
    } else if (__isGlobal((const void *)Addr)) {
      Space = INCANT_RACE_SPACE_GLOBAL;
    } else {
      C.count(INCANT_RACE_CNT_SPACE_OTHER, 1, W.Warp);
      return; // local or constant memory: private or read-only
    }
  }
  incant_u64 Logged = IncantRaceDeviceChecker::logged(Space, W.Blk, Addr);

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
    C.recordAccess(W.Tid, W.Blk, Unit, Info & ~INCANT_RACE_RELEASE, Space,
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
