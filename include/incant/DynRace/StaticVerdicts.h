//===- StaticVerdicts.h - The static checker as pass race's pruning -*- C++ -*-===//
//
// GRace's pruning: the dynamic checker instruments only the accesses the
// static checker (incant/Race/Race.h) did not prove safe. staticVerdicts()
// runs checkModule() on a module as nvcc wrote it, with the launch
// symbolic, and gives each access instruction its verdict: "safe" (every
// pair it is in proved safe), "race" (in a pair with a race) or "unknown".
// An instruction reached from several kernels (a device function) takes
// the worst verdict of its copies. The tool hands it to the instrumenting
// build (intercept::InstrumentOptions::StaticRaces).
//
// Only in a build with Z3 (lib/Race): haveStaticVerdicts() says whether
// this build has it; without it the oracle is empty and every access is
// instrumented.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_DYNRACE_STATICVERDICTS_H
#define INCANT_DYNRACE_STATICVERDICTS_H

#include "incant/Intercept/Instrument.h"

#include <iosfwd>

namespace incant::dynrace {

/// Whether this build has the static checker.
bool haveStaticVerdicts();

/// The static verdicts on the accesses of \p M (nullopt with \p Error when
/// the module cannot be checked: no kernel, or no static checker).
/// \p TimeoutMs bounds each solver query; a query that runs out leaves its
/// pair unknown (so its accesses are instrumented). A module with more
/// than \p MaxAccesses global, shared or generic loads, stores and atomics
/// is not checked (the pairs grow with their square).
std::optional<intercept::RaceVerdicts>
staticVerdicts(const ptx::Module &M, unsigned TimeoutMs, unsigned MaxAccesses,
               std::string &Error);

/// `incant race-verdicts` (the child process below): the verdicts on the
/// PTX module read from \p In, one "OFFSET VERDICT" line each
/// (intercept::staticVerdictName), or one line "!WHY" when the module
/// cannot be checked. Returns the exit code, 0.
int printStaticVerdicts(std::istream &In, unsigned TimeoutMs,
                        unsigned MaxAccesses, std::ostream &Out);

/// staticVerdicts() as the instrumenting build asks for it: in a child
/// process (this incant's `race-verdicts`, through runProcess) given
/// INCANT_RACE_STATIC_S seconds in all (default 60; over
/// that, no pruning), with the timeout per query from
/// INCANT_RACE_TIMEOUT_MS (default 500) and the size limit from
/// INCANT_RACE_STATIC_MAX (default 400); empty when this build has no
/// static checker.
intercept::RaceOracle staticRaceOracle();

} // namespace incant::dynrace

#endif // INCANT_DYNRACE_STATICVERDICTS_H
