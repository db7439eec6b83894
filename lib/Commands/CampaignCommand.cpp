//===- CampaignCommand.cpp - `incant campaign`: many tests into one database ===//
//
// The main thread collects the tests, takes its shard, drops those already
// stored (--resume), picks the devices and loads the models; then the
// pipeline (Pipeline.h) loads, checks and compiles tests on --jobs threads,
// runs them on one thread per device worker, and stores the results.
//
//===----------------------------------------------------------------------===//
#include "incant/Commands/CampaignCommand.h"
#include "incant/Campaign/Campaign.h"
#include "incant/Campaign/Pipeline.h"
#include "incant/Backends/BackendChoice.h"
#include "incant/Campaign/Slurm.h"
#include "incant/Campaign/Store.h"
#include "incant/Cat/ModelFinder.h"
#include "incant/Harness/ParamsJson.h"
#include "incant/Harness/Profile.h"
#include "incant/Litmus/Load.h"
#include "incant/Support/Cpus.h"
#include "incant/Support/Json.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/StopSignals.h"
#include "incant/Support/Time.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace incant::campaign {

namespace {

std::string hostName() {
  char Buf[256] = {};
  if (gethostname(Buf, sizeof(Buf) - 1) != 0)
    return "";
  return Buf;
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

/// --slurm: the submission script instead of the campaign.
int writeSlurm(const CampaignCommand &Cmd, size_t Tests, std::ostream &Out,
               DiagnosticEngine &Diags) {
  SlurmJob Job;
  std::string E;
  if (!shardArguments(Cmd.SlurmArgs, Job.Args, E)) {
    Diags.error(E);
    return 2;
  }
  std::error_code EC;
  Job.Incant = fs::absolute(Cmd.Incant, EC).lexically_normal().string();
  Job.WorkDir = Cmd.WorkDir;
  Job.Db = Cmd.Db;
  Job.Shards = Cmd.Shards;
  Job.SbatchOptions = Cmd.Sbatch;
  Job.Tests = Tests;
  Job.IncantVersion = Cmd.IncantVersion;
  if (Cmd.Shards == 0) {
    Diags.error("--slurm needs --shards N, the number of jobs of the array");
    return 2;
  }
  std::string Script;
  if (!slurmScript(Job, Script, E)) {
    Diags.error(E);
    return 2;
  }
  if (!writeOutputFile(Cmd.Slurm, Script, E)) {
    Diags.error(E);
    return 3;
  }
  fs::permissions(Cmd.Slurm,
                  fs::perms::owner_exec | fs::perms::group_exec |
                      fs::perms::others_exec,
                  fs::perm_options::add, EC);
  Out << fmt::format("wrote {}: {} test(s) in {} shard(s) of a Slurm job "
                     "array, then the merge into {}; submit with: bash {}\n",
                     Cmd.Slurm, Tests, Cmd.Shards,
                     shardDatabase(Cmd.Db, "all"), Cmd.Slurm);
  return 0;
}

} // namespace

/// The device workers of --device or --devices, the first one's backend
/// chosen as `incant run` chooses it. The error's kind after a message.
static std::optional<ErrorKind> chooseWorkers(const CampaignCommand &Cmd,
                                       std::vector<Worker> &Workers,
                                       std::vector<uint32_t> &Indices,
                                       DiagnosticEngine &Diags) {
  std::optional<uint32_t> First = Cmd.Device;
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
        return ErrorKind::Input;
      }
      V = static_cast<uint32_t>(std::stoul(Item));
      // An index given twice gets two workers (two streams of launches on
      // one device).
      Indices.push_back(V);
    }
    if (Indices.empty()) {
      Diags.error("--devices '" + Cmd.Devices +
                  "': expected 'all' or indices like 0,1");
      return ErrorKind::Input;
    }
    First = Indices[0];
  }
  Expected<backends::ChosenBackend> Ch =
      backends::chooseBackend(Cmd.Backend, First, Diags);
  if (!Ch)
    return Ch.error();
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
      return ErrorKind::Device;
    }
  } else if (Indices.empty()) {
    Indices.push_back(Ch->Device);
  }
  for (uint32_t I : Indices) {
    const harness::DeviceInfo *D = Find(I);
    if (!D) {
      Diags.error(fmt::format("no device {} in the {} backend (see `incant "
                              "devices`)",
                              I, BackendName));
      return ErrorKind::Input;
    }
    Worker W;
    W.B =
        Workers.empty() ? std::move(Ch->B) : backends::createBackend(D->Backend);
    if (!W.B) {
      Diags.error("cannot create a second " + D->Backend + " backend");
      return ErrorKind::Device;
    }
    W.Info = *D;
    Workers.push_back(std::move(W));
  }
  return std::nullopt;
}

namespace {

/// One campaign's steps in order, and what each finds for the next; a step
/// that fails has reported why.
struct CampaignSteps {
  CampaignSteps(const CampaignCommand &Cmd, DiagnosticEngine &Diags)
      : Cmd(Cmd), Diags(Diags), Finder(Cmd.ModelDirs) {}

