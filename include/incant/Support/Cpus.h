//===- Cpus.h - The CPUs this process may use -------------------*- C++ -*-===//
//
// A default for --jobs: not the machine's cores but what the process may
// run on. A batch scheduler (Slurm's task affinity, a container's
// --cpus) gives a job fewer CPUs than the machine has, by a CPU affinity
// mask and a cgroup quota (cgroup v2's cpu.max, v1's cpu.cfs_quota_us over
// cpu.cfs_period_us); the smaller of the two counts.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_CPUS_H
#define INCANT_SUPPORT_CPUS_H

#include <optional>
#include <string>

namespace incant {

/// The CPUs this process may use: its affinity mask's CPUs, at most its
/// cgroups' CPU quota (rounded up), at least 1.
unsigned usableCpus();

/// The CPUs a cgroup v2 `cpu.max` text ("150000 100000": 2; "max 100000":
/// no limit, nullopt) allows, rounded up; nullopt if there is no limit or
/// the text is not that format.
std::optional<unsigned> cpuMaxLimit(const std::string &CpuMax);

/// The same for cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us texts
/// (a quota of -1: no limit).
std::optional<unsigned> cfsQuotaLimit(const std::string &Quota,
                                      const std::string &Period);

} // namespace incant

#endif // INCANT_SUPPORT_CPUS_H
