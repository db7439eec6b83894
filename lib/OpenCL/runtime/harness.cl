// harness.cl - incant's OpenCL harness for parallel litmus testing.
//
// One launch of incant_test runs many instances of a test: the host computes
// the layout (which work-item plays which role of which instance, and where
// each instance's locations are; lib/Harness/Layout.cpp) and passes it as
// tables. incant_collect then reads every instance's final registers and
// memory, counts the outcome into a hash table on the device, and resets
// the instance for the next launch. Only the table's counts go back to the
// host.
//
// The test itself comes from lib/OpenCL/Codegen.cpp, which emits, before
// this file, INCANT_GENERATED and:
//   INCANT_NUM_LOCS, INCANT_NUM_OBS, INCANT_REGS_PER_INSTANCE,
//   INCANT_NUM_SHARED (locations in local memory), INCANT_LMEM_WORDS
//   incant_run_role(role, mem, lmem, addr, out, stats)
//   incant_init_value(loc), incant_is_shared(loc)
//   incant_observe(values, regs, mem, addr, shared_final)
// Without them (compiling this file on its own, as CI does) a one-location
// stand-in test is used, so the file is always valid OpenCL C 2.0/3.0.
//
// Switches (-D on the build command line), each incantation alone:
//   INCANT_MEM_STRESS, INCANT_PRE_STRESS, INCANT_BANK_CONFLICTS,
//   INCANT_SPIN_BARRIER (with INCANT_BARRIER_POLLS), INCANT_STRESS_SEQ(p)

#ifndef INCANT_TABLE_SIZE
#define INCANT_TABLE_SIZE 1024 // outcome hash table slots (a power of two)
#endif
#ifndef INCANT_BARRIER_POLLS
#define INCANT_BARRIER_POLLS 2000
#endif
#ifndef INCANT_STRESS_ITERATIONS
#define INCANT_STRESS_ITERATIONS 64
#endif
#ifndef INCANT_PRE_STRESS_ITERATIONS
#define INCANT_PRE_STRESS_ITERATIONS 8
#endif
#ifndef INCANT_STRESS_PATCH
#define INCANT_STRESS_PATCH 64
#endif
#ifndef INCANT_STRESS_LOCS
#define INCANT_STRESS_LOCS 2
#endif
#ifndef INCANT_STRESS_SEQ
// Default access sequence: st0 ld1.
#define INCANT_STRESS_SEQ(P)                                                   \
  atomic_store_explicit(&(P)[0 * INCANT_STRESS_PATCH], 1,                      \
                        memory_order_relaxed, memory_scope_device);            \
  sink += atomic_load_explicit(&(P)[1 * INCANT_STRESS_PATCH],                  \
                               memory_order_relaxed, memory_scope_device);
#endif

// Indices into the stats buffer. (Instances cut by the loop bound are
// counted by their key: see INCANT_CUT_SLOT.)
#define INCANT_STAT_BARRIER_TIMEOUTS 0
#define INCANT_STAT_LOST 2
#define INCANT_STAT_SINK 3

#ifndef INCANT_GENERATED
// Stand-in test: one role stores 1 to location 0; observed: the location.
#define INCANT_NUM_ROLES 1
#define INCANT_NUM_LOCS 1
#define INCANT_NUM_OBS 1
#define INCANT_REGS_PER_INSTANCE 1
#define INCANT_NUM_SHARED 0
#define INCANT_LMEM_WORDS 1
static int incant_init_value(int loc) { return 0; }
static int incant_is_shared(int loc) { return 0; }
static void incant_run_role(int role, __global atomic_int *mem,
                            __local atomic_int *lmem,
                            __global const uint *a, __global int *out,
                            __global atomic_uint *stats) {
  atomic_store_explicit(&mem[a[0]], 1, memory_order_relaxed,
                        memory_scope_device);
}
static void incant_observe(int *v, __global const int *regs,
                           __global atomic_int *mem, __global const uint *a,
                           __global const int *sf) {
  v[0] = atomic_load_explicit(&mem[a[0]], memory_order_relaxed,
                              memory_scope_device);
}
#endif

