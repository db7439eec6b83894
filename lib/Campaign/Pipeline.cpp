//===- Pipeline.cpp - The threads of a campaign ----------------------------===//
#include "incant/Campaign/Pipeline.h"
#include "incant/Campaign/Classify.h"
#include "incant/Litmus/Condition.h"
#include "incant/Litmus/Format.h"
#include "incant/Litmus/Load.h"
#include "incant/Model/Check.h"
#include "incant/Support/Memory.h"
#include "incant/Support/Time.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>

namespace fs = std::filesystem;

namespace incant::campaign {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

/// One test on its way through the pipeline.
struct Item {
  Pending P;
  TestRecord T;
  ResultRecord R;
  std::vector<VerdictRecord> Verdicts;
  std::optional<litmus::LoadedTest> L;
  DiagnosticEngine Diags;
  harness::RunRequest Req;
  /// The result is decided before any run (the test does not load, or
  /// prepare failed): straight to the store.
  bool Decided = false;
  /// Set when the run failed through no fault of the test (the device, or
  /// incant itself): such a result is not stored, so --resume retries it.
  std::optional<ErrorKind> NotTheTest;
};
using ItemPtr = std::unique_ptr<Item>;

/// A queue between two kinds of thread; push() waits while Cap items are
/// queued, pop() until an item comes or every producer has finished.
class Queue {
public:
  Queue(size_t Cap, size_t Producers) : Cap(Cap), Producers(Producers) {}
  void push(ItemPtr I) {
    std::unique_lock<std::mutex> G(Mu);
    NotFull.wait(G, [&] { return Items.size() < Cap; });
    Items.push_back(std::move(I));
    NotEmpty.notify_one();
  }
  /// Null once the queue is empty and every producer is done.
  ItemPtr pop() {
    std::unique_lock<std::mutex> G(Mu);
    NotEmpty.wait(G, [&] { return !Items.empty() || Producers == 0; });
    if (Items.empty())
      return nullptr;
    ItemPtr I = std::move(Items.front());
    Items.pop_front();
    NotFull.notify_one();
    return I;
  }
  /// Everything queued now, waiting for at least one item as pop() does.
  std::vector<ItemPtr> popAll() {
    std::vector<ItemPtr> Out;
    if (ItemPtr First = pop())
      Out.push_back(std::move(First));
    else
      return Out;
    std::lock_guard<std::mutex> G(Mu);
    while (!Items.empty()) {
      Out.push_back(std::move(Items.front()));
      Items.pop_front();
    }
    NotFull.notify_all();
    return Out;
  }
  void producerDone() {
    std::lock_guard<std::mutex> G(Mu);
    --Producers;
    NotEmpty.notify_all();
  }

private:
  std::mutex Mu;
  std::condition_variable NotEmpty, NotFull;
  std::deque<ItemPtr> Items;
  size_t Cap;
  size_t Producers;
};

/// Adds seconds from several threads.
class Seconds {
public:
  void add(double S) { Ns += static_cast<uint64_t>(S * 1e9); }
  double get() const { return double(Ns.load()) / 1e9; }

private:
  std::atomic<uint64_t> Ns{0};
};

std::string renderDiagnostics(const DiagnosticEngine &D) {
  std::string S;
  for (const Diagnostic &X : D.diagnostics())
    S += DiagnosticEngine::format(X);
  return S;
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

class Pipeline {
public:
  Pipeline(const PipelineConfig &C, std::vector<Worker> &Workers, Store &DB,
           std::ostream &Err)
      : C(C), Workers(Workers), DB(DB), Err(Err),
        Ready(std::max<size_t>(4 * size_t(C.Batch) * Workers.size(), 64),
              std::max(C.Jobs, 1u)),
        Results(256, Workers.size()) {}

  PipelineStats run();

private:
  void prepareLoop();
  void prepareChunk(size_t First, size_t Last);
  void loadAndCheck(Item &I);
  void runLoop(Worker &W);
  void runOne(Worker &W, Item &I, bool &First);
  void storeLoop();
  void progress();
  void clearProgress();
  bool stopping() const;

  const PipelineConfig &C;
  std::vector<Worker> &Workers;
  Store &DB;
  std::ostream &Err;
  Queue Ready;   ///< Prepared tests, for the workers.
  Queue Results; ///< Results, for the store.
  std::atomic<size_t> NextChunk{0};
  std::mutex FirstRun;
  Seconds Load, ModelTime, Compile, Launch, StoreTime, Gpu;
  PipelineStats Stats;
  Clock::time_point Start;
  Clock::time_point LastLine;
  bool ProgressShown = false; ///< A terminal line is there to overwrite.
};

void Pipeline::clearProgress() {
  if (ProgressShown)
    Err << '\r' << std::string(72, ' ') << '\r';
  ProgressShown = false;
}

/// On a terminal one line, rewritten after every stored batch; in a log
/// file (a batch job's) a line every 30 seconds and one at the end.
void Pipeline::progress() {
  if (!C.Progress)
    return;
  auto Now = Clock::now();
  size_t N = Stats.Done + Stats.DeviceFailures + Stats.StoreFailures;
  size_t All = C.Todo.size();
  if (!C.ProgressTty && N != 0 && N != All &&
      Now - LastLine < std::chrono::seconds(30))
    return;
  LastLine = Now;
  double Secs = std::chrono::duration<double>(Now - Start).count();
  double Rate = Secs > 0 ? double(N) / Secs : 0;
  std::string Left = Rate > 0 ? formatDuration(double(All - N) / Rate) : "?";
  std::string Line = fmt::format("campaign: {}/{} tests, {:.2f} tests/s, "
                                 "{} left",
                                 N, All, Rate, Left);
  if (!C.ProgressTty) {
    Err << Line << std::endl;
    return;
  }
  Err << '\r' << fmt::format("{:<72}", Line) << std::flush;
  ProgressShown = true;
}

void Pipeline::loadAndCheck(Item &I) {
  Clock::time_point T0 = Clock::now();
  TestRecord &T = I.T;
  T.Hash = I.P.Hash;
  T.Path = I.P.Path;
  T.Name = fs::path(I.P.Path).stem().string();
  T.Family = familyOf(T.Name);
  T.Scope = "unknown";
  I.L = litmus::loadTest(I.P.Path, I.Diags);
  if (I.L) {
    T.Source = I.L->File->text();
    T.Hash = testHash(T.Source);
  } else {
    std::string E;
    if (auto F = SourceFile::read(I.P.Path, E))
      T.Source = F->text();
  }
  I.R.TestHash = T.Hash;
  Load.add(since(T0));
  if (!I.L) {
    I.R.Error = true;
    I.Decided = true;
    return;
  }
  const litmus::Program &Prog = I.L->Prog;
  T.Name = Prog.Name;
  T.Family = familyOf(Prog.Name);
  T.Scope = scopeOf(Prog);
  T.Condition = litmus::formatCondition(Prog);
  // Each test's verdicts once: none when the store has them.
  if (!C.HaveVerdicts.count(T.Hash)) {
    Clock::time_point T1 = Clock::now();
    for (const auto &[Name, M] : C.Models) {
      model::CheckResult CR = model::check(Prog, *M);
      VerdictRecord V;
      V.Model = Name;
      V.Ok = CR.Ok;
      V.Incomplete = CR.Incomplete;
      V.Candidates = CR.Candidates;
      for (const model::State &St : CR.States)
        V.Allowed.push_back(
            {litmus::formatState(Prog, St.Values), St.Satisfies, 0});
      I.Verdicts.push_back(std::move(V));
    }
    ModelTime.add(since(T1));
  }
  I.Req.Prog = &I.L->Prog;
  I.Req.File = I.L->File;
  I.Req.Params = C.Run;
  I.Req.Device = Workers[0].Info.Index;
  I.Req.CompileCache = C.CompileCache;
}

void Pipeline::prepareChunk(size_t First, size_t Last) {
  std::vector<ItemPtr> Items;
  for (size_t K = First; K < Last; ++K) {
    auto I = std::make_unique<Item>();
    I->P = C.Todo[K];
    loadAndCheck(*I);
    Items.push_back(std::move(I));
  }
  std::vector<harness::RunRequest> Reqs;
  std::vector<DiagnosticEngine *> Diags;
  std::vector<Item *> Live;
  for (ItemPtr &I : Items)
    if (!I->Decided) {
      Reqs.push_back(I->Req);
      Diags.push_back(&I->Diags);
      Live.push_back(I.get());
    }
  if (!Reqs.empty()) {
    Clock::time_point T0 = Clock::now();
    auto Prepared = Workers[0].B->prepare(Reqs, Diags);
    Compile.add(since(T0));
    for (size_t K = 0; K < Live.size(); ++K) {
      if (Prepared[K]) {
        Live[K]->Req.Prepared = *Prepared[K];
        continue;
      }
      Live[K]->R.Error = true;
      Live[K]->Decided = true;
      if (Prepared[K].error() != ErrorKind::Input)
        Live[K]->NotTheTest = Prepared[K].error();
    }
  }
  for (ItemPtr &I : Items)
    Ready.push(std::move(I));
}

bool Pipeline::stopping() const { return C.Stop && C.Stop->load(); }

void Pipeline::prepareLoop() {
  const size_t B = std::max(C.Batch, 1u);
  for (size_t K; !stopping() && (K = NextChunk++ * B) < C.Todo.size();)
    prepareChunk(K, std::min(K + B, C.Todo.size()));
  Ready.producerDone();
}

void Pipeline::runOne(Worker &W, Item &I, bool &First) {
  ResultRecord &R = I.R;
  R.Params = C.Params;
  R.Chip = W.Info.Name;
  R.Backend = W.Info.Backend;
  R.DeviceIndex = W.Info.Index;
  R.Platform = W.Info.Platform;
  R.DeviceVersion = W.Info.Version;
  R.Driver = W.Info.Driver;
  R.IncantVersion = C.IncantVersion;
  R.Host = C.Host;
  if (I.Decided)
    return;
  const litmus::Program &Prog = I.L->Prog;
  I.Req.Device = W.Info.Index;
  Expected<harness::RunResult> Run = ErrorKind::Internal;
  {
    // The first run of each worker is serialised: backends load their
    // runtime (CUDA driver, NVRTC) lazily, and not thread-safely.
    std::unique_lock<std::mutex> G(FirstRun, std::defer_lock);
    if (First)
      G.lock();
    Clock::time_point T0 = Clock::now();
    Run = W.B->run(I.Req, I.Diags);
    Launch.add(since(T0));
    First = false;
  }
  // The prepared module is the biggest part of an item; drop it now.
  I.Req.Prepared.reset();
  if (!Run) {
    R.Error = true;
    if (Run.error() != ErrorKind::Input)
      I.NotTheTest = Run.error();
    return;
  }
  Gpu.add(Run->Seconds);
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
}

void Pipeline::runLoop(Worker &W) {
  bool First = true;
  while (ItemPtr I = Ready.pop()) {
    // Asked to stop: the prepared tests are dropped (--resume runs them),
    // still taken from the queue so that no preparing thread waits on it.
    if (stopping())
      continue;
    runOne(W, *I, First);
    Results.push(std::move(I));
  }
  Results.producerDone();
}

void Pipeline::storeLoop() {
  for (std::vector<ItemPtr> Batch; !(Batch = Results.popAll()).empty();) {
    Clock::time_point T0 = Clock::now();
    // Many results per transaction (each put() is a savepoint of its own,
    // so one that fails leaves the others): a commit per result would wait
    // for the disk once per test.
    bool InTx = DB.begin();
    size_t Stored = 0, StoredErrors = 0;
    for (ItemPtr &I : Batch) {
      ResultRecord &R = I->R;
      if (R.Error)
        R.ErrorText = renderDiagnostics(I->Diags);
      R.Finished = utcNowIso();
      if (I->NotTheTest) {
        ++Stats.DeviceFailures;
        clearProgress();
        Err << "campaign: " << I->P.Path << ": " << kindName(*I->NotTheTest)
            << " failure, not stored:\n"
            << R.ErrorText;
        continue;
      }
      if (!DB.put(I->T, I->Verdicts, R)) {
        ++Stats.StoreFailures;
        clearProgress();
        Err << "campaign: " << I->P.Path
            << ": cannot store the result: " << DB.error() << '\n';
        continue;
      }
      ++Stored;
      if (R.Error) {
        ++Stats.Errors;
        ++StoredErrors;
        clearProgress();
        Err << "campaign: " << I->P.Path << ": stored as an error:\n"
            << R.ErrorText;
      }
      if (++Stats.Done == C.StopAfter) {
        // The test hook: leave as a SIGKILL would, right after the N-th
        // result is committed.
        if (InTx)
          DB.commit();
        Err.flush();
        std::_Exit(137);
      }
    }
    if (InTx && !DB.commit()) {
      clearProgress();
      Err << "campaign: cannot commit " << Stored
          << " result(s): " << DB.error() << '\n';
      DB.rollback();
      Stats.Done -= Stored;
      Stats.Errors -= StoredErrors;
      Stats.StoreFailures += Stored;
    }
    StoreTime.add(since(T0));
    progress();
  }
}

PipelineStats Pipeline::run() {
  Start = Clock::now();
  if (!C.Todo.empty())
    progress();
  // The preparing threads allocate and free a compiler's memory at once
  // (NVRTC): given back at each free, it cost the H100 machine's 16 vCPUs
  // page faults and TLB shootdowns (docs/campaign.md, Throughput).
  if (C.Jobs > 1)
    keepFreedMemory();
  std::vector<std::thread> Threads;
  for (unsigned J = 0; J < std::max(C.Jobs, 1u); ++J)
    Threads.emplace_back([this] { prepareLoop(); });
  for (Worker &W : Workers)
    Threads.emplace_back([this, &W] { runLoop(W); });
  storeLoop();
  for (std::thread &T : Threads)
    T.join();
  if (ProgressShown)
    Err << '\n';
  Stats.Stopped = stopping();
  Stats.Times = {Load.get(),   ModelTime.get(), Compile.get(),
                 Launch.get(), StoreTime.get(), Gpu.get()};
  return Stats;
}

} // namespace

PipelineStats runPipeline(const PipelineConfig &C, std::vector<Worker> &Workers,
                          Store &DB, std::ostream &Err) {
  Pipeline P(C, Workers, DB, Err);
  return P.run();
}

} // namespace incant::campaign
