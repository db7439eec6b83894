//===- Fences.h - Switchable fences (pass "fences") -------------*- C++ -*-===//
//
// The pass "fences" of the instrumenting build (Instrument.h) puts fences
// after every global and generic memory access of a module's functions
// (ld, st, atom, red; not ld.global.nc, whose data is read-only while the
// kernel runs), one site per access, and guards each by one bit of a
// per-unit mask in constant memory (runtime/incant_control.h):
//
//   ld.const.u32  %incant_fm, [__incant_fmask_<ID>+4*(K*W + S/32)];
//   and.b32       %incant_fm, %incant_fm, 1 << (S % 32);
//   setp.ne.u32   %incant_fp, %incant_fm, 0;
//   @%incant_fp fence.sc.gpu;
//
// once for each fence kind K (fence.sc.gpu, fence.acq_rel.gpu, fence.sc.cta,
// fence.acq_rel.cta; membar.gl and membar.cta only before sm_70), so the
// injected library chooses a fence set and its kinds at run time (the
// INCANT_FENCES variable) without a rebuild. The mask is zero unless the
// library sets it: with every bit off the module does what it did, though
// the guards keep ptxas from moving loads across them.
//
// The pass also records the orderings the module already had (fence and
// membar instructions, release and acquire accesses) in the manifest, for
// `incant fences` to compare its result with.
//
// fixFences() turns the guards of an instrumented module back into plain
// code, with a chosen set of fences unconditional: the "no", "cons" and
// "emp" builds whose cost `incant fences cost` measures.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INTERCEPT_FENCES_H
#define INCANT_INTERCEPT_FENCES_H

#include "incant/PTX/Module.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::intercept {

/// The fence kinds in mask order: "sc.gpu", "acq_rel.gpu", "sc.cta",
/// "acq_rel.cta" (the PTX instruction is "fence." followed by the name).
const std::vector<std::string> &fenceKindNames();
/// The index of kind \p Name in fenceKindNames(); also accepts "membar.gl"
/// (sc.gpu) and "membar.cta" (sc.cta).
std::optional<unsigned> fenceKindIndex(std::string_view Name);
/// The CUDA C++ statement that makes a fence of kind \p Kind.
std::string fenceKindCuda(unsigned Kind);

/// The name of unit \p Id's fence mask.
std::string fenceMaskName(std::string_view Id);

/// Whether \p I is an access the pass puts a fence after: ld, st, atom or
/// red on global or generic memory, except ld.global.nc.
bool isFenceCandidate(const ptx::Instruction &I);
/// The instruction's opcode and modifiers, without operands:
/// "atom.global.cas.b32".
std::string mnemonic(const ptx::Instruction &I);

/// Rewrites the switchable fences of unit \p Id in \p M (an instrumented
/// module, as `incant ptxas` printed it) into plain code: each guard goes,
/// and the fence of kind K at site S stays, unconditional, where
/// \p Keep[S] == K. False with an error in \p Diags if the module has no
/// switchable fences of that unit or a guard is not as the pass writes it.
bool fixFences(ptx::Module &M, std::string_view Id,
               const std::map<uint32_t, unsigned> &Keep,
               DiagnosticEngine &Diags);

} // namespace incant::intercept

#endif // INCANT_INTERCEPT_FENCES_H