// Memory stress over the scratchpad: the access sequence, Iters times, at a
// base chosen per work-item so that stressing threads spread over patches.
static int incant_stress(__global atomic_int *scratch, uint base, uint iters) {
  int sink = 0;
  __global atomic_int *p = scratch + base;
  for (uint i = 0; i < iters; ++i) {
    INCANT_STRESS_SEQ(p)
  }
  return sink;
}

__kernel void incant_test(__global atomic_int *mem,
                          __global const int *role_of,
                          __global const int *inst_of,
                          __global const uint *loc_addr,
                          __global int *regs, __global atomic_int *sync,
                          __global atomic_int *scratch, uint scratch_words,
                          __global int *shared_final,
                          __global atomic_uint *stats, uint num_test_groups,
                          uint launch_seed, __local atomic_int *lmem) {
  size_t gid = get_global_id(0);
  int role = role_of[gid];
  int inst = inst_of[gid];
  int sink = 0;
  (void)scratch_words;
  (void)launch_seed;
  (void)num_test_groups;

#if INCANT_NUM_SHARED > 0
  // The first role of each instance initialises its shared locations.
  if (role == 0)
    for (int l = 0; l < INCANT_NUM_LOCS; ++l)
      if (incant_is_shared(l))
        atomic_store_explicit(&lmem[loc_addr[inst * INCANT_NUM_LOCS + l]],
                              incant_init_value(l), memory_order_relaxed,
                              memory_scope_work_group);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#endif

  if (role < 0) {
#ifdef INCANT_MEM_STRESS
    // Work-groups past the testing ones only stress memory.
    if (get_group_id(0) >= num_test_groups)
      sink += incant_stress(scratch,
                            (uint)(get_local_id(0) % INCANT_STRESS_LOCS) * 4u,
                            INCANT_STRESS_ITERATIONS);
#endif
#ifdef INCANT_BANK_CONFLICTS
    // Idle work-items of testing groups hit offset addresses: parallel
    // (one word each), broadcast (all one word) or conflicting (one bank),
    // chosen per launch.
    if (get_group_id(0) < num_test_groups) {
      uint lid = (uint)get_local_id(0), pattern = launch_seed % 3u;
      uint off = pattern == 0 ? lid : pattern == 1 ? 0u : lid * 32u;
      __global atomic_int *p = scratch + (off % (scratch_words / 2u));
      atomic_store_explicit(p, (int)lid, memory_order_relaxed,
                            memory_scope_device);
      sink += atomic_load_explicit(p, memory_order_relaxed,
                                   memory_scope_device);
    }
#endif
  } else {
#ifdef INCANT_PRE_STRESS
    sink += incant_stress(scratch, ((uint)gid % INCANT_STRESS_LOCS) * 4u,
                          INCANT_PRE_STRESS_ITERATIONS);
#endif
#ifdef INCANT_SPIN_BARRIER
    // The roles of an instance meet here. Bounded: work-groups have no
    // forward-progress guarantee, and on a CPU the partner may not run yet.
    atomic_fetch_add_explicit(&sync[inst], 1, memory_order_relaxed,
                              memory_scope_device);
    uint polls = 0;
    while (atomic_load_explicit(&sync[inst], memory_order_relaxed,
                                memory_scope_device) < INCANT_NUM_ROLES &&
           ++polls < INCANT_BARRIER_POLLS)
      ;
    if (polls >= INCANT_BARRIER_POLLS)
      atomic_fetch_add_explicit(&stats[INCANT_STAT_BARRIER_TIMEOUTS], 1u,
                                memory_order_relaxed, memory_scope_device);
#endif
    incant_run_role(role, mem, lmem, loc_addr + inst * INCANT_NUM_LOCS,
                    regs + inst * INCANT_REGS_PER_INSTANCE, stats);
  }

#if INCANT_NUM_SHARED > 0
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (role == 0)
    for (int l = 0; l < INCANT_NUM_LOCS; ++l)
      if (incant_is_shared(l))
        shared_final[inst * INCANT_NUM_LOCS + l] = atomic_load_explicit(
            &lmem[loc_addr[inst * INCANT_NUM_LOCS + l]], memory_order_relaxed,
            memory_scope_work_group);
#endif
  if (sink == 0x7fffffff) // keep the stress loads alive
    atomic_fetch_add_explicit(&stats[INCANT_STAT_SINK], 1u,
                              memory_order_relaxed, memory_scope_device);
}

