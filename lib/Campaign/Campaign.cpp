//===- Campaign.cpp - `incant campaign`: many tests into one database -----===//
//
// The main thread collects the tests, takes its shard, drops those already
// stored (--resume), picks the devices and loads the models; then one worker
// per device takes the next test, loads it, asks each model which final
// states it allows, runs it and stores the result in one transaction. Only
// storing (and the progress line) is serialised.
//
//===----------------------------------------------------------------------===//
#include "incant/Campaign/Campaign.h"
#include "incant/Campaign/Classify.h"
#include "incant/Campaign/Store.h"
#include "incant/Backends/BackendChoice.h"
#include "incant/Cat/ModelFinder.h"
#include "incant/Harness/Backend.h"
#include "incant/Harness/ParamsJson.h"
#include "incant/Harness/Profile.h"
#include "incant/Litmus/Condition.h"
#include "incant/Litmus/Format.h"
#include "incant/Litmus/Load.h"
#include "incant/Model/Check.h"
#include "incant/Support/Time.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace incant::campaign {

std::string paramsKey(const std::string &Backend, const harness::RunParams &P) {
  // nlohmann::json keeps keys sorted, so equal parameters give equal text.
  nlohmann::json J = {{"backend", Backend},
                      {"iterations", P.Iterations},
                      {"instances", P.Instances},
                      {"group_size", P.GroupSize}};
  harness::addParamsJson(P, J);
  return J.dump();
}

bool collectTests(const std::vector<std::string> &Inputs,
                  std::vector<std::string> &Files, std::string &Error) {
  std::set<std::string> Found;
  for (const std::string &In : Inputs) {
    std::error_code EC;
    if (fs::is_directory(In, EC)) {
      fs::recursive_directory_iterator It(
          In, fs::directory_options::skip_permission_denied, EC),
          End;
      for (; !EC && It != End; It.increment(EC))
        if (It->path().extension() == ".litmus" && It->is_regular_file(EC))
          Found.insert(It->path().lexically_normal().string());
      if (EC) {
        Error = "cannot list " + In + ": " + EC.message();
        return false;
      }
    } else if (fs::exists(In, EC)) {
      Found.insert(fs::path(In).lexically_normal().string());
    } else {
      Error = "no such file or folder: " + In;
      return false;
    }
  }
  Files.assign(Found.begin(), Found.end());
  return true;
}

bool parseShard(const std::string &Text, uint32_t &Index, uint32_t &Count,
                std::string &Error) {
  size_t Slash = Text.find('/');
  auto Num = [](const std::string &S, uint32_t &V) {
    if (S.empty() || S.size() > 9 ||
        S.find_first_not_of("0123456789") != std::string::npos)
      return false;
    V = static_cast<uint32_t>(std::stoul(S));
    return true;
  };
  if (Slash == std::string::npos || !Num(Text.substr(0, Slash), Index) ||
      !Num(Text.substr(Slash + 1), Count) || Count == 0 || Index >= Count) {
    Error = "--shard '" + Text + "': expected i/N with 0 <= i < N";
    return false;
  }
  return true;
}

