//===- GenCli.cpp - `incant gen`: litmus tests from cycles ----------------===//
//
// Fills a gen::GenCommand from the command line and calls gen::runGen.
// Exit codes: 0 tests written; 2 a malformed option or an impossible cycle.
//
//===----------------------------------------------------------------------===//
// Tool part: incantGen
#include "OptionKinds.h"
#include "Options.h"
#include "Subcommand.h"
#include "incant/Commands/GenCommand.h"

#include <CLI/CLI.hpp>
#include <iostream>

using namespace incant;

static void addGen(CLI::App &App, int &Rc) {
  static gen::GenCommand Cmd;
  static gen::FamilyOptions F;
  static std::string Preset;
  CLI::App *Sub = App.add_subcommand(
      "gen", "Generate litmus tests from cycles of relaxations (diy, "
             "extended for GPUs); see docs/gen.md");
  Sub->add_option("-o,--output", Cmd.OutDir, "Folder for the .litmus files");
  tool::addList(Sub, "--cycle", F.Cycles,
                  "A cycle: edges and event kinds, e.g. "
                  "'PodWW Rfe@gpu PodRR Fre@gpu' (repeatable)");
  Sub->add_option("-r,--relax", F.Relax,
                  "Relaxations: enumerate the cycles that use at least one");
  Sub->add_option("--safe", F.Safe, "Safe edges that cycles may also use");
  tool::addNumber(Sub, "--size", F.MaxSize, IntRange{2, gen::MaxSizeLimit},
                  "Most edges in an enumerated cycle")
      ->capture_default_str();
  tool::addNumber(Sub, "--threads", F.MaxThreads,
                  IntRange{2, gen::MaxThreadsLimit},
                  "Most threads in an enumerated cycle")
      ->capture_default_str();
  Sub->add_option("--shapes", F.Shapes,
                  "Named shapes: MP,SB,LB,S,R,2+2W,IRIW,WRC,ISA2,CoRR,RWC,"
                  "WWC,3.SB,3.LB,3.2W,Z6.3");
  Sub->add_option("--fences", F.Fences,
                  "Choices for each po edge of a shape and for generic "
                  "Fenced edges: none, membar.cta, fence.sc.gpu, addr, ...")
      ->capture_default_str();
  Sub->add_option("--scopes", F.Scopes,
                  "Scope relations of external edges: warp, cta, cluster, gpu")
      ->capture_default_str();
  Sub->add_flag("--mixed-scopes", F.MixedScopes,
                "Give each external edge its own scope relation");
  Sub->add_option("--accesses", F.Accesses,
                  "Access variants: weak, volatile, relaxed.S, atomic.S, "
                  "acqrel.S, relacq.S")
      ->capture_default_str();
  Sub->add_option("--mem", F.Memory, "Memory variants: global, shared, dsmem (distributed shared memory of a cluster)")
      ->capture_default_str();
  Sub->add_option("--preset", Preset,
                  "A named family: campaign, classic, hopper, modern");
  Sub->add_flag("--list", Cmd.List,
                "Print each test's name and cycle instead of writing files");
  tool::addNumber(Sub, "--timeout", Cmd.Opts.TimeLimit, gen::TimeoutRange,
                  "Stop after this many seconds, keeping the tests written "
                  "(0: no limit; the work is bounded anyway)")
      ->capture_default_str();
  Sub->add_flag("--force", Cmd.Force,
                "Replace files in the output folder that hold other tests "
                "of the same name (without it, that is an error)");
  Sub->callback([&Rc] {
    Cmd.Opts.Families.clear();
    if (!Preset.empty()) {
      Cmd.Opts.Families = gen::presetFamilies(Preset);
      if (Cmd.Opts.Families.empty()) {
        DiagnosticEngine Diags(&std::cerr);
        std::string Known;
        for (const std::string &N : gen::presetNames())
          Known += (Known.empty() ? "" : ", ") + N;
        Diags.error("unknown preset '" + Preset + "' (known: " + Known + ")");
        Rc = 2;
        return;
      }
    }
    if (!F.Cycles.empty() || !F.Relax.empty() || !F.Safe.empty() ||
        !F.Shapes.empty())
      Cmd.Opts.Families.push_back(F);
    Rc = gen::runGen(Cmd, std::cout, std::cerr);
  });
}

static incant::tool::Subcommand Gen(40, addGen);
