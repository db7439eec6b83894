//===- CudaBackend.cpp - The CUDA backend behind harness::Backend ---------===//
#include "incant/CUDA/CudaBackend.h"
#include "Compile.h"
#include "Launch.h"
#include "incant/CUDA/Codegen.h"
#include "incant/Harness/ParamRanges.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Phases.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <map>

namespace incant::cuda {

namespace {

/// Writes \p Text to \p P; false with the first failure's reason in
/// \p Error.
bool writeFile(const std::filesystem::path &P, const std::string &Text,
               std::string &Error) {
  std::string E;
  if (writeOutputFile(P.string(), Text, E))
    return true;
  if (Error.empty())
    Error = E;
  return false;
}

/// A test generated and compiled by prepare().
struct CudaPrepared final : harness::PreparedTest {
  GeneratedTest G;
  CompiledKernels Kernels;
};

class CudaBackend final : public harness::Backend {
public:
  explicit CudaBackend(const CudaTuning &T) : Tuning(T) {}

  const char *name() const override { return "cuda"; }

  bool available(std::string &Why) override {
    SharedLibraries &S = sharedLibraries();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    if (S.Libs.loadDriver(Why))
      return true;
    Why = noDriverMessage();
    return false;
  }

  std::vector<harness::DeviceInfo> devices() override;
  Expected<harness::RunResult> run(const harness::RunRequest &Req,
                                   DiagnosticEngine &Diags) override;
  std::vector<Expected<std::shared_ptr<const harness::PreparedTest>>>
  prepare(const std::vector<harness::RunRequest> &Reqs,
          const std::vector<DiagnosticEngine *> &Diags) override;

private:
  Expected<harness::RunResult> emit(const harness::RunRequest &Req,
                                    const GeneratedTest &G,
                                    DiagnosticEngine &Diags);
  /// The architecture of \p Device ("sm_90"), or Tuning.PrepareArch.
  std::optional<std::string> archOf(uint32_t Device, DiagnosticEngine &Diags);
  CudaTuning Tuning;
  /// Buffers and loaded modules per device; run() only.
  std::map<uint32_t, std::unique_ptr<DeviceState>> States;
};

std::vector<harness::DeviceInfo> CudaBackend::devices() {
  std::vector<harness::DeviceInfo> Out;
  SharedLibraries &S = sharedLibraries();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  CudaLibraries &Libs = S.Libs;
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

/// --emit: the sources, and the PTX and SASS when NVRTC is here (for
/// sm_90); no device needed.
Expected<harness::RunResult> CudaBackend::emit(const harness::RunRequest &Req,
                                               const GeneratedTest &G,
                                               DiagnosticEngine &Diags) {
  namespace fs = std::filesystem;
  harness::RunResult Out;
  std::error_code EC;
  fs::create_directories(Req.EmitDir, EC);
  fs::path Dir(Req.EmitDir);
  // Files are named after the test, so that one --emit folder holds every
  // test of a run; the harness files are the same for all of them.
  std::string Stem = safeFileName(Req.Prog->Name);
  std::string WriteError =
      EC ? "cannot write to " + Req.EmitDir + ": " + EC.message() : "";
  bool Ok = !EC && writeFile(Dir / (Stem + ".cu"), G.Source, WriteError);
  for (const auto &F : harnessFiles())
    Ok = Ok && writeFile(Dir / F.Name, F.Text, WriteError);
  if (!Ok) {
    Diags.error(WriteError);
    return ErrorKind::Input;
  }
  SharedLibraries &S = sharedLibraries();
  std::string Why;
  bool HaveNvrtc;
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    HaveNvrtc = S.Libs.loadNvrtc(Why);
  }
  OptCheckResult Opt;
  if (HaveNvrtc) {
    CompiledTest C;
    std::string Log;
    if (!compileChecked(S.Libs, G, "sm_90", C, Log)) {
      Diags.error("NVRTC failed to compile the harness:\n" + Log);
      return ErrorKind::Internal;
    }
    Opt = C.Opt;
    Out.Device.Notes.push_back("NVRTC " + nvrtcVersion(S.Libs));
    if (!writeFile(Dir / (Stem + ".ptx"), C.Ptx, WriteError) ||
        (!C.Sass.empty() &&
         !writeFile(Dir / (Stem + ".sass"), C.Sass, WriteError))) {
      Diags.error(WriteError);
      return ErrorKind::Input;
    }
  } else {
    Out.Device.Notes.push_back(Why + ": PTX not written");
  }
  for (const char *Ext : {".cu", ".ptx", ".sass"})
    if (fs::exists(Dir / (Stem + Ext)))
      Out.EmittedFiles.push_back(Req.EmitDir + "/" + Stem + Ext);
  for (const auto &F : harnessFiles())
    Out.EmittedFiles.push_back(Req.EmitDir + "/" + F.Name);
  Out.OptCheck = Opt.line();
  return Out;
}

std::optional<std::string> CudaBackend::archOf(uint32_t Device,
                                               DiagnosticEngine &Diags) {
  if (!Tuning.PrepareArch.empty())
    return Tuning.PrepareArch;
  SharedLibraries &S = sharedLibraries();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  std::string Why;
  if (!S.Libs.loadDriver(Why)) {
    Diags.error(noDriverMessage());
    return std::nullopt;
  }
  CUdevice D = 0;
  int Ma = 0, Mi = 0;
  if (S.Libs.Drv.cuDeviceGet(&D, static_cast<int>(Device)) != 0 ||
      S.Libs.Drv.cuDeviceGetAttribute(&Ma, CU_ATTR_COMPUTE_CAPABILITY_MAJOR,
                                      D) != 0 ||
      S.Libs.Drv.cuDeviceGetAttribute(&Mi, CU_ATTR_COMPUTE_CAPABILITY_MINOR,
                                      D) != 0) {
    Diags.error(fmt::format("no CUDA device {}", Device));
    return std::nullopt;
  }
  return fmt::format("sm_{}{}", Ma, Mi);
}

std::vector<Expected<std::shared_ptr<const harness::PreparedTest>>>
CudaBackend::prepare(const std::vector<harness::RunRequest> &Reqs,
                     const std::vector<DiagnosticEngine *> &Diags) {
  using Result = Expected<std::shared_ptr<const harness::PreparedTest>>;
  std::vector<Result> Out(Reqs.size(), ErrorKind::Internal);
  if (Reqs.empty())
    return Out;
  std::optional<std::string> Arch = archOf(Reqs[0].Device, *Diags[0]);
  {
    SharedLibraries &S = sharedLibraries();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    std::string Why;
    if (Arch && !S.Libs.loadNvrtc(Why)) {
      Diags[0]->error(Why);
      Arch.reset();
    }
  }
  if (!Arch) {
    // Said once, for the first test; the others fail the same way.
    for (size_t I = 0; I < Reqs.size(); ++I) {
      if (I)
        Diags[I]->error("not prepared: " + std::string(noDriverMessage()));
      Out[I] = ErrorKind::Device;
    }
    return Out;
  }
  std::vector<std::shared_ptr<CudaPrepared>> Made(Reqs.size());
  std::vector<const GeneratedTest *> Batch;
  std::vector<size_t> Where;
  for (size_t I = 0; I < Reqs.size(); ++I) {
    CodegenOptions CG;
    CG.LoopBudget = Reqs[I].Params.LoopBound;
    std::optional<GeneratedTest> G =
        generateCuda(*Reqs[I].Prog, CG, Reqs[I].File, *Diags[I]);
    if (!G) {
      Out[I] = ErrorKind::Input;
      continue;
    }
    Made[I] = std::make_shared<CudaPrepared>();
    Made[I]->G = std::move(*G);
    Batch.push_back(&Made[I]->G);
    Where.push_back(I);
  }
  std::vector<std::string> Logs;
  std::vector<std::optional<CompiledKernels>> K =
      compileBatch(sharedLibraries().Libs, Batch, *Arch, Logs,
                   Reqs[0].CompileCache);
  for (size_t J = 0; J < Where.size(); ++J) {
    size_t I = Where[J];
    if (!K[J]) {
      Diags[I]->error("NVRTC failed to compile the harness:\n" + Logs[J]);
      Out[I] = ErrorKind::Internal;
      continue;
    }
    Made[I]->Kernels = std::move(*K[J]);
    Out[I] = std::shared_ptr<const harness::PreparedTest>(std::move(Made[I]));
  }
  return Out;
}

Expected<harness::RunResult> CudaBackend::run(const harness::RunRequest &Req,
                                              DiagnosticEngine &Diags) {
  std::string RangeError;
  if (!harness::checkParams(Req.Params, RangeError)) {
    Diags.error(RangeError);
    return ErrorKind::Input;
  }
  const auto *Pre = dynamic_cast<const CudaPrepared *>(Req.Prepared.get());
  std::optional<GeneratedTest> Here;
  if (!Pre || !Req.EmitDir.empty()) {
    CodegenOptions CG;
    CG.LoopBudget = Req.Params.LoopBound;
    {
      phases::Scope Timed("cuda: generate");
      Here = generateCuda(*Req.Prog, CG, Req.File, Diags);
    }
    if (!Here)
      return ErrorKind::Input;
    if (!Req.EmitDir.empty())
      return emit(Req, *Here, Diags);
  }
  {
    SharedLibraries &S = sharedLibraries();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    std::string Why;
    if (!S.Libs.loadDriver(Why)) {
      Diags.error(noDriverMessage());
      return ErrorKind::Device;
    }
    if (!S.Libs.loadNvrtc(Why)) {
      Diags.error(Why);
      return ErrorKind::Device;
    }
  }
  std::unique_ptr<DeviceState> &State = States[Req.Device];
  if (!State)
    State = std::make_unique<DeviceState>(sharedLibraries().Libs, Req.Device);
  return runOnDevice(Pre ? Pre->G : *Here, Pre ? &Pre->Kernels : nullptr,
                     Req.Params, Tuning, *State, Req.Device, Req.OnLaunch,
                     Req.CompileCache, Diags);
}

} // namespace

std::unique_ptr<harness::Backend> createCudaBackend(const CudaTuning &T) {
  return std::make_unique<CudaBackend>(T);
}

std::optional<PreparedSummary>
summarisePrepared(const harness::PreparedTest &P) {
  const auto *C = dynamic_cast<const CudaPrepared *>(&P);
  if (!C || !C->Kernels.Module)
    return std::nullopt;
  return PreparedSummary{C->Kernels.Module->Arch, C->Kernels.Module.get(),
                         C->Kernels.Module->Cubin.size(),
                         C->Kernels.TestKernel, C->Kernels.HistKernel,
                         C->Kernels.Opt.line(), C->Kernels.Module->Cubin};
}

} // namespace incant::cuda
