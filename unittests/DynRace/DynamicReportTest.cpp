//===- DynamicReportTest.cpp - Reading the race library's output ----------===//
//
// The injected library's JSON as `incant race --dynamic` reads it: a run
// whose tables could not be read back (the context failed) says so and
// counts its launches as unchecked, never as race-free; so does a run whose
// instrumented launches the driver refused.
//
//===----------------------------------------------------------------------===//

#include "incant/DynRace/DynamicReport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace incant::dynrace;

namespace {

const char *Clean = R"({"scheme":"addr","checked_launches":2,
  "unchecked_launches":0,"counters":{"accesses":10},"units":[],
  "kernels":[{"name":"k","launches":2}],"races":[]})";

const char *Faulted = R"({"scheme":"addr","checked_launches":0,
  "unchecked_launches":1,"lost":"CUDA error 700",
  "counters":{"accesses":0},"units":[],
  "kernels":[{"name":"k","launches":1}],"races":[]})";

// Two of three launches refused (pass race's code needs more registers
// than a 1,024-thread block has): one launch checked, two not.
const char *Refused = R"({"scheme":"addr","checked_launches":1,
  "unchecked_launches":2,"failed_launches":2,
  "failed_error":701,"failed_kernel":"k",
  "counters":{"accesses":0},"units":[],
  "kernels":[{"name":"k","launches":1}],"races":[]})";

bool hasNoteWith(const Report &R, const std::string &Part) {
  for (const std::string &N : R.Notes)
    if (N.find(Part) != std::string::npos)
      return true;
  return false;
}

TEST(DynamicReport, CleanRunHasNoLostNote) {
  std::string Why;
  auto Run = parseRawRun(Clean, Why);
  ASSERT_TRUE(Run) << Why;
  EXPECT_TRUE(Run->Lost.empty());
  Report R = buildReport(*Run, {}, "app");
  EXPECT_FALSE(hasNoteWith(R, "device failed"));
  EXPECT_EQ(R.UncheckedLaunches, 0u);
}

TEST(DynamicReport, LostTablesAreReportedAndUnchecked) {
  std::string Why;
  auto Run = parseRawRun(Faulted, Why);
  ASSERT_TRUE(Run) << Why;
  EXPECT_EQ(Run->Lost, "CUDA error 700");
  Report R = buildReport(*Run, {}, "app");
  EXPECT_TRUE(R.Races.empty());
  EXPECT_TRUE(hasNoteWith(R, "the device failed (CUDA error 700)"));
  EXPECT_TRUE(hasNoteWith(R, "1 launches were not checked"));
  EXPECT_EQ(R.Lost, "CUDA error 700");
  EXPECT_EQ(reportToJson(R).value("lost", std::string()), "CUDA error 700");
}

TEST(DynamicReport, RefusedLaunchesAreReportedAndUnchecked) {
  std::string Why;
  auto Run = parseRawRun(Refused, Why);
  ASSERT_TRUE(Run) << Why;
  EXPECT_EQ(Run->FailedLaunches, 2u);
  Report R = buildReport(*Run, {}, "app");
  EXPECT_TRUE(hasNoteWith(R, "2 launches of instrumented kernels did not "
                             "start (CUDA error 701 launching k, the first)"));
  EXPECT_TRUE(hasNoteWith(R, "-maxrregcount"));
  EXPECT_TRUE(hasNoteWith(R, "2 launches were not checked"));
  EXPECT_EQ(R.CheckedLaunches, 1u);

  // A launch refused for another reason (a block of 2,048 threads) gets
  // no advice about registers.
  RawRun Invalid = *Run;
  Invalid.FailedLaunches = 1;
  Invalid.FailedError = 1;
  EXPECT_EQ(failedLaunchesNote(Invalid),
            "1 launch of instrumented kernels did not start (CUDA error 1 "
            "launching k): nothing of them was checked");

  auto Clean1 = parseRawRun(Clean, Why);
  ASSERT_TRUE(Clean1);
  EXPECT_EQ(Clean1->FailedLaunches, 0u);
  EXPECT_FALSE(hasNoteWith(buildReport(*Clean1, {}, "app"), "did not start"));
}

} // namespace