namespace {

std::string hostName() {
  char Buf[256] = {};
  if (gethostname(Buf, sizeof(Buf) - 1) != 0)
    return "";
  return Buf;
}

std::string formatDuration(double S) {
  if (S < 0 || S > 1e8)
    return "?";
  uint64_t T = static_cast<uint64_t>(S + 0.5);
  if (T >= 3600)
    return fmt::format("{}h{:02}m", T / 3600, T / 60 % 60);
  if (T >= 60)
    return fmt::format("{}m{:02}s", T / 60, T % 60);
  return fmt::format("{}s", T);
}

/// The shard from --shard or Slurm's job array variables; Count 0: none.
bool chooseShard(const CampaignCommand &Cmd, uint32_t &Index, uint32_t &Count,
                 std::string &Error) {
  Index = 0;
  Count = 0;
  if (!Cmd.Shard.empty())
    return parseShard(Cmd.Shard, Index, Count, Error);
  auto Get = [&](const char *K) -> std::optional<long> {
    auto It = Cmd.Env.find(K);
    if (It == Cmd.Env.end() || It->second.empty())
      return std::nullopt;
    char *End = nullptr;
    long V = std::strtol(It->second.c_str(), &End, 10);
    if (*End || V < 0)
      return -1;
    return V;
  };
  std::optional<long> Id = Get("SLURM_ARRAY_TASK_ID"),
                      N = Get("SLURM_ARRAY_TASK_COUNT");
  if (!Id || !N)
    return true;
  long Min = Get("SLURM_ARRAY_TASK_MIN").value_or(0);
  long Step = Get("SLURM_ARRAY_TASK_STEP").value_or(1);
  if (*Id < 0 || *N <= 0 || Min < 0 || Step <= 0 || *Id < Min ||
      (*Id - Min) / Step >= *N) {
    Error = "SLURM_ARRAY_TASK_ID/COUNT do not name a shard; give --shard i/N";
    return false;
  }
  Index = static_cast<uint32_t>((*Id - Min) / Step);
  Count = static_cast<uint32_t>(*N);
  return true;
}

struct Worker {
  std::unique_ptr<harness::Backend> B;
  harness::DeviceInfo Info;
};

struct Pending {
  std::string Path;
  std::string Hash;
};

/// Shared state of the workers; Mu guards the store, Err and the counters.
struct Shared {
  Shared(const CampaignCommand &Cmd, std::ostream &Err, Store &DB)
      : Cmd(Cmd), Err(Err), DB(DB) {}
  const CampaignCommand &Cmd;
  std::ostream &Err;
  Store &DB;
  harness::RunParams Run;
  std::string Params; ///< paramsKey() of Run.
  std::string Host;
  std::vector<std::pair<std::string, const cat::Model *>> Models;
  std::vector<Pending> Todo;
  std::atomic<size_t> Next{0};
  std::mutex Mu;
  std::mutex FirstRun;
  size_t Done = 0, Errors = 0, DeviceFailures = 0, StoreFailures = 0;
  std::chrono::steady_clock::time_point Start;
  bool ProgressShown = false; ///< A terminal line is there to overwrite.
  std::chrono::steady_clock::time_point LastLine;

