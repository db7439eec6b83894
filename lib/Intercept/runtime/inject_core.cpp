//===- inject_core.cpp - Control variables, stress, timing, report --------===//
//
// Everything here runs inside the application's process, under one mutex,
// and calls the driver only through the real entry points (never through
// our own hooks). Control variables are written on a private non-blocking
// stream that the library synchronises at once, so they are in device
// memory before the launch that reads them is even made, and nothing of
// the application's work is waited for (a kernel may be waiting for a
// later launch).
//
//===----------------------------------------------------------------------===//
#include "inject_config.h"
#include "inject_core.h"
#include "inject_race.h"
#include "incant/Intercept/Protocol.h"
#include "incant_control.h"
#include "incant_stress.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <execinfo.h>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" const char incant_stress_ptx[];

namespace incant_inject {

namespace {

// Every piece of state is made once and never destroyed: the CUDA runtime
// may unload modules (through our hooks) after this library's static
// destructors would have run.
std::recursive_mutex &Mu = *new std::recursive_mutex;

const Config &cfg() {
  static Config &C = *new Config(readConfig());
  return C;
}

/// splitmix64.
struct Rng {
  uint64_t S;
  uint64_t next() {
    uint64_t Z = (S += 0x9E3779B97F4A7C15ull);
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
    return Z ^ (Z >> 31);
  }
  double unit() { return double(next() >> 11) / double(1ull << 53); }
};

Rng &rng() {
  static Rng R{cfg().Seed};
  return R;
}

/// The unit control block every unit gets (the same for the process).
struct CtlValues {
  unsigned char Bytes[INCANT_CTL_BYTES] = {};
  void put32(unsigned Off, uint32_t V) { std::memcpy(Bytes + Off, &V, 4); }
};

const CtlValues &ctlValues() {
  static CtlValues V = [] {
    CtlValues C;
    Rng &R = rng();
    static const unsigned WarpPrimes[] = {37, 41, 43, 47, 53, 59, 61, 67,
                                          71, 73, 79, 83, 89, 97};
    C.put32(INCANT_CTL_FLAGS, 0);
    C.put32(INCANT_CTL_WARP_MUL, WarpPrimes[R.next() % 14]);
    C.put32(INCANT_CTL_WARP_ADD, static_cast<uint32_t>(R.next() % 65536));
    C.put32(INCANT_CTL_BLK_MUL, static_cast<uint32_t>(R.next()) | 1u);
    for (unsigned D = 0; D < 3; ++D)
      C.put32(INCANT_CTL_BLK_ADD + 4 * D, static_cast<uint32_t>(R.next()));
    return C;
  }();
  return V;
}

//===-- Driver entry points -----------------------------------------------===//

Driver Drv;
bool DrvReady = false;

template <typename T> void getProc(T &Slot, const char *Name, int Version) {
  void *P = nullptr;
  if (GetProcAddressV2Fn G = realGetProcAddressV2())
    if (G(Name, &P, Version, 0, nullptr) != CUDA_SUCCESS)
      P = nullptr;
  Slot = reinterpret_cast<T>(P);
}

//===-- Notes and counters ------------------------------------------------===//

std::vector<std::string> &Notes = *new std::vector<std::string>;
std::set<std::string> &NoteSet = *new std::set<std::string>;

void note(const std::string &N) {
  if (!NoteSet.insert(N).second)
    return;
  Notes.push_back(N);
  if (cfg().Verbose)
    std::fprintf(stderr, "incant: %s\n", N.c_str());
}

struct Counters {
  uint64_t Launches = 0, Stressed = 0, CoopUnstressed = 0,
           CaptureUnstressed = 0, Spread = 0, UnknownKernels = 0,
           FenceUnits = 0, Replaced = 0;
} Count;

//===-- Units -------------------------------------------------------------===//

std::vector<std::string> &UnitIds = *new std::vector<std::string>;
std::set<std::string> &UnitSet = *new std::set<std::string>;

bool isHex(char C) { return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'f'); }

void scanBytes(const unsigned char *P, size_t N) {
  static const char Prefix[] = INCANT_UNIT_PREFIX;
  const size_t PL = sizeof(Prefix) - 1;
  const unsigned char *End = P + N;
  while (P < End) {
    const void *Hit = memmem(P, size_t(End - P), Prefix, PL);
    if (!Hit)
      break;
    const char *Id = static_cast<const char *>(Hit) + PL;
    P = static_cast<const unsigned char *>(Hit) + 1;
    if (reinterpret_cast<const unsigned char *>(Id) + INCANT_UNIT_ID_CHARS >
        End)
      break;
    bool Ok = true;
    for (int I = 0; I < INCANT_UNIT_ID_CHARS; ++I)
      Ok &= isHex(Id[I]);
    if (Ok && UnitSet.insert(std::string(Id, INCANT_UNIT_ID_CHARS)).second)
      UnitIds.emplace_back(Id, INCANT_UNIT_ID_CHARS);
  }
}

template <typename T> T readAt(const unsigned char *P) {
  T V;
  std::memcpy(&V, P, sizeof V);
  return V;
}

/// The extent of a module image in memory.
size_t imageSize(const unsigned char *&P) {
  uint32_t Magic = readAt<uint32_t>(P);
  if (Magic == 0x466243b1u) { // fatbinary wrapper: magic, version, data
    P = static_cast<const unsigned char *>(readAt<const void *>(P + 8));
    if (!P)
      return 0;
    Magic = readAt<uint32_t>(P);
  }
  if (Magic == 0xBA55ED50u) // fatbinary: u16 header size, u64 body size
    return readAt<uint16_t>(P + 6) + readAt<uint64_t>(P + 8);
  if (Magic == 0x464c457fu) { // ELF64: the section headers end it
    uint64_t ShOff = readAt<uint64_t>(P + 0x28);
    uint64_t PhOff = readAt<uint64_t>(P + 0x20);
    uint64_t Sh = ShOff + uint64_t(readAt<uint16_t>(P + 0x3A)) *
                              readAt<uint16_t>(P + 0x3C);
    uint64_t Ph = PhOff + uint64_t(readAt<uint16_t>(P + 0x36)) *
                              readAt<uint16_t>(P + 0x38);
    return Sh > Ph ? Sh : Ph;
  }
  return std::strlen(reinterpret_cast<const char *>(P)); // PTX text
}

//===-- Per context -------------------------------------------------------===//

struct CtxState {
  CUstream Priv = nullptr;   ///< Control writes and reads.
  CUstream Stress = nullptr; ///< The stressing kernel.
  int SMs = 0;
  int SmemPerSM = 0, SmemOptin = 0;
  bool StressTried = false, StressOk = false;
  CUmodule StressMod = nullptr;
  CUfunction StressFn = nullptr;
  CUdeviceptr Scratch = 0;
  uint64_t ScratchWords = 0;
  CUdeviceptr Stop = 0; ///< INCANT_STOP_SLOTS words, then the cap counter.
  unsigned Ticket = 0;
  std::map<unsigned, int> Occupancy; ///< Stress blocks per SM, by size.
};
std::map<CUcontext, CtxState> &Ctxs = *new std::map<CUcontext, CtxState>;

bool ok(CUresult R, const char *What) {
  if (R == CUDA_SUCCESS)
    return true;
  note(std::string(What) + " failed (CUDA error " + std::to_string(R) + ")");
  return false;
}

CtxState &context(CUcontext C) {
  CtxState &S = Ctxs[C];
  if (!S.Priv) {
    ok(Drv.cuStreamCreate(&S.Priv, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    CUdevice D = 0;
    Drv.cuCtxGetDevice(&D);
    Drv.cuDeviceGetAttribute(&S.SMs, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                             D);
    Drv.cuDeviceGetAttribute(
        &S.SmemPerSM, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        D);
    Drv.cuDeviceGetAttribute(
        &S.SmemOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, D);
  }
  return S;
}

bool writeNow(CtxState &C, CUdeviceptr Dst, const void *Src, size_t N) {
  return ok(Drv.cuMemcpyHtoDAsync(Dst, Src, N, C.Priv), "cuMemcpyHtoDAsync") &&
         ok(Drv.cuStreamSynchronize(C.Priv), "cuStreamSynchronize");
}

bool readNow(CtxState &C, void *Dst, CUdeviceptr Src, size_t N) {
  return ok(Drv.cuMemcpyDtoHAsync(Dst, Src, N, C.Priv), "cuMemcpyDtoHAsync") &&
         ok(Drv.cuStreamSynchronize(C.Priv), "cuStreamSynchronize");
}

//===-- Modules and kernels -----------------------------------------------===//

struct ModState {
  unsigned UnitFlags = 0;
  std::set<std::string> Units; ///< Whose control block is set here.
  std::set<std::string> Fenced; ///< Whose fence mask is set here.
};
std::map<std::pair<CUcontext, CUmodule>, ModState> &Mods =
    *new std::map<std::pair<CUcontext, CUmodule>, ModState>;

struct KernelState {
  std::string Name;
  CUfunction Fn = nullptr;
  bool Instrumented = false;
  unsigned Info = 0, Enable = 0;
  int StaticSmem = 0, SpreadSmem = -1;
  bool Race = false; ///< Its unit is checked for races (pass "race").
  std::string Unit; ///< The unit id its control words name.
  uint64_t Launches = 0;
  double Ms = 0;
};
std::map<std::pair<CUcontext, void *>, KernelState> &Kernels =
    *new std::map<std::pair<CUcontext, void *>, KernelState>;

struct HandleInfo {
  bool IsKernel = false;
  std::string Name;
};
std::map<void *, HandleInfo> &Handles = *new std::map<void *, HandleInfo>;

bool skipped(const std::string &Name) {
  for (const std::string &S : cfg().Skip)
    if (S == Name)
      return true;
  return false;
}

/// Sets the control block of unit \p Id in module \p M, if it is there.
void setUnit(CtxState &C, CUmodule M, ModState &MS, const std::string &Id) {
  if (MS.Units.count(Id))
    return;
  CUdeviceptr P = 0;
  size_t Size = 0;
  std::string Name = INCANT_CTL_PREFIX + Id;
  if (Drv.cuModuleGetGlobal(&P, &Size, M, Name.c_str()) != CUDA_SUCCESS ||
      Size < INCANT_CTL_BYTES)
    return;
  CtlValues V = ctlValues();
  V.put32(INCANT_CTL_FLAGS, MS.UnitFlags);
  if (writeNow(C, P, V.Bytes, INCANT_CTL_BYTES))
    MS.Units.insert(Id);
}

/// Sets the fence mask of unit \p Id in module \p M from INCANT_FENCES,
/// if the unit has switchable fences there.
void setFences(CtxState &C, CUmodule M, ModState &MS, const std::string &Id) {
  if (cfg().Fences.empty() || !MS.Fenced.insert(Id).second)
    return;
  CUdeviceptr P = 0;
  size_t Size = 0;
  std::string Name = INCANT_FMASK_PREFIX + Id;
  if (Drv.cuModuleGetGlobal(&P, &Size, M, Name.c_str()) != CUDA_SUCCESS)
    return;
  uint32_t Words = uint32_t(Size / 4 / INCANT_FENCE_KINDS);
  if (!Words)
    return;
  std::vector<uint32_t> Mask(size_t(Words) * INCANT_FENCE_KINDS, 0);
  for (const FenceEntry &E : cfg().Fences)
    if (E.Unit == "*" || E.Unit == Id)
      addFenceBits(E, Words, Mask);
  unsigned On = 0;
  for (uint32_t W : Mask)
    On += unsigned(__builtin_popcount(W));
  trace("fence mask of unit %s: %u bits on", Id.c_str(), On);
  if (writeNow(C, P, Mask.data(), Mask.size() * 4))
    ++Count.FenceUnits;
}

/// The words of kernel \p Name's control variable in \p M, or false.
bool kernelWords(CtxState &C, CUmodule M, const std::string &Name,
                 CUdeviceptr &P, uint32_t (&W)[INCANT_KCTL_WORDS]) {
  size_t Size = 0;
  std::string Var = INCANT_KCTL_PREFIX + Name;
  return Drv.cuModuleGetGlobal(&P, &Size, M, Var.c_str()) == CUDA_SUCCESS &&
         Size >= sizeof W && readNow(C, W, P, sizeof W);
}

ModState &module(CtxState &C, CUcontext Ctx, CUmodule M) {
  auto [It, New] = Mods.try_emplace({Ctx, M});
  ModState &MS = It->second;
  if (!New)
    return MS;
  MS.UnitFlags = cfg().Randomise ? INCANT_RND_BLOCKS | INCANT_RND_WARPS : 0u;
  // A kernel that must keep its ids but calls device functions that follow
  // the unit's switch forces the switch off for its module.
  for (const std::string &S : cfg().Skip) {
    CUdeviceptr P;
    uint32_t W[INCANT_KCTL_WORDS];
    if (MS.UnitFlags && kernelWords(C, M, S, P, W) &&
        (W[INCANT_KCTL_INFO] & INCANT_KINFO_CALLS_REMAPPED)) {
      MS.UnitFlags = 0;
      note("kernel " + S + " calls device functions that read thread ids: "
           "ids stay as they are in its whole module");
    }
  }
  for (const std::string &Id : UnitIds) {
    setUnit(C, M, MS, Id);
    raceSetUnit(Ctx, M, Id);
    setFences(C, M, MS, Id);
  }
  return MS;
}

KernelState &kernel(CtxState &C, CUcontext Ctx, void *Handle) {
  auto [It, New] = Kernels.try_emplace({Ctx, Handle});
  KernelState &K = It->second;
  if (!New)
    return K;
  auto H = Handles.find(Handle);
  if (H == Handles.end()) {
    ++Count.UnknownKernels;
    note("a kernel launched through a handle the library did not see being "
         "made is left as it is");
    return K;
  }
  CUfunction F = static_cast<CUfunction>(Handle);
  CUmodule M = nullptr;
  if (H->second.IsKernel &&
      (!Drv.cuKernelGetFunction ||
       Drv.cuKernelGetFunction(&F, static_cast<CUkernel>(Handle)) !=
           CUDA_SUCCESS)) {
    note("cuKernelGetFunction failed for a launched kernel");
    return K;
  }
  if (Drv.cuFuncGetModule(&M, F) != CUDA_SUCCESS) {
    note("a launched kernel's module could not be found");
    return K;
  }
  trace("kernel %p -> function %p module %p", Handle, (void *)F, (void *)M);
  K.Fn = F;
  K.Name = H->second.Name;
  const char *Name = nullptr;
  if (K.Name.empty() && H->second.IsKernel && Drv.cuKernelGetName &&
      Drv.cuKernelGetName(&Name, static_cast<CUkernel>(Handle)) ==
          CUDA_SUCCESS &&
      Name)
    K.Name = Name;
  if (K.Name.empty() && Drv.cuFuncGetName &&
      Drv.cuFuncGetName(&Name, F) == CUDA_SUCCESS && Name)
    K.Name = Name;
  Drv.cuFuncGetAttribute(&K.StaticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, F);
  ModState &MS = module(C, Ctx, M);
  CUdeviceptr P = 0;
  uint32_t W[INCANT_KCTL_WORDS];
  if (K.Name.empty() || !kernelWords(C, M, K.Name, P, W))
    return K;
  K.Instrumented = true;
  K.Info = W[INCANT_KCTL_INFO];
  char Id[INCANT_UNIT_ID_CHARS + 1];
  std::snprintf(Id, sizeof Id, "%08x%08x", W[INCANT_KCTL_UNIT_HI],
                W[INCANT_KCTL_UNIT_LO]);
  K.Unit = Id;
  setUnit(C, M, MS, Id); // a unit no image scan showed
  K.Race = raceSetUnit(Ctx, M, Id);
  setFences(C, M, MS, Id);
  bool Want = cfg().Randomise && !skipped(K.Name);
  if (K.Info & INCANT_KINFO_LEFT_ALONE && cfg().Randomise)
    note("kernel " + K.Name + ": ids left alone at build time (see incant "
         "sites)");
  K.Enable = Want ? INCANT_RND_BLOCKS | INCANT_RND_WARPS : 0u;
  if ((K.Info & INCANT_KINFO_CALLS_REMAPPED) && K.Enable != MS.UnitFlags) {
    if (skipped(K.Name))
      note("kernel " + K.Name + " could not be left alone: the device "
           "functions it calls follow their module's switch");
    K.Enable = MS.UnitFlags;
  }
  if (K.Enable) {
    uint32_t E = K.Enable;
    writeNow(C, P + 4 * INCANT_KCTL_ENABLE, &E, sizeof E);
  }
  return K;
}

//===-- Stress ------------------------------------------------------------===//

bool ensureStress(CtxState &C) {
  if (C.StressTried)
    return C.StressOk;
  C.StressTried = true;
  if (!incant_stress_ptx[0]) {
    note("this injected library was built without its stressing kernel "
         "(no nvcc when incant was built)");
    return false;
  }
  if (!ok(Drv.cuModuleLoadData(&C.StressMod, incant_stress_ptx),
          "loading the stressing kernel") ||
      !ok(Drv.cuModuleGetFunction(&C.StressFn, C.StressMod,
                                  "incant_stress_kernel"),
          "cuModuleGetFunction(incant_stress_kernel)") ||
      !ok(Drv.cuStreamCreate(&C.Stress, CU_STREAM_NON_BLOCKING),
          "cuStreamCreate"))
    return false;
  const Config &K = cfg();
  uint64_t Words = 1u << 20; // rand: 4 MiB
  if (K.Stress == INCANT_STRESS_SYS)
    Words = uint64_t(K.Regions) * K.Patch + 1;
  if (K.Stress == INCANT_STRESS_CACHE) {
    CUdevice D = 0;
    int L2 = 0;
    Drv.cuCtxGetDevice(&D);
    Drv.cuDeviceGetAttribute(&L2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, D);
    Words = L2 > 0 ? uint64_t(L2) / 4 : (1u << 22);
  }
  C.ScratchWords = Words;
  if (!ok(memAllocApart(&C.Scratch, Words * 4), "allocating the scratchpad") ||
      !ok(memAllocApart(&C.Stop, (INCANT_STOP_SLOTS + 1) * 4),
          "allocating the stop ring") ||
      !ok(Drv.cuMemsetD32Async(C.Stop, 0xffffffffu, INCANT_STOP_SLOTS, C.Priv),
          "cuMemsetD32Async") ||
      !ok(Drv.cuMemsetD32Async(C.Stop + 4 * INCANT_STOP_SLOTS, 0, 1, C.Priv),
          "cuMemsetD32Async") ||
      !ok(Drv.cuMemsetD32Async(C.Scratch, 0, Words, C.Priv),
          "cuMemsetD32Async") ||
      !ok(Drv.cuStreamSynchronize(C.Priv), "cuStreamSynchronize"))
    return false;
  C.StressOk = true;
  return true;
}

CUstream appStream(const Launch &L) {
  if (L.PerThread && !L.Stream)
    return reinterpret_cast<CUstream>(CU_STREAM_PER_THREAD_HANDLE);
  return L.Stream;
}

/// Launches the stressing blocks for \p L; returns the ticket, or 0.
unsigned stressBeside(CtxState &C, const Launch &L, const std::string &Name) {
  const Config &K = cfg();
  if (L.Cooperative) {
    ++Count.CoopUnstressed;
    note("cooperative launch of " + Name + ": no stressing blocks beside "
         "it (they could keep its blocks from being resident together)");
    return 0;
  }
  int Capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  if (Drv.cuStreamIsCapturing &&
      Drv.cuStreamIsCapturing(appStream(L), &Capturing) == CUDA_SUCCESS &&
      Capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
    ++Count.CaptureUnstressed;
    note("launches captured into CUDA graphs are not stressed");
    return 0;
  }
  if (!ensureStress(C))
    return 0;
  uint64_t AppBlocks = uint64_t(L.Grid[0]) * L.Grid[1] * L.Grid[2];
  double Frac = K.MinFraction + (K.MaxFraction - K.MinFraction) * rng().unit();
  uint64_t N = uint64_t(std::llround(double(AppBlocks) * Frac));
  unsigned Threads = L.Block[0] * L.Block[1] * L.Block[2];
  unsigned Bs = (Threads + 31) / 32 * 32;
  Bs = Bs < 32 ? 32 : Bs > 1024 ? 1024 : Bs;
  int &Occ = C.Occupancy[Bs];
  if (Occ == 0 && Drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                      &Occ, C.StressFn, int(Bs), 0) != CUDA_SUCCESS)
    Occ = 1;
  // Every stressing block must be resident beside the application's: at
  // most half of what fits of the stressing kernel alone.
  uint64_t Cap = uint64_t(C.SMs > 0 ? C.SMs : 1) * uint64_t(Occ > 1 ? Occ / 2 : 1);
  N = N < 1 ? 1 : N > Cap ? Cap : N;

  IncantStressArgs A = {};
  unsigned Ticket = ++C.Ticket;
  if (Ticket == 0xffffffffu) // the ring's "never" value
    Ticket = C.Ticket = 1;
  A.scratch = C.Scratch;
  A.words = C.ScratchWords;
  A.stop = C.Stop + 4ull * (Ticket % INCANT_STOP_SLOTS);
  A.capHits = C.Stop + 4ull * INCANT_STOP_SLOTS;
  A.maxNs = K.MaxNs;
  A.ticket = Ticket;
  A.mode = K.Stress;
  A.pattern = K.Pattern;
  A.lines = K.Lines;
  A.seed = static_cast<unsigned>(rng().next());
  // sys: K.Lines distinct patch-sized regions of K.Regions, at random.
  unsigned Chosen = 0;
  while (Chosen < K.Lines) {
    unsigned R = static_cast<unsigned>(rng().next() % K.Regions);
    bool Dup = false;
    for (unsigned I = 0; I < Chosen; ++I)
      Dup |= A.offsets[I] == R * K.Patch;
    if (!Dup)
      A.offsets[Chosen++] = R * K.Patch;
  }
  void *Args[] = {&A};
  if (!ok(Drv.cuLaunchKernel(C.StressFn, unsigned(N), 1, 1, Bs, 1, 1, 0,
                             C.Stress, Args, nullptr),
          "launching the stressing kernel"))
    return 0;
  ++Count.Stressed;
  return Ticket;
}

/// Dynamic shared memory that leaves room for at most cfg().Spread blocks
/// of \p K per SM (-1: cannot).
int spreadSmem(CtxState &C, KernelState &K, unsigned Asked) {
  if (K.SpreadSmem != -1 || !K.Fn || C.SmemPerSM <= 0)
    return K.SpreadSmem;
  // 1 KiB per block is reserved by the hardware (sm_80 and later).
  int PerBlock = C.SmemPerSM / int(cfg().Spread) - 1024;
  int Dyn = PerBlock - K.StaticSmem;
  if (Dyn <= int(Asked))
    return K.SpreadSmem = int(Asked);
  if (Dyn + K.StaticSmem > C.SmemOptin ||
      Drv.cuFuncSetAttribute(K.Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             Dyn) != CUDA_SUCCESS) {
    note("kernel " + K.Name + ": cannot spread its blocks (shared memory)");
    return K.SpreadSmem = -2;
  }
  return K.SpreadSmem = Dyn;
}

//===-- Timing ------------------------------------------------------------===//

struct Timed {
  KernelState *K;
  CUevent Begin, End;
};
std::vector<Timed> &Pending = *new std::vector<Timed>;
std::vector<CUevent> &FreeEvents = *new std::vector<CUevent>;

CUevent event() {
  if (!FreeEvents.empty()) {
    CUevent E = FreeEvents.back();
    FreeEvents.pop_back();
    return E;
  }
  CUevent E = nullptr;
  Drv.cuEventCreate(&E, CU_EVENT_DEFAULT);
  return E;
}

void harvest(bool Wait) {
  size_t Done = 0;
  for (; Done < Pending.size(); ++Done) {
    Timed &T = Pending[Done];
    if (Wait)
      Drv.cuEventSynchronize(T.End);
    float Ms = 0;
    if (Drv.cuEventElapsedTime(&Ms, T.Begin, T.End) != CUDA_SUCCESS) {
      if (!Wait)
        break; // not finished yet
    } else {
      T.K->Ms += Ms;
    }
    FreeEvents.push_back(T.Begin);
    FreeEvents.push_back(T.End);
  }
  Pending.erase(Pending.begin(), Pending.begin() + long(Done));
}

//===-- The GPU to ourselves ----------------------------------------------===//

/// Takes the lock file \p Path, once (the first caller; the others wait
/// for it), and holds it until the process exits.
void holdGpuLock(const std::string &Path) {
  static const bool Held = [&Path] {
    int Fd = open(Path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (Fd < 0) {
      note(INCANT_ENV_GPU_LOCK ": cannot open " + Path + ": " +
           std::strerror(errno));
      return false;
    }
    while (flock(Fd, LOCK_EX) != 0)
      if (errno != EINTR) {
        note(INCANT_ENV_GPU_LOCK ": cannot lock " + Path + ": " +
             std::strerror(errno));
        return false;
      }
    return true;
  }();
  (void)Held;
}

//===-- Energy ------------------------------------------------------------===//

// NVML's total energy counter (millijoules since the driver loaded), read
// before and after each launch with the context synchronised: the sum over
// launches is, in expectation, the kernels' time times the power the
// counter saw around them, however coarse its updates are.
struct Nvml {
  int (*Init)() = nullptr;
  int (*ByBus)(const char *, void **) = nullptr;
  int (*Energy)(void *, unsigned long long *) = nullptr;
  void *Dev = nullptr;
  bool Tried = false, Ok = false;
} Nv;

struct EnergyCount {
  unsigned long long Mj = 0;
  uint64_t Reads = 0, Changes = 0;
  double WindowMs = 0;
} Energy;

bool nvmlReady() {
  if (Nv.Tried)
    return Nv.Ok;
  Nv.Tried = true;
  void *H = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    note(INCANT_ENV_ENERGY ": libnvidia-ml.so.1 cannot be opened: no energy");
    return false;
  }
  Nv.Init = reinterpret_cast<int (*)()>(dlsym(H, "nvmlInit_v2"));
  Nv.ByBus = reinterpret_cast<int (*)(const char *, void **)>(
      dlsym(H, "nvmlDeviceGetHandleByPciBusId_v2"));
  Nv.Energy = reinterpret_cast<int (*)(void *, unsigned long long *)>(
      dlsym(H, "nvmlDeviceGetTotalEnergyConsumption"));
  char Bus[64] = {};
  CUdevice D = 0;
  if (!Nv.Init || !Nv.ByBus || !Nv.Energy || Nv.Init() != 0 ||
      !Drv.cuDeviceGetPCIBusId || !Drv.cuCtxGetDevice || Drv.cuCtxGetDevice(&D) != CUDA_SUCCESS ||
      Drv.cuDeviceGetPCIBusId(Bus, sizeof Bus, D) != CUDA_SUCCESS ||
      Nv.ByBus(Bus, &Nv.Dev) != 0) {
    note(INCANT_ENV_ENERGY ": NVML does not know this device: no energy");
    return false;
  }
  unsigned long long E = 0;
  if (Nv.Energy(Nv.Dev, &E) != 0) {
    note(INCANT_ENV_ENERGY ": this device has no total energy counter");
    return false;
  }
  return Nv.Ok = true;
}

double nowMs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return double(T.tv_sec) * 1e3 + double(T.tv_nsec) / 1e6;
}

//===-- Report ------------------------------------------------------------===//

bool Reported = false;

void writeReport() {
  raceWrite();
  std::lock_guard<std::recursive_mutex> G(Mu);
  if (Reported || cfg().Report.empty())
    return;
  Reported = true;
  if (DrvReady && !Pending.empty())
    harvest(true);
  uint64_t CapHits = 0;
  for (auto &[Ctx, C] : Ctxs)
    if (C.StressOk) {
      uint32_t H = 0;
      if (readNow(C, &H, C.Stop + 4 * INCANT_STOP_SLOTS, 4))
        CapHits += H;
    }
  // Kernels by name (a kernel may have several handles and contexts).
  struct Agg {
    uint64_t Launches = 0;
    double Ms = 0;
    bool Instrumented = false;
    unsigned Enable = 0;
    std::string Unit;
  };
  std::map<std::string, Agg> ByName;
  for (auto &[Key, K] : Kernels) {
    Agg &A = ByName[K.Name.empty() ? "?" : K.Name];
    A.Launches += K.Launches;
    A.Ms += K.Ms;
    A.Instrumented |= K.Instrumented;
    A.Enable |= K.Enable;
    if (A.Unit.empty())
      A.Unit = K.Unit;
  }
  // The fields are the protocol's (incant/Intercept/Protocol.h), in its
  // order.
  nlohmann::ordered_json J;
  J[INCANT_REPORT_PID] = getpid();
  J[INCANT_REPORT_LAUNCHES] = Count.Launches;
  J[INCANT_REPORT_STRESSED] = Count.Stressed;
  J[INCANT_REPORT_COOPERATIVE_UNSTRESSED] = Count.CoopUnstressed;
  J[INCANT_REPORT_CAPTURED_UNSTRESSED] = Count.CaptureUnstressed;
  J[INCANT_REPORT_SPREAD] = Count.Spread;
  J[INCANT_REPORT_CAP_HITS] = CapHits;
  J[INCANT_REPORT_UNITS] = UnitIds.size();
  J[INCANT_REPORT_FENCE_UNITS] = Count.FenceUnits;
  J[INCANT_REPORT_REPLACED] = Count.Replaced;
  J[INCANT_REPORT_TIMED] = cfg().Time;
  if (cfg().Energy)
    J[INCANT_REPORT_ENERGY] = {{INCANT_REPORT_ENERGY_MJ, Energy.Mj},
                               {INCANT_REPORT_ENERGY_READS, Energy.Reads},
                               {INCANT_REPORT_ENERGY_CHANGES, Energy.Changes},
                               {INCANT_REPORT_ENERGY_WINDOW_MS, Energy.WindowMs},
                               {INCANT_REPORT_ENERGY_OK, Nv.Ok}};
  nlohmann::ordered_json &Ks = J[INCANT_REPORT_KERNELS] =
      nlohmann::ordered_json::array();
  for (auto &[Name, A] : ByName)
    Ks.push_back({{INCANT_REPORT_KERNEL_NAME, Name},
                  {INCANT_REPORT_KERNEL_LAUNCHES, A.Launches},
                  {INCANT_REPORT_KERNEL_MS, A.Ms},
                  {INCANT_REPORT_KERNEL_INSTRUMENTED, A.Instrumented},
                  {INCANT_REPORT_KERNEL_RANDOMISED, A.Enable != 0},
                  {INCANT_REPORT_KERNEL_UNIT, A.Unit}});
  J[INCANT_REPORT_NOTES] = Notes;
  J[INCANT_REPORT_ERRORS] = cfg().Errors;
  std::string Line = jsonText(J) + "\n";
  if (FILE *F = std::fopen(cfg().Report.c_str(), "a")) {
    std::fputs(Line.c_str(), F);
    std::fclose(F);
  }
}

/// Registered at load; a launch registers it again so that it runs before
/// the CUDA runtime's own exit handler (handlers run in reverse order).
void onCrash(int Sig) {
  void *Frames[64];
  int N = backtrace(Frames, 64);
  std::fprintf(stderr, "incant trace: signal %d in:\n", Sig);
  backtrace_symbols_fd(Frames, N, 2);
  std::signal(Sig, SIG_DFL);
  std::raise(Sig);
}

__attribute__((constructor)) void atLoad() {
  if (const char *T = std::getenv(INCANT_ENV_TRACE); T && *T && *T != '0')
    std::signal(SIGSEGV, onCrash);
  for (const std::string &E : cfg().Errors)
    std::fprintf(stderr, "incant: error in the environment: %s\n", E.c_str());
  std::atexit(writeReport);
}

bool Registered = false;

} // namespace

