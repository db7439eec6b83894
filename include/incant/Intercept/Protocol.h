/*===- Protocol.h - What incant and its injected library tell each other -===//
 *
 * The one definition of the run-time protocol between the tool (`incant
 * stress`, `fences`, `fences cost`, `race --dynamic`: lib/AppTest,
 * lib/Fences, lib/DynRace) and the library it injects into applications
 * (lib/Intercept/runtime/inject*.cpp), both of which include it:
 *
 *   - the environment variables the tool sets and the library reads;
 *   - the fields of the report the library appends to $INCANT_REPORT at
 *     exit (one JSON object per process, one line each);
 *   - the fields of the dynamic race checker's report, which the library
 *     writes to $INCANT_RACE_OUT at exit (one JSON object).
 *
 * Plain macros of string literals, so that the library (built on its own,
 * with no incant part linked) needs nothing else. The values the variables
 * take are documented where they are made (AppTest/Environment.h) and read
 * (runtime/inject_config.h); the layouts of the variables the
 * instrumenting build puts in a module are runtime/incant_control.h's.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_INTERCEPT_PROTOCOL_H
#define INCANT_INTERCEPT_PROTOCOL_H

/* The environment of a run. */
#define INCANT_ENV_STRESS "INCANT_STRESS"           /* none, sys, rand, cache */
#define INCANT_ENV_RANDOMISE "INCANT_RANDOMISE"     /* 0 or 1 */
#define INCANT_ENV_RANDOMISE_SKIP "INCANT_RANDOMISE_SKIP" /* kernel names */
#define INCANT_ENV_SEED "INCANT_SEED"
#define INCANT_ENV_STRESS_PATTERN "INCANT_STRESS_PATTERN"
#define INCANT_ENV_STRESS_LINES "INCANT_STRESS_LINES"
#define INCANT_ENV_STRESS_PATCH "INCANT_STRESS_PATCH"
#define INCANT_ENV_STRESS_REGIONS "INCANT_STRESS_REGIONS"
#define INCANT_ENV_STRESS_MIN_PCT "INCANT_STRESS_MIN_PCT"
#define INCANT_ENV_STRESS_MAX_PCT "INCANT_STRESS_MAX_PCT"
#define INCANT_ENV_STRESS_MAX_MS "INCANT_STRESS_MAX_MS"
#define INCANT_ENV_SPREAD "INCANT_SPREAD"
#define INCANT_ENV_TIME "INCANT_TIME"     /* 1: time the kernels */
#define INCANT_ENV_ENERGY "INCANT_ENERGY" /* 1: NVML energy over launches */
#define INCANT_ENV_GPU_LOCK "INCANT_GPU_LOCK" /* a lock file, held from the first launch */
#define INCANT_ENV_FENCES "INCANT_FENCES"     /* UNIT:SITES[/KIND],... */
#define INCANT_ENV_FENCE_IMAGES "INCANT_FENCE_IMAGES" /* UNIT=FILE.ptx;... */
#define INCANT_ENV_VERBOSE "INCANT_VERBOSE"
#define INCANT_ENV_TRACE "INCANT_TRACE"
#define INCANT_ENV_REPORT "INCANT_REPORT" /* where the report goes */
/* The dynamic race checker. */
#define INCANT_ENV_RACE "INCANT_RACE"         /* addr or stmt */
#define INCANT_ENV_RACE_OUT "INCANT_RACE_OUT" /* where its races go */
#define INCANT_ENV_RACE_SHADOW_MB "INCANT_RACE_SHADOW_MB"
#define INCANT_ENV_RACE_LOG_MB "INCANT_RACE_LOG_MB"
#define INCANT_ENV_RACE_HITS "INCANT_RACE_HITS"
#define INCANT_ENV_RACE_WALK "INCANT_RACE_WALK"
#define INCANT_ENV_RACE_PROBE "INCANT_RACE_PROBE"