  void clearProgress() {
    if (ProgressShown)
      Err << '\r' << std::string(72, ' ') << '\r';
    ProgressShown = false;
  }
  /// On a terminal one line, rewritten after every test; in a log file
  /// (a batch job's) a line every 30 seconds and one at the end.
  void progress() {
    if (!Cmd.Progress)
      return;
    auto Now = std::chrono::steady_clock::now();
    // Tests handled: stored, or failed on the device.
    size_t N = Done + DeviceFailures + StoreFailures;
    if (!Cmd.ProgressTty && N != 0 && N != Todo.size() &&
        Now - LastLine < std::chrono::seconds(30))
      return;
    LastLine = Now;
    double Secs = std::chrono::duration<double>(Now - Start).count();
    double Rate = Secs > 0 ? double(N) / Secs : 0;
    std::string Left =
        Rate > 0 ? formatDuration(double(Todo.size() - N) / Rate) : "?";
    std::string Line = fmt::format("campaign: {}/{} tests, {:.2f} tests/s, "
                                   "{} left",
                                   N, Todo.size(), Rate, Left);
    if (!Cmd.ProgressTty) {
      Err << Line << std::endl;
      return;
    }
    Err << '\r' << fmt::format("{:<72}", Line) << std::flush;
    ProgressShown = true;
  }
};

std::string renderDiagnostics(const DiagnosticEngine &D) {
  std::string S;
  for (const Diagnostic &X : D.diagnostics())
    S += DiagnosticEngine::format(X);
  return S;
}

void runOne(Shared &S, Worker &W, const Pending &P, bool &First) {
  TestRecord T;
  T.Hash = P.Hash;
  T.Path = P.Path;
  T.Name = fs::path(P.Path).stem().string();
  T.Family = familyOf(T.Name);
  T.Scope = "unknown";
  ResultRecord R;
  R.Params = S.Params;
  R.Chip = W.Info.Name;
  R.Backend = W.Info.Backend;
  R.DeviceIndex = W.Info.Index;
  R.Platform = W.Info.Platform;
  R.DeviceVersion = W.Info.Version;
  R.Driver = W.Info.Driver;
  R.IncantVersion = S.Cmd.IncantVersion;
  R.Host = S.Host;
  std::vector<VerdictRecord> Verdicts;

  DiagnosticEngine Diags;
  std::optional<litmus::LoadedTest> L = litmus::loadTest(P.Path, Diags);
  if (L) {
    T.Source = L->File->text();
    T.Hash = testHash(T.Source);
  } else {
    std::string E;
    if (auto F = SourceFile::read(P.Path, E))
      T.Source = F->text();
  }
  R.TestHash = T.Hash;
  // Set when the run failed through no fault of the test (the device, or
  // incant itself): such a result is not stored, so --resume retries it.
  std::optional<ErrorKind> NotTheTest;
  if (L) {
    const litmus::Program &Prog = L->Prog;
    T.Name = Prog.Name;
    T.Family = familyOf(Prog.Name);
    T.Scope = scopeOf(Prog);
    T.Condition = litmus::formatCondition(Prog);
    bool Need;
    {
      std::lock_guard<std::mutex> G(S.Mu);
      Need = !S.DB.hasVerdicts(T.Hash);
    }
    if (Need)
      for (const auto &[Name, M] : S.Models) {
        model::CheckResult C = model::check(Prog, *M);
        VerdictRecord V;
        V.Model = Name;
        V.Ok = C.Ok;
        V.Incomplete = C.Incomplete;
        V.Candidates = C.Candidates;
        for (const model::State &St : C.States)
          V.Allowed.push_back(
              {litmus::formatState(Prog, St.Values), St.Satisfies, 0});
        Verdicts.push_back(std::move(V));
      }
    harness::RunRequest Req;
    Req.Prog = &Prog;
    Req.File = L->File;
    Req.Params = S.Run;
    Req.Device = W.Info.Index;
    Expected<harness::RunResult> Run = ErrorKind::Internal;
    {
      // The first run of each worker is serialised: backends load their
      // runtime (CUDA driver, NVRTC) lazily, and not thread-safely.
      std::unique_lock<std::mutex> G(S.FirstRun, std::defer_lock);
      if (First)
        G.lock();
      Run = W.B->run(Req, Diags);
      First = false;
    }
    if (Run) {
      R.Driver = Run->Device.Driver.empty() ? R.Driver : Run->Device.Driver;
      R.Launches = Run->Launches;
      R.Instances = Run->Instances;
      R.InstancesPerLaunch = Run->InstancesPerLaunch;
      R.Groups = Run->Groups;
      R.GroupSize = Run->GroupSize;
      R.WarpSize = Run->WarpSize;
      R.Seconds = Run->Seconds;
      R.BarrierTimeouts = Run->BarrierTimeouts;
      R.LoopBoundHits = Run->LoopBoundHits;
      R.Lost = Run->Lost;
      R.OptCheck = Run->OptCheck;
      harness::Witnesses Wi = harness::witnesses(Prog, Run->Hist);
      R.Positive = Wi.Positive;
      R.Negative = Wi.Negative;
      R.ConditionOk = Wi.Ok;
      for (const auto &[O, N] : Run->Hist.outcomes())
        R.Histogram.push_back({litmus::formatState(Prog, O),
                               litmus::holds(Prog, Prog.Condition, O), N});
    } else {
      R.Error = true;
      if (Run.error() != ErrorKind::Input)
        NotTheTest = Run.error();
    }
  } else {
    R.Error = true;
  }
  if (R.Error)
    R.ErrorText = renderDiagnostics(Diags);
  R.Finished = utcNowIso();

  std::lock_guard<std::mutex> G(S.Mu);
  if (NotTheTest) {
    ++S.DeviceFailures;
    S.clearProgress();
    S.Err << "campaign: " << P.Path << ": " << kindName(*NotTheTest)
          << " failure, not stored:\n"
          << R.ErrorText;
  } else if (!S.DB.put(T, Verdicts, R)) {
    ++S.StoreFailures;
    S.clearProgress();
    S.Err << "campaign: " << P.Path
          << ": cannot store the result: " << S.DB.error() << '\n';
  } else {
    if (R.Error) {
      ++S.Errors;
      S.clearProgress();
      S.Err << "campaign: " << P.Path << ": stored as an error:\n"
            << R.ErrorText;
    }
    if (++S.Done == S.Cmd.StopAfter) {
      // The test hook: leave as a SIGKILL would, mid-campaign.
      S.Err.flush();
      std::_Exit(137);
    }
  }
  S.progress();
}

} // namespace

