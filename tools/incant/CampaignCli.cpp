//===- CampaignCli.cpp - `incant campaign` --------------------------------===//
//
// Run many litmus tests and store every result in an SQLite database
// (lib/Campaign, docs/campaign.md). Exit codes: 0 every test stored (broken
// tests as errors), 2 usage, input or database error, 3 no device or a
// device failure.
//
//===----------------------------------------------------------------------===//
// Tool part: incantCampaign
#include "OptionKinds.h"
#include "Options.h"
#include "RunOptions.h"
#include "Subcommand.h"
#include "incant/Commands/CampaignCommand.h"
#include "incant/Support/DataFiles.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <unistd.h>

using namespace incant;

static void addCampaign(CLI::App &App, int &Rc) {
  static campaign::CampaignCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "campaign", "Run many litmus tests and store every result, with each "
                  "model's verdict, in an SQLite database");
  Sub->add_option("tests", Cmd.Inputs,
                  "Litmus tests: .litmus files and folders (searched "
                  "recursively)");
  Sub->add_option("--db", Cmd.Db,
                  "The database (SQLite); '%i' in it becomes the shard index")
      ->required();
  Sub->add_flag("--resume", Cmd.Resume,
                "Continue a campaign: skip tests stored with the same "
                "parameters on the same chip");
  tool::addBackendOptions(Sub, Cmd.Backend, Cmd.Device);
  Sub->add_option("--devices", Cmd.Devices,
                  "Run on several devices at once: 'all' or indices '0,1'");
  Sub->add_option("--shard", Cmd.Shard,
                  "Take every N-th test, starting at the i-th: 'i/N' "
                  "(default from SLURM_ARRAY_TASK_ID/COUNT)");
  tool::addRunParams(Sub, Cmd.Params, Cmd.StressSeq);
  tool::addNumber(Sub, "-j,--jobs", Cmd.Jobs, IntRange{0, 1024},
                  "Threads that load, check and compile tests while the "
                  "devices run (0, the default: the CPUs this process may "
                  "use, by its affinity and cgroup quota, less one per "
                  "worker)");
  tool::addNumber(Sub, "--batch", Cmd.Batch, IntRange{1, 4096},
                  "Tests a thread takes at a time; CUDA compiles them as one "
                  "module")
      ->capture_default_str();
  Sub->add_option("--compile-cache", Cmd.CompileCache,
                  "Keep compiled tests in this folder and reuse them when a "
                  "campaign compiles the same tests again (CUDA)");
  tool::addList(Sub, "-m,--model", Cmd.Models,
                "Models whose verdicts are stored, one per -m or "
                "comma-separated (default: sc,ptx-rmo,ptx)",
                /*Commas=*/true);
  tool::addList(Sub, "--models", Cmd.ModelDirs,
                  "Folder searched first for models given by name");
  Sub->add_option("--profile", Cmd.Profile,
                  "Chip profile from `incant tune`; options given here "
                  "override it ('none' or absent: the built-in defaults)");
  Sub->add_flag_callback(
      "--no-progress", [] { Cmd.Progress = false; },
      "No progress line on stderr");
  Sub->add_option("--slurm", Cmd.Slurm,
                  "Write a script that runs this campaign on a Slurm cluster "
                  "(--shards jobs of a job array, then the merge) instead of "
                  "running it here");
  tool::addNumber(Sub, "--shards", Cmd.Shards, IntRange{1, 1'000'000},
                  "With --slurm: the number of shards (jobs of the array)");
  tool::addList(Sub, "--sbatch", Cmd.Sbatch,
                "With --slurm: an #SBATCH option for the array's jobs, e.g. "
                "--sbatch=--gres=gpu:1 (repeatable)");
  // Test hook: exit without cleanup after N stored results, as if killed.
  tool::addNumber(Sub, "--stop-after", Cmd.StopAfter, IntRange{1, 1'000'000'000},
                  "")
      ->group("");
  Sub->callback([&Rc, Sub] {
    // Options given on the command line win over the profile.
    Cmd.Explicit = tool::givenOptions(Sub);
    Cmd.IncantVersion = INCANT_VERSION;
    if (!Cmd.Slurm.empty()) {
      const std::vector<std::string> &All = tool::commandLine();
      auto It = std::find(All.begin() + (All.empty() ? 0 : 1), All.end(),
                          std::string("campaign"));
      Cmd.SlurmArgs.assign(It == All.end() ? It : It + 1, All.end());
      std::error_code EC;
      Cmd.WorkDir = std::filesystem::current_path(EC).string();
      Cmd.Incant = incantCommand();
      if (Cmd.Incant.empty() && !All.empty())
        Cmd.Incant = All[0];
    }
    Cmd.ProgressTty = isatty(STDERR_FILENO);
    for (const char *K : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
                          "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP"})
      if (const char *V = std::getenv(K))
        Cmd.Env[K] = V;
    Rc = campaign::runCampaign(Cmd, std::cout, std::cerr);
  });
}

static incant::tool::Subcommand Campaign(50, addCampaign);
