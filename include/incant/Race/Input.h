//===- Input.h - Reading a kernel file and launch options -------*- C++ -*-===//
//
// What `incant race` and `incant repair` share before the analysis: the
// launch given on the command line (--block-dim, --grid-dim, --param)
// checked against CUDA's limits, and a .cu, .cl or .ptx file turned into a
// parsed PTX module (nvcc -ptx -lineinfo, clang's NVPTX target with its
// line-table quirks fixed, or the file as it is).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_RACE_INPUT_H
#define INCANT_RACE_INPUT_H

#include "incant/PTX/Module.h"
#include "incant/Race/Race.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Error.h"

#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::race {

/// Fills \p L from "X[,Y,Z]" texts ("" leaves a dimension symbolic) and
/// "NAME=VALUE" parameters; false after reporting an error.
bool parseLaunch(const std::string &BlockDim, const std::string &GridDim,
                 const std::vector<std::string> &Params, LaunchConfig &L,
                 DiagnosticEngine &Diags);

/// Rejects a compiler argument that starts with '=': CLI11 keeps the '=' of
/// a short option's "-X=ARG" in the value, and no compiler argument starts
/// with one. Reports the first such argument and returns false.
bool checkCompilerArgs(const std::vector<std::string> &Args,
                       DiagnosticEngine &Diags);

/// Whether every parameter \p L names exists in some kernel of \p M
/// (reports an error naming the parameters there are, if not).
bool checkParams(const ptx::Module &M, const LaunchConfig &L,
                 DiagnosticEngine &Diags);

/// The launches that the host code of the CUDA source \p File makes of the
/// kernels of \p M (source::readHostLaunches), as Options::HostLaunches:
/// each with \p Given's values where given, the host code's where it fixes
/// them (within CUDA's limits), any value elsewhere; a kernel whose address
/// the host code uses otherwise gets an "any launch" entry too, and a
/// kernel not launched there none. \p Note says why nothing was read.
/// With \p Targets, fills its CallTargets and CallTargetNotes from the
/// source's `__requires(f == g | f == h)` on function-pointer parameters
/// (the functions of \p M with a body that the names denote).
std::map<std::string, std::vector<KnownLaunch>>
hostLaunches(const std::string &File, const std::vector<std::string> &Args,
             const ptx::Module &M, const LaunchConfig &Given,
             std::string &Note, Options *Targets = nullptr);

/// The compiler arguments to build the file again with, when \p O (filled
/// by hostLaunches) found a `__requires` naming functions the module lacks
/// and \p Args do not yet ask for relocatable device code (-rdc=true,
/// which keeps every device function); none otherwise.
std::optional<std::vector<std::string>>
relocatableArgs(const Options &O, const std::vector<std::string> &Args);

/// One launch that covers every launch of \p Ls (not empty): the values
/// they all agree on, any value elsewhere (what a repair must hold for).
KnownLaunch commonLaunch(const std::vector<KnownLaunch> &Ls);

/// nvcc's unoptimised build \p MU of the source whose optimised build
/// gave \p R, checked as addUnoptimisedRaces needs it: only the kernels
/// (and launches) of \p R with no race or divergence, and in each only the
/// pairs with an access the optimised build no longer makes; 5 s per kernel
/// unless \p O gives a time.
ModuleReport checkUnoptimised(const ptx::Module &MU, const ModuleReport &R,
                              const Options &O);

/// Adds to \p R the races that \p RU (the unoptimised build of the same
/// source) finds between accesses of which at least one is missing from
/// the optimised build: the optimiser removed it (a store to memory
/// nothing reads, a copy of an undefined value), and with it a race of the
/// source. Only for kernels (and launches) in which the optimised build,
/// analysed more precisely, shows no race or divergence.
void addUnoptimisedRaces(ModuleReport &R, const ModuleReport &RU);

/// clang 14's NVPTX output with -gline-tables-only, made PTX (debug labels
/// inside call operand lists dropped, `.file 1 "dir" "name"` joined).
std::string fixClangLineInfo(const std::string &Ptx);

/// How to compile a kernel source.
struct CompileRequest {
  std::string Arch = "sm_90";
  bool Unoptimised = false; ///< nvcc -Xcicc -O0
  std::vector<std::string> Args;
  bool Verbose = false; ///< Print the compiler's command to Err.
};

/// The PTX of \p File: read (.ptx) or compiled (.cu, .cl); on failure,
/// reported to \p Diags, its kind (Input: an unreadable file or one the
/// compiler refuses; Device: the compiler missing or failing).
Expected<std::shared_ptr<SourceFile>> kernelPtx(const std::string &File,
                                                const CompileRequest &Req,
                                                DiagnosticEngine &Diags,
                                                std::ostream &Err);

} // namespace incant::race

#endif // INCANT_RACE_INPUT_H
