//===- ProfileTest.cpp - Chip profiles: round trip, apply, errors ----------===//
#include "incant/Harness/Profile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

using namespace incant;
using namespace incant::harness;

namespace {

Profile sample() {
  Profile P;
  P.Chip = "NVIDIA H100 80GB HBM3";
  P.Backend = "cuda";
  P.Driver = "580.65";
  P.Date = "2026-11-21T04:00:00Z";
  P.Tool = "incant 0.1.0";
  P.Seed = 42;
  P.BudgetSeconds = 300;
  P.Tests = {"MP", "LB", "SB"};
  RunParams R;
  std::string E;
  EXPECT_TRUE(parseStressSeq("ld0 st0 st0 ld0", R.Inc.StressSeq, E));
  R.Inc.StressPatch = 32;
  R.Inc.MemStress = true;
  for (const char *N : {"stress-seq", "stress-patch", "mem-stress"})
    P.Params[N] = *paramValue(R, N);
  ProfileFinding F;
  F.Mode = "patch";
  F.Seconds = 61.5;
  F.Measurements = 768;
  F.Summary["critical_patch"] = "32";
  F.DataJson = R"({"distances":[1,32],"weak":[[0,4]]})";
  P.Findings.push_back(F);
  return P;
}

std::optional<Profile> parse(const std::string &Text, std::string &Out) {
  std::ostringstream OS;
  DiagnosticEngine D(&OS);
  auto F = std::make_shared<SourceFile>("p.json", Text);
  auto P = profileFromJson(F, D);
  Out = OS.str();
  return P;
}

TEST(Profile, RoundTrip) {
  Profile P = sample();
  std::string Text = profileToJson(P), Err;
  auto Q = parse(Text, Err);
  ASSERT_TRUE(Q) << Err;
  EXPECT_EQ(*Q, P);
  EXPECT_EQ(profileToJson(*Q), Text); // print -> parse -> print is stable
  EXPECT_NE(Text.find("\"stress-seq\": \"ld0 st0 st0 ld0\""),
            std::string::npos);
}

TEST(Profile, EveryParameterRoundTrips) {
  RunParams R;
  R.Stride = 5;
  R.LocDistance = 64;
  R.Inc.StressInTest = true;
  R.Inc.StressOffset = 99;
  R.Inc.BarrierPolls = 7;
  Profile P;
  for (const std::string &N : profileParamNames())
    P.Params[N] = *paramValue(R, N);
  std::string Err;
  auto Q = parse(profileToJson(P), Err);
  ASSERT_TRUE(Q) << Err;
  RunParams Out;
  applyProfile(*Q, Out);
  for (const std::string &N : profileParamNames())
    EXPECT_EQ(*paramValue(Out, N), *paramValue(R, N)) << N;
}

TEST(Profile, ApplyKeepsExplicitOptions) {
  Profile P = sample();
  RunParams R;
  R.Inc.StressPatch = 1000; // given on the command line
  applyProfile(P, R, {"stress-patch"});
  EXPECT_EQ(R.Inc.StressPatch, 1000u);
  EXPECT_TRUE(R.Inc.MemStress);
  EXPECT_EQ(formatStressSeq(R.Inc.StressSeq), "ld0 st0 st0 ld0");
}

TEST(Profile, GroupSizeFromAProfileIsAPreference) {
  Profile P;
  ProfileValue V;
  V.K = ProfileValue::Number;
  V.Num = 64;
  P.Params["group-size"] = V;
  RunParams FromProfile;
  applyProfile(P, FromProfile);
  EXPECT_EQ(FromProfile.GroupSize, 64u);
  EXPECT_TRUE(FromProfile.GroupSizeAtLeast);
  RunParams Given;
  Given.GroupSize = 64; // --group-size 64: exact, an error if too small
  applyProfile(P, Given, {"group-size"});
  EXPECT_FALSE(Given.GroupSizeAtLeast);
}

TEST(Profile, SetParamChecksNamesAndKinds) {
  RunParams R;
  ProfileValue B;
  B.K = ProfileValue::Bool;
  EXPECT_FALSE(setParam(R, "stride", B));
  EXPECT_FALSE(setParam(R, "no-such", B));
  EXPECT_TRUE(setParam(R, "randomise", B));
  EXPECT_FALSE(paramValue(R, "no-such"));
}

TEST(Profile, MalformedJsonPointsAtTheByte) {
  std::string Err;
  EXPECT_FALSE(parse("{\n  \"incant_profile\": 1,\n  \"chip\": ]\n}\n", Err));
  EXPECT_NE(Err.find("p.json:3:11: error: malformed JSON in chip profile"),
            std::string::npos)
      << Err;
}

// A number too large for a double is an error at the number, not an
// exception out of the JSON library (ProfileFuzzer found it: incant ended
// with "terminate called").
TEST(Profile, HugeNumberIsADiagnostic) {
  std::string Err;
  EXPECT_FALSE(parse("{\"incant_profile\": 1, \"seed\": 1e999}", Err));
  EXPECT_NE(Err.find("p.json:1:31: error: number out of range in chip profile"),
            std::string::npos)
      << Err;
  EXPECT_FALSE(parse("7E777777.77", Err));
  EXPECT_NE(Err.find("number out of range in chip profile"), std::string::npos)
      << Err;
}

TEST(Profile, SemanticErrorsPointAtTheKey) {
  std::string Err;
  EXPECT_FALSE(parse("{\"incant_profile\": 1,\n \"params\": {\"stride\": -4}}",
                     Err));
  EXPECT_NE(Err.find("p.json:2:13: error: parameter 'stride' must be a "
                     "whole number from 1 to 4096"),
            std::string::npos)
      << Err;
  // Each number has the range of the run option of the same name: the
  // stress-patch that crashed the OpenCL kernel is refused.
  EXPECT_FALSE(parse("{\"incant_profile\": 1, \"params\": {\"stress-patch\": "
                     "1000000000, \"mem-stress\": true}}",
                     Err));
  EXPECT_NE(Err.find("parameter 'stress-patch' must be a whole number from 1 "
                     "to 65536, not 1000000000"),
            std::string::npos)
      << Err;
  EXPECT_FALSE(parse("{\"incant_profile\": 1, \"budget_s\": -1}", Err));
  EXPECT_NE(Err.find("\"budget_s\" must be a number of seconds from 0 to "
                     "10^7"),
            std::string::npos)
      << Err;
  EXPECT_FALSE(parse("{\"incant_profile\": 1, \"params\": {\"bogus\": 1}}", Err));
  EXPECT_NE(Err.find("unknown profile parameter 'bogus'"), std::string::npos);
  EXPECT_FALSE(
      parse("{\"incant_profile\": 1, \"params\": {\"stress-seq\": \"xx\"}}",
            Err));
  EXPECT_NE(Err.find("must be an access sequence"), std::string::npos);
  EXPECT_FALSE(parse("{\"incant_profile\": 2}", Err));
  EXPECT_NE(Err.find("unsupported profile version"), std::string::npos);
  EXPECT_FALSE(parse("[1, 2]", Err));
  EXPECT_NE(Err.find("not a chip profile"), std::string::npos);
  EXPECT_FALSE(parse("{\"incant_profile\": 1, \"chip\": 3}", Err));
  EXPECT_NE(Err.find("\"chip\" must be a string"), std::string::npos);
}

TEST(Profile, MissingFileIsADiagnostic) {
  std::ostringstream OS;
  DiagnosticEngine D(&OS);
  EXPECT_FALSE(readProfile("/nonexistent/p.json", D));
  EXPECT_NE(OS.str().find("cannot read profile /nonexistent/p.json"),
            std::string::npos);
}

} // namespace

