//===- FunctionIR.h - CFG, dominators, loops, def-use of PTX -----*- C++ -*-===//
//
// The analysis layer over a parsed PTX module (ptx::Module). It does not copy
// the AST: a FunctionIR refers to its ptx::Function and names every
// instruction by its index in Function::Body (a "body index"). After the
// module is rewritten (Rewriter.h), build the IR again.
//
//   - Basic blocks: a block starts at a label or after an instruction that
//     ends a block (bra, brx, ret, exit, trap; guarded or not) and holds the
//     body items up to the next block. Consecutive labels share one block.
//   - CFG: the blocks as a Digraph (Graph.h): branch targets, brx targets
//     from `.branchtargets`, and the fall-through edge of a guarded branch
//     (or of a block that runs into a label). Block 0 is the entry.
//   - Dominators, post-dominators and natural loops of that graph.
//   - Def-use: every register declaration (`.reg .b32 %r<5>` declares %r0
//     to %r4; a `.reg` inside `{ }` shadows an outer one) gets a register
//     number; for each instruction, the registers it defines and uses, and
//     for each register, the instructions that define and use it. Reaching
//     definitions are computed on demand per use.
//   - Source locations: each instruction's most recent `.loc` resolved
//     through `.file`, with the inlining chain (`inlined_at`) followed
//     through earlier `.loc` directives of the call sites, and the inlined
//     function's name read from `.debug_str` when the module has it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_FUNCTIONIR_H
#define INCANT_IR_FUNCTIONIR_H

#include "incant/IR/Graph.h"
#include "incant/PTX/Module.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace incant::ir {

/// One frame of a source location: a `.loc` position.
struct SourceFrame {
  uint32_t FileIndex = 0; ///< The `.file` number.
  std::string File;       ///< Its path; empty if the number is not declared.
  uint32_t Line = 0;      ///< 0: the compiler knows no line (`.loc 1 0 5`).
  uint32_t Col = 0;
  /// The function this frame's code belongs to when it was inlined (a
  /// mangled name from `.debug_str`); empty if unknown.
  std::string Function;
};

/// Where an instruction comes from. Frames[0] is the innermost position
/// (the code itself); each further frame is the call site that the previous
/// frame's function was inlined into. Empty if no `.loc` precedes it.
struct DebugLoc {
  std::vector<SourceFrame> Frames;
  bool hasLine() const { return !Frames.empty() && Frames[0].Line != 0; }
  /// The frame a user most likely wants: the innermost one in the same file
  /// as the outermost frame (the kernel's own source rather than a library
  /// header it inlined); null if there is no frame with a line.
  const SourceFrame *userFrame() const;
};

struct BasicBlock {
  /// Labels at the block's start (may be empty).
  std::vector<std::string> Labels;
  /// Body items [Begin, End) that make up the block.
  unsigned Begin = 0, End = 0;
  /// Body indices of the block's instructions, in order.
  std::vector<unsigned> Insts;
};

/// A declared register (one element of a `%r<N>` range is one register).
struct Register {
  std::string Name;
  std::string Type;      ///< ".b32", ".pred", ...
  unsigned DeclItem = 0; ///< Body index of the `.reg` declaration.
  unsigned ScopeDepth = 0; ///< 0 at function level, 1 inside one `{ }`.
  std::vector<unsigned> Defs; ///< Body indices of defining instructions.
  std::vector<unsigned> Uses; ///< Body indices of using instructions.
};

class FunctionIR {
public:
  /// Builds the IR of \p F, which must have a body and outlive the IR.
  /// \p Files maps `.file` numbers to paths; \p DebugStrings maps
  /// `.debug_str` labels to their strings (both may be empty).
  FunctionIR(const ptx::Function &F, const std::map<uint32_t, std::string> &Files,
             const std::map<std::string, std::string> &DebugStrings);

  const ptx::Function &function() const { return *F; }
  const std::string &name() const { return F->Name; }

  // Blocks and CFG.
  const std::vector<BasicBlock> &blocks() const { return Blocks; }
  /// The block holding body item \p Item.
  unsigned blockOf(unsigned Item) const { return ItemBlock[Item]; }
  /// The block a label starts, or NoNode.
  unsigned blockOfLabel(std::string_view Label) const;
  const Digraph &cfg() const { return G; }
  unsigned entry() const { return 0; }
  const DominatorTree &dominators() const { return DT; }
  const PostDominatorTree &postDominators() const { return PDT; }
  const LoopInfo &loops() const { return LI; }

