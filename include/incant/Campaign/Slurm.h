//===- Slurm.h - A campaign as a Slurm job array -----------------*- C++ -*-===//
//
// `incant campaign --slurm FILE --shards N ...` writes a script that, run
// with bash on a Slurm cluster's login node, submits the campaign as one
// job array (task i runs `incant campaign ... --shard i/N --resume` into
// its own database, --db with %i) and the merge and report as a job that
// starts when every task has ended. docs/campaign.md shows one.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAMPAIGN_SLURM_H
#define INCANT_CAMPAIGN_SLURM_H

#include <cstdint>
#include <string>
#include <vector>

namespace incant::campaign {

struct SlurmJob {
  std::string Incant;  ///< The tool, an absolute path.
  /// The campaign's arguments as given, after "campaign" (filtered with
  /// shardArguments).
  std::vector<std::string> Args;
  std::string WorkDir; ///< Where they were given (the jobs' --chdir).
  std::string Db;      ///< --db, with %i.
  uint32_t Shards = 1;
  /// Lines for the array's #SBATCH header ("--gres=gpu:1", "--time=2:00:00").
  std::vector<std::string> SbatchOptions;
  size_t Tests = 0;    ///< For the script's comment.
  std::string IncantVersion;
};

/// \p Args without the options that make the script (--slurm, --shards,
/// --sbatch, in both spellings "--x V" and "--x=V") and without --resume
/// (each task adds it). False with \p Error when they hold --shard.
bool shardArguments(const std::vector<std::string> &Args,
                    std::vector<std::string> &Out, std::string &Error);

/// The submission script. False with \p Error when something cannot go
/// into one: a line break in an argument, --db without %i, an #SBATCH
/// option that is not an option.
bool slurmScript(const SlurmJob &Job, std::string &Script, std::string &Error);

/// The database of shard \p Index: every "%i" of \p Db replaced.
std::string shardDatabase(const std::string &Db, const std::string &Index);

} // namespace incant::campaign

#endif // INCANT_CAMPAIGN_SLURM_H
