//===- Codegen.h - A litmus::Program as OpenCL C ----------------*- C++ -*-===//
//
// Emits the test-specific part of the OpenCL harness (one function per
// role, initial values, what to observe) from the lowered ops, followed by
// the harness itself (lib/OpenCL/runtime/harness.cl, embedded at build
// time). Nothing of the input file's text reaches the output: registers
// become `int rN`, locations indices into a buffer, values integer literals.
//
// The mapping from PTX operations to OpenCL C is docs/opencl-mapping.md. An
// operation with no faithful OpenCL form is an error at its source range.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_OPENCL_CODEGEN_H
#define INCANT_OPENCL_CODEGEN_H

#include "incant/Harness/Params.h"
#include "incant/Litmus/Program.h"
#include "incant/Support/Diagnostic.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::opencl {

/// What the device's OpenCL C supports for atomics (OpenCL 3.0 makes most
/// of it optional; 2.x has all but all-devices scope on fine-grained SVM).
struct DeviceCaps {
  unsigned CVersion = 300; ///< 200 or 300: the -cl-std the kernel is built for.
  bool OrderAcqRel = true;
  bool OrderSeqCst = true;
  bool ScopeWorkGroup = true;
  bool ScopeDevice = true;
  bool ScopeAllDevices = false;
};

struct GeneratedKernel {
  std::string Source;       ///< Complete, self-contained OpenCL C.
  std::string BuildOptions; ///< e.g. "-cl-std=CL3.0"
  uint32_t RegsPerInstance = 0;
  uint32_t NumShared = 0;
  /// Values in an outcome's key: the observed items, then, for a test with
  /// a loop (CutSlot >= 0), whether the instance was cut by the loop bound.
  uint32_t NumObs = 1;
  /// The register slot an instance's threads set when one of them reaches
  /// the loop bound (the instance then is no outcome); -1 without loops.
  int32_t CutSlot = -1;
  /// For each Program::Observe entry: its offset among an instance's
  /// registers, or -1 for a location.
  std::vector<int32_t> ObserveRegOffset;
  /// Where the OpenCL form is stronger than the PTX one (sound: it can only
  /// hide outcomes, never invent them), once per kind, in words.
  std::vector<std::string> Notes;
};

/// Generates the kernel; reports unsupported operations to \p Diags (with
/// \p File for their source lines) and returns nullopt if there were any.
std::optional<GeneratedKernel>
generateKernel(const litmus::Program &P, const DeviceCaps &Caps,
               const harness::Incantations &Inc, uint32_t LoopBound,
               const std::shared_ptr<const SourceFile> &File,
               DiagnosticEngine &Diags);

/// The harness runtime (harness.cl) as embedded in the binary.
std::string_view harnessSource();

} // namespace incant::opencl

#endif // INCANT_OPENCL_CODEGEN_H
