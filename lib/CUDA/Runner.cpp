//===- Runner.cpp - Run a litmus::Program on an NVIDIA GPU -----------------===//

#include "incant/CUDA/Runner.h"
#include "incant/CUDA/CudaApi.h"
#include "incant/Litmus/Condition.h"

#include "runtime/incant_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>

using namespace incant;
using namespace incant::cuda;

static_assert(sizeof(IncantParams) % 8 == 0, "IncantParams layout");

bool incant::cuda::evaluateCondition(const litmus::Program &P,
                                     const std::vector<uint32_t> &Words) {
  std::vector<litmus::Value> Values;
  for (uint32_t W : Words)
    Values.push_back({-1, static_cast<int32_t>(W)});
  return evaluateCondition(P, Values);
}

bool incant::cuda::evaluateCondition(const litmus::Program &P,
                                     const std::vector<litmus::Value> &Values) {
  return litmus::holds(P, P.Condition, Values);
}

namespace {

uint32_t inverseMod(uint32_t A, uint32_t M) {
  if (M <= 1)
    return 0;
  for (uint32_t X = 1; X < M; ++X)
    if ((static_cast<uint64_t>(A) * X) % M == 1)
      return X;
  return 1;
}

uint32_t randomCoprime(std::mt19937_64 &Rng, uint32_t N) {
  if (N <= 2)
    return 1;
  std::uniform_int_distribution<uint32_t> D(1, N - 1);
  for (int Try = 0; Try < 64; ++Try) {
    uint32_t V = D(Rng);
    if (std::gcd(V, N) == 1)
      return V;
  }
  return 1;
}

/// A coprime multiplier far from 1, so consecutive instances spread out.
uint32_t spreadingCoprime(uint32_t N) {
  if (N <= 2)
    return 1;
  for (uint32_t V = N / 2 + 1; V < N; ++V)
    if (std::gcd(V, N) == 1)
      return V;
  return 1;
}

class Session {
public:
  Session(CudaLibraries &L) : L(L) {}
  ~Session() {
    for (CUdeviceptr P : Allocs)
      L.Drv.cuMemFree(P);
    if (Module)
      L.Drv.cuModuleUnload(Module);
  }
  bool check(CUresult R, const char *What, RunResult &Res) {
    if (R == 0)
      return true;
    Res.Status = RunResult::Failed;
    Res.Message = fmt::format("{} failed: {}", What, L.errorString(R));
    return false;
  }
  bool alloc(size_t Bytes, CUdeviceptr &P, RunResult &Res) {
    if (!check(L.Drv.cuMemAlloc(&P, std::max<size_t>(Bytes, 16)),
               "cuMemAlloc", Res))
      return false;
    Allocs.push_back(P);
    return check(L.Drv.cuMemsetD8(P, 0, std::max<size_t>(Bytes, 16)),
                 "cuMemsetD8", Res);
  }
  CudaLibraries &L;
  CUmodule Module = nullptr;
  std::vector<CUdeviceptr> Allocs;
};

/// Compiles \p G with NVRTC for \p Arch. \p PtxasOpt, when not empty, is
/// passed to ptxas (e.g. "-O0"); the PTX does not depend on it.
bool compile(CudaLibraries &L, const GeneratedTest &G, const std::string &Arch,
             const std::string &PtxasOpt, std::string &Ptx, std::string &Cubin,
             std::string &Log) {
  std::vector<const char *> HNames, HTexts;
  for (const auto &F : harnessFiles()) {
    HNames.push_back(F.Name);
    HTexts.push_back(F.Text);
  }
  nvrtcProgram Prog = nullptr;
  if (L.Rtc.nvrtcCreateProgram(&Prog, G.Source.c_str(), "incant_test.cu",
                               static_cast<int>(HNames.size()), HTexts.data(),
                               HNames.data()) != 0) {
    Log = "nvrtcCreateProgram failed";
    return false;
  }
  std::string ArchOpt = "--gpu-architecture=" + Arch;
  std::string PtxasOpts = "--ptxas-options=" + PtxasOpt;
  const char *Opts[] = {ArchOpt.c_str(), "-std=c++17", PtxasOpts.c_str()};
  nvrtcResult R =
      L.Rtc.nvrtcCompileProgram(Prog, PtxasOpt.empty() ? 2 : 3, Opts);
  size_t N = 0;
  L.Rtc.nvrtcGetProgramLogSize(Prog, &N);
  Log.assign(N, '\0');
  if (N)
    L.Rtc.nvrtcGetProgramLog(Prog, Log.data());
  if (R != 0) {
    L.Rtc.nvrtcDestroyProgram(&Prog);
    return false;
  }
  if (L.Rtc.nvrtcGetPTXSize(Prog, &N) == 0) {
    Ptx.assign(N, '\0');
    L.Rtc.nvrtcGetPTX(Prog, Ptx.data());
    while (!Ptx.empty() && Ptx.back() == '\0')
      Ptx.pop_back();
  }
  if (L.Rtc.nvrtcGetCUBINSize(Prog, &N) == 0 && N) {
    Cubin.assign(N, '\0');
    L.Rtc.nvrtcGetCUBIN(Prog, Cubin.data());
  }
  L.Rtc.nvrtcDestroyProgram(&Prog);
  return true;
}

/// Compiles and, when \p Check, runs optcheck on the SASS. When ptxas's
/// default optimisation merged or moved a test's access (optcheck FAILED),
/// compiles again with lower ptxas levels (the PTX, hence the test's
/// instructions, stays the same) and keeps the first level whose SASS
/// passes, saying so in the result; if none passes, the default level's
/// failure is the result.
bool compileChecked(CudaLibraries &L, const GeneratedTest &G,
                    const std::string &Arch, bool Check, std::string &Ptx,
                    std::string &Cubin, std::string &Sass,
                    OptCheckResult &Opt, std::string &Log) {
  if (!compile(L, G, Arch, "", Ptx, Cubin, Log))
    return false;
  if (!Check) {
    Opt = {};
    Opt.Detail = "turned off";
    return true;
  }
  std::string Why;
  Sass.clear();
  if (!disassemble(Cubin, Sass, Why)) {
    Opt = {};
    Opt.Detail = Why;
    return true;
  }
  Opt = checkSass(Sass, G.ExpectedMemOps, G.RegionNames);
  if (Opt.K != OptCheckResult::Failed)
    return true;
  for (const char *Level : {"-O1", "-O0"}) {
    std::string P2, C2, L2, S2;
    if (!compile(L, G, Arch, Level, P2, C2, L2) || !disassemble(C2, S2, Why))
      continue;
    OptCheckResult R = checkSass(S2, G.ExpectedMemOps, G.RegionNames);
    if (R.K != OptCheckResult::Ok)
      continue;
    R.Detail = fmt::format("ptxas {}; at its default level {}", Level,
                           Opt.Detail);
    Opt = std::move(R);
    Cubin = std::move(C2);
    Sass = std::move(S2);
    return true;
  }
  return true;
}

bool writeFile(const std::filesystem::path &P, const std::string &Text) {
  std::ofstream F(P, std::ios::binary);
  F << Text;
  return static_cast<bool>(F);
}

std::string nvrtcVersion(CudaLibraries &L) {
  int Ma = 0, Mi = 0;
  if (L.Rtc.nvrtcVersion && L.Rtc.nvrtcVersion(&Ma, &Mi) == 0)
    return fmt::format("{}.{}", Ma, Mi);
  return "";
}

} // namespace

