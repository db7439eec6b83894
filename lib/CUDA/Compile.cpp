//===- Compile.cpp - NVRTC, optcheck and the compile cache ----------------===//
#include "Compile.h"
#include "incant/CUDA/Batch.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/Hash.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <unistd.h>

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

/// NVRTC's -minimal (since 12.4) leaves out language features the harness
/// does not use (textures, surfaces, ...); it changes no generated code and
/// saves a tenth of a compile.
bool nvrtcHasMinimal(CudaLibraries &L) {
  int Ma = 0, Mi = 0;
  return L.Rtc.nvrtcVersion && L.Rtc.nvrtcVersion(&Ma, &Mi) == 0 &&
         (Ma > 12 || (Ma == 12 && Mi >= 4));
}

/// Compiles \p Source (a test, or a batch of them) with NVRTC for \p Arch.
/// \p PtxasOpt, when not empty, is passed to ptxas (e.g. "-O0"); the PTX
/// does not depend on it.
bool compile(CudaLibraries &L, const std::string &Source,
             const std::string &Arch, const std::string &PtxasOpt,
             std::string &Ptx, std::string &Cubin, std::string &Log) {
  std::vector<const char *> HNames, HTexts;
  for (const auto &F : harnessFiles()) {
    HNames.push_back(F.Name);
    HTexts.push_back(F.Text);
  }
  nvrtcProgram Prog = nullptr;
  if (L.Rtc.nvrtcCreateProgram(&Prog, Source.c_str(), "incant_test.cu",
                               static_cast<int>(HNames.size()), HTexts.data(),
                               HNames.data()) != 0) {
    Log = "nvrtcCreateProgram failed";
    return false;
  }
  std::string ArchOpt = "--gpu-architecture=" + Arch;
  std::string PtxasOpts = "--ptxas-options=" + PtxasOpt;
  std::vector<const char *> Opts = {ArchOpt.c_str(), "-std=c++17"};
  if (!PtxasOpt.empty())
    Opts.push_back(PtxasOpts.c_str());
  if (nvrtcHasMinimal(L))
    Opts.push_back("-minimal");
  nvrtcResult R = L.Rtc.nvrtcCompileProgram(
      Prog, static_cast<int>(Opts.size()), Opts.data());
  size_t N = 0;
  L.Rtc.nvrtcGetProgramLogSize(Prog, &N);
  Log.assign(N, '\0');
  if (N)
    L.Rtc.nvrtcGetProgramLog(Prog, Log.data());
  while (!Log.empty() && Log.back() == '\0')
    Log.pop_back();
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
  if (!compile(L, G.Source, Arch, "", Out.Ptx, Out.Cubin, Log))
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
    if (!compile(L, G.Source, Arch, Level, P2, C2, L2) ||
        !disassemble(C2, S2, Why))
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
                   const std::string &Arch, CompiledKernels &Out,
                   std::string &Log) {
  // Bounded: a campaign compiles thousands of distinct sources, while
  // `incant tune` reuses a few (two workers racing on one source both
  // compile it).
  static std::map<std::string, CompiledKernels> Cache;
  static std::mutex CacheMutex;
  constexpr size_t CacheCap = 64;
  std::string Key = Arch + '\n' + G.Source;
  {
    std::lock_guard<std::mutex> Lock(CacheMutex);
    if (auto It = Cache.find(Key); It != Cache.end()) {
      Out = It->second;
      return true;
    }
  }
  CompiledTest C;
  if (!compileChecked(L, G, Arch, C, Log))
    return false;
  auto M = std::make_shared<CompiledModule>();
  M->Cubin = std::move(C.Cubin);
  M->Arch = Arch;
  Out.Module = std::move(M);
  Out.TestKernel = testKernelName(-1);
  Out.HistKernel = histKernelName(-1);
  Out.Opt = std::move(C.Opt);
  std::lock_guard<std::mutex> Lock(CacheMutex);
  if (Cache.size() >= CacheCap)
    Cache.clear();
  Cache.emplace(std::move(Key), Out);
  return true;
}

