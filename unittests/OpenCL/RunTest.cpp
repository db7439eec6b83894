//===- RunTest.cpp - Litmus tests run through the OpenCL device -------------===//
//
// Skipped where no OpenCL device exists. On an x86-64 CPU device (PoCL) the
// hardware is TSO: SB's weak outcome must show up, MP's, LB's and CoRR's
// never.
//
//===----------------------------------------------------------------------===//
#include "incant/OpenCL/OpenCLBackend.h"
#include "incant/Testing/Programs.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::harness;
using namespace incant::handbuilt;
using namespace incant::litmus;

namespace {

struct Outcomes {
  std::optional<RunResult> R;
  Witnesses W;
};

std::unique_ptr<Backend> &backend() {
  static std::unique_ptr<Backend> B = opencl::createOpenCLBackend();
  return B;
}

/// The first CPU device, or the first device.
std::optional<uint32_t> pickDevice() {
  std::string Why;
  if (!backend()->available(Why))
    return std::nullopt;
  std::vector<DeviceInfo> Ds = backend()->devices();
  for (const DeviceInfo &D : Ds)
    if (D.IsCPU)
      return D.Index;
  if (!Ds.empty())
    return 0;
  return std::nullopt;
}

Outcomes runOn(const Program &P, uint64_t Iterations) {
  RunRequest Req;
  Req.Prog = &P;
  Req.Device = *pickDevice();
  Req.Params.Iterations = Iterations;
  DiagnosticEngine Diags;
  Outcomes Out;
  Expected<RunResult> R = backend()->run(Req, Diags);
  if (R)
    Out.R = std::move(*R);
  EXPECT_TRUE(Out.R) << (Diags.diagnostics().empty()
                             ? ""
                             : DiagnosticEngine::format(Diags.diagnostics()[0]));
  if (Out.R)
    Out.W = witnesses(P, Out.R->Hist);
  return Out;
}

#define REQUIRE_DEVICE()                                                       \
  if (!pickDevice())                                                           \
  GTEST_SKIP() << "no OpenCL device"

TEST(OpenCLRun, CountsEveryInstance) {
  REQUIRE_DEVICE();
  Program P = mp();
  Outcomes R = runOn(P, 20);
  ASSERT_TRUE(R.R);
  EXPECT_EQ(R.R->Hist.total() + R.R->Lost, R.R->Instances);
  EXPECT_EQ(R.R->Lost, 0u);
  // Every outcome is one MP can produce at all.
  for (const auto &[O, N] : R.R->Hist.outcomes())
    for (const litmus::Value &V : O)
      EXPECT_TRUE(V.Int == 0 || V.Int == 1);
}

bool isX86() {
#if defined(__x86_64__)
  return true;
#else
  return false;
#endif
}

TEST(OpenCLRun, TSOOnTheCPU) {
  REQUIRE_DEVICE();
  if (!backend()->devices()[*pickDevice()].IsCPU || !isX86())
    GTEST_SKIP() << "needs an x86-64 CPU OpenCL device";
  Outcomes SBr = runOn(sb(), 400);
  EXPECT_GT(SBr.W.Positive, 0u) << "SB's weak outcome never showed";
  for (Program P : {mp(), lb(), corr()}) {
    Outcomes R = runOn(P, 400);
    EXPECT_EQ(R.W.Positive, 0u) << P.Name << " weak outcome on TSO";
    EXPECT_GT(R.W.Negative, 0u);
  }
  Outcomes F = runOn(sb(Place::CTA, FenceSel::FenceScGpu), 200);
  EXPECT_EQ(F.W.Positive, 0u) << "SB+fence.sc.gpu weak outcome";
}

} // namespace

// A profile's work-group size too small for a test's warps gives way to
// the smallest that holds one instance; one the user gave is kept (and
// buildLayout reports it).
TEST(OpenCLLayout, ProfileGroupSizeGivesWayToTheTestsWarps) {
  Program P = mp(Place::Warp); // two threads in two warps of one group
  DeviceInfo Dev;
  Dev.ComputeUnits = 4;
  RunParams FromProfile;
  FromProfile.GroupSize = 32;
  FromProfile.GroupSizeAtLeast = true;
  EXPECT_EQ(opencl::chooseLayout(P, FromProfile, Dev, 32, 1024).GroupSize,
            64u);
  RunParams Given;
  Given.GroupSize = 32;
  EXPECT_EQ(opencl::chooseLayout(P, Given, Dev, 32, 1024).GroupSize, 32u);
}
