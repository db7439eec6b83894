//===- Compile.cpp - NVRTC, optcheck and the compile cache ----------------===//
#include "Compile.h"
#include "incant/CUDA/Batch.h"
#include "incant/CUDA/Splice.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/Hash.h"
#include "incant/Support/Phases.h"
#include "incant/Support/Process.h"
#include "incant/Support/TempDir.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
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
  phases::Scope Timed("cuda: NVRTC compile");
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
  if (G.SkipOptCheck) {
    Out.Opt = {};
    Out.Opt.K = OptCheckResult::Skipped;
    Out.Opt.Detail = "mbarrier and asynchronous instructions";
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

namespace {

/// Splicing (Splice.h) needs ptxas and an sm_<N> target; INCANT_CUDA_SPLICE=0
/// turns it off (each batch then goes through NVRTC whole, as before).
/// The ptxas path, or "" with \p Why.
std::string spliceTool(const std::string &Arch, std::string &Why) {
  if (const char *E = std::getenv("INCANT_CUDA_SPLICE"); E && std::string(E) == "0") {
    Why = "INCANT_CUDA_SPLICE=0";
    return "";
  }
  if (Arch.rfind("sm_", 0) != 0) {
    Why = "the target " + Arch + " is not sm_<N>";
    return "";
  }
  static const std::string Ptxas = findCudaProgram("ptxas");
  if (Ptxas.empty())
    Why = "no ptxas (CUDA_HOME/bin or PATH)";
  return Ptxas;
}

/// Says once per process why batches are compiled whole (the slower way).
void noteWhole(const std::string &Why) {
  static std::mutex M;
  static std::set<std::string> Said;
  std::lock_guard<std::mutex> Lock(M);
  if (Why == "INCANT_CUDA_SPLICE=0" || !Said.insert(Why).second)
    return;
  std::cerr << "incant: note: CUDA batches are compiled whole by NVRTC "
               "(slower): "
            << Why << "\n";
}

/// The PTX of a skeleton for \p Arch, compiled once per process.
bool skeletonPtx(CudaLibraries &L, const Skeleton &S, const std::string &Arch,
                 std::string &Ptx, std::string &Why) {
  struct Entry {
    std::once_flag Once;
    bool Ok = false;
    std::string Ptx, Log;
  };
  static std::map<std::string, std::shared_ptr<Entry>> Cache;
  static std::mutex CacheMutex;
  constexpr size_t CacheCap = 1024; // about 50 kB of PTX each
  std::string Key = Arch + '\n' + S.Source;
  std::shared_ptr<Entry> E;
  {
    std::lock_guard<std::mutex> Lock(CacheMutex);
    auto It = Cache.find(Key);
    if (It == Cache.end()) {
      if (Cache.size() >= CacheCap)
        Cache.clear();
      It = Cache.emplace(Key, std::make_shared<Entry>()).first;
    }
    E = It->second;
  }
  std::call_once(E->Once, [&] {
    std::string Cubin;
    std::string Virtual = "compute_" + Arch.substr(3);
    E->Ok = compile(L, S.Source, Virtual, "", E->Ptx, Cubin, E->Log);
  });
  if (!E->Ok) {
    Why = "NVRTC failed on a skeleton: " + E->Log;
    return false;
  }
  Ptx = E->Ptx;
  return true;
}

/// Assembles \p Ptx with ptxas for \p Arch into \p Cubin.
bool assemble(const std::string &Ptxas, const std::string &Ptx,
              const std::string &Arch, std::string &Cubin, std::string &Why) {
  TempDir Tmp("incant-splice");
  if (!Tmp.ok()) {
    Why = "cannot create a temporary folder";
    return false;
  }
  const std::filesystem::path &Dir = Tmp.path();
  {
    std::ofstream F(Dir / "m.ptx", std::ios::binary);
    F.write(Ptx.data(), static_cast<std::streamsize>(Ptx.size()));
  }
  ProcessOptions Run;
  Run.Argv = {Ptxas, "-arch=" + Arch, (Dir / "m.ptx").string(), "-o",
              (Dir / "m.cubin").string()};
  Run.Stdout = OutputMode::Discard;
  Run.MaxOutputBytes = 1 << 16;
  Run.TimeoutSeconds = 300;
  ProcessResult R = runProcess(Run);
  bool Ok = R.succeeded();
  if (Ok) {
    std::ifstream F(Dir / "m.cubin", std::ios::binary);
    std::stringstream S;
    S << F.rdbuf();
    Cubin = S.str();
    Ok = !Cubin.empty();
  }
  if (!Ok)
    Why = "ptxas failed on a spliced module: " + R.describe() + "\n" + R.Err;
  return Ok;
}

/// The module of \p Tests through skeletons (Splice.h): \p Hist gets each
/// test's histogram kernel. False, with \p Why, when it cannot be done.
bool splicedModule(CudaLibraries &L,
                   const std::vector<const GeneratedTest *> &Tests,
                   const std::string &Arch, const std::string &Ptxas,
                   std::string &Cubin, std::vector<std::string> &Hist,
                   std::string &Why) {
  std::vector<std::string> Ptx;
  for (const GeneratedTest *G : Tests) {
    Skeleton S = skeletonOf(G->Source);
    std::string P;
    if (!skeletonPtx(L, S, Arch, P, Why))
      return false;
    std::optional<std::string> Filled = fillSkeleton(P, S.Ops);
    if (!Filled) {
      Why = "a skeleton's PTX names an operation the test does not have";
      return false;
    }
    Ptx.push_back(std::move(*Filled));
  }
  std::optional<std::string> M = splicedModulePtx(Ptx, Hist, Why);
  return M && assemble(Ptxas, *M, Arch, Cubin, Why);
}

/// A batch in the compile cache: DIR/KEY.cubin and DIR/KEY.opt, one line
/// per test: "<ok|failed|skipped> <alone 0|1> <histogram kernel> <detail>". Files are
/// written under a temporary name and renamed, the .opt last, so a reader
/// sees whole entries or none.
struct CacheEntry {
  std::string Cubin;
  struct Test {
    OptCheckResult Opt;
    bool Alone = false;
    std::string Hist; ///< The test's histogram kernel in the module.
  };
  std::vector<Test> Tests;
};

/// The disassembler's command (or why there is none), for the cache key.
std::string disassembler() {
  std::string Why;
  std::vector<std::string> Cmd = disassemblerCommand(Why);
  return Cmd.empty() ? Why : fmt::format("{}", fmt::join(Cmd, " "));
}

std::string cacheKey(CudaLibraries &L, const std::string &Source,
                     const std::string &Arch, const std::string &Ptxas) {
  // The optcheck results depend on the disassembler found; the module on
  // the way it was made (ptxas: spliced; none: NVRTC whole).
  uint64_t H = fnv1a64("incant-cubin-2\n" + nvrtcVersion(L) + '\n' + Arch +
                       '\n' + Ptxas +
                       (nvrtcHasMinimal(L) ? "\n-minimal\n" : "\n") +
                       disassembler());
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
    std::string Hist;
    if (!(LS >> Kind >> Alone >> Hist))
      return std::nullopt;
    OptCheckResult R;
    R.K = Kind == "ok"       ? OptCheckResult::Ok
          : Kind == "failed" ? OptCheckResult::Failed
                             : OptCheckResult::Skipped;
    std::getline(LS >> std::ws, R.Detail);
    E.Tests.push_back({std::move(R), Alone != 0, std::move(Hist)});
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
  for (const auto &[R, Alone, Hist] : E.Tests) {
    std::string D = R.Detail;
    for (char &C : D)
      if (C == '\n' || C == '\r')
        C = ' ';
    Opt << (R.K == OptCheckResult::Ok       ? "ok"
            : R.K == OptCheckResult::Failed ? "failed"
                                            : "skipped")
        << ' ' << (Alone ? 1 : 0) << ' ' << Hist << ' ' << D << '\n';
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

bool compileThroughDisk(CudaLibraries &L, const GeneratedTest &G,
                        const std::string &Arch, const std::string &CacheDir,
                        CompiledKernels &Out, std::string &Log) {
  auto M = std::make_shared<CompiledModule>();
  M->Arch = Arch;
  Out.TestKernel = testKernelName(-1);
  Out.HistKernel = histKernelName(-1);
  // On disk, a test compiled alone is a batch of one made the alone way.
  std::string Key = CacheDir.empty() ? "" : cacheKey(L, G.Source, Arch, "alone");
  std::optional<CacheEntry> E;
  if (!Key.empty())
    E = readCache(CacheDir, Key, 1);
  if (E) {
    phases::add("cuda: compile cache hit", 0);
    M->Cubin = std::move(E->Cubin);
    Out.Opt = std::move(E->Tests[0].Opt);
  } else {
    CompiledTest C;
    if (!compileChecked(L, G, Arch, C, Log))
      return false;
    M->Cubin = std::move(C.Cubin);
    Out.Opt = std::move(C.Opt);
    if (!Key.empty())
      writeCache(CacheDir, Key,
                 CacheEntry{M->Cubin, {{Out.Opt, false, Out.HistKernel}}});
  }
  Out.Module = std::move(M);
  return true;
}

bool compileCached(CudaLibraries &L, const GeneratedTest &G,
                   const std::string &Arch, CompiledKernels &Out,
                   std::string &Log, const std::string &CacheDir) {
  // Bounded: a campaign compiles thousands of distinct sources, while
  // `incant tune` reuses a few. A source another worker is compiling is
  // waited for, not compiled again.
  struct Entry {
    std::once_flag Once;
    bool Ok = false;
    CompiledKernels K;
    std::string Log;
  };
  static std::map<std::string, std::shared_ptr<Entry>> Cache;
  static std::mutex CacheMutex;
  constexpr size_t CacheCap = 64;
  std::string Key = Arch + '\n' + G.Source;
  std::shared_ptr<Entry> E;
  {
    std::lock_guard<std::mutex> Lock(CacheMutex);
    auto It = Cache.find(Key);
    if (It == Cache.end()) {
      if (Cache.size() >= CacheCap)
        Cache.clear();
      It = Cache.emplace(std::move(Key), std::make_shared<Entry>()).first;
    }
    E = It->second;
  }
  std::call_once(E->Once, [&] {
    E->Ok = compileThroughDisk(L, G, Arch, CacheDir, E->K, E->Log);
  });
  if (!E->Ok) {
    Log = E->Log;
    return false;
  }
  Out = E->K;
  return true;
}

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
  std::string WhyWhole;
  std::string Ptxas = spliceTool(Arch, WhyWhole);
  std::string Key = CacheDir.empty() ? "" : cacheKey(L, Source, Arch, Ptxas);
  if (!Key.empty())
    if (std::optional<CacheEntry> E = readCache(CacheDir, Key, Tests.size())) {
      auto M = std::make_shared<CompiledModule>();
      M->Cubin = std::move(E->Cubin);
      M->Arch = Arch;
      for (size_t K = 0; K < Tests.size(); ++K) {
        if (E->Tests[K].Alone) {
          Alone(K);
          continue;
        }
        int Id = static_cast<int>(K);
        Out[K] = CompiledKernels{M, testKernelName(Id),
                                 std::move(E->Tests[K].Hist),
                                 std::move(E->Tests[K].Opt)};
      }
      return Out;
    }
  std::string Ptx, Cubin, Log;
  std::vector<std::string> Hist;
  if (Ptxas.empty() ||
      !splicedModule(L, Tests, Arch, Ptxas, Cubin, Hist, WhyWhole)) {
    noteWhole(WhyWhole);
    Hist.clear();
    for (size_t K = 0; K < Tests.size(); ++K)
      Hist.push_back(histKernelName(static_cast<int>(K)));
    if (!compile(L, Source, Arch, "", Ptx, Cubin, Log)) {
      for (size_t K = 0; K < Tests.size(); ++K)
        Alone(K);
      return Out;
    }
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
    CompiledKernels C{M, testKernelName(Id), Hist[K], {}};
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
    Entry.Tests.push_back({C.Opt, Failed, C.HistKernel});
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