  const CampaignCommand &Cmd;
  DiagnosticEngine &Diags;
  harness::RunParams Params;
  uint32_t ShardIndex = 0, ShardCount = 0;
  std::vector<std::string> Files; ///< This shard's tests.
  size_t AllTests = 0;            ///< The tests of all shards.
  cat::ModelFinder Finder;        ///< Owns the models the pipeline checks.
  std::vector<std::pair<std::string, const cat::Model *>> Models;
  std::vector<Worker> Workers;
  std::vector<uint32_t> Indices; ///< The workers' device indices.
  std::string BackendName, DbPath;
  std::unique_ptr<Store> DB;
  PipelineConfig PC;
  size_t Skipped = 0; ///< Tests already stored.

  bool readParams();
  bool selectTests();
  bool loadModels();
  bool openStore();
  void planPipeline();
  bool recordRun();
  int report(const PipelineStats &St, double Secs, const StopSignals &Signals,
             std::ostream &Out) const;
};

/// The run parameters (options over the profile) and the options needed.
bool CampaignSteps::readParams() {
  Params = Cmd.Params;
  if (!Cmd.StressSeq.empty()) {
    std::string E;
    if (!harness::parseStressSeq(Cmd.StressSeq, Params.Inc.StressSeq, E)) {
      Diags.error("--stress-seq: " + E);
      return false;
    }
  }
  if (!Cmd.Profile.empty() && Cmd.Profile != "none") {
    std::optional<harness::Profile> Prof =
        harness::readProfile(Cmd.Profile, Diags);
    if (!Prof)
      return false;
    harness::applyProfile(*Prof, Params, Cmd.Explicit);
  }
  if (Params.Iterations == 0) {
    Diags.error("--iterations must be at least 1");
    return false;
  }
  if (Cmd.Inputs.empty()) {
    Diags.error("no test given (expected .litmus files or folders)");
    return false;
  }
  if (Cmd.Db.empty()) {
    Diags.error("no database given (--db FILE.sqlite)");
    return false;
  }
  if (Cmd.Models.empty()) {
    Diags.error("no model given");
    return false;
  }
  return true;
}

/// The tests of the inputs, then this shard's share of them; checks that
/// no output overwrites an input.
bool CampaignSteps::selectTests() {
  std::string E;
  if (!chooseShard(Cmd, ShardIndex, ShardCount, E)) {
    Diags.error(E);
    return false;
  }
  if (!collectTests(Cmd.Inputs, Files, E)) {
    Diags.error(E);
    return false;
  }
  {
    // The database is written too: neither it nor the script may be a
    // test or the profile. With --slurm, --db is the shards' pattern
    // (%i): each shard's run checks its own database.
    std::vector<std::string> Inputs = Files;
    Inputs.push_back(Cmd.Profile);
    if (!checkOutputs({Cmd.Slurm, Cmd.Slurm.empty() ? Cmd.Db : std::string()},
                      Inputs, E)) {
      Diags.error(E);
      return false;
    }
  }
  AllTests = Files.size();
  if (ShardCount) {
    std::vector<std::string> Mine;
    for (size_t I = ShardIndex; I < Files.size(); I += ShardCount)
      Mine.push_back(Files[I]);
    Files = std::move(Mine);
  }
  return true;
}

/// The models, before any device: a typo in a model name needs none.
bool CampaignSteps::loadModels() {
  for (const std::string &M : Cmd.Models) {
    const cat::Model *P = Finder.get(M, Diags);
    if (!P)
      return false;
    Models.emplace_back(cat::ModelFinder::displayName(M), P);
  }
  return true;
}

/// Opens this shard's database; one that holds results needs --resume.
bool CampaignSteps::openStore() {
  DbPath = Cmd.Db;
  for (size_t P; (P = DbPath.find("%i")) != std::string::npos;)
    DbPath.replace(P, 2, std::to_string(ShardIndex));
  std::string E;
  DB = Store::open(DbPath, Store::Mode::Write, E);
  if (!DB) {
    Diags.error(E);
    return false;
  }
  uint64_t Stored = DB->numResults();
  if (Stored && !Cmd.Resume) {
    Diags.error(fmt::format("{} already holds {} result(s); give --resume to "
                            "continue that campaign, or another --db",
                            DbPath, Stored));
    return false;
  }
  return true;
}

/// The pipeline's configuration: the tests not yet stored for these chips,
/// and the preparing threads the CPUs allow.
void CampaignSteps::planPipeline() {
  BackendName = Workers.front().B->name();
  PC.CompileCache = Cmd.CompileCache;
  PC.IncantVersion = Cmd.IncantVersion;
  PC.Progress = Cmd.Progress;
  PC.ProgressTty = Cmd.ProgressTty;
  PC.StopAfter = Cmd.StopAfter;
  PC.Run = Params;
  PC.Params = paramsKey(BackendName, Params);
  PC.Host = hostName();
  PC.Models = std::move(Models);
  PC.Todo.reserve(Files.size());
  std::set<ResultKey> Keys = DB->resultKeys();
  std::set<std::string> Chips;
  for (const Worker &W : Workers)
    Chips.insert(W.Info.Name);
  for (const std::string &F : Files) {
    std::string Why;
    std::shared_ptr<SourceFile> SF = SourceFile::read(F, Why);
    std::string Hash = testHash(SF ? SF->text() : std::string());
    bool Done = false;
    for (const std::string &C : Chips)
      Done |= Keys.count({Hash, PC.Params, C}) != 0;
    if (Done) {
      ++Skipped;
      continue;
    }
    PC.Todo.push_back({F, Hash});
    if (DB->hasVerdicts(Hash))
      PC.HaveVerdicts.insert(Hash);
  }
  // The CPUs this process may use (its affinity mask, its cgroup's
  // quota: what Slurm or a container gives it), not the machine's cores.
  unsigned Cores = usableCpus();
  PC.Jobs = Cmd.Jobs ? Cmd.Jobs
                     : std::max<unsigned>(
                           1, Cores - std::min<unsigned>(
                                          Cores, static_cast<unsigned>(
                                                     Workers.size())));
  PC.Batch = std::max(Cmd.Batch, 1u);
}

/// Stores the run's options in the database; false (reported) when the
/// write fails.
bool CampaignSteps::recordRun() {
  nlohmann::json Opt = {
      {"incant_version", Cmd.IncantVersion},
      {"host", PC.Host},
      {"backend", BackendName},
      {"devices", Indices},
      {"shard", ShardCount ? fmt::format("{}/{}", ShardIndex, ShardCount)
                           : std::string()},
      {"inputs", Cmd.Inputs},
      {"tests", Files.size()},
      {"params", nlohmann::json::parse(PC.Params)},
      {"models", Cmd.Models},
      {"profile", Cmd.Profile},
      {"resume", Cmd.Resume},
      {"jobs", PC.Jobs},
      {"batch", PC.Batch}};
  if (!DB->addRun(utcNowIso(), dumpJson(Opt))) {
    Diags.error("cannot write " + DbPath + ": " + DB->error());
    return false;
  }
  return true;
}

/// Prints the summary of the pipeline's run; the campaign's exit code.
int CampaignSteps::report(const PipelineStats &St, double Secs,
                          const StopSignals &Signals,
                          std::ostream &Out) const {
  Out << fmt::format("campaign: {} test(s)", Files.size());
  if (ShardCount)
    Out << fmt::format(" (shard {}/{} of {})", ShardIndex, ShardCount,
                       AllTests);
  Out << fmt::format(": {} run, {} stored as errors, {} skipped (already "
                     "stored)",
                     St.Done - St.Errors, St.Errors, Skipped);
  if (St.DeviceFailures)
    Out << fmt::format(", {} device failure(s) not stored", St.DeviceFailures);
  size_t Handled = St.Done + St.DeviceFailures + St.StoreFailures;
  Out << fmt::format(" in {:.1f} s with {} worker(s), {:.1f} tests/s\n", Secs,
                     Workers.size(), Secs > 0 ? double(Handled) / Secs : 0.0);
  const PhaseTimes &T = St.Times;
  Out << fmt::format("time: load {:.1f} s, model {:.1f} s, compile {:.1f} s "
                     "({} thread(s), {} test(s) each time), launch {:.1f} s "
                     "(device busy {:.1f} s), store {:.1f} s; each summed "
                     "over its threads\n",
                     T.Load, T.Model, T.Compile, PC.Jobs, PC.Batch, T.Launch,
                     T.Gpu, T.Store);
  Out << fmt::format("database: {} ({} result(s))\n", DbPath, DB->numResults());
  if (St.Stopped && Handled < PC.Todo.size()) {
    Out << fmt::format("stopped by {}: {} test(s) not run; the same command "
                       "with --resume runs them\n",
                       Signals.name(), PC.Todo.size() - Handled);
    // As a shell reports a command the signal ended.
    return 128 + Signals.signal();
  }
  return St.StoreFailures || St.DeviceFailures ? 3 : 0;
}

} // namespace

int runCampaign(const CampaignCommand &Cmd, std::ostream &Out,
                std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  CampaignSteps C(Cmd, Diags);
  if (!C.readParams() || !C.selectTests() || !C.loadModels())
    return 2;
  // The script for a cluster needs the tests and models checked, not a
  // device: the login node writing it often has none.
  if (!Cmd.Slurm.empty())
    return writeSlurm(Cmd, C.AllTests, Out, Diags);
  if (std::optional<ErrorKind> K =
          chooseWorkers(Cmd, C.Workers, C.Indices, Diags))
    return exitCodeOf(*K);
  if (!C.openStore())
    return 2;
  C.planPipeline();
  // A write that fails is SQLite's or the disk's, not the input's.
  if (!C.recordRun())
    return 3;

  auto Start = std::chrono::steady_clock::now();
  // A time limit's SIGTERM (Slurm's) or Ctrl-C: the runs under way finish,
  // what finished is stored, the summary says what is left for --resume.
  StopSignals Signals;
  C.PC.Stop = &Signals.requested();
  PipelineStats St = runPipeline(C.PC, C.Workers, *C.DB, Err);
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return C.report(St, Secs, Signals, Out);
}

} // namespace incant::campaign