int runCampaign(const CampaignCommand &Cmd, std::ostream &Out,
                std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  harness::RunParams Params = Cmd.Params;
  if (!Cmd.StressSeq.empty()) {
    std::string E;
    if (!harness::parseStressSeq(Cmd.StressSeq, Params.Inc.StressSeq, E)) {
      Diags.error("--stress-seq: " + E);
      return 2;
    }
  }
  if (!Cmd.Profile.empty() && Cmd.Profile != "none") {
    std::optional<harness::Profile> Prof =
        harness::readProfile(Cmd.Profile, Diags);
    if (!Prof)
      return 2;
    harness::applyProfile(*Prof, Params, Cmd.Explicit);
  }
  if (Params.Iterations == 0) {
    Diags.error("--iterations must be at least 1");
    return 2;
  }
  if (Cmd.Inputs.empty()) {
    Diags.error("no test given (expected .litmus files or folders)");
    return 2;
  }
  if (Cmd.Db.empty()) {
    Diags.error("no database given (--db FILE.sqlite)");
    return 2;
  }
  if (Cmd.Models.empty()) {
    Diags.error("no model given");
    return 2;
  }
  uint32_t ShardIndex = 0, ShardCount = 0;
  std::string E;
  if (!chooseShard(Cmd, ShardIndex, ShardCount, E)) {
    Diags.error(E);
    return 2;
  }
  std::vector<std::string> Files;
  if (!collectTests(Cmd.Inputs, Files, E)) {
    Diags.error(E);
    return 2;
  }
  if (Files.empty()) {
    Diags.error("no .litmus file found under the given folders");
    return 2;
  }
  size_t AllTests = Files.size();
  if (ShardCount) {
    std::vector<std::string> Mine;
    for (size_t I = ShardIndex; I < Files.size(); I += ShardCount)
      Mine.push_back(Files[I]);
    Files = std::move(Mine);
  }

  // Models first: a typo in a model name needs no device.
  cat::ModelFinder Finder(Cmd.ModelDirs);
  std::vector<std::pair<std::string, const cat::Model *>> Models;
  for (const std::string &M : Cmd.Models) {
    const cat::Model *P = Finder.get(M, Diags);
    if (!P)
      return 2;
    Models.emplace_back(cat::ModelFinder::displayName(M), P);
  }

  // Devices.
  std::optional<uint32_t> First = Cmd.Device;
  std::vector<uint32_t> Indices;
  bool AllDevices = Cmd.Devices == "all";
  if (!Cmd.Devices.empty() && !AllDevices) {
    std::stringstream SS(Cmd.Devices);
    std::string Item;
    while (std::getline(SS, Item, ',')) {
      uint32_t V = 0;
      if (Item.empty() || Item.size() > 6 ||
          Item.find_first_not_of("0123456789") != std::string::npos) {
        Diags.error("--devices '" + Cmd.Devices +
                    "': expected 'all' or indices like 0,1");
        return 2;
      }
      V = static_cast<uint32_t>(std::stoul(Item));
      // An index given twice gets two workers (two streams of launches on
      // one device).
      Indices.push_back(V);
    }
    if (Indices.empty()) {
      Diags.error("--devices '" + Cmd.Devices +
                  "': expected 'all' or indices like 0,1");
      return 2;
    }
    First = Indices[0];
  }
  Expected<backends::ChosenBackend> Ch =
      backends::chooseBackend(Cmd.Backend, First, Diags);
  if (!Ch)
    return exitCodeOf(Ch.error());
  std::vector<harness::DeviceInfo> Listed = Ch->B->devices();
  const std::string BackendName = Ch->B->name();
  auto Find = [&](uint32_t I) -> const harness::DeviceInfo * {
    for (const harness::DeviceInfo &D : Listed)
      if (D.Index == I)
        return &D;
    return nullptr;
  };
  if (AllDevices) {
    for (const harness::DeviceInfo &D : Listed)
      if (D.Usable)
        Indices.push_back(D.Index);
    if (Indices.empty()) {
      Diags.error("--devices all: the " + BackendName +
                  " backend lists no device that can run litmus tests");
      return 3;
    }
  } else if (Indices.empty()) {
    Indices.push_back(Ch->Device);
  }
  std::vector<Worker> Workers;
  for (uint32_t I : Indices) {
    const harness::DeviceInfo *D = Find(I);
    if (!D) {
      Diags.error(fmt::format("no device {} in the {} backend (see `incant "
                              "devices`)",
                              I, BackendName));
      return 2;
    }
    Worker W;
    W.B =
        Workers.empty() ? std::move(Ch->B) : backends::createBackend(D->Backend);
    if (!W.B) {
      Diags.error("cannot create a second " + D->Backend + " backend");
      return 3;
    }
    W.Info = *D;
    Workers.push_back(std::move(W));
  }

  // The database.
  std::string DbPath = Cmd.Db;
  for (size_t P; (P = DbPath.find("%i")) != std::string::npos;)
    DbPath.replace(P, 2, std::to_string(ShardIndex));
  std::unique_ptr<Store> DB = Store::open(DbPath, Store::Mode::Write, E);
  if (!DB) {
    Diags.error(E);
    return 2;
  }
  uint64_t Stored = DB->numResults();
  if (Stored && !Cmd.Resume) {
    Diags.error(fmt::format("{} already holds {} result(s); give --resume to "
                            "continue that campaign, or another --db",
                            DbPath, Stored));
    return 2;
  }

  Shared S(Cmd, Err, *DB);
  S.Run = Params;
  S.Params = paramsKey(BackendName, Params);
  S.Host = hostName();
  S.Models = std::move(Models);
  S.Todo.reserve(Files.size());
  std::set<ResultKey> Keys = DB->resultKeys();
  std::set<std::string> Chips;
  for (const Worker &W : Workers)
    Chips.insert(W.Info.Name);
  size_t Skipped = 0;
  for (const std::string &F : Files) {
    std::string Why;
    std::shared_ptr<SourceFile> SF = SourceFile::read(F, Why);
    std::string Hash = testHash(SF ? SF->text() : std::string());
    bool Done = false;
    for (const std::string &C : Chips)
      Done |= Keys.count({Hash, S.Params, C}) != 0;
    if (Done)
      ++Skipped;
    else
      S.Todo.push_back({F, Hash});
  }

  nlohmann::json Opt = {
      {"incant_version", Cmd.IncantVersion},
      {"host", S.Host},
      {"backend", BackendName},
      {"devices", Indices},
      {"shard", ShardCount ? fmt::format("{}/{}", ShardIndex, ShardCount)
                           : std::string()},
      {"inputs", Cmd.Inputs},
      {"tests", Files.size()},
      {"params", nlohmann::json::parse(S.Params)},
      {"models", Cmd.Models},
      {"profile", Cmd.Profile},
      {"resume", Cmd.Resume}};
  if (!DB->addRun(utcNowIso(), Opt.dump())) {
    Diags.error("cannot write " + DbPath + ": " + DB->error());
    return 2;
  }

  S.Start = std::chrono::steady_clock::now();
  if (!S.Todo.empty())
    S.progress();
  auto Loop = [&S](Worker &W) {
    bool First = true;
    for (size_t I; (I = S.Next++) < S.Todo.size();)
      runOne(S, W, S.Todo[I], First);
  };
  if (Workers.size() == 1) {
    Loop(Workers[0]);
  } else {
    std::vector<std::thread> Threads;
    for (Worker &W : Workers)
      Threads.emplace_back(Loop, std::ref(W));
    for (std::thread &T : Threads)
      T.join();
  }
  if (S.ProgressShown)
    Err << '\n';

  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - S.Start)
          .count();
  Out << fmt::format("campaign: {} test(s)", Files.size());
  if (ShardCount)
    Out << fmt::format(" (shard {}/{} of {})", ShardIndex, ShardCount,
                       AllTests);
  Out << fmt::format(": {} run, {} stored as errors, {} skipped (already "
                     "stored)",
                     S.Done - S.Errors, S.Errors, Skipped);
  if (S.DeviceFailures)
    Out << fmt::format(", {} device failure(s) not stored", S.DeviceFailures);
  Out << fmt::format(" in {:.1f} s with {} worker(s)\n", Secs, Workers.size());
  Out << fmt::format("database: {} ({} result(s))\n", DbPath, DB->numResults());
  if (S.StoreFailures)
    return 2;
  return S.DeviceFailures ? 3 : 0;
}

} // namespace incant::campaign
