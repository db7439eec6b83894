//===- Cpus.cpp - The CPUs this process may use ---------------------------===//
#include "incant/Support/Cpus.h"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace incant {

namespace {

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

std::optional<unsigned> quotaOver(long long Quota, long long Period) {
  if (Quota <= 0 || Period <= 0)
    return std::nullopt;
  return static_cast<unsigned>(std::max(1LL, (Quota + Period - 1) / Period));
}

std::optional<unsigned> minLimit(std::optional<unsigned> A,
                                 std::optional<unsigned> B) {
  if (!A)
    return B;
  if (!B)
    return A;
  return std::min(*A, *B);
}

/// The smallest quota on the way from the process's cgroup up to the root
/// of the hierarchy mounted at /sys/fs/cgroup (v2, or v1's cpu controller).
std::optional<unsigned> cgroupLimit() {
  std::ifstream In("/proc/self/cgroup");
  std::optional<unsigned> Limit;
  for (std::string Line; std::getline(In, Line);) {
    // "0::/user.slice/..." (v2) or "4:cpu,cpuacct:/slurm/..." (v1).
    size_t A = Line.find(':'), B = Line.find(':', A + 1);
    if (A == std::string::npos || B == std::string::npos)
      continue;
    std::string Controllers = Line.substr(A + 1, B - A - 1);
    std::string Path = Line.substr(B + 1);
    bool V2 = Controllers.empty();
    bool V1Cpu = ("," + Controllers + ",").find(",cpu,") != std::string::npos;
    if (!V2 && !V1Cpu)
      continue;
    std::string Root = V2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/" + Controllers;
    for (std::string P = Path;; P = P.substr(0, P.rfind('/'))) {
      std::string Dir = Root + (P == "/" ? "" : P);
      Limit = minLimit(Limit, V2 ? cpuMaxLimit(readFile(Dir + "/cpu.max"))
                                 : cfsQuotaLimit(readFile(Dir + "/cpu.cfs_quota_us"),
                                                 readFile(Dir + "/cpu.cfs_period_us")));
      if (P.empty() || P == "/")
        break;
    }
  }
  return Limit;
}

} // namespace

std::optional<unsigned> cpuMaxLimit(const std::string &CpuMax) {
  std::istringstream In(CpuMax);
  std::string Quota;
  long long Period = 0;
  if (!(In >> Quota >> Period) || Quota == "max")
    return std::nullopt;
  try {
    return quotaOver(std::stoll(Quota), Period);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<unsigned> cfsQuotaLimit(const std::string &Quota,
                                      const std::string &Period) {
  try {
    return quotaOver(std::stoll(Quota), std::stoll(Period));
  } catch (...) {
    return std::nullopt;
  }
}

unsigned usableCpus() {
  unsigned N = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t Set;
  CPU_ZERO(&Set);
  if (sched_getaffinity(0, sizeof Set, &Set) == 0)
    N = std::max(1, CPU_COUNT(&Set));
  if (std::optional<unsigned> L = cgroupLimit())
    N = std::min(N, *L);
  return std::max(1u, N);
}

} // namespace incant
