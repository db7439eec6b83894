//===- DevicesCommand.cpp - `incant devices` --------------------------------===//
//
// Lists what each backend can use: every CUDA device, and every OpenCL
// device with what the OpenCL backend knows of its atomics.
//
//===----------------------------------------------------------------------===//
#include "incant/Backends/BackendChoice.h"
#include "incant/Commands/DevicesCommand.h"
#include "incant/Harness/Backend.h"
#include "incant/Support/Json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <ostream>

namespace incant::driver {

using harness::DeviceInfo;

int runDevices(const DevicesCommand &Cmd, std::ostream &Out,
               std::ostream &Err) {
  (void)Err;
  nlohmann::json J = nlohmann::json::array();
  bool Any = false;
  {
    std::unique_ptr<harness::Backend> CB = backends::createBackend("cuda");
    std::string Why;
    std::vector<DeviceInfo> Ds;
    if (CB->available(Why))
      Ds = CB->devices();
    if (!Cmd.Json && Ds.empty())
      Out << "cuda: " << (Why.empty() ? "no CUDA device" : Why) << '\n';
    for (const DeviceInfo &D : Ds) {
      Any = true;
      if (Cmd.Json) {
        J.push_back({{"backend", D.Backend}, {"index", D.Index},
                     {"name", D.Name}, {"driver", D.Driver},
                     {"version", D.Version}, {"type", "gpu"},
                     {"compute_units", D.ComputeUnits},
                     {"notes", D.Notes}});
        continue;
      }
      Out << fmt::format("cuda:{} {} ({}; driver {}); {} SMs\n", D.Index,
                         D.Name, D.Version, D.Driver, D.ComputeUnits);
      for (const std::string &N : D.Notes)
        Out << "  " << N << '\n';
    }
  }
  std::unique_ptr<harness::Backend> B = backends::createBackend("opencl");
  std::string Why;
  if (!B->available(Why)) {
    if (!Cmd.Json)
      Out << "opencl: " << Why << '\n';
  } else {
    std::vector<DeviceInfo> Ds = B->devices();
    if (!Cmd.Json && Ds.empty())
      Out << "opencl: the runtime lists no device\n";
    for (const DeviceInfo &D : Ds) {
      Any = true;
      if (Cmd.Json) {
        J.push_back({{"backend", D.Backend},
                     {"index", D.Index},
                     {"name", D.Name},
                     {"vendor", D.Vendor},
                     {"platform", D.Platform},
                     {"version", D.Version},
                     {"driver", D.Driver},
                     {"type", D.IsGPU ? "gpu" : D.IsCPU ? "cpu" : "other"},
                     {"compute_units", D.ComputeUnits},
                     {"max_group_size", D.MaxGroupSize},
                     {"notes", D.Notes}});
        continue;
      }
      Out << fmt::format("opencl:{} {} [{}] {} ({}; driver {}); {} compute "
                         "units, work-groups up to {}\n",
                         D.Index, D.Name,
                         D.IsGPU ? "gpu" : D.IsCPU ? "cpu" : "other",
                         D.Vendor, D.Version, D.Driver, D.ComputeUnits,
                         D.MaxGroupSize);
      for (const std::string &N : D.Notes)
        Out << "  " << N << '\n';
    }
  }
  if (Cmd.Json)
    Out << dumpJson(J) << '\n';
  return Any ? 0 : 3;
}

} // namespace incant::driver