// Counts one outcome in an open-addressing table keyed by the observed
// values. A slot goes 0 (free) -> 1 (key being written) -> 2 (ready). Every
// wait is bounded; an outcome that cannot be placed is counted as lost.
static void incant_record(const int *v, __global atomic_uint *state,
                          __global int *keys, __global atomic_uint *count,
                          __global atomic_uint *stats) {
  uint h = 2166136261u;
  for (int i = 0; i < INCANT_NUM_OBS; ++i)
    h = (h ^ (uint)v[i]) * 16777619u;
  for (uint probe = 0; probe < INCANT_TABLE_SIZE; ++probe) {
    uint s = (h + probe) & (INCANT_TABLE_SIZE - 1);
    uint st = atomic_load_explicit(&state[s], memory_order_acquire,
                                   memory_scope_device);
    if (st == 0) {
      uint expected = 0;
      if (atomic_compare_exchange_strong_explicit(
              &state[s], &expected, 1u, memory_order_acq_rel,
              memory_order_acquire, memory_scope_device)) {
        for (int i = 0; i < INCANT_NUM_OBS; ++i)
          keys[s * INCANT_NUM_OBS + i] = v[i];
        atomic_store_explicit(&state[s], 2u, memory_order_release,
                              memory_scope_device);
        atomic_fetch_add_explicit(&count[s], 1u, memory_order_relaxed,
                                  memory_scope_device);
        return;
      }
      st = expected;
    }
    for (uint polls = 0; st == 1u && polls < 1000000u; ++polls)
      st = atomic_load_explicit(&state[s], memory_order_acquire,
                                memory_scope_device);
    if (st != 2u)
      break;
    int same = 1;
    for (int i = 0; i < INCANT_NUM_OBS; ++i)
      same &= keys[s * INCANT_NUM_OBS + i] == v[i];
    if (same) {
      atomic_fetch_add_explicit(&count[s], 1u, memory_order_relaxed,
                                memory_scope_device);
      return;
    }
  }
  atomic_fetch_add_explicit(&stats[INCANT_STAT_LOST], 1u,
                            memory_order_relaxed, memory_scope_device);
}

// One work-item per instance: record its outcome (when record != 0), then
// reset its locations and barrier counter for the next launch.
__kernel void incant_collect(__global atomic_int *mem,
                             __global const uint *loc_addr,
                             __global int *regs,
                             __global const int *shared_final,
                             __global atomic_int *sync,
                             __global atomic_uint *table_state,
                             __global int *table_keys,
                             __global atomic_uint *table_count,
                             __global atomic_uint *stats, uint num_instances,
                             uint record) {
  size_t inst = get_global_id(0);
  if (inst >= num_instances)
    return;
  __global const uint *a = loc_addr + inst * INCANT_NUM_LOCS;
  if (record) {
    int v[INCANT_NUM_OBS];
    incant_observe(v, regs + inst * INCANT_REGS_PER_INSTANCE, mem, a,
                   shared_final + inst * INCANT_NUM_LOCS);
    incant_record(v, table_state, table_keys, table_count, stats);
  }
#ifdef INCANT_CUT_SLOT
  // The instance's loop-bound mark is part of its key (the last value):
  // cleared for the next launch.
  regs[inst * INCANT_REGS_PER_INSTANCE + INCANT_CUT_SLOT] = 0;
#endif
  for (int l = 0; l < INCANT_NUM_LOCS; ++l)
    if (!incant_is_shared(l))
      atomic_store_explicit(&mem[a[l]], incant_init_value(l),
                            memory_order_relaxed, memory_scope_device);
  atomic_store_explicit(&sync[inst], 0, memory_order_relaxed,
                        memory_scope_device);
}
