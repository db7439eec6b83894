//===- RaceCli.cpp - `incant race` ----------------------------------------===//
//
// Exit codes: 0 no race or divergent barrier found (unknown pairs do not
// fail unless --strict); 1 a race or divergent barrier found; 2 usage or
// input error; 3 nvcc or clang is needed and was not found.
//
//===----------------------------------------------------------------------===//
// Tool part: incantRace
#include "OptionKinds.h"
#include "Options.h"
#include "Subcommand.h"
#include "incant/Race/RaceCommand.h"

#include <iostream>

using namespace incant;

static void addRace(CLI::App &App, int &Rc) {
  static race::RaceCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "race", "Find data races and barrier divergence in the kernels of a "
              "CUDA, OpenCL C or PTX file, statically (Z3)");
  Sub->add_option("file", Cmd.File,
                  "A .cu file (compiled with nvcc -ptx -lineinfo), a .cl file "
                  "(clang -target nvptx64) or a .ptx file")
      ->required();
  Sub->add_option("--kernel", Cmd.Kernel,
                  "Check only this kernel (PTX or demangled name)");
  Sub->add_option("--block-dim", Cmd.BlockDim,
                  "Threads per block, X[,Y,Z] (default: any)");
  Sub->add_option("--grid-dim", Cmd.GridDim,
                  "Blocks per grid, X[,Y,Z] (default: any)");
  tool::addList(Sub, "--param", Cmd.Params,
                "A kernel parameter's value, NAME=VALUE (NAME: the PTX name "
                "or the position, 0 first); repeatable");
  Sub->add_flag("--json", Cmd.Json,
                "One JSON object: accesses, pairs with IR positions, "
                "witnesses, barriers");
  Sub->add_flag("--strict", Cmd.Strict,
                "Exit 1 also when a pair or barrier could not be decided");
  Sub->add_flag("-v,--verbose", Cmd.Verbose,
                "Show the compiler's command, safe pairs and every unknown one");
  Sub->add_option("--arch", Cmd.Arch, "nvcc's -arch for .cu files")
      ->capture_default_str();
  Sub->add_flag("--optimized", Cmd.Optimized,
                "Check only nvcc's optimised build of a .cu file (default: "
                "also its unoptimised build, for races the optimiser hides)");
  tool::addList(Sub, "-X,--compiler-arg", Cmd.CompilerArgs,
                "An argument for nvcc or clang (-X -DN=64); repeatable");
  tool::addNumber(Sub, "--timeout", Cmd.TimeoutMs, IntRange{1, 3'600'000},
                  "Milliseconds per solver query before a pair is unknown")
      ->capture_default_str();
  Sub->callback([&Rc] { Rc = race::runRace(Cmd, std::cout, std::cerr); });
}

static tool::Subcommand Race(70, addRace);
