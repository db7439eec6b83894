//===- TuneCli.cpp - `incant tune patch|sequence|spread|random` -----------===//
//
// Fills a tune::TuneCommand from the command line and calls runTune
// (lib/Commands/TuneCommand.cpp). Exit codes: 0 done, 2 usage or input error,
// 3 no usable device or driver.
//
//===----------------------------------------------------------------------===//
// Tool part: incantTune
#ifdef INCANT_HAVE_RUN
#include "OptionKinds.h"
#include "RunOptions.h"
#include "Subcommand.h"
#include "incant/Commands/TuneCommand.h"

#include <iostream>

using namespace incant;

static void addTune(CLI::App &App, int &Rc) {
  static tune::TuneCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "tune", "Tune memory stress for a chip (PLDI'16 patch, sequence and "
              "spread finding; random search) and write a chip profile");
  harness::RunParams &P = Cmd.Params;
  harness::Incantations &I = P.Inc;
  Sub->add_option("mode", Cmd.Mode,
                  "patch, sequence, spread or random (none with --quick)");
  Sub->add_flag("--quick", Cmd.Quick,
                "A usable profile for a new chip in at most 5 minutes: a "
                "short random search from the shipped profile of the chip "
                "or its architecture family");
  tool::addList(Sub, "--tests", Cmd.Tests,
                  "Tests: names in the litmus library or .litmus files")
      ->delimiter(',')
      ->capture_default_str();
  Sub->add_option("--budget", Cmd.Budget,
                  "Wall-clock limit, e.g. 90s, 5m, 1h (default: none)");
  tool::addNumber(Sub, "--seed", Cmd.Seed, IntRange{},
                  "Seed of every random choice")
      ->capture_default_str();
  Sub->add_option("--out", Cmd.Out, "Write the profile here");
  Sub->add_option("--profile", Cmd.ProfileIn,
                  "Start from this profile's winners (merged into --out)");
  Sub->add_option("--plots", Cmd.PlotsDir, "Write SVG plots to this folder");
  Sub->add_option("--backend", Cmd.Backend, "auto, opencl or cuda")
      ->capture_default_str();
  tool::addNumber(Sub, "--device", Cmd.Device, tool::DeviceIndexRange,
                  "Device index within the backend");
  Sub->add_option("--distances", Cmd.Distances,
                  "Distances d in words: N or FIRST:END:STEP, comma-separated "
                  "(patch: 1,32:257:32; sequence, spread: 32:257:96)");
  Sub->add_option("--offsets", Cmd.Offsets,
                  "patch: stress offsets l in words (default 4:256:8)");
  tool::addNumber(Sub, "--max-offset", Cmd.MaxOffset, tune::MaxOffsetRange,
                  "sequence: stress offsets below this, a patch apart")
      ->capture_default_str();
  tool::addNumber(Sub, "--phase", Cmd.Phase, tune::PhaseRange,
                  "sequence, spread: words into each patch that are stressed")
      ->capture_default_str();
  tool::addNumber(Sub, "--epsilon", Cmd.Epsilon, tune::EpsilonRange,
                  "patch: noise threshold")
      ->capture_default_str();
  tool::addNumber(Sub, "--max-length", Cmd.MaxLength, tune::MaxLengthRange,
                  "sequence: longest access sequence")
      ->capture_default_str();
  tool::addNumber(Sub, "--max-spread", Cmd.MaxSpread, tune::MaxSpreadRange,
                  "spread: largest m")
      ->capture_default_str();
  tool::addNumber(Sub, "--samples", Cmd.Samples, tune::SamplesRange,
                  "spread: random region sets per spread and distance")
      ->capture_default_str();
  tool::addNumber(Sub, "--candidates", Cmd.Candidates, tune::CandidatesRange,
                  "random: most candidates to try")
      ->capture_default_str();
  tool::addNumber(Sub, "--rounds", Cmd.Rounds, tune::RoundsRange,
                  "random: most measurement rounds per candidate")
      ->capture_default_str();
  // Run options: they override the input profile (names as in `run`).
  tool::addRunParam(Sub, "iterations", P.Iterations,
                    "Launches per measurement (default 10)");
  tool::addRunParam(Sub, "group-size", P.GroupSize,
                    "Work-items per work-group");
  tool::addRunParam(Sub, "stride", P.Stride, "Words between two locations");
  Sub->add_option("--stress-seq", Cmd.StressSeq, "Stress access sequence");
  tool::addRunParam(Sub, "stress-locs", I.StressLocs, "Locations stressed");
  tool::addRunParam(Sub, "stress-patch", I.StressPatch,
                    "Patch size P in words (sequence, spread)");
  tool::addRunParam(Sub, "stress-iterations", I.StressIterations,
                    "Times each stressing thread runs the sequence");
  tool::addRunParam(Sub, "stress-groups", I.StressGroups,
                    "Stressing work-groups");
  tool::addSwitch(Sub, "barrier", I.SpinBarrier,
                  "Bounded spin barrier before the test");
  tool::addSwitch(Sub, "randomise", I.Randomise,
                  "A fresh thread layout every launch");
  tool::addSwitch(Sub, "pre-stress", I.PreStress,
                  "Testing threads stress memory before the test");
  Sub->callback([Sub, &Rc] {
    Cmd.Explicit = tool::givenOptions(Sub);
    Cmd.ToolVersion = "incant " INCANT_VERSION;
    Rc = tune::runTune(Cmd, std::cout, std::cerr);
  });
}

static incant::tool::Subcommand Tune(60, addTune);
#endif
