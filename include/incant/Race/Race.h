//===- Race.h - Static data-race and barrier-divergence check ---*- C++ -*-===//
//
// Finds data races and barrier divergence in the kernels of a PTX module,
// statically (GRace's static half, docs/race.md): for every pair of memory
// accesses that two different threads can make between the same two
// barrier instances, Z3 decides whether their addresses can meet, with two
// symbolic threads (thread and block ids, loop iterations) and a symbolic
// or given launch geometry and parameters.
//
// What counts as a race: two accesses to a common byte of shared or global
// memory, at least one a write, by two different threads, not ordered by a
// barrier both pass, and not morally strong (both atomic or strong with
// scopes that include both threads, overlapping completely). Lanes of one
// warp count as unordered between different instructions unless a
// bar.warp.sync lies between them (independent thread scheduling, sm_70+).
//
// Every pair of accesses to one object (or to an unknown one) with a write
// gets a verdict: race (with a concrete witness from the model), safe
// (proved), or unknown with the reason (an address computed from loaded
// data, a call the analysis does not follow, synchronisation through
// fences and atomics it does not model, a solver that gave up). Every CTA
// barrier gets a divergence verdict the same way.
//
// Barrier repair builds on this library: checkKernel() with Options::Extra
// (barriers assumed at given positions) and Options::Removed (barriers
// assumed absent) re-verifies a candidate repair without rewriting the
// module; PairResult::First/Second and the access IR positions say where a
// barrier is needed.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_RACE_RACE_H
#define INCANT_RACE_RACE_H

#include "incant/IR/Barriers.h"
#include "incant/IR/FunctionIR.h"
#include "incant/IR/Inliner.h"
#include "incant/PTX/Module.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace incant::race {

/// What the launch is known to be; what is not given stays symbolic
/// (any geometry CUDA allows, any parameter value).
struct LaunchConfig {
  /// Threads per block and blocks per grid, per dimension (x, y, z).
  std::array<std::optional<int64_t>, 3> Block, Grid;
  /// The only block index the kernel runs with, per dimension, where a
  /// file-wide `__axiom(blockIdx.x == 16)` fixes one.
  std::array<std::optional<int64_t>, 3> BlockIdx;
  /// Why no launch of these values can run (an `__axiom` the launch
  /// contradicts), or empty. Every pair then holds only vacuously, and is
  /// reported unknown with this reason.
  std::string Unsatisfiable;
  void setBlock(const std::array<int64_t, 3> &D) {
    for (unsigned I = 0; I < 3; ++I)
      Block[I] = D[I];
  }
  void setGrid(const std::array<int64_t, 3> &D) {
    for (unsigned I = 0; I < 3; ++I)
      Grid[I] = D[I];
  }
  /// Parameter values by PTX name (`_Z4loopPii_param_1`) or by position
  /// ("1").
  std::map<std::string, int64_t> Params;
  /// At most this many threads per block (CUDA's 1024, or fewer from the
  /// kernel's `.maxntid`, i.e. `__launch_bounds__`).
  int64_t MaxThreads = 1024;
};

/// A launch of a kernel that the host code of its source makes (read by
/// lib/Source): the values it fixes, with the command line's winning.
struct KnownLaunch {
  LaunchConfig Launch;
  /// Where and what: "k.cu:16:3 k<<<1, N>>>: gridDim (1,1,1), blockDim
  /// (128,1,1), n = 128"; for a kernel whose address escapes, why any
  /// launch is checked.
  std::string Description;
};

/// A barrier assumed at a position of a kernel (for barrier repair).
struct AssumedBarrier {
  unsigned Item = 0; ///< Body index of the instruction it goes before.
  ir::BarrierKind Kind = ir::BarrierKind::CTA;
};

struct Access;

