//===- inject_race.cpp - Dynamic race checking in the injected library ----===//
#include "inject_race.h"
#include "inject_config.h"
#include "incant_race.h"
#include "incant/Intercept/Protocol.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

extern "C" const char incant_race_check_ptx[];

namespace incant_inject {

namespace {

// Made once, never destroyed (see inject_core.cpp).
std::recursive_mutex &Mu = *new std::recursive_mutex;

struct RaceCtx {
  bool Tried = false, Ok = false;
  CUstream Priv = nullptr;
  CUdeviceptr State = 0;
  IncantRaceState H = {};
  CUdeviceptr Counters = 0, Hits = 0;
  size_t ThreadBytes = 0, BlockBytes = 0;
  CUfunction Bucket = nullptr, Pairs = nullptr;
  CUevent Done = nullptr;
  bool HavePrev = false;
  CUstream PrevStream = nullptr;
  int SMs = 0;
  uint32_t Tag = 0;
  std::map<uint32_t, std::string> TagKernel; ///< Launch tag -> kernel.
  uint64_t Unread = 0; ///< Checked launches since the tables were read.
};
std::map<CUcontext, RaceCtx> &Ctxs = *new std::map<CUcontext, RaceCtx>;
std::set<std::pair<CUmodule, std::string>> &SetUnits =
    *new std::set<std::pair<CUmodule, std::string>>;

/// Unit ids by slot (the slot is what records carry).
std::vector<std::string> &Slots = *new std::vector<std::string>;

/// A folded race as read back.
struct Found {
  IncantRaceHit Hit;
  std::string Kernel;
};
std::map<uint64_t, Found> &Races = *new std::map<uint64_t, Found>;
uint64_t Counters[INCANT_RACE_COUNTERS];
uint64_t Checked = 0, Unchecked = 0;
/// Launches the driver refused, and the first one's error and kernel.
uint64_t Failed = 0;
int FailedError = 0;
std::string FailedKernel;
/// Why the tables of some checked launches could not be read back (the
/// context failed, e.g. a kernel's illegal address): those launches count
/// as unchecked, and the report says so.
std::string &Lost = *new std::string;
std::map<std::string, uint64_t> &KernelLaunches =
    *new std::map<std::string, uint64_t>;
bool Written = false;

const RaceConfig &rcfg() { return config().Race; }

bool ok(CUresult R, const char *What) {
  if (R == CUDA_SUCCESS)
    return true;
  addNote(std::string("race: ") + What + " failed (CUDA error " +
          std::to_string(R) + ")");
  return false;
}

uint32_t pow2Below(uint64_t N) {
  uint64_t P = 1;
  while (P * 2 <= N && P < (1u << 31))
    P *= 2;
  return uint32_t(P);
}

// The device reads and writes each record in one 16-byte access.
static_assert(sizeof(IncantRaceEntry) % 16 == 0 &&
                  offsetof(IncantRaceEntry, write) % 16 == 0 &&
                  offsetof(IncantRaceEntry, read1) % 16 == 0 &&
                  offsetof(IncantRaceEntry, read2) % 16 == 0,
              "shadow records must be 16-byte aligned");

/// Allocates \p Bytes of device memory, zeroed on stream \p S.
bool alloc(CUdeviceptr &P, size_t Bytes, const char *What, CUstream S) {
  const Driver &D = driver();
  return ok(memAllocApart(&P, Bytes ? Bytes : 4), What) &&
         ok(D.cuMemsetD32Async(P, 0, (Bytes + 3) / 4, S), What);
}

bool writeState(RaceCtx &R) {
  const Driver &D = driver();
  return ok(D.cuMemcpyHtoDAsync(R.State, &R.H, sizeof R.H, R.Priv),
            "writing the checker's state") &&
         ok(D.cuStreamSynchronize(R.Priv), "cuStreamSynchronize");
}

/// The checker's tables in context \p C (made on first use).
RaceCtx *ensure(CUcontext C) {
  RaceCtx &R = Ctxs[C];
  if (R.Tried)
    return R.Ok ? &R : nullptr;
  R.Tried = true;
  const Driver &D = driver();
  const RaceConfig &K = rcfg();
  if (!D.cuMemAlloc || !D.cuMemFree || !D.cuStreamWaitEvent ||
      !D.cuCtxSynchronize) {
    addNote("race: the driver lacks an entry point the checker needs");
    return nullptr;
  }
  if (!ok(D.cuStreamCreate(&R.Priv, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !ok(D.cuEventCreate(&R.Done, 2 /* CU_EVENT_DISABLE_TIMING */),
          "cuEventCreate"))
    return nullptr;
  CUdevice Dev = 0;
  D.cuCtxGetDevice(&Dev);
  D.cuDeviceGetAttribute(&R.SMs, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Dev);
  IncantRaceState &H = R.H;
  H.scheme = K.Scheme;
  H.shadowMask = pow2Below(uint64_t(K.ShadowMB) << 20 >> 6) - 1;
  H.maxProbe = K.Probe;
  H.hitMask = pow2Below(K.Hits) - 1;
  if (H.hitMask + 1 < K.Hits)
    H.hitMask = H.hitMask * 2 + 1;
  H.walkCap = K.Walk;
  CUdeviceptr P = 0;
  if (!alloc(R.State, sizeof H, "allocating the checker's state", R.Priv) ||
      !alloc(P, size_t(H.shadowMask + 1) * sizeof(IncantRaceEntry),
             "allocating the shadow", R.Priv))
    return nullptr;
  H.shadow = P;
  if (!alloc(R.Hits, size_t(H.hitMask + 1) * sizeof(IncantRaceHit),
             "allocating the race table", R.Priv) ||
      !alloc(R.Counters,
             INCANT_RACE_COUNTERS * INCANT_RACE_COUNTER_COPIES * 8,
             "allocating the counters", R.Priv))
    return nullptr;
  H.hits = R.Hits;
  H.counters = R.Counters;
  if (K.Scheme == INCANT_RACE_SCHEME_STMT) {
    H.logCap = uint32_t((uint64_t(K.LogMB) << 20) / sizeof(IncantRaceLogEntry));
    if (!alloc(P, size_t(H.logCap) * sizeof(IncantRaceLogEntry),
               "allocating the statement log", R.Priv))
      return nullptr;
    H.log = P;
    if (!alloc(P, size_t(H.logCap) * 32 * 4, "allocating the log chains", R.Priv))
      return nullptr;
    H.next = P;
    CUmodule M = nullptr;
    if (!incant_race_check_ptx[0]) {
      addNote("race: this injected library was built without nvcc, so "
              "without the stmt scheme's checking kernels");
      return nullptr;
    }
    if (!ok(D.cuModuleLoadData(&M, incant_race_check_ptx),
            "loading the checking kernels") ||
        !ok(D.cuModuleGetFunction(&R.Bucket, M, "incant_race_bucket"),
            "cuModuleGetFunction") ||
        !ok(D.cuModuleGetFunction(&R.Pairs, M, "incant_race_pairs"),
            "cuModuleGetFunction"))
      return nullptr;
  }
  if (!ok(D.cuStreamSynchronize(R.Priv), "cuStreamSynchronize") ||
      !writeState(R))
    return nullptr;
  R.Ok = true;
  return &R;
}

/// Makes the table \p Table of \p Cap entries of \p Elem bytes hold at
/// least \p Need entries: a new zeroed table of the power of two at or above
/// \p Need (the old one freed), or nothing where it is large enough.
bool grow(incant_u64 &Table, incant_u32 &Cap, uint64_t Need, size_t Elem,
          const char *What, CUstream S) {
  if (Need <= Cap)
    return true;
  if (Table)
    memFreeApart(Table);
  Table = 0;
  Cap = 0;
  uint64_t NewCap = pow2Below(Need);
  if (NewCap < Need)
    NewCap *= 2;
  CUdeviceptr P = 0;
  if (!alloc(P, NewCap * Elem, What, S))
    return false;
  Table = P;
  Cap = uint32_t(NewCap);
  return true;
}

/// Per-thread and per-block counters for a launch of \p Threads threads
/// in \p Blocks blocks; grows them (the context synchronised first).
bool fit(RaceCtx &R, uint64_t Threads, uint64_t Blocks) {
  if (Threads > 0xffffffffull || Blocks > 0xffffffffull) {
    addNote("race: a launch of more than 2^32 threads is not checked");
    return false;
  }
  if (Threads <= R.H.threadCap && Blocks <= R.H.blockCap)
    return true;
  const Driver &D = driver();
  if (!ok(D.cuCtxSynchronize(), "cuCtxSynchronize"))
    return false;
  // The threads' sync states (made valid by each thread for its launch)
  // grow with the thread counters, to the same capacity.
  incant_u32 SyncCap = R.H.threadCap;
  if (!grow(R.H.syncs, SyncCap, Threads, sizeof(IncantRaceSync),
            "allocating thread sync states", R.Priv) ||
      !grow(R.H.threads, R.H.threadCap, Threads, sizeof(IncantRaceThread),
            "allocating thread counters", R.Priv) ||
      !grow(R.H.blocks, R.H.blockCap, Blocks, sizeof(IncantRaceBlock),
            "allocating block counters", R.Priv))
    return false;
  return ok(D.cuStreamSynchronize(R.Priv), "cuStreamSynchronize") &&
         writeState(R);
}

void harvestContext(RaceCtx &R) {
  const Driver &D = driver();
  std::vector<IncantRaceHit> T(size_t(R.H.hitMask) + 1);
  std::vector<uint64_t> C(INCANT_RACE_COUNTERS * INCANT_RACE_COUNTER_COPIES);
  if (!ok(D.cuMemcpyDtoHAsync(T.data(), R.Hits, T.size() * sizeof T[0], R.Priv),
          "reading the races") ||
      !ok(D.cuMemcpyDtoHAsync(C.data(), R.Counters, C.size() * 8, R.Priv),
          "reading the counters") ||
      !ok(D.cuStreamSynchronize(R.Priv), "cuStreamSynchronize"))
    return;
  for (const IncantRaceHit &X : T) {
    if (!X.key || !X.count)
      continue;
    auto [It, New] = Races.try_emplace(X.key);
    if (New) {
      It->second.Hit = X;
      auto K = R.TagKernel.find(X.launch);
      It->second.Kernel = K == R.TagKernel.end() ? "" : K->second;
    } else {
      It->second.Hit.count += X.count;
    }
  }
  for (size_t I = 0; I < C.size(); ++I)
    Counters[I % INCANT_RACE_COUNTERS] += C[I];
  D.cuMemsetD32Async(R.Hits, 0, T.size() * sizeof T[0] / 4, R.Priv);
  D.cuMemsetD32Async(R.Counters, 0, C.size() * 2, R.Priv);
  D.cuStreamSynchronize(R.Priv);
}

const char *hazardName(uint32_t H) {
  return H == INCANT_RACE_RAW ? "RAW" : H == INCANT_RACE_WAR ? "WAR" : "WAW";
}

std::string unitOfSlot(uint32_t Where) {
  uint32_t Slot = Where >> 18;
  return Slot < Slots.size() ? Slots[Slot] : "";
}

} // namespace

bool raceOn() { return config().Race.Scheme != 0; }

bool raceSetUnit(CUcontext Ctx, CUmodule M, const std::string &Id) {
  if (!raceOn())
    return false;
  std::lock_guard<std::recursive_mutex> G(Mu);
  const Driver &D = driver();
  CUdeviceptr P = 0;
  size_t Size = 0;
  std::string Name = INCANT_RACE_PREFIX + Id;
  if (D.cuModuleGetGlobal(&P, &Size, M, Name.c_str()) != CUDA_SUCCESS ||
      Size < INCANT_RACE_UNIT_BYTES)
    return false;
  if (SetUnits.count({M, Id}))
    return true;
  RaceCtx *R = ensure(Ctx);
  if (!R)
    return false;
  uint64_t Slot = 0;
  while (Slot < Slots.size() && Slots[Slot] != Id)
    ++Slot;
  if (Slot == Slots.size()) {
    if (Slots.size() == INCANT_RACE_MAX_UNITS) {
      addNote("race: more than 64 instrumented units in one process; the "
              "rest are not checked");
      return false;
    }
    Slots.push_back(Id);
  }
  uint64_t V[2] = {R->State, Slot};
  if (!ok(D.cuMemcpyHtoDAsync(P, V, sizeof V, R->Priv), "setting a unit") ||
      !ok(D.cuStreamSynchronize(R->Priv), "cuStreamSynchronize"))
    return false;
  SetUnits.insert({M, Id});
  trace("race: unit %s slot %llu", Id.c_str(), (unsigned long long)Slot);
  return true;
}

bool racePrepare(CUcontext Ctx, const Launch &L, CUstream App) {
  std::lock_guard<std::recursive_mutex> G(Mu);
  RaceCtx *R = ensure(Ctx);
  if (!R)
    return false;
  const Driver &D = driver();
  int Capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  if (D.cuStreamIsCapturing &&
      D.cuStreamIsCapturing(App, &Capturing) == CUDA_SUCCESS &&
      Capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
    ++Unchecked;
    addNote("race: launches captured into CUDA graphs are checked as part "
            "of the launch before them");
    return false;
  }
  uint64_t Blocks = uint64_t(L.Grid[0]) * L.Grid[1] * L.Grid[2];
  if (!fit(*R, Blocks * L.Block[0] * L.Block[1] * L.Block[2], Blocks)) {
    ++Unchecked;
    return false;
  }
  return true;
}

void raceBefore(CUcontext Ctx, const Launch &L, CUstream App,
                const std::string &Kernel) {
  std::lock_guard<std::recursive_mutex> G(Mu);
  RaceCtx *R = &Ctxs[Ctx];
  const Driver &D = driver();
  uint64_t Blocks = uint64_t(L.Grid[0]) * L.Grid[1] * L.Grid[2];
  uint64_t Threads = Blocks * L.Block[0] * L.Block[1] * L.Block[2];
  // One checked launch at a time: the tables are the context's.
  if (R->HavePrev && R->PrevStream != App)
    ok(D.cuStreamWaitEvent(App, R->Done, 0), "cuStreamWaitEvent");
  if (++R->Tag > 0xffffu) {
    // Shadow keys carry 16 bits of the tag: start again from a clean
    // shadow (and keep the races found so far).
    ok(D.cuCtxSynchronize(), "cuCtxSynchronize");
    harvestContext(*R);
    R->TagKernel.clear();
    R->Tag = 1;
    ok(D.cuMemsetD32Async(R->H.shadow, 0,
                          size_t(R->H.shadowMask + 1) *
                              sizeof(IncantRaceEntry) / 4,
                          App),
       "clearing the shadow");
    // Sync states are valid for the launch tag they hold: tags start over.
    if (R->H.syncs)
      ok(D.cuMemsetD32Async(R->H.syncs, 0,
                            size_t(R->H.threadCap) * sizeof(IncantRaceSync) / 4,
                            App),
         "clearing the sync states");
  }
  R->TagKernel[R->Tag] = Kernel;
  ok(D.cuMemsetD32Async(R->State + offsetof(IncantRaceState, launch), R->Tag,
                        1, App),
     "cuMemsetD32Async");
  if (R->H.scheme == INCANT_RACE_SCHEME_STMT)
    ok(D.cuMemsetD32Async(R->State + offsetof(IncantRaceState, logCount), 0,
                          1, App),
       "cuMemsetD32Async");
  ok(D.cuMemsetD32Async(R->H.threads, 0,
                        Threads * sizeof(IncantRaceThread) / 4, App),
     "cuMemsetD32Async");
  ok(D.cuMemsetD32Async(R->H.blocks, 0, Blocks * sizeof(IncantRaceBlock) / 4,
                        App),
     "cuMemsetD32Async");
  ++Checked;
  ++R->Unread;
  ++KernelLaunches[Kernel];
}

void raceAfter(CUcontext Ctx, const Launch &L, CUstream App, CUresult Res,
               const std::string &Kernel) {
  (void)L;
  std::lock_guard<std::recursive_mutex> G(Mu);
  auto It = Ctxs.find(Ctx);
  if (It == Ctxs.end() || !It->second.Ok)
    return;
  RaceCtx &R = It->second;
  const Driver &D = driver();
  if (Res != CUDA_SUCCESS) {
    // The launch never ran (too many registers or too much shared memory
    // for its block, a bad configuration): nothing of it was checked.
    --Checked;
    ++Unchecked;
    if (R.Unread)
      --R.Unread;
    auto K = KernelLaunches.find(Kernel);
    if (K != KernelLaunches.end() && --K->second == 0)
      KernelLaunches.erase(K);
    if (Failed++ == 0) {
      FailedError = int(Res);
      FailedKernel = Kernel;
    }
  }
  if (Res == CUDA_SUCCESS && R.H.scheme == INCANT_RACE_SCHEME_STMT) {
    void *Args[] = {&R.State};
    unsigned Grid = unsigned(R.SMs > 0 ? R.SMs : 1) * 8;
    ok(D.cuLaunchKernel(R.Bucket, Grid, 1, 1, 256, 1, 1, 0, App, Args,
                        nullptr),
       "launching the log's bucketing kernel");
    ok(D.cuLaunchKernel(R.Pairs, Grid, 1, 1, 256, 1, 1, 0, App, Args,
                        nullptr),
       "launching the log's checking kernel");
  }
  if (ok(D.cuEventRecord(R.Done, App), "cuEventRecord")) {
    R.HavePrev = true;
    R.PrevStream = App;
  }
}

void raceHarvest() {
  if (!raceOn())
    return;
  std::lock_guard<std::recursive_mutex> G(Mu);
  const Driver &D = driver();
  CUcontext Cur = nullptr;
  if (!D.cuCtxGetCurrent || D.cuCtxGetCurrent(&Cur) != CUDA_SUCCESS || !Cur)
    return;
  auto It = Ctxs.find(Cur);
  if (It == Ctxs.end() || !It->second.Ok)
    return;
  CUresult Sync = D.cuCtxSynchronize();
  if (ok(Sync, "cuCtxSynchronize")) {
    harvestContext(It->second);
    It->second.Unread = 0;
    return;
  }
  // A failed context keeps nothing: the launches since the last read are
  // lost, not race-free.
  Checked -= It->second.Unread;
  Unchecked += It->second.Unread;
  It->second.Unread = 0;
  if (Lost.empty())
    Lost = "CUDA error " + std::to_string(Sync);
}

void raceContextGone() {
  if (!raceOn())
    return;
  std::lock_guard<std::recursive_mutex> G(Mu);
  raceHarvest();
  CUcontext Cur = nullptr;
  const Driver &D = driver();
  if (D.cuCtxGetCurrent && D.cuCtxGetCurrent(&Cur) == CUDA_SUCCESS && Cur) {
    Ctxs.erase(Cur);
    SetUnits.clear();
  }
}

void raceWrite() {
  if (!raceOn())
    return;
  raceHarvest();
  std::lock_guard<std::recursive_mutex> G(Mu);
  if (Written || rcfg().Out.empty())
    return;
  Written = true;
  static const char *CounterNames[] = {
      INCANT_RACE_COUNTER_ACCESSES,    INCANT_RACE_COUNTER_WARP_ACCESSES,
      INCANT_RACE_COUNTER_SHADOW_FULL, INCANT_RACE_COUNTER_BUSY,
      INCANT_RACE_COUNTER_LOG_FULL,    INCANT_RACE_COUNTER_NOT_FOLDED,
      INCANT_RACE_COUNTER_HAZARDS,     INCANT_RACE_COUNTER_CAPPED,
      INCANT_RACE_COUNTER_OTHER_SPACE, INCANT_RACE_COUNTER_SYNC_LOST,
      INCANT_RACE_COUNTER_COPY_BYTES};
  static_assert(sizeof CounterNames / sizeof *CounterNames <=
                sizeof Counters / sizeof *Counters);
  using nlohmann::ordered_json;
  ordered_json J;
  J[INCANT_RACE_REPORT_SCHEME] =
      rcfg().Scheme == INCANT_RACE_SCHEME_STMT ? "stmt" : "addr";
  J[INCANT_RACE_REPORT_CHECKED] = Checked;
  J[INCANT_RACE_REPORT_UNCHECKED] = Unchecked;
  if (!Lost.empty())
    J[INCANT_RACE_REPORT_LOST] = Lost;
  if (Failed) {
    J[INCANT_RACE_REPORT_FAILED] = Failed;
    J[INCANT_RACE_REPORT_FAILED_ERROR] = FailedError;
    J[INCANT_RACE_REPORT_FAILED_KERNEL] = FailedKernel;
  }
  ordered_json &Cs = J[INCANT_RACE_REPORT_COUNTERS] = ordered_json::object();
  for (size_t I = 0; I < sizeof CounterNames / sizeof *CounterNames; ++I)
    Cs[CounterNames[I]] = Counters[I];
  J[INCANT_RACE_REPORT_UNITS] = Slots;
  ordered_json &Ks = J[INCANT_RACE_REPORT_KERNELS] = ordered_json::array();
  for (const auto &[Name, N] : KernelLaunches)
    Ks.push_back({{INCANT_RACE_REPORT_KERNEL_NAME, Name},
                  {INCANT_RACE_REPORT_KERNEL_LAUNCHES, N}});
  ordered_json &Rs = J[INCANT_RACE_REPORT_RACES] = ordered_json::array();
  for (const auto &[Key, F] : Races) {
    const IncantRaceHit &H = F.Hit;
    uint32_t A = incant_race_hit_where_a(Key), B = incant_race_hit_where_b(Key);
    auto Side = [&](uint32_t Where, uint32_t Tid) {
      return ordered_json{{INCANT_RACE_SIDE_UNIT, unitOfSlot(Where)},
                          {INCANT_RACE_SIDE_SITE, Where & INCANT_RACE_SITE_MASK},
                          {INCANT_RACE_SIDE_TID, Tid}};
    };
    Rs.push_back(
        {{INCANT_RACE_HAZARD, hazardName(incant_race_hit_hazard(Key))},
         {INCANT_RACE_SPACE,
          incant_race_hit_space(Key) == INCANT_RACE_SPACE_SHARED ? "shared"
                                                                 : "global"},
         {INCANT_RACE_COUNT, H.count},
         {INCANT_RACE_ADDRESS, H.addr},
         {INCANT_RACE_A, Side(A, H.tidA)},
         {INCANT_RACE_B, Side(B, H.tidB)},
         {INCANT_RACE_NTID, {H.ntidX, H.ntidY, H.ntidZ}},
         {INCANT_RACE_NCTAID, {H.nctaidX, H.nctaidY}},
         {INCANT_RACE_KERNEL, F.Kernel}});
  }
  std::string Text = jsonText(J) + "\n";
  if (FILE *F = std::fopen(rcfg().Out.c_str(), "w")) {
    std::fputs(Text.c_str(), F);
    std::fclose(F);
  }
}

} // namespace incant_inject
