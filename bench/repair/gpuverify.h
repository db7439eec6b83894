/* GPUVerify's specification functions as no-ops, so that the kernels of
 * GPUVerify's and GPURepair's test suites compile with nvcc and clang
 * (bench/repair/gpurepair_suite.py passes this file with -include, after
 * cooperative_groups.h and curand_kernel.h where a kernel uses them). The
 * annotations state what the verifier should assume or prove; incant
 * ignores them. __equal_floats and __spec_NAME are not here: the kernels
 * that use them define them. */
#ifndef INCANT_BENCH_GPUVERIFY_H
#define INCANT_BENCH_GPUVERIFY_H
#define __requires(...) ((void)0)
#define __global_requires(...) ((void)0)
#define __ensures(...) ((void)0)
#define __assert(...) ((void)0)
#define __global_assert(...) ((void)0)
#define __assume(...) ((void)0)
#define __invariant(...) ((void)0)
#define __global_invariant(...) ((void)0)
#define __candidate_invariant(...) ((void)0)
#define __candidate_global_invariant(...) ((void)0)
#define __function_wide_invariant(...) ((void)0)
#define __function_wide_candidate_invariant(...) ((void)0)
#define __requires_fresh_array(...) ((void)0)
#define __global_ensures(...) ((void)0)
#define __barrier_invariant_1(...) ((void)0)
#define __barrier_invariant_2(...) ((void)0)
#define __barrier_invariant_3(...) ((void)0)
#define __barrier_invariant_4(...) ((void)0)
#define __barrier_invariant_5(...) ((void)0)
#define __barrier_invariant_6(...) ((void)0)
#define __barrier_invariant_7(...) ((void)0)
#define __barrier_invariant_8(...) ((void)0)
#define __barrier_invariant_9(...) ((void)0)
#define __barrier_invariant_10(...) ((void)0)
#define __barrier_invariant_11(...) ((void)0)
#define __barrier_invariant_12(...) ((void)0)
#define __barrier_invariant_13(...) ((void)0)
#define __barrier_invariant_14(...) ((void)0)
#define __barrier_invariant_15(...) ((void)0)
#define __barrier_invariant_16(...) ((void)0)
#define __barrier_invariant_17(...) ((void)0)
#define __barrier_invariant_18(...) ((void)0)
#define __barrier_invariant_19(...) ((void)0)
#define __barrier_invariant_20(...) ((void)0)
#define __barrier_invariant_binary_1(...) ((void)0)
#define __barrier_invariant_binary_2(...) ((void)0)
/* Permissions and ghost copies of the barrier invariants. */
#define __read_permission(...) ((void)0)
#define __write_permission(...) ((void)0)
#define __array_snapshot(...) ((void)0)
/* Additions GPUVerify assumes do not overflow: the sum. */
#define __add_noovfl_int(a, b) ((a) + (b))
#define __add_noovfl_unsigned_int(a, b) ((a) + (b))
#define __read_offset_bytes(...) 0
#define __write_offset_bytes(...) 0
#define __read(...) 0
#define __write(...) 0
#define __no_read(...) 1
#define __no_write(...) 1
#define __read_implies(...) 1
#define __write_implies(...) 1
#define __uniform_int(x) (x)
#define __uniform_bool(x) (x)
#define __distinct_int(x) (x)
#define __other_int(x) (x)
#define __old_int(x) (x)
#define __return_val_int() 0
#define __implies(a, b) (!(a) || (b))
#define __ite(c, a, b) ((c) ? (a) : (b))
#define __enabled() 1
#ifdef __OPENCL_C_VERSION__
/* The reads and writes through a pointer that a specification function
 * (__spec_NAME, the kernel's own) claims: calls of functions without a
 * body, whose accesses incant does not follow (their pairs stay unknown,
 * naming the call), never nothing. */
void __gpuverify_reads_from(const void *p);
void __gpuverify_writes_to(const void *p);
#define __reads_from(p) __gpuverify_reads_from(p)
#define __writes_to(p) __gpuverify_writes_to(p)
#endif
#ifdef __CUDACC__
/* The warp shuffles without _sync of the CUDA the samples were written
 * for (removed for sm_70 and later): the _sync forms on the threads
 * active at the call, as they behaved. */
#define __shfl(...) __shfl_sync(__activemask(), __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(__activemask(), __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(__activemask(), __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(__activemask(), __VA_ARGS__)
#endif
#ifdef _COOPERATIVE_GROUPS_H_
/* GPUVerify's cooperative groups of 2019: synchronize(g) is g.sync(). */
namespace cooperative_groups {
template <class Group> __device__ inline void synchronize(Group &g) { g.sync(); }
}
#endif
#endif