  // Instructions.
  /// Body indices of all instructions, in order.
  const std::vector<unsigned> &instructions() const { return Insts; }
  bool isInstruction(unsigned Item) const;
  const ptx::Instruction &inst(unsigned Item) const;
  const DebugLoc &loc(unsigned Item) const;
  /// Whether body item \p A comes before \p B on every path from the
  /// entry (same block and earlier, or A's block strictly dominates B's).
  bool dominates(unsigned A, unsigned B) const;

  // Def-use.
  const std::vector<Register> &registers() const { return Regs; }
  /// The register a name denotes at function scope, or NoNode.
  unsigned findRegister(std::string_view Name) const;
  /// Registers instruction \p Item defines / uses (register numbers).
  const std::vector<unsigned> &defs(unsigned Item) const;
  const std::vector<unsigned> &uses(unsigned Item) const;
  /// Definitions of register \p Reg that reach instruction \p Item (body
  /// indices): along some CFG path with no other definition between.
  std::vector<unsigned> reachingDefs(unsigned Reg, unsigned Item) const;
  /// The st.param to body-level .param variable \p Var at byte \p Offset
  /// whose value a load at \p Item reads (a call's argument or an inlined
  /// call's result): the latest one back through Item's block, then up the
  /// dominator tree, as PTX's call sequences are straight-line code; NoNode
  /// if there is none or a call writes the variable in between.
  unsigned paramStoreBefore(unsigned Item, const std::string &Var,
                            int64_t Offset) const;
  /// Names that instructions use (as values or address bases) that are
  /// neither a register in scope, nor a special register (%tid.x, ...), nor
  /// a parameter or variable of the function: body index and name. They
  /// must be module-level symbols; validate() (Rewriter.h) checks that.
  const std::vector<std::pair<unsigned, std::string>> &unresolvedNames() const {
    return Unresolved;
  }
  /// Label operands that name no label of the function: body index, name.
  const std::vector<std::pair<unsigned, std::string>> &unknownLabels() const {
    return UnknownLabels;
  }

private:
  void buildBlocks();
  void buildCfg();
  void buildDefUse();
  void buildLocs(const std::map<uint32_t, std::string> &Files,
                 const std::map<std::string, std::string> &DebugStrings);

  const ptx::Function *F;
  std::vector<BasicBlock> Blocks;
  std::vector<unsigned> ItemBlock;
  std::map<std::string, unsigned, std::less<>> LabelBlock;
  std::map<std::string, std::vector<std::string>, std::less<>> BranchTables;
  Digraph G;
  DominatorTree DT;
  PostDominatorTree PDT;
  LoopInfo LI;
  std::vector<unsigned> Insts;
  std::vector<unsigned> InstSlot; ///< Body index -> position in Insts.
  std::vector<DebugLoc> Locs;     ///< Per position in Insts.
  std::vector<Register> Regs;
  std::vector<std::vector<unsigned>> InstDefs, InstUses; ///< Per position.
  std::vector<std::pair<unsigned, std::string>> Unresolved;
  std::vector<std::pair<unsigned, std::string>> UnknownLabels;
};

/// Whether \p Name is a PTX special register (%tid.x, %laneid, %clock64,
/// %envreg3, ...).
bool isSpecialRegister(std::string_view Name);

/// Whether \p I ends a basic block (bra, brx, ret, exit, trap; guarded or
/// not), and whether control can pass it to the next instruction.
bool endsBlock(const ptx::Instruction &I);
bool fallsThrough(const ptx::Instruction &I);

/// The IR of every defined function of a module. The module must outlive it.
class ModuleIR {
public:
  explicit ModuleIR(const ptx::Module &M);

  const ptx::Module &module() const { return *M; }
  const std::vector<FunctionIR> &functions() const { return Funcs; }
  /// The IR of the function named \p Name, or null.
  const FunctionIR *find(std::string_view Name) const;
  /// `.file` numbers to paths.
  const std::map<uint32_t, std::string> &files() const { return Files; }
  /// `.debug_str` labels to strings.
  const std::map<std::string, std::string> &debugStrings() const {
    return DebugStrings;
  }

private:
  const ptx::Module *M;
  std::map<uint32_t, std::string> Files;
  std::map<std::string, std::string> DebugStrings;
  std::vector<FunctionIR> Funcs;
};

/// Reads the strings of a `.debug_str` section's text (`$L__info_string0:`
/// labels followed by `.b8` byte lists ending in 0).
std::map<std::string, std::string> readDebugStrings(std::string_view Text);

} // namespace incant::ir

#endif // INCANT_IR_FUNCTIONIR_H
