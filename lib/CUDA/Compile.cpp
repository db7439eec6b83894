//===- Compile.cpp - NVRTC, optcheck and the compile cache ----------------===//
#include "Compile.h"

#include <fmt/format.h>

#include <map>

namespace incant::cuda {

SharedLibraries &sharedLibraries() {
  static SharedLibraries S;
  return S;
}

std::string nvrtcVersion(CudaLibraries &L) {
  int Ma = 0, Mi = 0;
  if (L.Rtc.nvrtcVersion && L.Rtc.nvrtcVersion(&Ma, &Mi) == 0)
    return fmt::format("{}.{}", Ma, Mi);
  return "";
}

namespace {

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

} // namespace

bool compileChecked(CudaLibraries &L, const GeneratedTest &G,
                    const std::string &Arch, CompiledTest &Out,
                    std::string &Log) {
  if (!compile(L, G, Arch, "", Out.Ptx, Out.Cubin, Log))
    return false;
  std::string Why;
  Out.Sass.clear();
  if (!disassemble(Out.Cubin, Out.Sass, Why)) {
    Out.Opt = {};
    Out.Opt.Detail = Why;
    return true;
  }
  Out.Opt = checkSass(Out.Sass, G.ExpectedMemOps, G.RegionNames);
  if (Out.Opt.K != OptCheckResult::Failed)
    return true;
  for (const char *Level : {"-O1", "-O0"}) {
    std::string P2, C2, L2, S2;
    if (!compile(L, G, Arch, Level, P2, C2, L2) || !disassemble(C2, S2, Why))
      continue;
    OptCheckResult R = checkSass(S2, G.ExpectedMemOps, G.RegionNames);
    if (R.K != OptCheckResult::Ok)
      continue;
    R.Detail =
        fmt::format("ptxas {}; at its default level {}", Level, Out.Opt.Detail);
    Out.Opt = std::move(R);
    Out.Cubin = std::move(C2);
    Out.Sass = std::move(S2);
    return true;
  }
  return true;
}

bool compileCached(CudaLibraries &L, const GeneratedTest &G,
                   const std::string &Arch, std::string &Cubin,
                   OptCheckResult &Opt, std::string &Log) {
  struct Entry {
    std::string Cubin;
    OptCheckResult Opt;
  };
  // Bounded: a campaign compiles thousands of distinct sources, while
  // `incant tune` reuses a few (two workers racing on one source both
  // compile it).
  static std::map<std::string, Entry> Cache;
  static std::mutex CacheMutex;
  constexpr size_t CacheCap = 64;
  std::string Key = Arch + '\n' + G.Source;
  {
    std::lock_guard<std::mutex> Lock(CacheMutex);
    if (auto It = Cache.find(Key); It != Cache.end()) {
      Cubin = It->second.Cubin;
      Opt = It->second.Opt;
      return true;
    }
  }
  CompiledTest C;
  if (!compileChecked(L, G, Arch, C, Log))
    return false;
  Cubin = C.Cubin;
  Opt = C.Opt;
  std::lock_guard<std::mutex> Lock(CacheMutex);
  if (Cache.size() >= CacheCap)
    Cache.clear();
  Cache.emplace(std::move(Key), Entry{std::move(C.Cubin), std::move(C.Opt)});
  return true;
}

} // namespace incant::cuda
