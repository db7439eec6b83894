//===- inject_race.h - The injected library's dynamic race checking -*- C++ -*-===//
//
// With INCANT_RACE=addr|stmt (set by `incant race --dynamic`), the library
// runs the race checks of pass "race" (runtime/incant_race.h):
//
//   - per context, once: the checker's state and tables in device memory
//     (shadow entries, per-thread and per-block counters, the stmt log,
//     the folded races and counters), and for stmt the checking kernels;
//   - per unit with a race variable, when its module is first used: the
//     variable set to the state and the unit's slot (unit ids are recorded
//     by slot for the report);
//   - per launch of an instrumented kernel, on the application's stream:
//     the launch's tag and counters reset (stream-ordered memsets), the
//     launch serialised after the previous checked launch of any stream (an
//     event), and for stmt the checking kernels after it;
//   - before a module is unloaded, a context reset or destroyed, and at
//     exit: the folded races read back; at exit, everything written to
//     INCANT_RACE_OUT as one JSON object.
//
// Nothing here can overrun: full tables are counted (the report says how
// many accesses went unchecked), never written past.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INJECT_RACE_H
#define INCANT_INJECT_RACE_H

#include "inject_core.h"

#include <string>

namespace incant_inject {

/// Whether INCANT_RACE asks for checking.
bool raceOn();
/// Sets unit \p Id's race variable in module \p M of context \p Ctx, if
/// the unit has one; whether kernels of the unit are then checked.
bool raceSetUnit(CUcontext Ctx, CUmodule M, const std::string &Id);
/// Makes the checker's tables ready for the launch \p L on the
/// application's stream \p App (allocating or growing them, which may
/// synchronise the context); false when the launch will not be checked.
/// Called before the launch is timed: this is set-up, not the kernel's cost.
bool racePrepare(CUcontext Ctx, const Launch &L, CUstream App);
/// Before and after the launch \p L of the checked kernel \p Kernel on the
/// application's stream \p App (racePrepare said yes).
void raceBefore(CUcontext Ctx, const Launch &L, CUstream App,
                const std::string &Kernel);
void raceAfter(CUcontext Ctx, const Launch &L, CUstream App, CUresult R,
               const std::string &Kernel);
/// Reads the races found so far back from every context that is current
/// (before modules or contexts go away).
void raceHarvest();
/// The current context is about to go: reads its races back and forgets
/// it (and which units were set).
void raceContextGone();
/// Writes INCANT_RACE_OUT (once, at exit).
void raceWrite();

} // namespace incant_inject

#endif // INCANT_INJECT_RACE_H
