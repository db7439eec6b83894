//===- RunOptions.h - The run parameters as command-line options -*- C++ -*-===//
//
// `incant run` and `incant campaign` take the same launch parameters and
// incantations, spelt the same way; both add them with this function, each
// number with its range from harness::paramRanges() (the ranges a chip
// profile's parameters are checked against too).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_RUNOPTIONS_H
#define INCANT_TOOL_RUNOPTIONS_H

#include "OptionKinds.h"
#include "Options.h"
#include "incant/Harness/ParamRanges.h"
#include "incant/Harness/Params.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace incant::tool {

/// Adds `--NAME` for the run parameter NAME, with its range.
template <typename T>
CLI::Option *addRunParam(CLI::App *Sub, const char *Name, T &Var,
                         const std::string &Desc) {
  return addNumber(Sub, std::string("--") + Name, Var,
                   harness::paramRange(Name), Desc);
}

/// --backend and --device, as `incant run` and `incant campaign` take them.
inline void addBackendOptions(CLI::App *Sub, std::string &Backend,
                              std::optional<uint32_t> &Device) {
  Sub->add_option("--backend", Backend,
                  "auto (NVIDIA GPU, else OpenCL GPU, else OpenCL CPU), "
                  "opencl or cuda")
      ->capture_default_str();
  addNumber(Sub, "--device", Device, DeviceIndexRange,
            "Device index within the backend (see `incant devices`)");
}

/// The run parameters and incantations, spelt as `incant run` spells them.
inline void addRunParams(CLI::App *Sub, harness::RunParams &P,
                         std::string &StressSeq) {
  harness::Incantations &I = P.Inc;
  addRunParam(Sub, "iterations", P.Iterations, "Launches of each test")
      ->capture_default_str();
  addRunParam(Sub, "instances", P.Instances,
              "Test instances per launch (default: chosen per device)");
  addRunParam(Sub, "group-size", P.GroupSize,
              "Work-items per work-group (default: chosen per device)");
  addRunParam(Sub, "stride", P.Stride, "Words between two locations")
      ->capture_default_str();
  addRunParam(Sub, "seed", P.Seed, "Seed of permutations and randomisation")
      ->capture_default_str();
  addRunParam(Sub, "loop-bound", P.LoopBound,
              "Backward branches a thread may take")
      ->capture_default_str();
  tool::addSwitch(Sub, "mem-stress", I.MemStress,
                  "Memory stress from extra work-groups");
  Sub->add_option("--stress-seq", StressSeq,
                  "Stress access sequence, e.g. 'st0 ld1'");
  addRunParam(Sub, "stress-locs", I.StressLocs, "Scratchpad locations")
      ->capture_default_str();
  addRunParam(Sub, "stress-patch", I.StressPatch,
              "Words between scratchpad locations")
      ->capture_default_str();
  addRunParam(Sub, "stress-iterations", I.StressIterations,
              "Times each stressing thread runs the sequence")
      ->capture_default_str();
  addRunParam(Sub, "stress-groups", I.StressGroups,
              "Stressing work-groups (0: chosen per device)");
  tool::addSwitch(Sub, "stress-in-test", I.StressInTest,
                  "CUDA: stress the test's memory, --stress-offset words past "
                  "each instance's first location");
  addRunParam(Sub, "stress-offset", I.StressOffset,
              "CUDA: words past an instance's first location")
      ->capture_default_str();
  addRunParam(Sub, "loc-distance", P.LocDistance,
              "CUDA: words between an instance's locations (0: spread)")
      ->capture_default_str();
  tool::addSwitch(Sub, "bank-conflicts", I.BankConflicts,
                  "Idle warp-mates access offset addresses");
  tool::addSwitch(Sub, "randomise", I.Randomise,
                  "A fresh thread layout every launch");
  tool::addSwitch(Sub, "barrier", I.SpinBarrier,
                  "Bounded spin barrier before the test");
  addRunParam(Sub, "barrier-polls", I.BarrierPolls,
              "Polls before the spin barrier gives up")
      ->capture_default_str();
  tool::addSwitch(Sub, "pre-stress", I.PreStress,
                  "Testing threads stress memory before the test");
  addRunParam(Sub, "pre-stress-iterations", I.PreStressIterations,
              "Iterations of pre-stress")
      ->capture_default_str();
}

} // namespace incant::tool

#endif // INCANT_TOOL_RUNOPTIONS_H
