//===- OptCheck.h - Did the compiler keep the test's accesses? -*- C++ -*-===//
//
// After NVRTC and ptxas, the SASS of the harness is read (cuobjdump -sass or
// nvdisasm, when present) and every role's code, found between its
// `pmevent.mask` markers (PMTRIG in SASS; see Codegen.h markerBegin), must
// hold the memory accesses of the test thread in program order and of the
// same kind (load, store, atomic, reduction, fence). See docs/cuda.md.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_OPTCHECK_H
#define INCANT_CUDA_OPTCHECK_H

#include <string>
#include <vector>

namespace incant::cuda {

struct OptCheckResult {
  enum Kind { Ok, Failed, Skipped } K = Skipped;
  /// Why skipped, what differed, or for ok what it took (e.g. a lower
  /// ptxas optimisation level).
  std::string Detail;
  /// "optcheck: ok", "optcheck: ok (...)", "optcheck: FAILED (...)",
  /// "optcheck: skipped (...)".
  std::string line() const;
};

/// The class of one SASS opcode: "LD", "ST", "RMW", "FENCE", "BAR", or
/// "" for anything that is not a memory access of the test (LDC, LDL, STL,
/// CCTL, ERRBAR, ...).
std::string sassClass(const std::string &Opcode);

/// Checks SASS text against the expected classes per marked region (a
/// role, or in tests with bar.sync a part of one; \p Names says which, for
/// messages). An expected entry "FENCE?" matches an optional fence (the one
/// ptxas puts around a release store or after an acquire load).
OptCheckResult
checkSass(const std::string &Sass,
          const std::vector<std::vector<std::string>> &Expected,
          const std::vector<std::string> &Names = {});

/// The disassembler's command line before the cubin's path: `nvdisasm
/// -ndf` (without its dataflow analysis, which only labels branch
/// targets), or where nvdisasm is missing, `cuobjdump -sass`;
/// INCANT_CUDA_DISASSEMBLER=nvdisasm or =cuobjdump takes that one only.
/// Found on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin. Empty, with
/// \p Why, when there is none or the variable names another program.
std::vector<std::string> disassemblerCommand(std::string &Why);

/// Disassembles \p Cubin with disassemblerCommand(). Returns false with
/// \p Why when there is no disassembler or it fails.
bool disassemble(const std::string &Cubin, std::string &Sass,
                 std::string &Why);

} // namespace incant::cuda

#endif // INCANT_CUDA_OPTCHECK_H