RunResult incant::cuda::runOnCuda(const litmus::Program &P,
                                  const RunOptions &Opts,
                                  std::shared_ptr<const SourceFile> File,
                                  DiagnosticEngine &Diags) {
  RunResult Res;
  CodegenOptions CG;
  CG.LoopBudget = Opts.LoopBound;
  auto Gen = generateCuda(P, CG, File, Diags);
  if (!Gen) {
    Res.Status = RunResult::BadInput;
    return Res;
  }
  const GeneratedTest &G = *Gen;
  // Loaded once per process. `incant campaign` runs several tests at once
  // (worker threads sharing one device's primary context), so loading the
  // libraries and the compile cache below are guarded; launches go to the
  // legacy default stream and so never overlap across threads.
  static CudaLibraries Libs;
  static std::mutex LibsMutex;
  std::string Why;

  // --emit: the sources, and the PTX when NVRTC is here; no device needed.
  if (!Opts.EmitDir.empty()) {
    namespace fs = std::filesystem;
    std::error_code EC;
    fs::create_directories(Opts.EmitDir, EC);
    fs::path D(Opts.EmitDir);
    bool Ok = writeFile(D / "test.cu", G.Source);
    for (const auto &F : harnessFiles())
      Ok &= writeFile(D / F.Name, F.Text);
    if (!Ok) {
      Res.Status = RunResult::Failed;
      Res.Message = "cannot write to " + Opts.EmitDir;
      return Res;
    }
    Res.Status = RunResult::Emitted;
    Res.Arch = Opts.Arch.empty() ? "sm_90" : Opts.Arch;
    bool HaveNvrtc;
    {
      std::lock_guard<std::mutex> Lock(LibsMutex);
      HaveNvrtc = Libs.loadNvrtc(Why);
    }
    if (HaveNvrtc) {
      std::string Ptx, Cubin, Log;
      Res.Nvrtc = nvrtcVersion(Libs);
      std::string Sass;
      if (!compileChecked(Libs, G, Res.Arch, true, Ptx, Cubin, Sass, Res.Opt,
                          Log)) {
        Res.Status = RunResult::Failed;
        Res.Message = "NVRTC failed to compile the harness:\n" + Log;
        return Res;
      }
      writeFile(D / "test.ptx", Ptx);
      if (!Sass.empty())
        writeFile(D / "test.sass", Sass);
    } else {
      Res.Message = Why + ": PTX not written";
    }
    return Res;
  }

  {
    std::lock_guard<std::mutex> Lock(LibsMutex);
    if (!Libs.loadDriver(Why)) {
      Res.Status = RunResult::NoDriver;
      Res.Message = Why;
      return Res;
    }
    if (!Libs.loadNvrtc(Why)) {
      Res.Status = RunResult::NoCompiler;
      Res.Message = Why;
      return Res;
    }
  }
  const DriverApi &D = Libs.Drv;
  Session S(Libs);
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  if (!S.check(D.cuDeviceGet(&Dev, static_cast<int>(Opts.Device)),
               "cuDeviceGet", Res) ||
      !S.check(D.cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain",
               Res) ||
      !S.check(D.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent", Res))
    return Res;
  char Name[256] = {};
  D.cuDeviceGetName(Name, sizeof(Name), Dev);
  Res.Device = Name;
  int Ma = 0, Mi = 0, MaxThreads = 1024;
  D.cuDeviceGetAttribute(&Ma, CU_ATTR_COMPUTE_CAPABILITY_MAJOR, Dev);
  D.cuDeviceGetAttribute(&Mi, CU_ATTR_COMPUTE_CAPABILITY_MINOR, Dev);
  D.cuDeviceGetAttribute(&Res.SMs, CU_ATTR_MULTIPROCESSOR_COUNT, Dev);
  D.cuDeviceGetAttribute(&MaxThreads, CU_ATTR_MAX_THREADS_PER_BLOCK, Dev);
  Res.Arch = Opts.Arch.empty() ? fmt::format("sm_{}{}", Ma, Mi) : Opts.Arch;
  {
    std::lock_guard<std::mutex> Lock(LibsMutex);
    Res.Driver = Libs.nvmlDriverVersion();
  }
  if (Res.Driver.empty()) {
    int V = 0;
    D.cuDriverGetVersion(&V);
    Res.Driver = fmt::format("CUDA {}.{}", V / 1000, (V % 1000) / 10);
  }
  Res.Nvrtc = nvrtcVersion(Libs);
  if (G.Layout.ClusterSize > 1 && Ma < 9) {
    Res.Status = RunResult::Failed;
    Res.Message = "the test places threads in one cluster; clusters need sm_90";
    return Res;
  }

  // Stress and layout parameters are kernel arguments, so one compiled
  // module serves every run of the same source (`incant tune` runs
  // hundreds): compile and optcheck once per source and architecture.
  struct Compiled {
    std::string Cubin;
    OptCheckResult Opt;
  };
  // Bounded: a campaign compiles thousands of distinct sources, while
  // `incant tune` reuses a few. Compiling happens outside the lock, so
  // workers compile in parallel (two racing on one source both compile it).
  static std::map<std::string, Compiled> CompileCache;
  static std::mutex CacheMutex;
  constexpr size_t CacheCap = 64;
  std::string CacheKey = Res.Arch + '\n' + (Opts.OptCheck ? "1\n" : "0\n") +
                         G.Source;
  Compiled Entry;
  bool Hit = false;
  {
    std::lock_guard<std::mutex> Lock(CacheMutex);
    auto It = CompileCache.find(CacheKey);
    if (It != CompileCache.end()) {
      Entry = It->second;
      Hit = true;
    }
  }
  if (!Hit) {
    std::string Ptx, Sass, Log;
    if (!compileChecked(Libs, G, Res.Arch, Opts.OptCheck, Ptx, Entry.Cubin,
                        Sass, Entry.Opt, Log)) {
      Res.Status = RunResult::Failed;
      Res.Message = "NVRTC failed to compile the harness:\n" + Log;
      return Res;
    }
    std::lock_guard<std::mutex> Lock(CacheMutex);
    if (CompileCache.size() >= CacheCap)
      CompileCache.clear();
    CompileCache.emplace(std::move(CacheKey), Entry);
  }
  const std::string &Cubin = Entry.Cubin;
  Res.Opt = Entry.Opt;
  CUfunction TestFn = nullptr, HistFn = nullptr;
  if (!S.check(D.cuModuleLoadData(&S.Module, Cubin.data()), "cuModuleLoadData",
               Res) ||
      !S.check(D.cuModuleGetFunction(&TestFn, S.Module, "incant_test_kernel"),
               "cuModuleGetFunction", Res) ||
      !S.check(D.cuModuleGetFunction(&HistFn, S.Module, "incant_hist_kernel"),
               "cuModuleGetFunction", Res))
    return Res;

  // Launch shape.
  const RoleLayout &Lay = G.Layout;
  const uint32_t K = Lay.ClusterSize;
  uint32_t Threads = std::clamp<uint32_t>(Opts.ThreadsPerBlock, 32,
                                          static_cast<uint32_t>(MaxThreads));
  Threads = std::max<uint32_t>(Threads / 32 * 32, 32 * Lay.WarpGroups);
  uint32_t W = Threads / 32;
  uint32_t Lanes = Opts.Bank ? std::clamp<uint32_t>(Opts.BankLanes, 1, 32) : 32;
  Lanes = std::max(Lanes, Lay.LaneGroups);
  if (Lay.LaneGroups > 32 || Lay.WarpGroups > 32) {
    Res.Status = RunResult::Failed;
    Res.Message = "too many threads of the test in one warp or one CTA";
    return Res;
  }
  uint32_t SharedStride = 1;
  size_t SmemBytes = static_cast<size_t>(G.NumShared) * W * Lanes *
                     SharedStride * 4;
  // Stress warps inside each testing block, after its W testing warps
  // (not in tests with bar.sync: every thread must meet their barriers).
  const uint32_t MaxWarps = static_cast<uint32_t>(MaxThreads) / 32;
  uint32_t CtaStress =
      G.HasBarrier ? 0 : std::min(Opts.CtaStressWarps, MaxWarps - std::min(W, MaxWarps));
  uint32_t BlockThreads = Threads + 32 * CtaStress;
  int PerSM = 0;
  if (!S.check(D.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                   &PerSM, TestFn, static_cast<int>(BlockThreads), SmemBytes),
               "cuOccupancyMaxActiveBlocksPerMultiprocessor", Res))
    return Res;
  uint32_t MaxBlocks = std::max(1, PerSM) * static_cast<uint32_t>(Res.SMs);
  MaxBlocks = std::max<uint32_t>(MaxBlocks / K * K, K);
  uint32_t StressBlocks = 0, TestBlocks = 0;
  if (Opts.SingleInstance) {
    W = std::max<uint32_t>(Lay.WarpGroups, 1);
    Threads = W * 32;
    BlockThreads = Threads + 32 * CtaStress;
    Lanes = std::max<uint32_t>(Lay.LaneGroups, 1);
    TestBlocks = Lay.ClusterGroups * K;
    SmemBytes = static_cast<size_t>(G.NumShared) * W * Lanes * 4;
    if (Opts.Stress)
      StressBlocks = std::max<uint32_t>(
          static_cast<uint32_t>(MaxBlocks * Opts.StressFraction) / K * K, K);
  } else {
    if (Opts.Stress)
      StressBlocks =
          Opts.StressBlocks
              ? std::min(Opts.StressBlocks, MaxBlocks - K) / K * K
              : static_cast<uint32_t>(MaxBlocks * Opts.StressFraction) / K * K;
    TestBlocks = (MaxBlocks - std::min(StressBlocks, MaxBlocks - K)) / K * K;
    // --instances N: no more testing blocks than N instances need (the
    // freed slots can take stressing blocks); at least the test's.
    if (Opts.Instances > 1) {
      uint64_t Want = (uint64_t(Opts.Instances) + W * Lanes - 1) / (W * Lanes);
      Want = std::max<uint64_t>((Want + K - 1) / K * K,
                                uint64_t(Lay.ClusterGroups) * K);
      TestBlocks = static_cast<uint32_t>(std::min<uint64_t>(TestBlocks, Want));
    }
  }
  if (TestBlocks / K < Lay.ClusterGroups) {
    Res.Status = RunResult::Failed;
    Res.Message = "the GPU cannot hold as many CTAs as the test needs";
    return Res;
  }
  const uint32_t N = TestBlocks * W * Lanes;
  const uint32_t NumOut = std::max<uint32_t>(G.NumOut, 1);
  Res.InstancesPerLaunch = Opts.SingleInstance ? 1 : N;

  IncantParams Pr{};
  Pr.testBlocks = TestBlocks;
  Pr.warps = W;
  Pr.lanes = Lanes;
  Pr.instances = N;
  Pr.stride = std::max<uint32_t>(Opts.Stride, 1);
  Pr.locPerm = spreadingCoprime(N);
  Pr.sharedStride = SharedStride;
  Pr.stressIters = Opts.StressIters;
  Pr.stressLines = std::max<uint32_t>(Opts.StressLines, 1);
  Pr.stressPattern = Opts.StressPattern;
  Pr.stressSpread = std::max<uint32_t>(Opts.StressSpread, 1);
  Pr.preStressIters = Opts.PreStressIters;
  Pr.barrierPolls = Opts.BarrierPolls;
  Pr.ctaStressWarps = CtaStress;
  // Per-instance regions (tune patch): locations LocDistance apart, stress
  // at an offset inside the region, never on a location of the test.
  const uint32_t NumG = std::max<uint32_t>(G.NumGlobal, 1);
  if (Opts.LocDistance || (Opts.Stress && Opts.StressInTest)) {
    uint64_t Dist = Opts.LocDistance ? Opts.LocDistance : Pr.stride;
    uint64_t Need = std::max<uint64_t>((NumG - 1) * Dist + 1, Pr.stride);
    if (Opts.Stress && Opts.StressInTest) {
      for (uint64_t L = 0; L < Pr.stressLines; ++L)
        for (uint64_t Gl = 0; Gl < NumG; ++Gl)
          // 64-bit locations: even slots, each with its high word next.
          if (Opts.StressOffset + L * Pr.stressSpread == Gl * Dist ||
              (G.Wide && Gl % 2 == 0 &&
               Opts.StressOffset + L * Pr.stressSpread == Gl * Dist + 1)) {
            Res.Status = RunResult::Failed;
            Res.Message = fmt::format(
                "stress offset {} + {} * {} hits location {} of the test; "
                "choose another offset",
                Opts.StressOffset, L, Pr.stressSpread, Gl);
            return Res;
          }
      Need = std::max<uint64_t>(
          Need, Opts.StressOffset +
                    uint64_t(Pr.stressLines - 1) * Pr.stressSpread + 1);
    }
    if (Need > (1u << 24) || Need * N > (uint64_t(1) << 32)) {
      Res.Status = RunResult::Failed;
      Res.Message = "location distance or stress offset too large for the "
                    "GPU's memory";
      return Res;
    }
    Pr.locDist = static_cast<uint32_t>(Dist);
    Pr.instWords = static_cast<uint32_t>((Need + 31) / 32 * 32);
    Pr.stressOffset = Opts.StressOffset;
  }
  Pr.flags = (Opts.Stress ? INCANT_F_STRESS : 0) |
             (Opts.Bank ? INCANT_F_BANK : 0) |
             (Opts.Barrier ? INCANT_F_BARRIER : 0) |
             (Opts.PreStress ? INCANT_F_PRESTRESS : 0) |
             (Opts.SingleInstance ? INCANT_F_SINGLE : 0) |
             (Opts.Stress && Opts.StressInTest ? INCANT_F_STRESS_TEST : 0);

  uint32_t MaxTotal = TestBlocks + std::max(StressBlocks, MaxBlocks);
  CUdeviceptr Mem, Out, HKey, HCnt, HTup, Scratch, Shadow, Sync;
  size_t MemWords = Pr.locDist
                        ? static_cast<size_t>(N) * Pr.instWords
                        : static_cast<size_t>(N) * NumG * Pr.stride;
  size_t ShadowWords =
      Opts.Bank ? static_cast<size_t>(MaxTotal) * W *
                      (std::max<uint32_t>(G.NumGlobal, 1) + G.NumShared) * 1024
                : 1;
  if (!S.alloc(MemWords * 4, Mem, Res) ||
      !S.alloc(static_cast<size_t>(N) * NumOut * 4, Out, Res) ||
      !S.alloc(INCANT_HIST_CAP * 8, HKey, Res) ||
      !S.alloc((INCANT_HIST_CAP + 1) * 8, HCnt, Res) ||
      !S.alloc(static_cast<size_t>(INCANT_HIST_CAP) * NumOut * 4, HTup, Res) ||
      !S.alloc((static_cast<size_t>(Pr.stressLines) * Pr.stressSpread + 64) * 4,
               Scratch, Res) ||
      !S.alloc(ShadowWords * 4, Shadow, Res) || !S.alloc(64, Sync, Res))
    return Res;
  Pr.mem = Mem;
  Pr.out = Out;
  Pr.histKey = HKey;
  Pr.histCnt = HCnt;
  Pr.histTup = HTup;
  Pr.scratch = Scratch;
  Pr.shadow = Shadow;
  Pr.sync = Sync;

  std::mt19937_64 Rng(Opts.Seed);
  const uint32_t Q = TestBlocks / K;
  const uint32_t C = Lay.ClusterGroups;
  auto Shape = [&](IncantParams &X, bool Random) {
    uint32_t Stress = StressBlocks;
    if (Random && Opts.Stress && StressBlocks > 0)
      Stress = std::uniform_int_distribution<uint32_t>(
                   StressBlocks / 2, StressBlocks * 3 / 2)(Rng) /
               K * K;
    X.totalBlocks = TestBlocks + Stress;
    uint32_t MaxS = C > 1 ? std::max<uint32_t>((Q - 1) / (C - 1), 1) : 1;
    uint32_t MaxWs = Lay.WarpGroups > 1
                         ? std::max<uint32_t>((W - 1) / (Lay.WarpGroups - 1), 1)
                         : 1;
    if (Random) {
      X.blockStride = std::uniform_int_distribution<uint32_t>(1, MaxS)(Rng);
      X.warpStride = std::uniform_int_distribution<uint32_t>(1, MaxWs)(Rng);
      X.lanePerm = randomCoprime(Rng, Lanes);
      X.blockPerm = K > 1 ? 1 : randomCoprime(Rng, X.totalBlocks);
      X.blockOff = K > 1 ? 0
                         : std::uniform_int_distribution<uint32_t>(
                               0, X.totalBlocks - 1)(Rng);
      X.bankMode = std::uniform_int_distribution<uint32_t>(0, 2)(Rng);
    } else {
      // Partners half the grid apart (for two CTAs) rather than adjacent.
      X.blockStride = std::max<uint32_t>(Q / C, 1);
      X.warpStride = std::max<uint32_t>(W / Lay.WarpGroups, 1);
      X.lanePerm = 1;
      X.blockPerm = 1;
      X.blockOff = 0;
      X.bankMode = static_cast<uint32_t>(Rng() % 3);
    }
    X.lanePermInv = inverseMod(X.lanePerm, Lanes);
    if (Lanes == 1)
      X.lanePermInv = 0;
    X.seed = static_cast<uint32_t>(Rng());
  };
  Shape(Pr, false);
  Res.TestBlocks = TestBlocks;
  Res.ThreadsPerBlock = Threads;
  Res.TotalBlocks = Pr.totalBlocks;
  Res.Params = fmt::format(
      "blocks={}+{} threads={} lanes={} instances/launch={} stride={} "
      "stress={} bank={} random={} barrier={} prestress={} iterations={}{}{}",
      TestBlocks, StressBlocks, Threads, Lanes, Res.InstancesPerLaunch,
      Pr.stride, Opts.Stress, Opts.Bank, Opts.Randomise, Opts.Barrier,
      Opts.PreStress, Opts.Iterations,
      K > 1 ? fmt::format(" cluster={}", K) : std::string(),
      CtaStress ? fmt::format(" cta-stress-warps={}", CtaStress)
                : std::string());

  auto Launch = [&](CUfunction F, uint32_t Grid, uint32_t Block, size_t Smem,
                    IncantParams &X) {
    void *Args[] = {&X};
    return S.check(D.cuLaunchKernel(F, Grid, 1, 1, Block, 1, 1,
                                    static_cast<unsigned>(Smem), nullptr, Args,
                                    nullptr),
                   "cuLaunchKernel", Res);
  };
  const uint32_t HistGrid = (N + 255) / 256;
  // Initial values for the first launch.
  IncantParams Init = Pr;
  Init.flags |= INCANT_F_NOCOUNT;
  if (!Launch(HistFn, HistGrid, 256, 0, Init) ||
      !S.check(D.cuCtxSynchronize(), "kernel", Res))
    return Res;
  auto T0 = std::chrono::steady_clock::now();
  for (uint64_t It = 0; It < Opts.Iterations; ++It) {
    IncantParams X = Pr;
    Shape(X, Opts.Randomise);
    if (!Launch(TestFn, X.totalBlocks, BlockThreads, SmemBytes, X) ||
        !Launch(HistFn, HistGrid, 256, 0, X))
      return Res;
    Res.Launches = It + 1;
    // A time budget, checked now and then (launches queue up and block
    // once the queue is full, so wall time follows the GPU's).
    if (Opts.MaxSeconds > 0 && (It & 255) == 255 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
                .count() > Opts.MaxSeconds)
      break;
  }
  if (!S.check(D.cuCtxSynchronize(), "the test kernel", Res))
    return Res;
  Res.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();

  std::vector<uint64_t> Keys(INCANT_HIST_CAP), Cnt(INCANT_HIST_CAP + 1);
  std::vector<uint32_t> Tup(static_cast<size_t>(INCANT_HIST_CAP) * NumOut);
  if (!S.check(D.cuMemcpyDtoH(Keys.data(), HKey, Keys.size() * 8), "copy", Res) ||
      !S.check(D.cuMemcpyDtoH(Cnt.data(), HCnt, Cnt.size() * 8), "copy", Res) ||
      !S.check(D.cuMemcpyDtoH(Tup.data(), HTup, Tup.size() * 4), "copy", Res))
    return Res;
  for (uint32_t I = 0; I < INCANT_HIST_CAP; ++I) {
    if (!Keys[I])
      continue;
    HistogramEntry E;
    E.Values.assign(Tup.begin() + static_cast<size_t>(I) * NumOut,
                    Tup.begin() + static_cast<size_t>(I) * NumOut + G.NumOut);
    E.State = decodeOutcome(G, E.Values);
    E.Count = Cnt[I];
    E.Satisfies = evaluateCondition(P, E.State);
    Res.Instances += E.Count;
    if (E.Satisfies)
      Res.Satisfying += E.Count;
    Res.Histogram.push_back(std::move(E));
  }
  Res.Overflow = Cnt[INCANT_HIST_CAP];
  Res.Instances += Res.Overflow;
  std::sort(Res.Histogram.begin(), Res.Histogram.end(),
            [](const HistogramEntry &A, const HistogramEntry &B) {
              return A.Values < B.Values;
            });
  return Res;
}

std::string incant::cuda::formatResult(const litmus::Program &P,
                                       const RunResult &R) {
  std::string S;
  auto ObsName = [&](const litmus::Observed &O) {
    if (O.Thread < 0)
      return O.Index >= 0 && static_cast<size_t>(O.Index) < P.Locs.size()
                 ? P.Locs[O.Index].Name
                 : std::string("?");
    const auto &T = P.Threads[O.Thread];
    std::string Reg = O.Index >= 0 && static_cast<size_t>(O.Index) < T.Regs.size()
                          ? T.Regs[O.Index].Name
                          : std::string("?");
    return fmt::format("{}:{}", T.Id, Reg);
  };
  S += fmt::format("Test {} {}\n", P.Name,
                   P.Q == litmus::Quantifier::Forall ? "Required" : "Allowed");
  S += fmt::format("Histogram ({} states)\n", R.Histogram.size());
  for (const auto &E : R.Histogram) {
    std::string St;
    for (size_t K = 0; K < E.State.size() && K < P.Observe.size(); ++K) {
      const litmus::Value &V = E.State[K];
      if (V.isAddress() && static_cast<size_t>(V.Loc) < P.Locs.size())
        St += V.Int ? fmt::format(" {}={}+{};", ObsName(P.Observe[K]),
                                  P.Locs[V.Loc].Name, V.Int)
                    : fmt::format(" {}={};", ObsName(P.Observe[K]),
                                  P.Locs[V.Loc].Name);
      else
        St += fmt::format(" {}={};", ObsName(P.Observe[K]), V.Int);
    }
    S += fmt::format("{:<12}{}>{}\n", E.Count, E.Satisfies ? "*" : ":", St);
  }
  if (R.Overflow)
    S += fmt::format("{:<12}:> (outcomes beyond the on-GPU table)\n",
                     R.Overflow);
  bool Ok = P.Q == litmus::Quantifier::Exists ? R.Satisfying > 0
            : P.Q == litmus::Quantifier::NotExists
                ? R.Satisfying == 0
                : R.Satisfying == R.Instances;
  S += Ok ? "Ok\n" : "No\n";
  S += fmt::format("Witnesses\nPositive: {}, Negative: {}\n", R.Satisfying,
                   R.Instances - R.Satisfying);
  double Secs = R.Seconds > 0 ? R.Seconds : 1e-9;
  S += fmt::format("Instances {} in {:.3f} s: {:.3g} instances/s, {:.3g} "
                   "satisfying/s\n",
                   R.Instances, R.Seconds, R.Instances / Secs,
                   R.Satisfying / Secs);
  S += fmt::format("Device {} ({}, {} SMs), driver {}, NVRTC {}\n", R.Device,
                   R.Arch, R.SMs, R.Driver, R.Nvrtc);
  S += fmt::format("Parameters {}\n", R.Params);
  S += R.Opt.line() + "\n";
  if (R.Opt.K == OptCheckResult::Failed && R.Satisfying > 0)
    S += "warning: optcheck failed: the outcomes above may come from the "
         "compiler, not the hardware\n";
  return S;
}
