//===- CpusTest.cpp - The CPUs this process may use -----------------------===//
#include "incant/Support/Cpus.h"

#include <gtest/gtest.h>

#include <sched.h>

using namespace incant;

TEST(CpusTest, CgroupV2CpuMax) {
  EXPECT_EQ(cpuMaxLimit("200000 100000\n"), 2u);
  EXPECT_EQ(cpuMaxLimit("150000 100000"), 2u); // 1.5 CPUs: 2 threads
  EXPECT_EQ(cpuMaxLimit("50000 100000"), 1u);
  EXPECT_EQ(cpuMaxLimit("max 100000\n"), std::nullopt);
  EXPECT_EQ(cpuMaxLimit(""), std::nullopt); // no such file
  EXPECT_EQ(cpuMaxLimit("garbage"), std::nullopt);
}

TEST(CpusTest, CgroupV1Quota) {
  EXPECT_EQ(cfsQuotaLimit("400000\n", "100000\n"), 4u);
  EXPECT_EQ(cfsQuotaLimit("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(cfsQuotaLimit("", ""), std::nullopt);
}

TEST(CpusTest, AtMostTheAffinityMask) {
  cpu_set_t Set;
  CPU_ZERO(&Set);
  ASSERT_EQ(sched_getaffinity(0, sizeof Set, &Set), 0);
  unsigned N = usableCpus();
  EXPECT_GE(N, 1u);
  EXPECT_LE(N, static_cast<unsigned>(CPU_COUNT(&Set)));
  // Pinned to one CPU (as Slurm's --cpus-per-task=1 does): one.
  cpu_set_t One;
  CPU_ZERO(&One);
  for (int C = 0; C < CPU_SETSIZE; ++C)
    if (CPU_ISSET(C, &Set)) {
      CPU_SET(C, &One);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof One, &One), 0);
  EXPECT_EQ(usableCpus(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof Set, &Set), 0);
}
