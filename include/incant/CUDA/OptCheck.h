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
  std::string Detail; ///< Why skipped, or what differed.
  /// "optcheck: ok", "optcheck: FAILED (...)", "optcheck: skipped (...)".
  std::string line() const;
};

/// The class of one SASS opcode: "LD", "ST", "ATOM", "RED", "FENCE", or
/// "" for anything that is not a memory access of the test (LDC, LDL, STL,
/// CCTL, ERRBAR, ...).
std::string sassClass(const std::string &Opcode);

/// Checks SASS text against the expected classes per role. An expected
/// entry "FENCE?" matches an optional fence (the one ptxas puts around a
/// release store or after an acquire load).
OptCheckResult
checkSass(const std::string &Sass,
          const std::vector<std::vector<std::string>> &Expected);

/// Disassembles \p Cubin with cuobjdump or nvdisasm (found on PATH, under
/// $CUDA_HOME/bin or /usr/local/cuda/bin). Returns false with \p Why when
/// neither is there.
bool disassemble(const std::string &Cubin, std::string &Sass,
                 std::string &Why);

} // namespace incant::cuda

#endif // INCANT_CUDA_OPTCHECK_H
