//===- CudaLitmusBench.cpp - MP/SB/LB on the GPU without the parser -------===//
//
// Runs the hand-built tests of incant/Testing/Programs.h (or a .litmus
// file) through the CUDA backend, with its own incantation switches and
// defaults (below; they are those of the measurements in docs/cuda.md,
// bench/cuda/run-h100.sh), which it turns into harness::RunParams and
// cuda::CudaTuning once.
//
// Exit codes: 0 ran, 2 usage error or a test the backend cannot run, 3 no
// CUDA driver or device, 4 failure.
//
//===----------------------------------------------------------------------===//

#include "incant/CUDA/CudaBackend.h"
#include "incant/Harness/Stats.h"
#include "incant/Litmus/Condition.h"
#include "incant/Litmus/Format.h"
#include "incant/Litmus/Load.h"
#include "incant/Testing/Programs.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

using namespace incant;

namespace {

/// A litmus7-style report: the histogram (`*>` on states that satisfy the
/// condition), Ok/No, witnesses, rates, device and parameters, optcheck.
void printResult(const litmus::Program &P, const harness::RunResult &R,
                 const harness::Witnesses &W) {
  std::string S;
  S += fmt::format("Test {} {}\n", P.Name, litmus::conditionKind(P));
  S += fmt::format("Histogram ({} states)\n", R.Hist.outcomes().size());
  for (const auto &[O, N] : R.Hist.outcomes()) {
    bool Sat = litmus::holds(P, P.Condition, O);
    S += fmt::format("{:<12}{}> {}\n", N, Sat ? "*" : ":",
                     litmus::formatState(P, O));
  }
  if (R.Lost)
    S += fmt::format("{:<12}:> (outcomes beyond the on-GPU table)\n", R.Lost);
  S += W.Ok ? "Ok\n" : "No\n";
  S += fmt::format("Witnesses\nPositive: {}, Negative: {}\n", W.Positive,
                   R.Instances - W.Positive);
  S += fmt::format("Instances {} in {:.3f} s: {:.3g} instances/s, {:.3g} "
                   "satisfying/s\n",
                   R.Instances, R.Seconds,
                   harness::perSecond(R.Instances, R.Seconds),
                   harness::perSecond(W.Positive, R.Seconds));
  // The CUDA backend's notes: "NVRTC <version>", then the launch shape.
  const std::vector<std::string> &Notes = R.Device.Notes;
  std::string Nvrtc =
      Notes.empty() ? "" : Notes[0].substr(Notes[0].find(' ') + 1);
  S += fmt::format("Device {} ({}, {} SMs), driver {}, NVRTC {}\n",
                   R.Device.Name, R.Device.Version, R.Device.ComputeUnits,
                   R.Device.Driver, Nvrtc);
  S += fmt::format("Parameters {}\n", Notes.size() > 1 ? Notes[1] : "");
  S += R.OptCheck + "\n";
  if (R.OptCheck.rfind("optcheck: FAILED", 0) == 0 && W.Positive > 0)
    S += "warning: optcheck failed: the outcomes above may come from the "
         "compiler, not the hardware\n";
  std::cout << S;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{"Run hand-built MP/SB/LB tests on a CUDA GPU"};
  std::string Test = "MP", Fence = "none", Place = "cta", EmitDir;
  bool Shared = false, Json = false, Single = false;
  // This program's defaults, kept from the measurements of docs/cuda.md:
  // 100 launches of 256-thread blocks, locations one word apart, the stress
  // pattern ld;st over 64 locations 1024 words apart, no spin barrier.
  harness::RunParams Params;
  Params.Iterations = 100;
  Params.GroupSize = 256;
  Params.Stride = 1;
  harness::Incantations &I = Params.Inc;
  I.StressSeq = {{false, 0}, {true, 1}};
  I.StressLocs = 64;
  I.StressPatch = 1024;
  I.SpinBarrier = false;
  I.PreStressIterations = 16;
  cuda::CudaTuning Tuning;
  App.add_option("test", Test, "MP, SB, LB or a .litmus file")->required();
  App.add_option("--fence", Fence, "none, membar.gl or fence.sc.gpu");
  App.add_option("--place", Place, "cta, warp, lane or cluster");
  App.add_flag("--shared", Shared, "locations in shared memory");
  App.add_option("--iterations", Params.Iterations);
  App.add_option("--threads", Params.GroupSize);
  App.add_option("--stride", Params.Stride);
  App.add_flag("--stress", I.MemStress);
  App.add_option("--stress-iters", I.StressIterations);
  App.add_option("--stress-fraction", Tuning.StressFraction);
  App.add_flag("--bank", I.BankConflicts);
  App.add_option("--bank-lanes", Tuning.BankLanes);
  App.add_flag("--random", I.Randomise);
  App.add_flag("--barrier", I.SpinBarrier);
  App.add_option("--barrier-polls", I.BarrierPolls);
  App.add_flag("--prestress", I.PreStress);
  App.add_option("--cta-stress-warps", Tuning.CtaStressWarps,
                 "stress warps inside each testing block");
  App.add_flag("--stress-in-test", I.StressInTest,
               "stress the test's memory at --stress-offset");
  App.add_option("--stress-offset", I.StressOffset);
  App.add_option("--stress-lines", I.StressLocs);
  App.add_option("--stress-spread", I.StressPatch);
  App.add_option("--max-seconds", Tuning.MaxSeconds,
                 "stop launching after this many seconds");
  App.add_option("--seed", Params.Seed);
  App.add_option("--emit", EmitDir);
  App.add_flag("--json", Json);
  App.add_flag("--single", Single, "one instance per launch");
  CLI11_PARSE(App, argc, argv);
  if (Single)
    Params.Instances = 1;

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
    std::optional<litmus::LoadedTest> L = litmus::loadTest(Test, Diags);
    if (!L)
      return 2;
    P = std::move(L->Prog);
    File = L->File;
    Place = "file";
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

  std::unique_ptr<harness::Backend> B = cuda::createCudaBackend(Tuning);
  std::string Why;
  if (EmitDir.empty() && !B->available(Why)) {
    std::cerr << "error: " << Why << "\n";
    return 3;
  }
  harness::RunRequest Req;
  Req.Prog = &P;
  Req.File = File;
  Req.Params = Params;
  Req.EmitDir = EmitDir;
  Expected<harness::RunResult> R = B->run(Req, Diags);
  if (!R)
    return R.error() == ErrorKind::Input ? 2 : 4;
  if (!EmitDir.empty()) {
    std::cout << "emitted to " << EmitDir << "\n";
    for (const std::string &N : R->Device.Notes)
      std::cout << N << "\n";
    std::cout << R->OptCheck << "\n";
    return 0;
  }
  harness::Witnesses W = harness::witnesses(P, R->Hist);
  printResult(P, *R, W);
  if (Json) {
    std::string Params = R->Device.Notes.size() > 1 ? R->Device.Notes[1] : "";
    std::cout << fmt::format(
        "JSON {{\"test\":\"{}\",\"place\":\"{}\",\"shared\":{},"
        "\"instances\":{},\"weak\":{},\"seconds\":{:.6f},"
        "\"instances_per_s\":{:.4g},\"weak_per_s\":{:.4g},"
        "\"launches\":{},\"optcheck\":\"{}\",\"params\":\"{}\"}}\n",
        P.Name, Place, Shared, R->Instances, W.Positive, R->Seconds,
        harness::perSecond(R->Instances, R->Seconds),
        harness::perSecond(W.Positive, R->Seconds), R->Launches, R->OptCheck,
        Params);
  }
  return 0;
}
