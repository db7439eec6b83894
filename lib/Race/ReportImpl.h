//===- ReportImpl.h - What the race reports share ---------------*- C++ -*-===//
//
// The pieces of Report.cpp that the findings (Findings.cpp: compiler-style
// lines, SARIF, suppressions) name things with, so that every output says
// a race the same way.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_RACE_REPORTIMPL_H
#define INCANT_LIB_RACE_REPORTIMPL_H

#include "incant/Race/Findings.h"
#include "incant/Race/Race.h"

#include <map>
#include <string>
#include <vector>

namespace incant::race::report {

std::string baseName(const std::string &Path);

/// Source lines, read once per file.
class SourceCache {
public:
  /// Line \p Line of \p Path without its leading blanks; "" if unreadable.
  std::string line(const std::string &Path, uint32_t Line);

private:
  std::map<std::string, std::vector<std::string>> Files;
};

/// "k.cu:19" (or "PTX line 80" without a .loc).
std::string where(const ir::DebugLoc &L, uint32_t PtxLine);
/// The variable's name as the source wrote it ("s", "parameter 0", ...).
std::string objectName(const std::string &Obj);
std::string triple(const std::array<int64_t, 3> &V);
/// "thread (1,0,0) of block (0,0,0) (warp 0, lane 1)[, iteration ...]".
std::string threadText(const ThreadWitness &T);

/// "one warp", "one block", "different blocks".
const char *relationText(Relation R);
/// A race witness in words: the two threads, the launch, the byte (with
/// \p A and \p B), what it assumes.
std::vector<std::string> witnessLines(const Witness &W, const Access *A,
                                      const Access *B);

/// Pairs of one verdict folded by their two source lines, kind (for an
/// unknown pair: its reason) and variable; suppressed pairs are left out
/// unless \p WithSuppressed.
struct Hazard {
  std::vector<unsigned> Pairs;
};
std::vector<Hazard> fold(const KernelReport &K, Verdict V,
                         bool WithSuppressed = false);

/// The finding of a folded race or unknown pair group, or of a barrier.
Finding pairFinding(const ModuleReport &R, unsigned Kernel, const Hazard &H,
                    SourceCache &SC);
Finding barrierFinding(const ModuleReport &R, unsigned Kernel,
                       unsigned Barrier, SourceCache &SC);

/// A finding's compiler-style lines: "FILE:L:C: warning: TITLE [race]" at
/// its first site, "FILE:L:C: note: ..." at each other one.
std::string compilerLines(const Finding &F);

} // namespace incant::race::report

#endif // INCANT_LIB_RACE_REPORTIMPL_H