namespace {

/// A batch in the compile cache: DIR/KEY.cubin and DIR/KEY.opt, one line
/// per test: "<ok|failed|skipped> <alone 0|1> <detail>". Files are
/// written under a temporary name and renamed, the .opt last, so a reader
/// sees whole entries or none.
struct CacheEntry {
  std::string Cubin;
  std::vector<std::pair<OptCheckResult, bool>> Tests; ///< (optcheck, alone)
};

std::string cacheKey(CudaLibraries &L, const std::string &Source,
                     const std::string &Arch) {
  // The optcheck results depend on the disassembler found.
  uint64_t H = fnv1a64("incant-cubin-1\n" + nvrtcVersion(L) + '\n' + Arch +
                       (nvrtcHasMinimal(L) ? "\n-minimal\n" : "\n") +
                       findCudaProgram("cuobjdump") + '\n' +
                       findCudaProgram("nvdisasm"));
  for (const auto &F : harnessFiles())
    H = fnv1a64(F.Text, fnv1a64(F.Name, H));
  return hex16(fnv1a64(Source, H));
}

bool readWhole(const std::filesystem::path &P, std::string &Out) {
  std::ifstream F(P, std::ios::binary);
  if (!F)
    return false;
  std::stringstream S;
  S << F.rdbuf();
  Out = S.str();
  return static_cast<bool>(F) || F.eof();
}

std::optional<CacheEntry> readCache(const std::string &Dir,
                                    const std::string &Key, size_t N) {
  namespace fs = std::filesystem;
  std::string Opt;
  CacheEntry E;
  if (!readWhole(fs::path(Dir) / (Key + ".opt"), Opt) ||
      !readWhole(fs::path(Dir) / (Key + ".cubin"), E.Cubin) || E.Cubin.empty())
    return std::nullopt;
  std::istringstream In(Opt);
  std::string Line;
  while (std::getline(In, Line)) {
    std::istringstream LS(Line);
    std::string Kind;
    int Alone = 0;
    if (!(LS >> Kind >> Alone))
      return std::nullopt;
    OptCheckResult R;
    R.K = Kind == "ok"       ? OptCheckResult::Ok
          : Kind == "failed" ? OptCheckResult::Failed
                             : OptCheckResult::Skipped;
    std::getline(LS >> std::ws, R.Detail);
    E.Tests.emplace_back(std::move(R), Alone != 0);
  }
  if (E.Tests.size() != N)
    return std::nullopt;
  return E;
}

void writeCache(const std::string &Dir, const std::string &Key,
                const CacheEntry &E) {
  namespace fs = std::filesystem;
  std::error_code EC;
  fs::create_directories(Dir, EC);
  std::ostringstream Opt;
  for (const auto &[R, Alone] : E.Tests) {
    std::string D = R.Detail;
    for (char &C : D)
      if (C == '\n' || C == '\r')
        C = ' ';
    Opt << (R.K == OptCheckResult::Ok       ? "ok"
            : R.K == OptCheckResult::Failed ? "failed"
                                            : "skipped")
        << ' ' << (Alone ? 1 : 0) << ' ' << D << '\n';
  }
  std::string Tmp = fmt::format(".tmp-{}-{}", getpid(),
                                std::hash<std::thread::id>()(
                                    std::this_thread::get_id()));
  auto Put = [&](const std::string &Name, const std::string &Text) {
    fs::path T = fs::path(Dir) / (Name + Tmp);
    {
      std::ofstream F(T, std::ios::binary);
      F.write(Text.data(), static_cast<std::streamsize>(Text.size()));
      if (!F)
        return false;
    }
    fs::rename(T, fs::path(Dir) / Name, EC);
    if (EC)
      fs::remove(T, EC);
    return !EC;
  };
  // A cache that cannot be written is only slower.
  if (Put(Key + ".cubin", E.Cubin))
    Put(Key + ".opt", Opt.str());
}

} // namespace

std::vector<std::optional<CompiledKernels>>
compileBatch(CudaLibraries &L, const std::vector<const GeneratedTest *> &Tests,
             const std::string &Arch, std::vector<std::string> &Logs,
             const std::string &CacheDir) {
  std::vector<std::optional<CompiledKernels>> Out(Tests.size());
  Logs.assign(Tests.size(), std::string());
  // One test alone, as `incant run` compiles it.
  auto Alone = [&](size_t K) {
    CompiledTest C;
    if (!compileChecked(L, *Tests[K], Arch, C, Logs[K]))
      return;
    auto M = std::make_shared<CompiledModule>();
    M->Cubin = std::move(C.Cubin);
    M->Arch = Arch;
    Out[K] = CompiledKernels{std::move(M), testKernelName(-1),
                             histKernelName(-1), std::move(C.Opt)};
  };
  if (Tests.size() == 1 && CacheDir.empty()) {
    Alone(0);
    return Out;
  }
  std::string Source = batchSource(Tests);
  std::string Key = CacheDir.empty() ? "" : cacheKey(L, Source, Arch);
  if (!Key.empty())
    if (std::optional<CacheEntry> E = readCache(CacheDir, Key, Tests.size())) {
      auto M = std::make_shared<CompiledModule>();
      M->Cubin = std::move(E->Cubin);
      M->Arch = Arch;
      for (size_t K = 0; K < Tests.size(); ++K) {
        if (E->Tests[K].second) {
          Alone(K);
          continue;
        }
        int Id = static_cast<int>(K);
        Out[K] = CompiledKernels{M, testKernelName(Id), histKernelName(Id),
                                 std::move(E->Tests[K].first)};
      }
      return Out;
    }
  std::string Ptx, Cubin, Log;
  if (!compile(L, Source, Arch, "", Ptx, Cubin, Log)) {
    for (size_t K = 0; K < Tests.size(); ++K)
      Alone(K);
    return Out;
  }
  auto M = std::make_shared<CompiledModule>();
  M->Cubin = std::move(Cubin);
  M->Arch = Arch;
  CacheEntry Entry;
  std::string Sass, Why;
  bool HaveSass = disassemble(M->Cubin, Sass, Why);
  std::map<std::string, std::string> Functions;
  if (HaveSass)
    Functions = splitSassByFunction(Sass);
  for (size_t K = 0; K < Tests.size(); ++K) {
    const GeneratedTest &G = *Tests[K];
    int Id = static_cast<int>(K);
    CompiledKernels C{M, testKernelName(Id), histKernelName(Id), {}};
    if (!HaveSass) {
      C.Opt.K = OptCheckResult::Skipped;
      C.Opt.Detail = Why;
    } else {
      auto It = Functions.find(C.TestKernel);
      C.Opt = It == Functions.end()
                  ? OptCheckResult{OptCheckResult::Failed,
                                   C.TestKernel + " is not in the SASS"}
                  : checkSass(It->second, G.ExpectedMemOps, G.RegionNames);
    }
    // What ptxas did to this test in the batch may differ from what it does
    // to the test alone; a failure is settled the way `incant run` settles
    // it, on the test alone.
    bool Failed = C.Opt.K == OptCheckResult::Failed;
    Entry.Tests.emplace_back(C.Opt, Failed);
    if (Failed)
      Alone(K);
    else
      Out[K] = std::move(C);
  }
  if (!Key.empty()) {
    Entry.Cubin = M->Cubin;
    writeCache(CacheDir, Key, Entry);
  }
  return Out;
}

} // namespace incant::cuda