/* The report: fields of each process's JSON object. */
#define INCANT_REPORT_PID "pid"
#define INCANT_REPORT_LAUNCHES "launches"
#define INCANT_REPORT_STRESSED "stressed"
#define INCANT_REPORT_COOPERATIVE_UNSTRESSED "cooperative_unstressed"
#define INCANT_REPORT_CAPTURED_UNSTRESSED "captured_unstressed"
#define INCANT_REPORT_SPREAD "spread"
#define INCANT_REPORT_CAP_HITS "stress_cap_hits"
#define INCANT_REPORT_UNITS "units"
#define INCANT_REPORT_FENCE_UNITS "fence_units"
#define INCANT_REPORT_REPLACED "replaced_images"
#define INCANT_REPORT_TIMED "timed"
#define INCANT_REPORT_ENERGY "energy" /* an object: */
#define INCANT_REPORT_ENERGY_MJ "mj"
#define INCANT_REPORT_ENERGY_READS "reads"
#define INCANT_REPORT_ENERGY_CHANGES "changes"
#define INCANT_REPORT_ENERGY_WINDOW_MS "window_ms"
#define INCANT_REPORT_ENERGY_OK "ok"
#define INCANT_REPORT_KERNELS "kernels" /* an array of objects: */
#define INCANT_REPORT_KERNEL_NAME "name"
#define INCANT_REPORT_KERNEL_LAUNCHES "launches"
#define INCANT_REPORT_KERNEL_MS "ms"
#define INCANT_REPORT_KERNEL_INSTRUMENTED "instrumented"
#define INCANT_REPORT_KERNEL_RANDOMISED "randomised"
#define INCANT_REPORT_KERNEL_UNIT "unit"
#define INCANT_REPORT_NOTES "notes"   /* strings */
#define INCANT_REPORT_ERRORS "errors" /* strings: variables it could not use */

/* The dynamic race checker's report ($INCANT_RACE_OUT). */
#define INCANT_RACE_REPORT_SCHEME "scheme" /* addr or stmt */
#define INCANT_RACE_REPORT_CHECKED "checked_launches"
#define INCANT_RACE_REPORT_UNCHECKED "unchecked_launches"
#define INCANT_RACE_REPORT_LOST "lost" /* why launches were lost, if any */
#define INCANT_RACE_REPORT_FAILED "failed_launches" /* did not start */
#define INCANT_RACE_REPORT_FAILED_ERROR "failed_error" /* the first one's CUresult */
#define INCANT_RACE_REPORT_FAILED_KERNEL "failed_kernel" /* and its kernel */
#define INCANT_RACE_REPORT_COUNTERS "counters" /* an object of these: */
#define INCANT_RACE_COUNTER_ACCESSES "accesses"
#define INCANT_RACE_COUNTER_WARP_ACCESSES "warp_accesses"
#define INCANT_RACE_COUNTER_SHADOW_FULL "shadow_full"
#define INCANT_RACE_COUNTER_BUSY "busy"
#define INCANT_RACE_COUNTER_LOG_FULL "log_full"
#define INCANT_RACE_COUNTER_NOT_FOLDED "races_not_folded"
#define INCANT_RACE_COUNTER_HAZARDS "hazards"
#define INCANT_RACE_COUNTER_CAPPED "comparisons_capped"
#define INCANT_RACE_COUNTER_OTHER_SPACE "other_space"
#define INCANT_RACE_COUNTER_SYNC_LOST "sync_lost"
#define INCANT_RACE_COUNTER_COPY_BYTES "copy_bytes"
#define INCANT_RACE_REPORT_UNITS "units"     /* unit names by slot */
#define INCANT_RACE_REPORT_KERNELS "kernels" /* an array of objects: */
#define INCANT_RACE_REPORT_KERNEL_NAME "name"
#define INCANT_RACE_REPORT_KERNEL_LAUNCHES "launches"
#define INCANT_RACE_REPORT_RACES "races" /* an array of objects: */
#define INCANT_RACE_HAZARD "hazard"      /* RAW, WAR, WAW, ... */
#define INCANT_RACE_SPACE "space"        /* shared or global */
#define INCANT_RACE_COUNT "count"
#define INCANT_RACE_ADDRESS "address"
#define INCANT_RACE_A "a" /* the two accesses, objects of: */
#define INCANT_RACE_B "b"
#define INCANT_RACE_SIDE_UNIT "unit"
#define INCANT_RACE_SIDE_SITE "site"
#define INCANT_RACE_SIDE_TID "tid"
#define INCANT_RACE_NTID "ntid"     /* [x, y, z] */
#define INCANT_RACE_NCTAID "nctaid" /* [x, y] */
#define INCANT_RACE_KERNEL "kernel"

#endif /* INCANT_INTERCEPT_PROTOCOL_H */
