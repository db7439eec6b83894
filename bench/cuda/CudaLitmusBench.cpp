//===- CudaLitmusBench.cpp - MP/SB/LB on the GPU without the parser -------===//
//
// Runs the hand-built tests of HandBuilt.h through the CUDA backend, with
// the same incantation switches as `incant run`. Used for the measurements
// in docs/cuda.md (bench/cuda/run-h100.sh).
//
// Exit codes: 0 ran, 2 usage error, 3 no CUDA driver or device, 4 failure.
//
//===----------------------------------------------------------------------===//

#include "HandBuilt.h"
#include "incant/CUDA/Runner.h"
#ifdef INCANT_HAVE_LITMUS_PARSER
#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"
#endif

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

using namespace incant;

int main(int argc, char **argv) {
  CLI::App App{"Run hand-built MP/SB/LB tests on a CUDA GPU"};
  std::string Test = "MP", Fence = "none", Place = "cta";
  bool Shared = false, Json = false;
  cuda::RunOptions O;
  App.add_option("test", Test, "MP, SB, LB or a .litmus file")->required();
  App.add_option("--fence", Fence, "none, membar.gl or fence.sc.gpu");
  App.add_option("--place", Place, "cta, warp, lane or cluster");
  App.add_flag("--shared", Shared, "locations in shared memory");
  App.add_option("--iterations", O.Iterations);
  App.add_option("--threads", O.ThreadsPerBlock);
  App.add_option("--stride", O.Stride);
  App.add_flag("--stress", O.Stress);
  App.add_option("--stress-iters", O.StressIters);
  App.add_option("--stress-fraction", O.StressFraction);
  App.add_flag("--bank", O.Bank);
  App.add_option("--bank-lanes", O.BankLanes);
  App.add_flag("--random", O.Randomise);
  App.add_flag("--barrier", O.Barrier);
  App.add_option("--barrier-polls", O.BarrierPolls);
  App.add_flag("--prestress", O.PreStress);
  App.add_option("--cta-stress-warps", O.CtaStressWarps,
                 "stress warps inside each testing block");
  App.add_flag("--stress-in-test", O.StressInTest,
               "stress the test's memory at --stress-offset");
  App.add_option("--stress-offset", O.StressOffset);
  App.add_option("--stress-lines", O.StressLines);
  App.add_option("--stress-spread", O.StressSpread);
  App.add_option("--max-seconds", O.MaxSeconds,
                 "stop launching after this many seconds");
  App.add_option("--seed", O.Seed);
  App.add_option("--emit", O.EmitDir);
  App.add_flag("--json", Json);
  bool Single = false;
  App.add_flag("--single", Single, "one instance per launch");
  CLI11_PARSE(App, argc, argv);
  O.SingleInstance = Single;

  using handbuilt::FenceSel;
  FenceSel F = Fence == "membar.gl"      ? FenceSel::MembarGl
               : Fence == "fence.sc.gpu" ? FenceSel::FenceScGpu
                                         : FenceSel::None;
  handbuilt::Place Pl = Place == "warp"      ? handbuilt::Place::Warp
                        : Place == "lane"    ? handbuilt::Place::Lane
                        : Place == "cluster" ? handbuilt::Place::Cluster
                                             : handbuilt::Place::CTA;
  litmus::Program P;
  DiagnosticEngine Diags(&std::cerr);
  std::shared_ptr<const SourceFile> File;
  if (Test.size() > 7 && Test.substr(Test.size() - 7) == ".litmus") {
#ifdef INCANT_HAVE_LITMUS_PARSER
    std::string Err;
    File = SourceFile::read(Test, Err);
    if (!File) {
      std::cerr << "error: " << Test << ": " << Err << "\n";
      return 2;
    }
    auto T = litmus::parseTest(File, Diags);
    if (!T)
      return 2;
    auto Low = litmus::lower(*T, Diags);
    if (!Low)
      return 2;
    P = std::move(*Low);
    Place = "file";
#else
    std::cerr << "error: built without the litmus parser\n";
    return 2;
#endif
  } else if (Test == "MP")
    P = handbuilt::mp(Pl, F, Shared);
  else if (Test == "SB")
    P = handbuilt::sb(Pl, F, Shared);
  else if (Test == "LB")
    P = handbuilt::lb(Pl, F, Shared);
  else {
    std::cerr << "error: unknown test " << Test << " (MP, SB or LB)\n";
    return 2;
  }
  if (F != FenceSel::None && !File)
    P.Name += "+" + Fence;
  cuda::RunResult R = cuda::runOnCuda(P, O, File, Diags);
  switch (R.Status) {
  case cuda::RunResult::NoDriver:
    std::cerr << "error: " << R.Message << "\n";
    return 3;
  case cuda::RunResult::BadInput:
    return 2;
  case cuda::RunResult::NoCompiler:
  case cuda::RunResult::Failed:
    std::cerr << "error: " << R.Message << "\n";
    return 4;
  case cuda::RunResult::Emitted:
    std::cout << "emitted to " << O.EmitDir << " (" << R.Arch << ")\n";
    if (!R.Message.empty())
      std::cout << R.Message << "\n";
    std::cout << R.Opt.line() << "\n";
    return 0;
  case cuda::RunResult::Ok:
    break;
  }
  std::cout << cuda::formatResult(P, R);
  if (Json) {
    double Secs = R.Seconds > 0 ? R.Seconds : 1e-9;
    std::cout << fmt::format(
        "JSON {{\"test\":\"{}\",\"place\":\"{}\",\"shared\":{},"
        "\"instances\":{},\"weak\":{},\"seconds\":{:.6f},"
        "\"instances_per_s\":{:.4g},\"weak_per_s\":{:.4g},"
        "\"launches\":{},\"optcheck\":\"{}\",\"params\":\"{}\"}}\n",
        P.Name, Place, Shared, R.Instances, R.Satisfying, R.Seconds,
        R.Instances / Secs, R.Satisfying / Secs, R.Launches, R.Opt.line(),
        R.Params);
  }
  return 0;
}
