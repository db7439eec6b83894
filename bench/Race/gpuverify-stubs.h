// GPUVerify's annotation built-ins as no-ops, so that nvcc compiles the
// kernels of its test suite for bench/Race/suites.sh (a measurement aid, not
// part of incant). __requires and the like are dropped: incant then checks
// the kernels under weaker assumptions than GPUVerify (more races, never
// fewer).
#define __requires(x) ((void)0)
#define __ensures(x) ((void)0)
#define __assert(x) ((void)0)
#define __global_assert(x) ((void)0)
#define __assume(x) ((void)0)
#define __invariant(x) ((void)0)
#define __global_invariant(x) ((void)0)
#define __function_wide_invariant(x) ((void)0)
#define __candidate_invariant(x) ((void)0)
#define __axiom(x) static_assert(true, "")
#define __requires_fresh_array(x) ((void)0)
#define __implies(a, b) (!(a) || (b))
#define __enabled() 1
#define __uniform_bool(x) 1
#define __uniform_int(x) 1
#define __distinct_int(x) 1
#define __all(x) 1
#define __other_int(x) (x)
#define __write(x) 0
#define __read(x) 0
#define __no_read(x) 1
#define __no_write(x) 1
#define __write_offset_bytes(x) 0
#define __read_offset_bytes(x) 0
#define __write_implies(a, b) 1
#define __read_implies(a, b) 1
#define __ptr_offset_bytes(x) 0
template <typename T> __device__ T __return_val_int_stub();
#define __return_val_int() 0
#define __return_val_ptr() 0
#define __return_val_funptr(t) 0
#if defined(__cplusplus) && __has_include(<cooperative_groups.h>)
#include <cooperative_groups.h>
template <typename G> __device__ void synchronize(G g) { g.sync(); }
#endif