struct Options {
  LaunchConfig Launch;
  /// The host code's launches by kernel (PTX name; readHostLaunches in
  /// Input.h): checkModule checks a kernel named here once per launch,
  /// with that launch's values where Launch leaves a value open. A kernel
  /// not named is checked with Launch alone.
  std::map<std::string, std::vector<KnownLaunch>> HostLaunches;
  /// Check only this kernel (its PTX or demangled name); empty: all.
  std::string Kernel;
  /// Wall-clock limit of one solver query, in milliseconds.
  unsigned TimeoutMs = 5000;
  /// Wall-clock limit of one kernel's check, in seconds (0: none). Once it
  /// has passed, every query left is unknown ("the kernel's time limit ran
  /// out"): pairs and barriers not yet decided are unknown, never safe.
  double KernelSeconds = 0;
  /// For a yes-or-no verification (repair's: may this barrier go?): stop
  /// checking pairs at the first race the benign-race tolerance cannot take
  /// back, or once more pairs than this are unknown; the report is then
  /// partial (KernelReport::Partial) and only says "not verified".
  std::optional<unsigned> StopBeyondUnknown;
  /// Barriers assumed before these instructions, and existing barriers
  /// (body indices) assumed absent.
  std::vector<AssumedBarrier> Extra;
  std::set<unsigned> Removed;
  /// Skip the concrete witness of each race (faster; repair only needs
  /// which pairs race).
  bool Witnesses = true;
  /// The y or z dimension of the block (grid) that the kernel never reads
  /// (%tid.y and %ntid.y for blockDim.y, %ctaid.y and %nctaid.y for
  /// gridDim.y) is taken to be 1 unless given: launched wider, every thread
  /// would repeat another's work. KernelReport::Assumptions says which.
  bool UnreadDimensionsAreOne = true;
  /// A named assumption, off by default (`incant race
  /// --assume-pure-externals`): a call to a function the module declares
  /// without a body touches no memory and reaches no barrier, and returns
  /// any value (GPUVerify's convention for such functions); in OpenCL C
  /// (OpenCLBuiltins), never one of the language's built-ins, whose
  /// mangled names tell them from the kernel's own. Without it,
  /// such a call is an access of unknown address (an external function may
  /// do anything). KernelReport::OptionAssumptions names every function it
  /// was used for.
  bool PureExternals = false;
  /// Two plain stores that race but always store the same value to the
  /// same bytes (every thread's `flag = 1`, `A[0] = 0`) are a benign race:
  /// PTX does not require race freedom, and every order of the two leaves
  /// that value. Such a pair is safe, with that reason, unless this is
  /// set (`--no-benign-tolerance`, GPUVerify's name), when it is a race.
  bool NoBenign = false;
  /// The module is OpenCL C's (clang's build of a .cl file): a call to one
  /// of OpenCL's built-in functions that takes no pointer (`ceil`,
  /// `fmax`, `native_sqrt`, `dot`, `clamp`, ...), which clang leaves as a
  /// declared function, touches no memory (OpenCL C 1.2, 6.12.2-6.12.6).
  bool OpenCLBuiltins = false;
  /// Function-pointer parameters and the functions each may point to, by
  /// kernel (the source's `__requires(f == g | f == h)`; hostLaunches):
  /// checkModule's inliner turns a call through one into direct calls.
  ir::ParamFunctions CallTargets;
  /// Per kernel, what CallTargets assumes, in words (the reports'
  /// OptionAssumptions).
  std::map<std::string, std::vector<std::string>> CallTargetNotes;
  /// A `__requires` names functions of which the module holds none (nvcc
  /// emits only the device functions something calls directly, unless it
  /// builds relocatable device code).
  bool CallTargetsAbsent = false;
  /// Why calls of the kernel stay calls, by body index (checkModule fills
  /// it from the inliner): the report names the reason, a limit included.
  std::map<unsigned, std::string> KeptCalls;
  /// Only the pairs of accesses this accepts are checked (none: all); the
  /// others are left out of KernelReport::Pairs.
  std::function<bool(const Access &, const Access &)> PairFilter;
  /// Called before each pair of accesses is checked, with the kernel's
  /// name, the pairs done and their number (a progress display); may be
  /// empty.
  std::function<void(const std::string &Kernel, size_t Done, size_t Total)>
      Progress;
};

enum class Verdict : uint8_t { Safe, Race, Unknown };
/// "safe", "race", "unknown".
const char *verdictName(Verdict V);

/// Which threads a witness (or a check) is about.
enum class Relation : uint8_t {
  SameWarp,    ///< two lanes of one warp
  SameBlock,   ///< two threads of one CTA in different warps
  OtherBlocks, ///< threads of two different CTAs
};
const char *relationName(Relation R);

/// One memory access of a kernel.
struct Access {
  /// IR position: body index in the kernel the analysis read, which has
  /// the calls to the module's functions inlined (ir::inlineCalls).
  unsigned Item = 0;
  /// Where that is in the module as given: the function and body index
  /// (and the calls it was inlined through, outermost first).
  std::string OriginFunction;
  unsigned OriginItem = 0;
  std::vector<std::pair<std::string, unsigned>> OriginCalls;
  /// "unoptimized" for an access of nvcc's unoptimised build that `incant
  /// race` adds to the report of the optimised one (RaceCommand.h).
  std::string Build;
  unsigned Part = 0; ///< cp.async: 0 destination, 1 source.
  uint32_t PtxLine = 0;
  ir::DebugLoc Loc;
  std::string Text; ///< The instruction.
  bool Reads = false, Writes = false, Atomic = false, Volatile = false,
       Strong = false;
  std::string Sem, Scope; ///< Effective, as `incant ptx` shows them.
  std::string Space;      ///< "shared", "global", "local", ...
  std::string Object;     ///< The variable or parameter; "" if unknown.
  std::string Offset;     ///< The byte offset, as an expression.
  unsigned Bytes = 0;
  bool Affine = false;
  std::string Why; ///< Why not affine.
  /// Every pair it is in was proved safe (the dynamic checker need not
  /// instrument it).
  bool Proved = true;
};

struct ThreadWitness {
  std::array<int64_t, 3> Tid{}, Ctaid{};
  int64_t Warp = 0, Lane = 0;
  /// Loop iterations: (PTX line of the loop header, iteration), outermost
  /// first.
  std::vector<std::pair<uint32_t, int64_t>> Iterations;
  /// The byte offset its access touches.
  int64_t Offset = 0;
  /// Values the witness assumes for loaded data or values the analysis
  /// approximates: (what, value).
  std::vector<std::pair<std::string, int64_t>> Assumed;
};

