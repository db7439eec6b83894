//===- Module.h - A whole PTX module: AST, parser, printer ------*- C++ -*-===//
//
// The AST of a PTX module as nvcc and clang write it: the header directives
// (.version, .target, .address_size), then, in order, .file entries,
// module-level variables, functions (entries and .func, declarations and
// definitions) and opaque .section blocks (debug information).
//
// A function body is a flat, ordered list of items: instructions (with their
// guard), labels, declarations (.reg ranges, .local/.shared/.param
// variables), .loc, .pragma, call prototypes, and the braces of nested
// scopes `{ ... }` that nvcc writes around calls. Keeping the body flat keeps
// the printer trivial and lets the IR index items; BlockBegin/BlockEnd are
// always balanced in a parsed module.
//
// Instructions use the same Instruction node, parser and printer as litmus
// cells (Instruction.h); parseModule reads the whole PTX instruction set:
// known opcodes get their family (Opcode) and decoded fields, unknown ones
// become Opcode::Unknown with a warning, never an error.
//
// Every node carries the SourceRange the parser set (nodes made by a
// rewriter have an invalid range). Names are std::string (short ones stay
// in the small-string buffer); the SourceFile is kept alive by the Module.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_PTX_MODULE_H
#define INCANT_PTX_MODULE_H

#include "incant/PTX/Instruction.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace incant::ptx {

/// Linking directive written before a declaration.
enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };
/// ".visible", ".extern", ... ("" for None).
const char *linkageName(Linkage L);

/// The most registers a module may declare in ranges (`%r<N>`), summed over
/// its declarations: each becomes a name of its own in the IR, at about
/// 3 us and 200 bytes apiece (nvcc's largest kernels declare tens of
/// thousands).
constexpr uint64_t MaxRangeRegisters = uint64_t(1) << 20;

/// A variable, parameter or register declaration:
///   .visible .global .align 4 .b8 buf[16] = {1, 2};
///   .param .u64 .ptr .global .align 4 _Z1kPi_param_0
///   .reg .b32 %r<12>;          (Name "%r", RangeCount 12)
///   .extern .shared .align 16 .b8 smem[];
struct Variable {
  Linkage Link = Linkage::None;
  AddrSpace Space = AddrSpace::Global; ///< Reg, Param, Shared, ...
  /// `.attribute(.managed)` and similar, as written inside the parentheses.
  std::vector<std::string> Attributes;
  uint32_t Align = 0;  ///< `.align N` before the type; 0 if not written.
  uint8_t Vec = 0;     ///< 2 or 4 for `.v2`/`.v4`; 0 for a scalar.
  std::string Type;    ///< ".b8", ".f32", ".u64", ".pred", ".texref", ...
  /// `.ptr [.space] [.align N]` after the type (kernel parameters).
  bool IsPtr = false;
  AddrSpace PtrSpace = AddrSpace::Generic;
  uint32_t PtrAlign = 0;
  std::string Name;
  /// `%r<12>`: a range of RangeCount registers %r0 .. %r11. A module
  /// declares at most MaxRangeRegisters registers in ranges, all together.
  bool IsRange = false;
  uint32_t RangeCount = 0;
  /// Array dimensions; nullopt for `[]` (size from the initializer or
  /// extern).
  std::vector<std::optional<uint64_t>> Dims;
  /// `= 5`, `= {1, 2}`, `= {{..}, {..}}`, `= generic(sym)`, `= sym+8`: an
  /// Imm, FloatImm, Reg (a symbol), Generic or Vector operand.
  std::optional<Operand> Init;
  SourceRange Range;
};

/// `.file 1 "/path/k.cu"` or `.file 1 "/path/k.cu", 1700000000, 1234`.
struct FileEntry {
  uint32_t Index = 0;
  std::string Path; ///< Unescaped.
  std::optional<uint64_t> Timestamp;
  std::optional<uint64_t> Size;
  SourceRange Range;
};

/// `.loc 1 23 5` or
/// `.loc 1 23 5, function_name $L__info_string0, inlined_at 1 40 3`.
/// The inlining chain of an instruction is the inlined_at location; the
/// .loc of that call site (if any) continues it.
struct LocDirective {
  uint32_t File = 0;
  uint32_t Line = 0;
  uint32_t Col = 0;
  std::string FunctionName;  ///< A label in .debug_str; empty if absent.
  int64_t FunctionOffset = 0; ///< `function_name $L__info_string0+12`.
  bool HasInlinedAt = false;
  uint32_t InlinedFile = 0;
  uint32_t InlinedLine = 0;
  uint32_t InlinedCol = 0;
  SourceRange Range;
};

/// `.pragma "nounroll";` (the strings, unescaped).
struct Pragma {
  std::vector<std::string> Strings;
  SourceRange Range;
};

