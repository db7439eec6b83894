//===- BackendChoice.h - Which backend and device a run uses ----*- C++ -*-===//
//
// The backends behind harness::Backend, by name, and the choice `incant
// run` makes, shared with `incant campaign` and `incant tune`:
// --backend auto picks an NVIDIA GPU through the CUDA backend when a driver
// and device exist, else the first OpenCL GPU that can run litmus tests,
// else such an OpenCL CPU device (PoCL).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_BACKENDS_BACKENDCHOICE_H
#define INCANT_BACKENDS_BACKENDCHOICE_H

#include "incant/Harness/Backend.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace incant::backends {

struct ChosenBackend {
  std::unique_ptr<harness::Backend> B;
  uint32_t Device = 0;
  std::string Note; ///< Why this device, when auto chose it.
};

/// Whether an NVIDIA driver (libcuda.so.1) can be opened.
bool haveCudaDriver();

/// Picks the backend (\p Backend: auto, opencl or cuda) and the device
/// (\p Device, or chosen). On failure reports to \p Diags and returns an
/// Input error (an unknown backend) or a Device one (no runtime or device).
Expected<ChosenBackend> chooseBackend(const std::string &Backend,
                                      std::optional<uint32_t> Device,
                                      DiagnosticEngine &Diags);

/// A fresh backend object named as Backend::name() says ("opencl", "cuda"),
/// e.g. one per worker thread; null for an unknown name.
std::unique_ptr<harness::Backend> createBackend(const std::string &Name);

} // namespace incant::backends

#endif // INCANT_BACKENDS_BACKENDCHOICE_H