namespace {

TEST(Profile, TheShippedProfileOfAChipIsFoundAndReadOnce) {
  std::optional<harness::ShippedProfile> S =
      harness::findShippedProfile("NVIDIA H100 80GB HBM3", "cuda");
  ASSERT_TRUE(S);
  EXPECT_EQ(std::filesystem::path(S->Path).filename(), "nvidia-h100.json");
  EXPECT_EQ(S->Prof.Chip, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(S->Prof.Backend, "cuda");
  EXPECT_FALSE(S->Prof.Params.empty());
  EXPECT_FALSE(harness::findShippedProfile("NVIDIA H100 80GB HBM3", "opencl"));
  EXPECT_FALSE(harness::findShippedProfile("no such chip", "cuda"));
}

TEST(Profile, AChipWithoutAProfileGetsItsArchitectureFamilys) {
  std::optional<harness::ShippedProfile> Own = harness::findShippedProfile(
      "NVIDIA H100 80GB HBM3", "cuda", "sm_90");
  ASSERT_TRUE(Own);
  EXPECT_TRUE(Own->OwnChip);
  std::optional<harness::ShippedProfile> S =
      harness::findShippedProfile("NVIDIA GH200 480GB", "cuda", "sm_90");
  ASSERT_TRUE(S);
  EXPECT_FALSE(S->OwnChip);
  EXPECT_EQ(S->Prof.Arch, "sm_90");
  EXPECT_NE(S->Prof.Chip, "NVIDIA GH200 480GB");
  EXPECT_FALSE(harness::findShippedProfile("NVIDIA GH200 480GB", "cuda"));
  EXPECT_FALSE(
      harness::findShippedProfile("NVIDIA B200", "cuda", "sm_100"));
  EXPECT_FALSE(
      harness::findShippedProfile("NVIDIA GH200 480GB", "opencl", "sm_90"));
}

} // namespace
