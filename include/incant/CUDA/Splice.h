//===- Splice.h - A batch's PTX from per-skeleton NVRTC output --*- C++ -*-===//
//
// Most of a cold campaign's CPU went to NVRTC's C++ front end and NVVM,
// which compiled the same harness around every test again. Tests whose
// generated code differs only in the mnemonics of their inline PTX (a
// fence's kind, a load's semantics and scope) share one *skeleton*: the
// generated source with each such mnemonic replaced by a token
// incant_op_<k>. NVVM never looks inside inline asm, so the skeleton's PTX
// with the tokens replaced is the PTX of each of its tests
// (bench/cuda/splice-same-code.py checks it, byte for byte). A batch's PTX
// is then assembled from its tests' PTX with each test's module-scope
// symbols renamed (kernels become incant_test_kernel_<k>) and identical
// functions (the histogram kernel, the stress function) kept once; ptxas
// turns it into the module. docs/campaign.md has the measurements.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_SPLICE_H
#define INCANT_CUDA_SPLICE_H

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace incant::cuda {

struct Skeleton {
  /// The generated source with each replaced mnemonic as incant_op_<k>.
  std::string Source;
  /// Mnemonic k ("ld.acquire.gpu.u32", "fence.sc.cta", ...).
  std::vector<std::string> Ops;
};

/// The skeleton of a generated test's source: every inline asm template's
/// first word is replaced, except the optcheck markers (pmevent) and
/// barriers (barrier.sync), which are the same in every test of a shape.
Skeleton skeletonOf(const std::string &Source);

/// \p Ptx (a skeleton's PTX) with each incant_op_<k> token replaced by
/// Ops[k]; nullopt when a token names no op.
std::optional<std::string> fillSkeleton(const std::string &Ptx,
                                        const std::vector<std::string> &Ops);

/// One module's PTX from tests' PTX (each as NVRTC wrote it for the test
/// alone: kernels incant_test_kernel and incant_hist_kernel): test k's
/// module-scope symbols get the suffix _<k>, except definitions identical
/// to one an earlier test made, which are left out and referred to by the
/// earlier name. HistKernels[k] is the name of test k's histogram kernel in
/// the module. nullopt, with \p Why, when a test's PTX is not in the form
/// expected.
std::optional<std::string> splicedModulePtx(const std::vector<std::string> &Ptx,
                                            std::vector<std::string> &HistKernels,
                                            std::string &Why);

/// The machine code of each function of a cubin (an ELF64 file): the bytes
/// of its .text.<NAME> sections, by NAME; empty when \p Cubin is not ELF64.
/// What the checks that a module holds the same code as another compare.
std::map<std::string, std::string> cubinTextSections(const std::string &Cubin);

} // namespace incant::cuda

#endif // INCANT_CUDA_SPLICE_H