//===-- Entry points from the hooks ---------------------------------------===//

const Config &config() { return cfg(); }

void addNote(const std::string &N) {
  std::lock_guard<std::recursive_mutex> G(Mu);
  note(N);
}

std::string jsonText(const nlohmann::ordered_json &J) {
  return J.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void onContextGone() {
  std::lock_guard<std::recursive_mutex> G(Mu);
  raceContextGone();
  // The kernels' events die with the context (cudaDeviceReset before
  // exit): their times are read now.
  if (!Pending.empty())
    harvest(true);
}

const Driver &driver() {
  std::lock_guard<std::recursive_mutex> G(Mu);
  if (DrvReady)
    return Drv;
  DrvReady = true;
  // Each entry point is asked for at the CUDA version whose signature
  // inject_cuda.h declares (12.0, or 12.3 for the two added then): a later
  // version may return a newer ABI (CUDA 13's cuCtxGetDevice_v2 takes a
  // context).
  const int V = 12000, V123 = 12030;
  getProc(Drv.cuDriverGetVersion, "cuDriverGetVersion", V);
  getProc(Drv.cuCtxGetCurrent, "cuCtxGetCurrent", V);
  getProc(Drv.cuCtxGetDevice, "cuCtxGetDevice", V);
  getProc(Drv.cuCtxSynchronize, "cuCtxSynchronize", V);
  getProc(Drv.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", V);
  getProc(Drv.cuDeviceGetAttribute, "cuDeviceGetAttribute", V);
  getProc(Drv.cuModuleLoadData, "cuModuleLoadData", V);
  getProc(Drv.cuModuleGetFunction, "cuModuleGetFunction", V);
  getProc(Drv.cuModuleGetGlobal, "cuModuleGetGlobal", V);
  getProc(Drv.cuFuncGetModule, "cuFuncGetModule", V);
  getProc(Drv.cuFuncGetName, "cuFuncGetName", V123);
  getProc(Drv.cuFuncGetAttribute, "cuFuncGetAttribute", V);
  getProc(Drv.cuFuncSetAttribute, "cuFuncSetAttribute", V);
  getProc(Drv.cuKernelGetFunction, "cuKernelGetFunction", V);
  getProc(Drv.cuKernelGetName, "cuKernelGetName", V123);
  getProc(Drv.cuMemAlloc, "cuMemAlloc", V);
  getProc(Drv.cuMemFree, "cuMemFree", V);
  getProc(Drv.cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity",
          V);
  getProc(Drv.cuMemAddressReserve, "cuMemAddressReserve", V);
  getProc(Drv.cuMemAddressFree, "cuMemAddressFree", V);
  getProc(Drv.cuMemCreate, "cuMemCreate", V);
  getProc(Drv.cuMemRelease, "cuMemRelease", V);
  getProc(Drv.cuMemMap, "cuMemMap", V);
  getProc(Drv.cuMemUnmap, "cuMemUnmap", V);
  getProc(Drv.cuMemSetAccess, "cuMemSetAccess", V);
  getProc(Drv.cuMemsetD32Async, "cuMemsetD32Async", V);
  getProc(Drv.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync", V);
  getProc(Drv.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync", V);
  getProc(Drv.cuStreamCreate, "cuStreamCreate", V);
  getProc(Drv.cuStreamSynchronize, "cuStreamSynchronize", V);
  getProc(Drv.cuStreamWaitEvent, "cuStreamWaitEvent", V);
  getProc(Drv.cuStreamIsCapturing, "cuStreamIsCapturing", V);
  getProc(Drv.cuOccupancyMaxActiveBlocksPerMultiprocessor,
          "cuOccupancyMaxActiveBlocksPerMultiprocessor", V);
  getProc(Drv.cuLaunchKernel, "cuLaunchKernel", V);
  getProc(Drv.cuEventCreate, "cuEventCreate", V);
  getProc(Drv.cuEventRecord, "cuEventRecord", V);
  getProc(Drv.cuEventSynchronize, "cuEventSynchronize", V);
  getProc(Drv.cuEventElapsedTime, "cuEventElapsedTime", V);
  getProc(Drv.cuEventDestroy, "cuEventDestroy", V);
  return Drv;
}

namespace {

/// One allocation of memAllocApart: its reserved range and its memory.
struct ApartBlock {
  CUdeviceptr Base = 0; ///< The reserved range, guards included.
  size_t Reserved = 0;
  size_t Mapped = 0;
  CUmemGenericAllocationHandle Handle = 0;
};

std::mutex ApartMu;
std::map<CUdeviceptr, ApartBlock> &apartBlocks() {
  static auto *M = new std::map<CUdeviceptr, ApartBlock>;
  return *M;
}

/// Unmapped addresses on each side of the library's tables: a stray index
/// of the application reaches this far without touching them.
constexpr size_t ApartGuard = size_t(1) << 30;

} // namespace

CUresult memAllocApart(CUdeviceptr *P, size_t Bytes) {
  const Driver &D = driver();
  if (!D.cuMemGetAllocationGranularity || !D.cuMemAddressReserve ||
      !D.cuMemCreate || !D.cuMemMap || !D.cuMemSetAccess || !D.cuMemUnmap ||
      !D.cuMemRelease || !D.cuMemAddressFree)
    return D.cuMemAlloc(P, Bytes);
  CUdevice Dev = 0;
  CUmemAllocationProp Prop{};
  size_t Gran = 0;
  if (D.cuCtxGetDevice(&Dev) != CUDA_SUCCESS)
    return D.cuMemAlloc(P, Bytes);
  Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  Prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  Prop.location.id = Dev;
  if (D.cuMemGetAllocationGranularity(&Gran, &Prop,
                                      CU_MEM_ALLOC_GRANULARITY_MINIMUM) !=
          CUDA_SUCCESS ||
      Gran == 0)
    return D.cuMemAlloc(P, Bytes);
  ApartBlock B;
  B.Mapped = (std::max<size_t>(Bytes, 1) + Gran - 1) / Gran * Gran;
  B.Reserved = B.Mapped + 2 * ApartGuard;
  if (D.cuMemAddressReserve(&B.Base, B.Reserved, Gran, 0, 0) != CUDA_SUCCESS)
    return D.cuMemAlloc(P, Bytes);
  CUdeviceptr Mem = B.Base + ApartGuard;
  CUmemAccessDesc Access{};
  Access.location = Prop.location;
  Access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUresult R = D.cuMemCreate(&B.Handle, B.Mapped, &Prop, 0);
  if (R == CUDA_SUCCESS) {
    R = D.cuMemMap(Mem, B.Mapped, 0, B.Handle, 0);
    if (R == CUDA_SUCCESS) {
      R = D.cuMemSetAccess(Mem, B.Mapped, &Access, 1);
      if (R != CUDA_SUCCESS)
        D.cuMemUnmap(Mem, B.Mapped);
    }
    if (R != CUDA_SUCCESS)
      D.cuMemRelease(B.Handle);
  }
  if (R != CUDA_SUCCESS) {
    D.cuMemAddressFree(B.Base, B.Reserved);
    addNote("the library's tables lie among the application's allocations "
            "(mapping a range of their own failed: CUDA error " +
            std::to_string(R) + ")");
    return D.cuMemAlloc(P, Bytes);
  }
  std::lock_guard<std::mutex> G(ApartMu);
  apartBlocks()[Mem] = B;
  *P = Mem;
  return CUDA_SUCCESS;
}

CUresult memFreeApart(CUdeviceptr P) {
  const Driver &D = driver();
  ApartBlock B;
  {
    std::lock_guard<std::mutex> G(ApartMu);
    auto It = apartBlocks().find(P);
    if (It == apartBlocks().end())
      return D.cuMemFree(P);
    B = It->second;
    apartBlocks().erase(It);
  }
  // The memory stays alive until unmapped and released; both are needed.
  CUresult R = D.cuMemUnmap(P, B.Mapped);
  CUresult R2 = D.cuMemRelease(B.Handle);
  CUresult R3 = D.cuMemAddressFree(B.Base, B.Reserved);
  return R ? R : R2 ? R2 : R3;
}

void onImage(const void *Image) {
  if (!Image)
    return;
  std::lock_guard<std::recursive_mutex> G(Mu);
  const unsigned char *P = static_cast<const unsigned char *>(Image);
  size_t N = imageSize(P);
  trace("image %p: %zu bytes", Image, N);
  if (P && N)
    scanBytes(P, N);
}

const void *imageFor(const void *Image) {
  if (!Image || cfg().Images.empty())
    return Image;
  std::lock_guard<std::recursive_mutex> G(Mu);
  const unsigned char *P = static_cast<const unsigned char *>(Image);
  size_t N = imageSize(P);
  if (!P || !N)
    return Image;
  for (const auto &[Id, File] : cfg().Images) {
    std::string Name = INCANT_UNIT_PREFIX + Id;
    if (!memmem(P, N, Name.data(), Name.size()))
      continue;
    static std::map<std::string, std::string> &Loaded =
        *new std::map<std::string, std::string>;
    auto It = Loaded.find(File);
    if (It == Loaded.end()) {
      std::string Data;
      if (FILE *F = std::fopen(File.c_str(), "rb")) {
        char Buf[65536];
        size_t K;
        while ((K = std::fread(Buf, 1, sizeof Buf, F)) > 0)
          Data.append(Buf, K);
        std::fclose(F);
      } else {
        note(INCANT_ENV_FENCE_IMAGES ": cannot read " + File);
        return Image;
      }
      It = Loaded.emplace(File, std::move(Data)).first;
    }
    ++Count.Replaced;
    note("the module image of unit " + Id + " was replaced by " + File);
    trace("image %p replaced by %s", Image, File.c_str());
    return It->second.c_str();
  }
  return Image;
}

void onImageFile(const char *Path) {
  if (!Path)
    return;
  FILE *F = std::fopen(Path, "rb");
  if (!F)
    return;
  std::string Data;
  char Buf[65536];
  size_t N;
  while ((N = std::fread(Buf, 1, sizeof Buf, F)) > 0)
    Data.append(Buf, N);
  std::fclose(F);
  std::lock_guard<std::recursive_mutex> G(Mu);
  scanBytes(reinterpret_cast<const unsigned char *>(Data.data()), Data.size());
}

void onKernelHandle(void *Handle, bool IsKernel, const char *Name) {
  std::lock_guard<std::recursive_mutex> G(Mu);
  HandleInfo &H = Handles[Handle];
  H.IsKernel = IsKernel;
  H.Name = Name ? Name : "";
}

void trace(const char *Fmt, ...) {
  static const bool On = [] {
    const char *V = std::getenv(INCANT_ENV_TRACE);
    return V && *V && std::strcmp(V, "0") != 0;
  }();
  if (!On)
    return;
  char Buf[512];
  va_list A;
  va_start(A, Fmt);
  std::vsnprintf(Buf, sizeof Buf, Fmt, A);
  va_end(A);
  std::fprintf(stderr, "incant trace: %s\n", Buf);
}

void onUnload() {
  std::lock_guard<std::recursive_mutex> G(Mu);
  raceHarvest();
  if (!Pending.empty())
    harvest(true);
  Mods.clear();
  Kernels.clear();
}

CUresult launch(Launch &L, const std::function<CUresult(const Launch &)> &Real) {
  std::lock_guard<std::recursive_mutex> G(Mu);
  trace("launch of %p", (void *)L.F);
  driver();
  CUcontext Ctx = nullptr;
  if (!Drv.cuCtxGetCurrent || Drv.cuCtxGetCurrent(&Ctx) != CUDA_SUCCESS ||
      !Ctx)
    return Real(L); // the driver will report the missing context
  if (!Registered) {
    Registered = true;
    std::atexit(writeReport);
  }
  ++Count.Launches;
  CtxState &C = context(Ctx);
  KernelState &K = kernel(C, Ctx, L.F);
  ++K.Launches;
  const Config &Cf = cfg();
  if (!Cf.GpuLock.empty()) {
    if (Cf.Energy)
      nvmlReady(); // before the lock: its start is slow
    holdGpuLock(Cf.GpuLock);
  }

  if (Cf.Spread && L.Cooperative) {
    // Fewer blocks per SM than the application sized its cooperative grid
    // for makes the launch fail (too large to be resident at once).
    note("cooperative launch of " + K.Name + ": not spread (its blocks "
         "must all be resident at once)");
  } else if (Cf.Spread) {
    int S = spreadSmem(C, K, L.Smem);
    if (S > int(L.Smem)) {
      L.Smem = unsigned(S);
      ++Count.Spread;
    }
  }
  // Before the stressing blocks start: making the tables may synchronise
  // the context, which would wait for them.
  bool Race = K.Race && raceOn() && racePrepare(Ctx, L, appStream(L));
  unsigned Ticket = Cf.Stress ? stressBeside(C, L, K.Name) : 0;
  CUevent Begin = nullptr, End = nullptr;
  unsigned long long E0 = 0;
  double W0 = 0;
  bool Metered = Cf.Energy && nvmlReady() && Drv.cuCtxSynchronize &&
                 Drv.cuCtxSynchronize() == CUDA_SUCCESS &&
                 Nv.Energy(Nv.Dev, &E0) == 0;
  if (Metered)
    W0 = nowMs();
  if (Cf.Time) {
    Begin = event();
    End = event();
    Drv.cuEventRecord(Begin, appStream(L));
  }
  trace("launch %s grid %u,%u,%u block %u,%u,%u smem %u ticket %u",
        K.Name.c_str(), L.Grid[0], L.Grid[1], L.Grid[2], L.Block[0],
        L.Block[1], L.Block[2], L.Smem, Ticket);
  if (Race)
    raceBefore(Ctx, L, appStream(L), K.Name);
  CUresult R = Real(L);
  if (Race)
    raceAfter(Ctx, L, appStream(L), R, K.Name);
  if (Cf.Time) {
    Drv.cuEventRecord(End, appStream(L));
    if (R == CUDA_SUCCESS)
      Pending.push_back({&K, Begin, End});
    if (Pending.size() > 4096)
      harvest(Pending.size() > 65536);
  }
  unsigned long long E1 = 0;
  if (Metered && R == CUDA_SUCCESS && Drv.cuCtxSynchronize() == CUDA_SUCCESS &&
      Nv.Energy(Nv.Dev, &E1) == 0 && E1 >= E0) {
    Energy.Mj += E1 - E0;
    Energy.Changes += E1 != E0;
    ++Energy.Reads;
    Energy.WindowMs += nowMs() - W0;
  }
  // Stop the stressing blocks once the application's kernel is done (also
  // when the launch failed: then at once).
  if (Ticket)
    ok(Drv.cuMemsetD32Async(C.Stop + 4ull * (Ticket % INCANT_STOP_SLOTS),
                            Ticket, 1, appStream(L)),
       "cuMemsetD32Async(stop)");
  return R;
}

} // namespace incant_inject
