//===- Rewriter.h - Editing a PTX module, and validating it -----*- C++ -*-===//
//
// The editing API that fence insertion, instrumentation and barrier repair
// build on. Edits are of two kinds:
//
//   - Insertions into function bodies are queued and made together by
//     apply(). Their positions are body indices of the module as it was
//     when the Rewriter was made (or at the last apply()), so a client can
//     take every position from one FunctionIR and queue all its edits:
//
//       ir::ModuleIR IR(M);
//       ir::Rewriter RW(M, Diags);
//       for (unsigned Item : IR.functions()[0].instructions())
//         if (isGlobalAccess(F.inst(Item)))
//           RW.insertAfter(Func, Item, "fence.sc.gpu;");
//       RW.apply();
//
//   - Declarations (module variables and functions, kernel parameters,
//     registers) and renames change no body index and are made at once.
//
// New code is given as PTX text and read with the module parser's grammar
// (parseModuleInstruction, parseModule), so whatever incant can parse it
// can insert. Nodes the rewriter makes have no source range.
//
// validate() checks what edits can break: registers, labels, parameters,
// variables and functions used but not declared, and names declared twice.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_REWRITER_H
#define INCANT_IR_REWRITER_H

#include "incant/IR/FunctionIR.h"
#include "incant/PTX/Module.h"
#include "incant/Support/Diagnostic.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::ir {

class Rewriter {
public:
  /// Edits \p M; errors in the PTX text given to the rewriter go to
  /// \p Diags (the text is shown as a file named "<rewrite>").
  Rewriter(ptx::Module &M, DiagnosticEngine &Diags);

  ptx::Module &module() { return *M; }

  /// The index in Module::Items of the function named \p Name (or of the
  /// function \p F), or NoNode.
  unsigned functionIndex(std::string_view Name) const;
  unsigned functionIndex(const ptx::Function &F) const;

  /// Parses one instruction in module syntax (`fence.sc.gpu`,
  /// `@%p1 bar.sync 0;`); nullopt after reporting an error.
  std::optional<ptx::Instruction> parseInstruction(std::string_view Text);

  // Queued insertions (made by apply()). Each returns false, reporting an
  // error, if the text does not parse or the position is not valid. Items
  // queued at one position keep the order they were queued in.

  /// Before body item \p Item of function \p Func (an index in
  /// Module::Items). Inserting before an instruction puts the new code after
  /// the `.loc` that precedes it, so the new code shares its source line.
  bool insertBefore(unsigned Func, unsigned Item, std::string_view Text);
  /// After body item \p Item. Refused after an instruction that never falls
  /// through (unguarded bra, ret, exit, trap, brx).
  bool insertAfter(unsigned Func, unsigned Item, std::string_view Text);
  bool insertBefore(unsigned Func, unsigned Item, ptx::BodyItem New);
  bool insertAfter(unsigned Func, unsigned Item, ptx::BodyItem New);
  /// At the entry of basic block \p Block of \p IR's function: after its
  /// labels, before its first instruction (at its end if it has none).
  bool insertAtBlockEntry(const FunctionIR &IR, unsigned Block,
                          std::string_view Text);

  /// Makes the queued insertions. Body indices change; rebuild any IR.
  void apply();
  /// Whether insertions are waiting for apply().
  bool hasPending() const {
    return !Pending.empty() || !PendingRegs.empty() || !PendingItems.empty();
  }

  // Declarations. Registers and module-level declarations are queued too
  // (apply() makes them), so queued body indices and function indices stay
  // valid; names are checked against what is queued as well.

  /// Declares a new register `.reg TYPE NAME;` at the start of function
  /// \p Func and returns its name: \p Prefix followed by the first number
  /// that makes a name no register or symbol of the function has.
  std::string addRegister(unsigned Func, std::string_view Type,
                          std::string_view Prefix = "%incant");
  /// Adds module-level declarations or definitions given as PTX text:
  /// variables (`.global .align 4 .u32 incant_flags[64];`) and functions
  /// (`.func incant_hook(.param .b64 a) { ret; }`). They go before the
  /// first function, in the order added. Refused if a name is already
  /// declared.
  bool addModuleText(std::string_view Text);

  // Parameters and renames (made at once; no index changes).

  /// Adds a parameter to the end of function \p Func's parameter list, given
  /// as its declaration (`.param .u64 incant_buf`). Refused if the function
  /// already has a parameter or register of that name.
  bool addParam(unsigned Func, std::string_view Decl);
  /// Renames a register of function \p Func (a whole range is renamed by
  /// its prefix: `%r` -> `%q` renames %r0..%rN). Refused if \p To is in use.
  bool renameRegister(unsigned Func, std::string_view From,
                      std::string_view To);
  /// Renames a module-level variable or function everywhere it is named.
  /// Refused if \p To is already declared.
  bool renameSymbol(std::string_view From, std::string_view To);

private:
  bool queue(unsigned Func, unsigned Item, bool After, ptx::BodyItem New);
  bool checkFunc(unsigned Func, unsigned Item);
  std::shared_ptr<SourceFile> textFile(std::string_view Text);

  ptx::Module *M;
  DiagnosticEngine *Diags;
  /// (function, body index) -> items to place before and after it.
  struct Slot {
    std::vector<ptx::BodyItem> Before, After;
  };
  std::map<std::pair<unsigned, unsigned>, Slot> Pending;
  /// Register declarations to put at the start of a function.
  std::map<unsigned, std::vector<ptx::Variable>> PendingRegs;
  /// Module items to put before the first function.
  std::vector<ptx::ModuleItem> PendingItems;
};

/// Checks \p M for what makes ptxas reject an edited module: registers,
/// parameters, variables and functions used but not declared, branch
/// targets that are no label of the function, and labels, registers or
/// module symbols declared twice. Each problem is an error in \p Diags (at
/// the node's source range when it has one); returns how many there were.
unsigned validate(const ptx::Module &M, DiagnosticEngine &Diags);

/// Clears every source range in a node (for nodes moved into a module they
/// were not parsed from).
void clearRanges(ptx::Instruction &I);
void clearRanges(ptx::Variable &V);
void clearRanges(ptx::BodyItem &Item);
void clearRanges(ptx::ModuleItem &Item);

} // namespace incant::ir

#endif // INCANT_IR_REWRITER_H
