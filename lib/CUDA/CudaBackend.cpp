//===- CudaBackend.cpp - The CUDA backend behind harness::Backend ---------===//
#include "incant/CUDA/CudaBackend.h"
#include "Compile.h"
#include "Launch.h"
#include "incant/CUDA/Codegen.h"
#include "incant/Harness/ParamRanges.h"
#include "incant/Support/OutputFile.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace incant::cuda {

namespace {

bool writeFile(const std::filesystem::path &P, const std::string &Text) {
  std::ofstream F(P, std::ios::binary);
  F << Text;
  return static_cast<bool>(F);
}

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

private:
  Expected<harness::RunResult> emit(const harness::RunRequest &Req,
                                    const GeneratedTest &G,
                                    DiagnosticEngine &Diags);
  CudaTuning Tuning;
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
  bool Ok = writeFile(Dir / (Stem + ".cu"), G.Source);
  for (const auto &F : harnessFiles())
    Ok &= writeFile(Dir / F.Name, F.Text);
  if (!Ok) {
    Diags.error("cannot write to " + Req.EmitDir + ": " +
                (EC ? EC.message() : std::strerror(errno)));
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
    writeFile(Dir / (Stem + ".ptx"), C.Ptx);
    if (!C.Sass.empty())
      writeFile(Dir / (Stem + ".sass"), C.Sass);
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

Expected<harness::RunResult> CudaBackend::run(const harness::RunRequest &Req,
                                              DiagnosticEngine &Diags) {
  std::string RangeError;
  if (!harness::checkParams(Req.Params, RangeError)) {
    Diags.error(RangeError);
    return ErrorKind::Input;
  }
  CodegenOptions CG;
  CG.LoopBudget = Req.Params.LoopBound;
  std::optional<GeneratedTest> G = generateCuda(*Req.Prog, CG, Req.File, Diags);
  if (!G)
    return ErrorKind::Input;
  if (!Req.EmitDir.empty())
    return emit(Req, *G, Diags);
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
  return runOnDevice(*G, Req.Params, Tuning, Req.Device, Diags);
}

} // namespace

std::unique_ptr<harness::Backend> createCudaBackend(const CudaTuning &T) {
  return std::make_unique<CudaBackend>(T);
}

} // namespace incant::cuda
