//===- CampaignCommand.h - `incant campaign`: tests into a database -*- C++ -*-===//
//
// Runs every litmus test under folders and files on a backend, as
// `incant run` does, and stores each result with every shipped model's
// verdict in an SQLite database (Store.h). Threads load, check and compile
// tests while the devices run earlier ones (incant/Campaign/Pipeline.h). With
// --resume a campaign that was killed continues where it stopped; with
// --devices it runs on several devices at once, one worker thread each;
// with --shard i/N (or Slurm's job array variables) it takes every N-th
// test, for one database per shard merged afterwards (`incant merge`).
//
// Exit codes of runCampaign: 0 every test of the campaign is stored (tests
// that do not parse, lower or build are stored as errors); 2 a bad option,
// path, model or database (one with results, without --resume); 3 no usable
// device or runtime, a device failed on some test (not stored; --resume
// runs it again), or a write to the database failed.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_CAMPAIGNCOMMAND_H
#define INCANT_COMMANDS_CAMPAIGNCOMMAND_H

#include "incant/Harness/Params.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace incant::campaign {

struct CampaignCommand {
  /// .litmus files and folders (searched recursively for *.litmus).
  std::vector<std::string> Inputs;
  /// The database; "%i" in it is replaced by the shard index.
  std::string Db;
  bool Resume = false;
  /// auto, opencl or cuda, as `incant run --backend`.
  std::string Backend = "auto";
  std::optional<uint32_t> Device;
  /// "all" or a list "0,1" (an index given twice gets two workers); empty:
  /// one device (--device or chosen).
  std::string Devices;
  /// "i/N" (0 <= i < N); empty: from SLURM_ARRAY_TASK_ID / _COUNT if set.
  std::string Shard;
  harness::RunParams Params;
  std::string StressSeq;
  /// A chip profile (`incant tune`) applied to Params, except the
  /// parameters named in Explicit, as `incant run --profile` does.
  std::string Profile;
  std::set<std::string> Explicit;
  /// Threads that load, check and compile tests ahead of the devices; 0:
  /// the machine's cores less one per worker (at least one).
  unsigned Jobs = 0;
  /// Tests a preparing thread takes at a time; the CUDA backend compiles
  /// them as one module.
  unsigned Batch = 32;
  /// Where the backend keeps compiled tests between campaigns
  /// (RunRequest::CompileCache); empty: nowhere.
  std::string CompileCache;
  /// Models whose verdicts are stored; the shipped three by default.
  std::vector<std::string> Models = {"sc", "ptx-rmo", "ptx"};
  std::vector<std::string> ModelDirs;
  /// Progress on stderr: one line rewritten in place on a terminal
  /// (ProgressTty), else a line every 30 s and at the end.
  bool Progress = true;
  bool ProgressTty = true;
  /// --slurm FILE: write a Slurm submission script for the campaign
  /// (Slurm.h) in --shards shards instead of running it; SlurmArgs are the
  /// command's arguments as given (after "campaign"), run by each shard in
  /// WorkDir; Sbatch the array's #SBATCH options; Incant the tool's path.
  std::string Slurm;
  uint32_t Shards = 0;
  std::vector<std::string> Sbatch;
  std::vector<std::string> SlurmArgs;
  std::string WorkDir;
  std::string Incant;
  /// Test hook: exit at once (no cleanup, as if killed) after storing this
  /// many results; 0: never.
  uint64_t StopAfter = 0;
  std::string IncantVersion;
  /// The environment (SLURM_ARRAY_*), so tests can set it.
  std::map<std::string, std::string> Env;
};

int runCampaign(const CampaignCommand &Cmd, std::ostream &Out,
                std::ostream &Err);

} // namespace incant::campaign

#endif // INCANT_COMMANDS_CAMPAIGNCOMMAND_H
