//===- Slurm.cpp - A campaign as a Slurm job array ------------------------===//
#include "incant/Campaign/Slurm.h"
#include "incant/Support/Process.h"

#include <fmt/format.h>

#include <filesystem>

namespace incant::campaign {

std::string shardDatabase(const std::string &Db, const std::string &Index) {
  std::string Out = Db;
  for (size_t P = 0; (P = Out.find("%i", P)) != std::string::npos;
       P += Index.size())
    Out.replace(P, 2, Index);
  return Out;
}

bool shardArguments(const std::vector<std::string> &Args,
                    std::vector<std::string> &Out, std::string &Error) {
  static const char *const Dropped[] = {"--slurm", "--shards", "--sbatch"};
  Out.clear();
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--shard" || A.rfind("--shard=", 0) == 0) {
      Error = "--slurm makes the shards itself; leave out --shard";
      return false;
    }
    if (A == "--resume")
      continue;
    bool Drop = false;
    for (const char *D : Dropped) {
      std::string Name = D;
      if (A == Name) {
        Drop = true;
        ++I; // its value
      } else if (A.rfind(Name + "=", 0) == 0) {
        Drop = true;
      }
      if (Drop)
        break;
    }
    if (!Drop)
      Out.push_back(A);
  }
  return true;
}

bool slurmScript(const SlurmJob &Job, std::string &Script, std::string &Error) {
  if (Job.Db.find("%i") == std::string::npos) {
    Error = "--slurm needs a --db with %i in it (one database per shard, "
            "e.g. results/shard-%i.sqlite)";
    return false;
  }
  if (Job.Shards == 0) {
    Error = "--shards must be at least 1";
    return false;
  }
  auto OneLine = [&](const std::string &S, const char *What) {
    if (S.find_first_of("\n\r") == std::string::npos)
      return true;
    Error = fmt::format("{} holds a line break, which cannot go into a job "
                        "script: '{}'",
                        What, S);
    return false;
  };
  for (const std::string &A : Job.Args)
    if (!OneLine(A, "an argument"))
      return false;
  if (!OneLine(Job.Incant, "the tool's path") ||
      !OneLine(Job.WorkDir, "the working folder"))
    return false;
  for (const std::string &O : Job.SbatchOptions) {
    if (!OneLine(O, "--sbatch"))
      return false;
    if (O.size() < 2 || O[0] != '-') {
      Error = "--sbatch '" + O + "': expected an sbatch option such as "
              "--gres=gpu:1";
      return false;
    }
  }
  const std::string Last = std::to_string(Job.Shards - 1);
  const std::string Dir = shellQuote({Job.WorkDir});
  auto WithoutSqlite = [](const std::string &Db) {
    return Db.size() > 7 && Db.compare(Db.size() - 7, 7, ".sqlite") == 0
               ? Db.substr(0, Db.size() - 7)
               : Db;
  };
  // Slurm's %a is the task's index: shard-%i.sqlite logs to shard-%a.log.
  const std::string Logs =
      shellQuote({WithoutSqlite(shardDatabase(Job.Db, "%a")) + ".log"});
  std::vector<std::string> Shard = {Job.Incant, "campaign"};
  Shard.insert(Shard.end(), Job.Args.begin(), Job.Args.end());
  std::string Merged = shardDatabase(Job.Db, "all");
  std::string Stem = WithoutSqlite(Merged);

  std::string S;
  auto L = [&](const std::string &Line) {
    S += Line;
    S += '\n';
  };
  L("#!/bin/bash");
  L(fmt::format("# Written by `incant campaign --slurm` (incant {}): {} test(s) "
                "in {} shard(s).",
                Job.IncantVersion, Job.Tests, Job.Shards));
  L("# Run it with bash on a machine that submits Slurm jobs (not with "
    "sbatch):");
  L("# it submits the shards as one job array, each task running");
  L("# `incant campaign ... --shard i/N --resume` into its own database, "
    "then");
  L("# the merge and the report as a job that starts when every task has "
    "ended.");
  L("# Running it again resubmits every shard; each resumes where it "
    "stopped.");
  L("# sbatch takes SBATCH_ACCOUNT, SBATCH_PARTITION, ... from the "
    "environment.");
  L("set -euo pipefail");
  // Slurm opens the logs before a job starts and creates no folder for them.
  std::filesystem::path DbDir =
      (std::filesystem::path(Job.WorkDir) / Job.Db).parent_path();
  L("mkdir -p " + shellQuote({DbDir.lexically_normal().string()}));
  L("shards=$(sbatch --parsable <<'INCANT_SHARDS'");
  L("#!/bin/bash");
  L("#SBATCH --job-name=incant-campaign");
  L("#SBATCH --array=0-" + Last);
  L("#SBATCH --chdir=" + Dir);
  L("#SBATCH --output=" + Logs);
  for (const std::string &O : Job.SbatchOptions)
    L("#SBATCH " + O);
  L(fmt::format("exec {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{}\" --resume",
                shellQuote(Shard), Job.Shards));
  L("INCANT_SHARDS");
  L(")");
  L("merge=$(sbatch --parsable --dependency=\"afterany:${shards%%;*}\" "
    "<<'INCANT_MERGE'");
  L("#!/bin/bash");
  L("#SBATCH --job-name=incant-merge");
  L("#SBATCH --chdir=" + Dir);
  L("#SBATCH --output=" + shellQuote({Stem + ".log"}));
  L("dbs=()");
  L("missing=0");
  for (uint32_t I = 0; I < Job.Shards; ++I) {
    std::string Db = shellQuote({shardDatabase(Job.Db, std::to_string(I))});
    L(fmt::format("if [ -f {0} ]; then dbs+=({0}); else echo \"incant: shard "
                  "{1} left no database ({0})\"; missing=1; fi",
                  Db, I));
  }
  L("[ ${#dbs[@]} -gt 0 ] || exit 2");
  L(shellQuote({Job.Incant, "merge", Merged}) + " \"${dbs[@]}\" || exit 2");
  L(shellQuote({Job.Incant, "report", "--db", Merged, "--html", Stem + ".html",
                "--text"}) +
    " > " + shellQuote({Stem + ".txt"}));
  L("exit $missing");
  L("INCANT_MERGE");
  L(")");
  L(fmt::format("echo \"incant: shards in job array ${{shards%%;*}} (0-{}), "
                "merge and report in job ${{merge%%;*}}:\" {}",
                Last, shellQuote({Merged})));
  Script = std::move(S);
  return true;
}

} // namespace incant::campaign
