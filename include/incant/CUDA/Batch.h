//===- Batch.h - Many tests in one CUDA module ------------------*- C++ -*-===//
//
// NVRTC spends most of a one-test compile on work every test shares (the
// front end, the harness), so a campaign compiles tests in batches: one
// translation unit in which each test's generated code and its copy of the
// harness sit in a namespace of their own, with kernels named
// incant_test_kernel_<k> and incant_hist_kernel_<k>. One disassembly of the
// module serves every test's optcheck, split by kernel. docs/campaign.md
// has the measurements behind the batch size.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_BATCH_H
#define INCANT_CUDA_BATCH_H

#include "incant/CUDA/Codegen.h"

#include <map>
#include <string>
#include <vector>

namespace incant::cuda {

/// The kernels of test \p K of a batch; a test compiled alone (K < 0) has
/// the bare names incant_test_kernel and incant_hist_kernel.
std::string testKernelName(int K);
std::string histKernelName(int K);

/// One translation unit holding every test of \p Tests, test k with the
/// kernels testKernelName(k) and histKernelName(k).
std::string batchSource(const std::vector<const GeneratedTest *> &Tests);

/// The SASS of each function of a disassembled module, by function name:
/// cuobjdump's "Function : NAME" headers and nvdisasm's ".text.NAME:"
/// labels start a function; text before the first is dropped.
std::map<std::string, std::string> splitSassByFunction(const std::string &Sass);

} // namespace incant::cuda

#endif // INCANT_CUDA_BATCH_H
