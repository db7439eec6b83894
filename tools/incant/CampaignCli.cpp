//===- CampaignCli.cpp - `incant campaign` --------------------------------===//
//
// Run many litmus tests and store every result in an SQLite database
// (lib/Campaign, docs/campaign.md). Exit codes: 0 every test stored (broken
// tests as errors), 2 usage, input or database error, 3 no device or a
// device failure.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "RunOptions.h"
#include "Subcommand.h"
#include "incant/Campaign/Campaign.h"

#include <cstdlib>
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
  Sub->add_option("--backend", Cmd.Backend,
                  "auto (NVIDIA GPU, else OpenCL GPU, else OpenCL CPU), "
                  "opencl or cuda")
      ->capture_default_str();
  tool::addNumber(Sub, "--device", Cmd.Device, tool::DeviceIndexRange,
                  "Device index within the backend (see `incant devices`)");
  Sub->add_option("--devices", Cmd.Devices,
                  "Run on several devices at once: 'all' or indices '0,1'");
  Sub->add_option("--shard", Cmd.Shard,
                  "Take every N-th test, starting at the i-th: 'i/N' "
                  "(default from SLURM_ARRAY_TASK_ID/COUNT)");
  tool::addRunParams(Sub, Cmd.Params, Cmd.StressSeq);
  Sub->add_option("-m,--model", Cmd.Models,
                  "Models whose verdicts are stored (default: sc ptx-rmo "
                  "ptx)");
  Sub->add_option("--models", Cmd.ModelDirs,
                  "Folder searched first for models given by name");
  Sub->add_option("--profile", Cmd.Profile,
                  "Chip profile from `incant tune`; options given here "
                  "override it ('none' or absent: the built-in defaults)");
  Sub->add_flag("!--no-progress", Cmd.Progress, "No progress line on stderr");
  // Test hook: exit without cleanup after N stored results, as if killed.
  tool::addNumber(Sub, "--stop-after", Cmd.StopAfter, IntRange{1, 1'000'000'000},
                  "")
      ->group("");
  Sub->callback([&Rc, Sub] {
    // Options given on the command line win over the profile.
    for (const CLI::Option *O : Sub->get_options())
      if (O->count() > 0 && !O->get_lnames().empty())
        Cmd.Explicit.insert(O->get_lnames()[0]);
    Cmd.IncantVersion = INCANT_VERSION;
    Cmd.ProgressTty = isatty(STDERR_FILENO);
    for (const char *K : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
                          "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP"})
      if (const char *V = std::getenv(K))
        Cmd.Env[K] = V;
    Rc = campaign::runCampaign(Cmd, std::cout, std::cerr);
  });
}

static incant::tool::Subcommand Campaign(50, addCampaign);