/// A performance-tuning or attribute directive of a function, written
/// between its parameters and its body: `.maxntid 256, 1, 1`,
/// `.reqntid 128`, `.minnctapersm 2`, `.maxnreg 32`, `.explicitcluster`,
/// `.reqnctapercluster 2, 1, 1`, `.maxclusterrank 8`, `.noreturn`, ...
struct PerfDirective {
  std::string Name; ///< With its dot.
  std::vector<uint64_t> Values;
  SourceRange Range;
};

/// `prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);`
struct CallPrototype {
  std::string Name; ///< The label naming the prototype.
  bool HasReturnList = false; ///< `(...)` before the `_`.
  std::vector<Variable> Returns;
  std::vector<Variable> Params;
  std::vector<PerfDirective> Attrs; ///< `.noreturn` and similar.
  SourceRange Range;
};

/// A directive the parser keeps as text (`.branchtargets L1, L2;`,
/// `.calltargets f, g;`, a module-level directive of a newer PTX).
/// Name has its dot; Text is everything after it up to (not including)
/// the ';', as written.
struct RawDirective {
  std::string Name;
  std::string Text;
  SourceRange Range;
};

/// `{` and `}` of a nested scope in a function body.
struct BlockBegin {
  SourceRange Range;
};
struct BlockEnd {
  SourceRange Range;
};

/// One item of a function body, in source order.
using BodyItem = std::variant<Instruction, Label, Variable, LocDirective,
                              Pragma, CallPrototype, BlockBegin, BlockEnd,
                              RawDirective>;

/// A kernel (.entry) or device function (.func), declared or defined.
struct Function {
  Linkage Link = Linkage::None;
  bool IsEntry = false;
  std::string Name;
  SourceRange NameRange;
  /// `.func (.param .b32 func_retval0) f(...)`: the return parameters.
  bool HasReturnList = false;
  std::vector<Variable> Returns;
  /// Whether `( ... )` follows the name (may be empty: `f()`).
  bool HasParamList = false;
  std::vector<Variable> Params;
  std::vector<PerfDirective> Perf;
  /// False for a declaration ending in ';' (no body).
  bool HasBody = false;
  std::vector<BodyItem> Body;
  SourceRange Range;
};

/// `.section .debug_info { ... }`: kept as the text between the braces.
struct Section {
  std::string Name; ///< ".debug_info"
  std::string Text; ///< Between '{' and '}', as written.
  SourceRange Range;
};

/// One module-level item, in source order.
using ModuleItem =
    std::variant<FileEntry, Variable, Function, Section, Pragma, RawDirective>;

struct Module {
  /// The text the module was parsed from (null for a built module).
  std::shared_ptr<const SourceFile> File;
  uint32_t VersionMajor = 0; ///< `.version 8.8`; 0 if absent.
  uint32_t VersionMinor = 0;
  SourceRange VersionRange;
  /// `.target sm_90a, debug`: the names in order; empty if absent.
  std::vector<std::string> Targets;
  SourceRange TargetRange;
  uint32_t AddressSize = 0; ///< 32 or 64; 0 if absent.
  SourceRange AddressSizeRange;
  std::vector<ModuleItem> Items;

  /// The function named \p Name, or null.
  Function *findFunction(std::string_view Name);
  const Function *findFunction(std::string_view Name) const;
};

/// Parses a whole PTX module. Errors (`file:line:col: error: expected ...`)
/// go to \p Diags and give nullopt; unknown instructions give warnings and
/// Opcode::Unknown instructions.
std::optional<Module> parseModule(std::shared_ptr<const SourceFile> File,
                                  DiagnosticEngine &Diags);

/// Parses bytes [Begin, End) of \p File as one instruction in module syntax
/// (the whole instruction set, `;` optional), e.g. for a rewriter that adds
/// `fence.sc.gpu;` or `@%p1 st.global.u32 [%rd1], %r2;`.
std::optional<Instruction>
parseModuleInstruction(std::shared_ptr<const SourceFile> File, uint32_t Begin,
                       uint32_t End, DiagnosticEngine &Diags);

/// Prints \p M as PTX that parseModule reads back to the same AST (print,
/// parse, print is a fixpoint) and that ptxas assembles to the same code as
/// the original. Comments and layout are not kept.
std::string printModule(const Module &M);
/// Appends the printed module to \p Out.
void printModule(const Module &M, std::string &Out);

/// Printers of single nodes (no trailing newline), for tools and tests.
std::string printVariable(const Variable &V);  ///< With the ';'.
std::string printBodyItem(const BodyItem &Item);
std::string printLoc(const LocDirective &L);

} // namespace incant::ptx

#endif // INCANT_PTX_MODULE_H
