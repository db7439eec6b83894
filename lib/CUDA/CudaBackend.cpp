//===- CudaBackend.cpp - The CUDA backend behind harness::Backend ----------===//

#include "incant/CUDA/CudaBackend.h"
#include "incant/CUDA/CudaApi.h"

#include <fmt/format.h>

#include <filesystem>

using namespace incant;
using namespace incant::cuda;

RunOptions incant::cuda::toRunOptions(const harness::RunParams &P) {
  RunOptions O;
  O.Iterations = P.Iterations;
  O.SingleInstance = P.Instances == 1;
  O.Instances = P.Instances > 1 ? P.Instances : 0;
  if (P.GroupSize)
    O.ThreadsPerBlock = P.GroupSize;
  O.Stride = P.Stride ? P.Stride : 1;
  O.Seed = P.Seed;
  O.LoopBound = P.LoopBound;
  const harness::Incantations &I = P.Inc;
  O.Stress = I.MemStress;
  O.StressBlocks = I.StressGroups;
  O.StressIters = I.StressIterations;
  O.StressLines = I.StressLocs ? I.StressLocs : 1;
  O.StressSpread = I.StressPatch ? I.StressPatch : 1;
  // 2 bits per access, first access lowest; the harness's stress thread
  // works on one scratchpad location, chosen by its id among StressLocs.
  uint32_t Pat = 0;
  for (size_t K = 0; K < I.StressSeq.size() && K < 16; ++K)
    Pat |= (I.StressSeq[K].IsStore ? 2u : 1u) << (2 * K);
  O.StressPattern = Pat ? Pat : 0x9u;
  O.StressInTest = I.StressInTest;
  O.StressOffset = I.StressOffset;
  O.LocDistance = P.LocDistance;
  O.Bank = I.BankConflicts;
  O.Randomise = I.Randomise;
  O.Barrier = I.SpinBarrier;
  O.BarrierPolls = I.BarrierPolls;
  O.PreStress = I.PreStress;
  O.PreStressIters = I.PreStressIterations;
  return O;
}

namespace {

class CudaBackend final : public harness::Backend {
public:
  const char *name() const override { return "cuda"; }

  bool available(std::string &Why) override {
    if (Libs.loadDriver(Why))
      return true;
    Why = noDriverMessage();
    return false;
  }

  std::vector<harness::DeviceInfo> devices() override {
    std::vector<harness::DeviceInfo> Out;
    std::string Why;
    if (!Libs.loadDriver(Why))
      return Out;
    int N = 0;
    Libs.Drv.cuDeviceGetCount(&N);
    std::string Driver = Libs.nvmlDriverVersion();
    for (int I = 0; I < N; ++I) {
      CUdevice D = 0;
      if (Libs.Drv.cuDeviceGet(&D, I) != 0)
        continue;
      harness::DeviceInfo Info;
      Info.Backend = "cuda";
      Info.Index = static_cast<uint32_t>(I);
      char Name[256] = {};
      Libs.Drv.cuDeviceGetName(Name, sizeof(Name), D);
      Info.Name = Name;
      Info.Vendor = "NVIDIA";
      Info.Platform = "CUDA driver API";
      int Ma = 0, Mi = 0, SMs = 0, Tpb = 0;
      Libs.Drv.cuDeviceGetAttribute(&Ma, CU_ATTR_COMPUTE_CAPABILITY_MAJOR, D);
      Libs.Drv.cuDeviceGetAttribute(&Mi, CU_ATTR_COMPUTE_CAPABILITY_MINOR, D);
      Libs.Drv.cuDeviceGetAttribute(&SMs, CU_ATTR_MULTIPROCESSOR_COUNT, D);
      Libs.Drv.cuDeviceGetAttribute(&Tpb, CU_ATTR_MAX_THREADS_PER_BLOCK, D);
      Info.Version = fmt::format("sm_{}{}", Ma, Mi);
      Info.Driver = Driver;
      Info.IsGPU = true;
      Info.IsNvidia = true;
      Info.ComputeUnits = static_cast<uint32_t>(SMs);
      Info.MaxGroupSize = static_cast<uint32_t>(Tpb);
      Info.Notes.push_back("inline PTX as written in the test; NVRTC; "
                           "optcheck on the SASS");
      Out.push_back(std::move(Info));
    }
    return Out;
  }

  std::optional<harness::RunResult> run(const harness::RunRequest &Req,
                                        DiagnosticEngine &Diags) override {
    RunOptions O = toRunOptions(Req.Params);
    O.EmitDir = Req.EmitDir;
    O.Device = Req.Device;
    cuda::RunResult R = runOnCuda(*Req.Prog, O, Req.File, Diags);
    harness::RunResult Out;
    switch (R.Status) {
    case cuda::RunResult::BadInput:
      return std::nullopt;
    case cuda::RunResult::NoDriver:
      Diags.error(noDriverMessage());
      return std::nullopt;
    case cuda::RunResult::NoCompiler:
    case cuda::RunResult::Failed:
      Diags.error(R.Message);
      return std::nullopt;
    case cuda::RunResult::Emitted:
      for (const char *F : {"test.cu", "test.ptx", "test.sass"})
        if (std::filesystem::exists(Req.EmitDir + "/" + F))
          Out.EmittedFiles.push_back(Req.EmitDir + "/" + F);
      for (const auto &F : harnessFiles())
        Out.EmittedFiles.push_back(Req.EmitDir + "/" + F.Name);
      Out.OptCheck = R.Opt.line();
      return Out;
    case cuda::RunResult::Ok:
      break;
    }
    for (const auto &E : R.Histogram) {
      harness::Outcome Oc;
      for (const litmus::Value &V : E.State)
        Oc.push_back(V);
      Out.Hist.add(Oc, E.Count);
    }
    Out.Launches = O.Iterations;
    Out.Instances = R.Instances;
    Out.InstancesPerLaunch = R.InstancesPerLaunch;
    Out.Groups = R.TestBlocks;
    Out.GroupSize = R.ThreadsPerBlock;
    Out.WarpSize = 32;
    Out.Seconds = R.Seconds;
    Out.Lost = R.Overflow;
    Out.OptCheck = R.Opt.line();
    Out.Device.Backend = "cuda";
    Out.Device.Index = Req.Device;
    Out.Device.Name = R.Device;
    Out.Device.Vendor = "NVIDIA";
    Out.Device.Platform = "CUDA driver API";
    Out.Device.Version = R.Arch;
    Out.Device.Driver = R.Driver;
    Out.Device.IsGPU = true;
    Out.Device.IsNvidia = true;
    Out.Device.ComputeUnits = static_cast<uint32_t>(R.SMs);
    Out.Device.Notes.push_back("NVRTC " + R.Nvrtc);
    Out.Device.Notes.push_back(R.Params);
    return Out;
  }

private:
  CudaLibraries Libs;
};

} // namespace

std::unique_ptr<harness::Backend> incant::cuda::createCudaBackend() {
  return std::make_unique<CudaBackend>();
}
