//===- CudaTestSupport.h - What the CUDA unit tests share -------*- C++ -*-===//
//
// Reading a file of unittests/CUDA/Inputs, a program's generated code, and
// compiling generated code with the toolkit's nvcc (sm_90, the generated
// code's harmless warnings silenced) to check that it builds.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_UNITTESTS_CUDA_CUDATESTSUPPORT_H
#define INCANT_UNITTESTS_CUDA_CUDATESTSUPPORT_H

#include "incant/CUDA/Codegen.h"
#include "incant/Support/Process.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace incant::cudatest {

/// The text of unittests/CUDA/Inputs/\p Name.
inline std::string input(const char *Name) {
  std::ifstream F(std::string(INCANT_SOURCE_DIR) + "/unittests/CUDA/Inputs/" +
                  Name);
  std::stringstream S;
  S << F.rdbuf();
  return S.str();
}

/// The generated code of \p P (a failed expectation when there is none).
inline cuda::GeneratedTest generate(const litmus::Program &P) {
  DiagnosticEngine Diags;
  std::optional<cuda::GeneratedTest> G =
      cuda::generateCuda(P, {}, nullptr, Diags);
  EXPECT_TRUE(G.has_value());
  return G ? *G : cuda::GeneratedTest();
}

/// Runs \p Nvcc on \p Source with \p Mode ("-c", "-cubin") into \p Output;
/// \p Argv gets the command, for the failure's message.
inline ProcessResult nvcc(const std::string &Nvcc, const char *Mode,
                          const std::string &Source, const std::string &Output,
                          std::vector<std::string> *Argv = nullptr) {
  ProcessOptions Compile;
  Compile.Argv = {Nvcc,   "-arch=sm_90", "-std=c++17", "-diag-suppress",
                  "177,550", Mode,       Source,       "-o",
                  Output};
  Compile.Stderr = OutputMode::ToStdout;
  Compile.TimeoutSeconds = 300;
  if (Argv)
    *Argv = Compile.Argv;
  return runProcess(Compile);
}

} // namespace incant::cudatest

#endif // INCANT_UNITTESTS_CUDA_CUDATESTSUPPORT_H
