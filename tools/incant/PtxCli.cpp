//===- PtxCli.cpp - `incant ptx` ------------------------------------------===//
//
// Exit codes: 0 summary printed; 2 usage or input error (malformed PTX,
// the compiler rejected the source); 3 nvcc or clang is needed and was not
// found.
//
//===----------------------------------------------------------------------===//
// Tool part: incantPTX
#include "Subcommand.h"
#include "incant/Commands/PtxCommand.h"

#include <iostream>

using namespace incant;

static void addPtx(CLI::App &App, int &Rc) {
  static driver::PtxCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "ptx", "Summarise the kernels of a PTX module, CUDA or OpenCL C file: "
             "memory accesses, atomics, fences, barriers and loops with "
             "source lines");
  Sub->add_option("file", Cmd.File,
                  "A .ptx file, a .cu file (run through nvcc -ptx -lineinfo) "
                  "or a .cl file (run through clang -target nvptx64)")
      ->required();
  Sub->add_flag("-v,--verbose", Cmd.Verbose,
                "Every access with its PTX line and inlining chain; show the "
                "compiler's command");
  Sub->add_flag("--json", Cmd.Json, "One JSON object for the module");
  Sub->add_option("--arch", Cmd.Arch, "nvcc's -arch for .cu files")
      ->capture_default_str();
  Sub->callback([&Rc] { Rc = driver::runPtx(Cmd, std::cout, std::cerr); });
}

static tool::Subcommand Ptx(60, addPtx);
