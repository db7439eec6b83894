//===- Launch.cpp - Run a generated test on a CUDA device -----------------===//
//
// Parallel testing as docs/cuda.md describes it: every co-resident block
// not stressing tests; every thread plays each role for another instance,
// its partners found through the harness's permutations (coprime
// multipliers); the GPU counts outcomes in a hash table; the host decodes
// them into the Program's values.
//
//===----------------------------------------------------------------------===//
#include "Launch.h"
#include "Compile.h"

#include "runtime/incant_params.h"
#include "incant/Support/Phases.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <random>

namespace incant::cuda {

static_assert(sizeof(IncantParams) % 8 == 0, "IncantParams layout");

namespace {

/// The stress thread's access pattern: 2 bits per access (1 ld, 2 st),
/// first access lowest, at most 16; the harness's stress thread works on
/// one scratchpad location, chosen by its id among StressLocs.
uint32_t stressPattern(const std::vector<harness::StressAccess> &Seq) {
  uint32_t Pat = 0;
  for (size_t K = 0; K < Seq.size() && K < 16; ++K)
    Pat |= (Seq[K].IsStore ? 2u : 1u) << (2 * K);
  return Pat ? Pat : 0x9u;
}

/// Reports a failed CUDA call.
class Checker {
public:
  Checker(CudaLibraries &L, DiagnosticEngine &Diags) : L(L), Diags(Diags) {}
  bool check(CUresult R, const char *What) {
    if (R == 0)
      return true;
    Diags.error(fmt::format("{} failed: {}", What, L.errorString(R)));
    return false;
  }
  CudaLibraries &L;
  DiagnosticEngine &Diags;
};

/// The buffers of a run (DeviceState::buffer's slots).
enum Slot : unsigned {
  MemSlot,
  OutSlot,
  HistKeySlot,
  HistCountSlot,
  HistTupleSlot,
  ScratchSlot,
  ShadowSlot,
  SyncSlot
};

/// Modules a backend object keeps loaded: a few batches' worth.
constexpr size_t LoadedModulesCap = 4;

} // namespace

DeviceState::~DeviceState() {
  if (!Ctx)
    return;
  // Freeing needs the context current on this thread.
  L.Drv.cuCtxSetCurrent(Ctx);
  for (auto &[M, Mod] : Modules)
    L.Drv.cuModuleUnload(Mod);
  for (auto &[K, B] : Buffers)
    L.Drv.cuMemFree(B.Ptr);
  CUdevice Dev = 0;
  if (L.Drv.cuDeviceGet(&Dev, static_cast<int>(Device)) == 0)
    L.Drv.cuDevicePrimaryCtxRelease(Dev);
}

bool DeviceState::check(CUresult R, const char *What,
                        DiagnosticEngine &Diags) {
  return Checker(L, Diags).check(R, What);
}

bool DeviceState::activate(DiagnosticEngine &Diags) {
  if (!Ctx) {
    CUdevice Dev = 0;
    if (!check(L.Drv.cuDeviceGet(&Dev, static_cast<int>(Device)),
               "cuDeviceGet", Diags) ||
        !check(L.Drv.cuDevicePrimaryCtxRetain(&Ctx, Dev),
               "cuDevicePrimaryCtxRetain", Diags))
      return false;
  }
  return check(L.Drv.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent", Diags);
}

bool DeviceState::buffer(unsigned Slot, size_t Bytes, CUdeviceptr &P,
                         DiagnosticEngine &Diags) {
  Bytes = std::max<size_t>(Bytes, 16);
  Buffer &B = Buffers[Slot];
  if (B.Bytes < Bytes) {
    if (B.Ptr)
      L.Drv.cuMemFree(B.Ptr);
    B = Buffer();
    if (!check(L.Drv.cuMemAlloc(&B.Ptr, Bytes), "cuMemAlloc", Diags))
      return false;
    B.Bytes = Bytes;
  }
  P = B.Ptr;
  return check(L.Drv.cuMemsetD8(P, 0, Bytes), "cuMemsetD8", Diags);
}

bool DeviceState::module(const std::shared_ptr<const CompiledModule> &M,
                         CUmodule &Mod, DiagnosticEngine &Diags) {
  for (auto It = Modules.begin(); It != Modules.end(); ++It)
    if (It->first == M) {
      Modules.splice(Modules.begin(), Modules, It);
      Mod = It->second;
      return true;
    }
  if (!check(L.Drv.cuModuleLoadData(&Mod, M->Cubin.data()),
             "cuModuleLoadData", Diags))
    return false;
  Modules.emplace_front(M, Mod);
  // Every launch from an older module has finished: each run ends with
  // cuCtxSynchronize, and other backend objects load modules of their own.
  while (Modules.size() > LoadedModulesCap) {
    L.Drv.cuModuleUnload(Modules.back().second);
    Modules.pop_back();
  }
  return true;
}

namespace {

/// One run of a generated test on a device, in its steps; a step that fails
/// has reported why and returns the failure's kind.
class DeviceRun {
public:
  using Failure = std::optional<ErrorKind>;

  DeviceRun(const GeneratedTest &G, const CompiledKernels *Compiled,
            const harness::RunParams &Params, const CudaTuning &Tuning,
            DeviceState &State, uint32_t Device, DiagnosticEngine &Diags)
      : G(G), Compiled(Compiled), Params(Params), Inc(Params.Inc),
        Tuning(Tuning), State(State), Device(Device), Diags(Diags),
        Shared(sharedLibraries()), Libs(Shared.Libs), D(Libs.Drv),
        S(Libs, Diags), Lay(G.Shape), Rng(Params.Seed) {}
  DeviceRun(const DeviceRun &) = delete; // Compiled may point to Here.
  DeviceRun &operator=(const DeviceRun &) = delete;

  Failure compileAndActivate();
  void describeDevice();
  Failure loadKernels();
  Failure chooseShape();
  Failure fillParams();
  Failure allocateBuffers();
  void recordShape();
  Failure launchAll(const std::function<void(uint64_t)> &OnLaunch);
  Failure readHistogram();

  harness::RunResult Res;
  /// Where compiled tests are kept between commands ("": nowhere).
  std::string CompileCache;

private:
  void shape(IncantParams &X, bool Random);
  bool launch(CUfunction F, uint32_t Grid, uint32_t Block, size_t Smem,
              IncantParams &X);

  const GeneratedTest &G;
  const CompiledKernels *Compiled;
  const harness::RunParams &Params;
  const harness::Incantations &Inc;
  const CudaTuning &Tuning;
  DeviceState &State;
  uint32_t Device;
  DiagnosticEngine &Diags;
  SharedLibraries &Shared;
  CudaLibraries &Libs;
  const DriverApi &D;
  Checker S;
  const harness::PlacementShape &Lay;
  CUdevice Dev = 0;
  int Ma = 0, Mi = 0, SMs = 0, MaxThreads = 1024;
  std::string Arch;
  CompiledKernels Here; ///< Compiled here when Compiled cannot serve.
  CUfunction TestFn = nullptr, HistFn = nullptr;
  // The launch shape (chooseShape).
  uint32_t K = 1, LayWarps = 0, LayLanes = 0, LayGroups = 0;
  bool Single = false, Bank = false;
  uint32_t Threads = 0, W = 0, Lanes = 0, SharedStride = 1, CtaStress = 0,
           BlockThreads = 0, MaxBlocks = 0, StressBlocks = 0, TestBlocks = 0,
           N = 0, NumOut = 1;
  size_t SmemBytes = 0;
  // The kernels' parameters and the buffers read back (fillParams,
  // allocateBuffers).
  IncantParams Pr{};
  uint32_t NumG = 1;
  CUdeviceptr HKey = 0, HCnt = 0, HTup = 0, Sync = 0;
  std::mt19937_64 Rng;
};

/// Compiles the kernels, where the caller's cannot serve, while the
/// device's context is made current.
DeviceRun::Failure DeviceRun::compileAndActivate() {
  if (!S.check(D.cuDeviceGet(&Dev, static_cast<int>(Device)), "cuDeviceGet"))
    return ErrorKind::Device;
  D.cuDeviceGetAttribute(&Ma, CU_ATTR_COMPUTE_CAPABILITY_MAJOR, Dev);
  D.cuDeviceGetAttribute(&Mi, CU_ATTR_COMPUTE_CAPABILITY_MINOR, Dev);
  Arch = fmt::format("sm_{}{}", Ma, Mi);
  // NVRTC and the SASS check need no context: the harness compiles on
  // another thread while the device's context is made (a fresh process
  // spends about as long on each).
  std::string CompileLog;
  bool NeedCompile =
      !Compiled || !Compiled->Module || Compiled->Module->Arch != Arch;
  std::future<bool> Compiling;
  if (NeedCompile)
    Compiling = std::async(std::launch::async, [&] {
      return compileCached(Libs, G, Arch, Here, CompileLog, CompileCache);
    });
  bool Active;
  {
    phases::Scope Timed("cuda: context");
    Active = State.activate(Diags);
  }
  if (NeedCompile) {
    phases::Scope Timed("cuda: waiting for the compile");
    if (!Compiling.get()) {
      Diags.error("NVRTC failed to compile the harness:\n" + CompileLog);
      return ErrorKind::Internal;
    }
    Compiled = &Here;
  }
  if (!Active)
    return ErrorKind::Device;
  return std::nullopt;
}

/// The device's name, size, driver and compiler in the result.
void DeviceRun::describeDevice() {
  char Name[256] = {};
  D.cuDeviceGetName(Name, sizeof(Name), Dev);
  D.cuDeviceGetAttribute(&SMs, CU_ATTR_MULTIPROCESSOR_COUNT, Dev);
  D.cuDeviceGetAttribute(&MaxThreads, CU_ATTR_MAX_THREADS_PER_BLOCK, Dev);
  harness::DeviceInfo &Info = Res.Device;
  Info.Backend = "cuda";
  Info.Index = Device;
  Info.Name = Name;
  Info.Vendor = "NVIDIA";
  Info.Platform = "CUDA driver API";
  Info.Version = Arch;
  Info.IsGPU = true;
  Info.IsNvidia = true;
  Info.ComputeUnits = static_cast<uint32_t>(SMs);
  {
    std::lock_guard<std::mutex> Lock(Shared.Mutex);
    Info.Driver = Libs.nvmlDriverVersion();
  }
  if (Info.Driver.empty()) {
    int V = 0;
    D.cuDriverGetVersion(&V);
    Info.Driver = fmt::format("CUDA {}.{}", V / 1000, (V % 1000) / 10);
  }
  Info.Notes.push_back("NVRTC " + nvrtcVersion(Libs));
}

/// The test and histogram kernels, from the module loaded in the context.
DeviceRun::Failure DeviceRun::loadKernels() {
  if (Lay.ClusterSize > 1 && Ma < 9) {
    Diags.error("the test places threads in one cluster; clusters need sm_90");
    return ErrorKind::Device;
  }
  Res.OptCheck = Compiled->Opt.line();
  CUmodule Module = nullptr;
  if (!State.module(Compiled->Module, Module, Diags) ||
      !S.check(D.cuModuleGetFunction(&TestFn, Module,
                                     Compiled->TestKernel.c_str()),
               "cuModuleGetFunction") ||
      !S.check(D.cuModuleGetFunction(&HistFn, Module,
                                     Compiled->HistKernel.c_str()),
               "cuModuleGetFunction"))
    return ErrorKind::Device;
  return std::nullopt;
}

/// The launch shape: threads, warps and lanes of a block, testing and
/// stressing blocks, from the device's occupancy and the parameters.
DeviceRun::Failure DeviceRun::chooseShape() {
  K = Lay.ClusterSize;
  LayWarps = Lay.maxWarps();
  LayLanes = Lay.maxLanes();
  LayGroups = Lay.NumClusterGroups;
  Single = Params.Instances == 1;
  // A profile's block size too small for the test's warps gives way to the
  // smallest that holds them, with a note; one the user gave stays an error.
  uint32_t GroupSize = Params.GroupSize;
  if (Params.GroupSizeAtLeast && GroupSize && GroupSize % 32 == 0 &&
      GroupSize < 32 * LayWarps) {
    GroupSize = 32 * LayWarps;
    Res.Device.Notes.push_back(fmt::format(
        "CTAs of {} threads, not the profile's {}: the test has {} warps in "
        "one CTA",
        GroupSize, Params.GroupSize, LayWarps));
  }
  // A block size the GPU cannot run as given is an error, not a value
  // changed without a word.
  if (GroupSize &&
      (GroupSize % 32 || GroupSize > static_cast<uint32_t>(MaxThreads) ||
       GroupSize < 32 * LayWarps)) {
    Diags.error(fmt::format("--group-size {}: the GPU runs CTAs of a "
                            "multiple of 32 threads, from {} (this test's "
                            "warps) to {}",
                            GroupSize, 32 * LayWarps, MaxThreads));
    return ErrorKind::Input;
  }
  Threads =
      std::clamp<uint32_t>(GroupSize ? GroupSize : 256, 32,
                           static_cast<uint32_t>(MaxThreads));
  Threads = std::max<uint32_t>(Threads / 32 * 32, 32 * LayWarps);
  W = Threads / 32;
  // A lane that shadows the test works on a region of global memory of its
  // own, which another CTA's shared memory cannot be: no shadows there.
  Bank = Inc.BankConflicts && !G.ClusterShared;
  if (Inc.BankConflicts && !Bank)
    Res.Device.Notes.push_back("bank conflicts off: the test reaches another "
                               "CTA's shared memory");
  Lanes = Bank ? std::clamp<uint32_t>(Tuning.BankLanes, 1, 32) : 32;
  Lanes = std::max(Lanes, LayLanes);
  if (LayLanes > 32 || LayWarps > 32) {
    Diags.error("too many threads of the test in one warp or one CTA");
    return ErrorKind::Input;
  }
  SharedStride = std::max<uint32_t>(G.SharedStride, 1);
  SmemBytes = static_cast<size_t>(G.NumShared) * W * Lanes * SharedStride * 4;
  // Stress warps inside each testing block, after its W testing warps
  // (not in tests with bar.sync: every thread must meet their barriers).
  const uint32_t MaxWarps = static_cast<uint32_t>(MaxThreads) / 32;
  CtaStress =
      G.HasBarrier
          ? 0
          : std::min(Tuning.CtaStressWarps, MaxWarps - std::min(W, MaxWarps));
  BlockThreads = Threads + 32 * CtaStress;
  int PerSM = 0;
  if (!S.check(D.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                   &PerSM, TestFn, static_cast<int>(BlockThreads), SmemBytes),
               "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    return ErrorKind::Device;
  MaxBlocks = std::max(1, PerSM) * static_cast<uint32_t>(SMs);
  MaxBlocks = std::max<uint32_t>(MaxBlocks / K * K, K);
  if (Single) {
    W = LayWarps;
    Threads = W * 32;
    BlockThreads = Threads + 32 * CtaStress;
    Lanes = LayLanes;
    TestBlocks = LayGroups * K;
    SmemBytes = static_cast<size_t>(G.NumShared) * W * Lanes * SharedStride * 4;
    if (Inc.MemStress)
      StressBlocks = std::max<uint32_t>(
          static_cast<uint32_t>(MaxBlocks * Tuning.StressFraction) / K * K, K);
  } else {
    if (Inc.MemStress)
      StressBlocks =
          Inc.StressGroups
              ? std::min(Inc.StressGroups, MaxBlocks - K) / K * K
              : static_cast<uint32_t>(MaxBlocks * Tuning.StressFraction) / K *
                    K;
    if (Inc.MemStress && Inc.StressGroups && StressBlocks != Inc.StressGroups)
      Res.Device.Notes.push_back(fmt::format(
          "--stress-groups {}: {} (what the GPU holds beside the test, in "
          "whole clusters)",
          Inc.StressGroups, StressBlocks));
    TestBlocks = (MaxBlocks - std::min(StressBlocks, MaxBlocks - K)) / K * K;
    // --instances N: no more testing blocks than N instances need (the
    // freed slots can take stressing blocks); at least the test's.
    if (Params.Instances > 1) {
      uint64_t Want =
          (uint64_t(Params.Instances) + W * Lanes - 1) / (W * Lanes);
      Want =
          std::max<uint64_t>((Want + K - 1) / K * K, uint64_t(LayGroups) * K);
      TestBlocks = static_cast<uint32_t>(std::min<uint64_t>(TestBlocks, Want));
    }
  }
  if (TestBlocks / K < LayGroups) {
    Diags.error("the GPU cannot hold as many CTAs as the test needs");
    return ErrorKind::Input;
  }
  N = TestBlocks * W * Lanes;
  NumOut = std::max<uint32_t>(G.NumOut, 1);
  Res.InstancesPerLaunch = Single ? 1 : N;
  if (Params.Instances > 1 && N != Params.Instances)
    Res.Device.Notes.push_back(fmt::format(
        "--instances {}: {} per launch (whole CTAs, at most what the GPU "
        "holds at once)",
        Params.Instances, N));
  return std::nullopt;
}

/// The kernels' parameters: the shape, the layout of locations and the
/// incantations.
DeviceRun::Failure DeviceRun::fillParams() {
  Pr.testBlocks = TestBlocks;
  Pr.warps = W;
  Pr.lanes = Lanes;
  Pr.instances = N;
  Pr.stride = std::max<uint32_t>(Params.Stride, 1);
  if (G.Align16 && Pr.stride % 4) {
    // A bulk copy moves 16 bytes from a 16-byte boundary.
    Pr.stride = (Pr.stride + 3) / 4 * 4;
    Res.Device.Notes.push_back(fmt::format(
        "stride {} words (bulk copies need 16-byte aligned locations)",
        Pr.stride));
  }
  Pr.locPerm = harness::halfwayMultiplier(N);
  Pr.sharedStride = SharedStride;
  Pr.stressIters = Inc.StressIterations;
  Pr.stressLines = std::max<uint32_t>(Inc.StressLocs, 1);
  Pr.stressPattern = stressPattern(Inc.StressSeq);
  Pr.stressSpread = std::max<uint32_t>(Inc.StressPatch, 1);
  Pr.preStressIters = Inc.PreStressIterations;
  Pr.barrierPolls = Inc.BarrierPolls;
  Pr.ctaStressWarps = CtaStress;
  const bool StressInTest = Inc.MemStress && Inc.StressInTest;
  // Per-instance regions (tune patch): locations LocDistance apart, stress
  // at an offset inside the region, never on a location of the test.
  NumG = std::max<uint32_t>(G.NumGlobal, 1);
  if (Params.LocDistance || StressInTest) {
    uint64_t Dist = Params.LocDistance ? Params.LocDistance : Pr.stride;
    uint64_t Need = std::max<uint64_t>((NumG - 1) * Dist + 1, Pr.stride);
    if (StressInTest) {
      for (uint64_t L = 0; L < Pr.stressLines; ++L)
        for (uint64_t Gl = 0; Gl < NumG; ++Gl)
          // 64-bit locations: even slots, each with its high word next.
          if (Inc.StressOffset + L * Pr.stressSpread == Gl * Dist ||
              (G.Wide && Gl % 2 == 0 &&
               Inc.StressOffset + L * Pr.stressSpread == Gl * Dist + 1)) {
            Diags.error(fmt::format(
                "stress offset {} + {} * {} hits location {} of the test; "
                "choose another offset",
                Inc.StressOffset, L, Pr.stressSpread, Gl));
            return ErrorKind::Input;
          }
      Need = std::max<uint64_t>(
          Need, Inc.StressOffset +
                    uint64_t(Pr.stressLines - 1) * Pr.stressSpread + 1);
    }
    if (Need > (1u << 24) || Need * N > (uint64_t(1) << 32)) {
      Diags.error("location distance or stress offset too large for the "
                  "GPU's memory");
      return ErrorKind::Input;
    }
    if (G.Align16 && Dist % 4) {
      Diags.error("--loc-distance must be a multiple of 4 words for a test "
                  "with bulk copies (16-byte aligned locations)");
      return ErrorKind::Input;
    }
    Pr.locDist = static_cast<uint32_t>(Dist);
    Pr.instWords = static_cast<uint32_t>((Need + 31) / 32 * 32);
    Pr.stressOffset = Inc.StressOffset;
  }
  Pr.flags = (Inc.MemStress ? INCANT_F_STRESS : 0) |
             (Bank ? INCANT_F_BANK : 0) |
             (Inc.SpinBarrier ? INCANT_F_BARRIER : 0) |
             (Inc.PreStress ? INCANT_F_PRESTRESS : 0) |
             (Single ? INCANT_F_SINGLE : 0) |
             (StressInTest ? INCANT_F_STRESS_TEST : 0);
  return std::nullopt;
}

/// The run's device buffers (the state's, grown as needed), zeroed.
DeviceRun::Failure DeviceRun::allocateBuffers() {
  uint32_t MaxTotal = TestBlocks + std::max(StressBlocks, MaxBlocks);
  CUdeviceptr Mem, Out, Scratch, Shadow;
  size_t MemWords = Pr.locDist ? static_cast<size_t>(N) * Pr.instWords
                               : static_cast<size_t>(N) * NumG * Pr.stride;
  size_t ShadowWords =
      Bank
          ? static_cast<size_t>(MaxTotal) * W *
                (std::max<uint32_t>(G.NumGlobal, 1) + G.NumShared) * 1024
          : 1;
  auto Alloc = [&](Slot Sl, size_t Bytes, CUdeviceptr &P) {
    return State.buffer(Sl, Bytes, P, Diags);
  };
  if (!Alloc(MemSlot, MemWords * 4, Mem) ||
      !Alloc(OutSlot, static_cast<size_t>(N) * NumOut * 4, Out) ||
      !Alloc(HistKeySlot, INCANT_HIST_CAP * 8, HKey) ||
      !Alloc(HistCountSlot, (INCANT_HIST_CAP + 1) * 8, HCnt) ||
      !Alloc(HistTupleSlot, static_cast<size_t>(INCANT_HIST_CAP) * NumOut * 4,
             HTup) ||
      !Alloc(ScratchSlot,
             (static_cast<size_t>(Pr.stressLines) * Pr.stressSpread + 64) * 4,
             Scratch) ||
      !Alloc(ShadowSlot, ShadowWords * 4, Shadow) || !Alloc(SyncSlot, 64, Sync))
    return ErrorKind::Device;
  Pr.mem = Mem;
  Pr.out = Out;
  Pr.histKey = HKey;
  Pr.histCnt = HCnt;
  Pr.histTup = HTup;
  Pr.scratch = Scratch;
  Pr.shadow = Shadow;
  Pr.sync = Sync;
  return std::nullopt;
}

/// One launch's grid, partner strides and permutations: drawn from Rng when
/// \p Random, else partners half the grid apart.
void DeviceRun::shape(IncantParams &X, bool Random) {
  const uint32_t Q = TestBlocks / K;
  const uint32_t C = LayGroups;
  uint32_t Stress = StressBlocks;
  if (Random && Inc.MemStress && StressBlocks > 0)
    Stress = std::uniform_int_distribution<uint32_t>(
                 StressBlocks / 2, StressBlocks * 3 / 2)(Rng) /
             K * K;
  X.totalBlocks = TestBlocks + Stress;
  uint32_t MaxS = C > 1 ? std::max<uint32_t>((Q - 1) / (C - 1), 1) : 1;
  uint32_t MaxWs =
      LayWarps > 1 ? std::max<uint32_t>((W - 1) / (LayWarps - 1), 1) : 1;
  if (Random) {
    X.blockStride = std::uniform_int_distribution<uint32_t>(1, MaxS)(Rng);
    X.warpStride = std::uniform_int_distribution<uint32_t>(1, MaxWs)(Rng);
    X.lanePerm = harness::coprimeMultiplier(Lanes, Rng());
    X.blockPerm =
        K > 1 ? 1 : harness::coprimeMultiplier(X.totalBlocks, Rng());
    X.blockOff = K > 1 ? 0
                       : std::uniform_int_distribution<uint32_t>(
                             0, X.totalBlocks - 1)(Rng);
    X.bankMode = std::uniform_int_distribution<uint32_t>(0, 2)(Rng);
  } else {
    // Partners half the grid apart (for two CTAs) rather than adjacent.
    X.blockStride = std::max<uint32_t>(Q / C, 1);
    X.warpStride = std::max<uint32_t>(W / LayWarps, 1);
    X.lanePerm = 1;
    X.blockPerm = 1;
    X.blockOff = 0;
    X.bankMode = static_cast<uint32_t>(Rng() % 3);
  }
  X.lanePermInv = harness::inverseMultiplier(X.lanePerm, Lanes);
  X.seed = static_cast<uint32_t>(Rng());
}

/// Shapes the base parameters and records the launch shape in the result.
void DeviceRun::recordShape() {
  shape(Pr, false);
  Res.Groups = TestBlocks;
  Res.GroupSize = Threads;
  Res.WarpSize = 32;
  Res.Device.Notes.push_back(fmt::format(
      "blocks={}+{} threads={} lanes={} instances/launch={} stride={} "
      "stress={} bank={} random={} barrier={} prestress={} iterations={}{}{}",
      TestBlocks, StressBlocks, Threads, Lanes, Res.InstancesPerLaunch,
      Pr.stride, Inc.MemStress, Bank, Inc.Randomise,
      Inc.SpinBarrier, Inc.PreStress, Params.Iterations,
      K > 1 ? fmt::format(" cluster={}", K) : std::string(),
      CtaStress ? fmt::format(" cta-stress-warps={}", CtaStress)
                : std::string()));
}

/// Queues kernel \p F with the parameters \p X.
bool DeviceRun::launch(CUfunction F, uint32_t Grid, uint32_t Block,
                       size_t Smem, IncantParams &X) {
  void *Args[] = {&X};
  return S.check(D.cuLaunchKernel(F, Grid, 1, 1, Block, 1, 1,
                                  static_cast<unsigned>(Smem), nullptr, Args,
                                  nullptr),
                 "cuLaunchKernel");
}

/// The initial values, then Params.Iterations launches of the test and the
/// histogram (fewer when Tuning.MaxSeconds runs out), waited for.
DeviceRun::Failure
DeviceRun::launchAll(const std::function<void(uint64_t)> &OnLaunch) {
  const uint32_t HistGrid = (N + 255) / 256;
  // A run that stops early (a launch refused) waits for what it already
  // queued before its buffers and module serve the next run.
  struct DrainOnError {
    const DriverApi &D;
    bool Armed = true;
    ~DrainOnError() {
      if (Armed)
        D.cuCtxSynchronize();
    }
  } Drain{D};
  // Initial values for the first launch.
  IncantParams Init = Pr;
  Init.flags |= INCANT_F_NOCOUNT;
  if (!launch(HistFn, HistGrid, 256, 0, Init) ||
      !S.check(D.cuCtxSynchronize(), "kernel"))
    return ErrorKind::Device;
  auto T0 = std::chrono::steady_clock::now();
  for (uint64_t It = 0; It < Params.Iterations; ++It) {
    IncantParams X = Pr;
    shape(X, Inc.Randomise);
    if (!launch(TestFn, X.totalBlocks, BlockThreads, SmemBytes, X) ||
        !launch(HistFn, HistGrid, 256, 0, X))
      return ErrorKind::Device;
    Res.Launches = It + 1;
    if (OnLaunch)
      OnLaunch(Res.Launches);
    // A time budget, checked now and then (launches queue up and block
    // once the queue is full, so wall time follows the GPU's).
    if (Tuning.MaxSeconds > 0 && (It & 255) == 255 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
                .count() > Tuning.MaxSeconds)
      break;
  }
  Drain.Armed = false;
  if (!S.check(D.cuCtxSynchronize(), "the test kernel"))
    return ErrorKind::Device;
  Res.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  return std::nullopt;
}

/// Copies back the histogram the GPU counted and decodes its outcomes.
DeviceRun::Failure DeviceRun::readHistogram() {
  std::vector<uint64_t> Keys(INCANT_HIST_CAP), Cnt(INCANT_HIST_CAP + 1);
  std::vector<uint32_t> Tup(static_cast<size_t>(INCANT_HIST_CAP) * NumOut);
  uint64_t SyncWords[2] = {0, 0};
  if (!S.check(D.cuMemcpyDtoH(Keys.data(), HKey, Keys.size() * 8), "copy") ||
      !S.check(D.cuMemcpyDtoH(Cnt.data(), HCnt, Cnt.size() * 8), "copy") ||
      !S.check(D.cuMemcpyDtoH(Tup.data(), HTup, Tup.size() * 4), "copy") ||
      !S.check(D.cuMemcpyDtoH(SyncWords, Sync, sizeof(SyncWords)), "copy"))
    return ErrorKind::Device;
  // The harness counts, at Sync + 8, testing blocks whose spin barrier gave
  // up; one thread of each testing block waits, every launch.
  if (Inc.SpinBarrier) {
    Res.BarrierTimeouts = SyncWords[1];
    Res.BarrierWaits = Res.Launches * TestBlocks;
  }
  for (uint32_t I = 0; I < INCANT_HIST_CAP; ++I) {
    if (!Keys[I])
      continue;
    auto First = Tup.begin() + static_cast<size_t>(I) * NumOut;
    std::vector<uint32_t> Words(First, First + G.NumOut);
    // An instance cut by the loop bound did not finish: no outcome.
    if (G.CutSlot >= 0 && Words[static_cast<size_t>(G.CutSlot)] != 0) {
      Res.LoopBoundHits += Cnt[I];
      continue;
    }
    Res.Hist.add(decodeOutcome(G, Words), Cnt[I]);
  }
  Res.Lost = Cnt[INCANT_HIST_CAP];
  Res.Instances = Res.Hist.total() + Res.Lost + Res.LoopBoundHits;
  return std::nullopt;
}

} // namespace

Expected<harness::RunResult>
runOnDevice(const GeneratedTest &G, const CompiledKernels *Compiled,
            const harness::RunParams &Params, const CudaTuning &Tuning,
            DeviceState &State, uint32_t Device,
            const std::function<void(uint64_t)> &OnLaunch,
            const std::string &CompileCache, DiagnosticEngine &Diags) {
  DeviceRun Run(G, Compiled, Params, Tuning, State, Device, Diags);
  Run.CompileCache = CompileCache;
  if (DeviceRun::Failure F = Run.compileAndActivate())
    return *F;
  Run.describeDevice();
  using Step = DeviceRun::Failure (DeviceRun::*)();
  const std::pair<const char *, Step> Steps[] = {
      {"cuda: module load", &DeviceRun::loadKernels},
      {"cuda: launch shape", &DeviceRun::chooseShape},
      {"cuda: parameters", &DeviceRun::fillParams},
      {"cuda: buffers", &DeviceRun::allocateBuffers}};
  for (const auto &[Name, S] : Steps) {
    phases::Scope Timed(Name);
    if (DeviceRun::Failure F = (Run.*S)())
      return *F;
  }
  Run.recordShape();
  {
    phases::Scope Timed("cuda: launches");
    if (DeviceRun::Failure F = Run.launchAll(OnLaunch))
      return *F;
  }
  phases::Scope Timed("cuda: histogram read");
  if (DeviceRun::Failure F = Run.readHistogram())
    return *F;
  return std::move(Run.Res);
}

} // namespace incant::cuda