struct Witness {
  std::array<int64_t, 3> BlockDim{}, GridDim{};
  ThreadWitness A, B; ///< A makes the first access, B the second.
  /// Parameters the formula mentions: (PTX name, value).
  std::vector<std::pair<std::string, int64_t>> Params;
};

struct PairResult {
  unsigned First = 0, Second = 0; ///< Indices into KernelReport::Accesses.
  Verdict V = Verdict::Safe;
  /// With Race: the witness threads' relation.
  Relation Rel = Relation::SameBlock;
  /// With Race between blocks: the two CTAs are of one cluster (a
  /// cluster barrier, cluster.sync(), orders them).
  bool SameCluster = false;
  /// With Race: "write-write", "write-read" or "read-write" (first, second).
  std::string Kind;
  /// With Safe: how it was proved; with Unknown: why not.
  std::string Reason;
  std::optional<Witness> W;
  /// Advice (the warp-synchronous idiom, a too narrow scope, ...).
  std::string Hint;
  /// The barrier interval sources both accesses share in the scope of the
  /// witness (NoNode: the kernel's entry; else a barrier's body index).
  std::vector<unsigned> Sources;
  /// Matched by a suppression (Findings.h): left out of the report and of
  /// the exit code.
  bool Suppressed = false;
};

struct BarrierResult {
  unsigned Item = 0; ///< As Access::Item.
  std::string OriginFunction;
  unsigned OriginItem = 0;
  uint32_t PtxLine = 0;
  ir::DebugLoc Loc;
  std::string Text;
  ir::BarrierKind Kind = ir::BarrierKind::CTA;
  bool Assumed = false; ///< An Options::Extra barrier.
  std::string Note;     ///< Why it orders nothing (BarrierKind::NoOrder).
  /// Divergence: Race when two threads of a CTA (of the grid, for a grid
  /// barrier) may disagree on reaching it.
  Verdict V = Verdict::Safe;
  std::string Reason;
  std::optional<Witness> W; ///< A reaches it, B does not.
  /// How B misses it: "exits at line N", "takes the other branch", ...
  std::string Missed;
  /// Matched by a suppression (Findings.h).
  bool Suppressed = false;
};

struct KernelReport {
  std::string Name, Demangled;
  /// Which compilation of the source the report is about: "" for PTX given
  /// as such, "optimized" for nvcc's default build (some accesses may come
  /// from the unoptimised one: Access::Build).
  std::string Build;
  uint32_t PtxLine = 0;
  std::vector<Access> Accesses;
  std::vector<PairResult> Pairs;
  std::vector<BarrierResult> Barriers;
  /// Kernel-wide limits of the analysis (calls not followed, ...).
  std::vector<std::string> Notes;
  /// What was assumed about the launch ("blockDim.y = 1: the kernel never
  /// reads %tid.y or %ntid.y").
  std::vector<std::string> Assumptions;
  /// What an option told the check to assume and the verdicts rely on
  /// (Options::PureExternals): shown with every report of the kernel, in
  /// the text, the JSON and the SARIF log.
  std::vector<std::string> OptionAssumptions;
  /// The launch checked, as KnownLaunch::Description; "" when the host
  /// code was not read (the command line's values or any launch).
  std::string Launch;
  unsigned Races = 0, Safe = 0, Unknown = 0; ///< Pair counts.
  /// Options::StopBeyondUnknown stopped the check before every pair.
  bool Partial = false;
  unsigned Divergent = 0;                    ///< Barrier verdicts Race.
  unsigned UnknownBarriers = 0;
  /// Indices into Accesses of those not proved safe.
  std::vector<unsigned> unproved() const;
};

struct ModuleReport {
  std::string File;
  std::vector<KernelReport> Kernels;
  /// The error when Options::Kernel names no kernel.
  std::string Error;
};

/// Checks one kernel of \p M (whose IR \p F is), as it is: calls stay
/// calls (each an access to unknown memory). checkModule inlines first.
KernelReport checkKernel(const ptx::Module &M, const ir::FunctionIR &F,
                         const Options &O);
/// Checks every kernel of \p M (or Options::Kernel), with the calls to the
/// module's own functions inlined; Access::Origin* say where each access
/// is in \p M. Options::Extra and Removed are positions in the inlined
/// kernel (as Access::Item).
ModuleReport checkModule(const ptx::Module &M, const Options &O);

/// The report as text: per kernel, folded races with both source lines,
/// their witnesses and hints, divergent barriers, unknown pairs grouped by
/// reason, and a summary; suppressed findings are counted, not shown.
/// \p CompilerLines heads each race and divergent barrier with a
/// compiler-style `file:line:col: warning: ...` line (and the other
/// access's `note:`), as editors and CI logs link them.
void printReport(const ModuleReport &R, std::ostream &OS, bool Verbose,
                 bool CompilerLines = false);
/// Everything, with IR positions, as JSON.
nlohmann::json reportToJson(const ModuleReport &R);

} // namespace incant::race

#endif // INCANT_RACE_RACE_H
