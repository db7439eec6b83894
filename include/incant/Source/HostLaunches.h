//===- HostLaunches.h - The kernel launches of a .cu file's host code -*- C++ -*-===//
//
// What the host code of a CUDA source fixes about each launch of its
// kernels, read from the file's syntax tree (libclang, CUDA host side):
// `k<<<grid, block[, shmem, stream]>>>(args)`, `cudaLaunchKernel`,
// `cudaLaunchCooperativeKernel` (kernel, grid, block, an argument array)
// and `cudaLaunchKernelEx` (a cudaLaunchConfig_t with its attributes: the
// cluster dimension, cooperative). A value is known where it is a constant
// expression (literals, #define, const/constexpr, enumerators, sizeof) or
// a local or file variable of this file that nothing writes after its
// initialiser, combined with + - * / % shifts, bit and logical operators,
// comparisons and ?:, `dim3(x, y, z)` (absent dimensions 1) and members of
// known dim3s; anything else (argv, a loop counter, a value written
// twice) is unknown. A kernel whose address the host code uses in any
// other way (a function pointer, a template argument, a launch whose
// kernel is not named) is launched in ways not read: Escapes lists it.
//
// Built with libclang where Debian's libclang-14-dev is installed
// (docs/building.md); without it, readHostLaunches() says so and reads
// nothing.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SOURCE_HOSTLAUNCHES_H
#define INCANT_SOURCE_HOSTLAUNCHES_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace incant::source {

/// Whether this build reads source structure (libclang).
bool haveLibclang();

using Dims = std::array<std::optional<int64_t>, 3>;

struct HostLaunch {
  /// The kernel's mangled name, as its PTX .entry has it.
  std::string Kernel;
  /// The kernel as the source names it (its identifier).
  std::string Spelling;
  /// "<<<>>>", "cudaLaunchKernel", "cudaLaunchCooperativeKernel",
  /// "cudaLaunchKernelEx".
  std::string How;
  uint32_t Line = 0, Column = 0;
  Dims Grid, Block, Cluster;
  bool Cooperative = false;
  /// The kernel's arguments by position; nullopt where the host code does
  /// not fix an integer value (pointers, floats, values read at run time).
  std::vector<std::optional<int64_t>> Args;
  /// The arguments as written, and the kernel's parameter names (for the
  /// report).
  std::vector<std::string> ArgText, ParamNames;
};

/// A kernel's precondition that fixes a parameter: GPUVerify's
/// `__requires(width == 1024)` (conjuncts of `param == constant`), read
/// from the macro's tokens wherever the macro expands to.
struct Requirement {
  std::string Kernel; ///< The kernel's identifier.
  unsigned Param = 0; ///< Its position.
  std::string Name;   ///< The parameter's name.
  int64_t Value = 0;
  /// `__requires(n == blockDim.x)`: the launch's size it equals, as
  /// "blockDim" or "gridDim" and the axis 0-2 (Value unused); "" for a
  /// constant.
  std::string Size;
  unsigned Axis = 0;
  uint32_t Line = 0;
  /// `__requires(f == g | f == h)` of a function-pointer parameter: the
  /// functions it may point to, as the source names them (Value and Size
  /// unused).
  std::vector<std::string> Functions;
};

/// A file-wide fact about every launch: GPUVerify's
/// `__axiom(blockIdx.x == 16)` (conjuncts of `builtin.axis == constant`
/// over blockIdx, blockDim and gridDim), read from the macro's tokens.
struct Axiom {
  std::string Builtin; ///< "blockIdx", "blockDim" or "gridDim".
  unsigned Axis = 0;   ///< 0-2 for x, y, z.
  int64_t Value = 0;
  uint32_t Line = 0;
};

struct HostCode {
  std::vector<HostLaunch> Launches;
  std::vector<Requirement> Requires;
  std::vector<Axiom> Axioms;
  /// `__axiom`s that are not a conjunction of such equalities, with their
  /// line: their kernels are checked without them (as if the axiom were
  /// absent, which only widens what is checked).
  std::vector<std::pair<std::string, uint32_t>> AxiomsNotRead;
  /// Kernels (their identifiers) used other than in a launch read above,
  /// with the line: they may be launched with any values.
  std::vector<std::pair<std::string, uint32_t>> Escapes;
  /// Why nothing was read: no libclang in this build, the file could not
  /// be parsed, no CUDA headers. Empty when the file was read.
  std::string Problem;
};

/// The launches in the host code of the CUDA source \p Path, and the
/// __requires equalities of its kernels. \p CompilerArgs
/// are the arguments given for nvcc (-I, -D, -U and -std are used).
HostCode readHostLaunches(const std::string &Path,
                          const std::vector<std::string> &CompilerArgs);

} // namespace incant::source

#endif // INCANT_SOURCE_HOSTLAUNCHES_H
