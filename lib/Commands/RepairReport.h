//===- RepairReport.h - What `incant repair` prints -------------*- C++ -*-===//
#ifndef INCANT_LIB_COMMANDS_REPAIRREPORT_H
#define INCANT_LIB_COMMANDS_REPAIRREPORT_H

#include "incant/Repair/SourcePatch.h"
#include "incant/Repair/Repair.h"

#include <nlohmann/json_fwd.hpp>

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace incant::repair {

/// The outputs of one run besides the per-kernel repairs.
struct RepairResult {
  std::string File;
  double Seconds = 0; ///< The repair of all kernels.
  /// For CUDA: "optimized", or "unoptimized" when nvcc's -O0 build was
  /// repaired because the optimised one could not be.
  std::string Build;
  std::string BuildWhy; ///< Why the unoptimised build was repaired.
  std::string Ptx;    ///< The repaired module.
  bool PtxVerified = false; ///< Checked again from its text.
  std::string PtxProblem;
  std::vector<SourceEdit> Edits;
  bool PatchComplete = false, PatchVerified = false;
  std::string PatchProblem;
  std::string Diff; ///< Only when verified.
  /// Set when the patch is that of the repair of nvcc's unoptimised build
  /// (the optimised build's had no place or did not verify): that repair,
  /// and the patch's edits of its changes (Edits stay the optimised
  /// repair's, with their problems).
  std::shared_ptr<const ModuleRepair> PatchRepair;
  std::vector<SourceEdit> PatchEdits;
};

/// The text report; with \p CompilerLines each clean source edit is also
/// a `FILE:LINE:1: note: incant repair: ...` line (editors and CI jump to
/// those), in place of its indented `source:` line.
void printRepair(const ModuleRepair &R, const RepairResult &Res,
                 std::ostream &OS, bool Verbose, bool CompilerLines = false);
nlohmann::json repairToJson(const ModuleRepair &R, const RepairResult &Res);

} // namespace incant::repair

#endif // INCANT_LIB_COMMANDS_REPAIRREPORT_H
