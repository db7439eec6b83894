// Device-side pieces every case-study application shares: the one switch
// between the fenced build and the -nf build, and bounded waits.
//
// Each application is built twice from one source: as itself, and with
// -DAPP_NF as "<name>-nf". APP_NF turns every fence below into nothing and
// every release/acquire order into relaxed; nothing else differs. Accesses
// that must stay atomic (locks, flags, counters) stay atomic in both builds:
// -nf removes ordering, not atomicity, as the paper's -nf variants did.
#pragma once

#include <cuda/atomic>

#ifdef APP_NF
#define APP_FENCE() ((void)0)
#define APP_FENCE_RELEASE() ((void)0)
#define APP_FENCE_ACQUIRE() ((void)0)
#define APP_RELEASE cuda::memory_order_relaxed
#define APP_ACQUIRE cuda::memory_order_relaxed
#else
// __threadfence(): fence.sc.gpu (membar.gl), orders everything both ways.
#define APP_FENCE() __threadfence()
// One-sided fences at device scope (fence.acq_rel.gpu).
#define APP_FENCE_RELEASE()                                                    \
  cuda::atomic_thread_fence(cuda::memory_order_release,                        \
                            cuda::thread_scope_device)
#define APP_FENCE_ACQUIRE()                                                    \
  cuda::atomic_thread_fence(cuda::memory_order_acquire,                        \
                            cuda::thread_scope_device)
#define APP_RELEASE cuda::memory_order_release
#define APP_ACQUIRE cuda::memory_order_acquire
#endif

namespace app {

// Written by the kernels when a run cannot finish correctly; read by the
// host frame (app.h) after each run, which names the source line.
struct Status {
  unsigned hang_line; // a bounded wait passed its deadline here
  unsigned bad_line;  // a state no correct run can reach was seen here
  long long bad_value;
};
__device__ Status app_status;
__constant__ unsigned long long app_timeout_ns;

__device__ inline unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ inline bool run_failed() {
  const volatile Status &s = app_status;
  return s.hang_line != 0 || s.bad_line != 0;
}

// Records an impossible state (an index out of range, a full queue) so that
// the run stops and is reported wrong instead of faulting or hanging.
__device__ inline void report_bad(unsigned line, long long value) {
  if (atomicCAS(&app_status.bad_line, 0u, line) == 0u)
    app_status.bad_value = value;
}
#define APP_BAD(value) ::app::report_bad(__LINE__, (long long)(value))

// A bounded wait: `while (!ready) if (!wait.more()) return;`. more() is
// false once the wait passed the deadline (--timeout-ms; the run is then
// reported as hung at this line) or once another wait of the run did.
class Wait {
public:
  __device__ explicit Wait(unsigned line) : line_(line), start_(globaltimer()) {}
  __device__ bool more() {
    if ((++polls_ & 127u) != 0)
      return true;
    if (run_failed())
      return false;
    if (globaltimer() - start_ > app_timeout_ns) {
      atomicCAS(&app_status.hang_line, 0u, line_);
      return false;
    }
    return true;
  }
  // Progress was made: the deadline counts from now.
  __device__ void restart() { start_ = globaltimer(); }

private:
  unsigned line_;
  unsigned polls_ = 0;
  unsigned long long start_;
};
#define APP_WAIT(name) ::app::Wait name(__LINE__)

__device__ inline unsigned load_volatile(const unsigned *p) {
  return *static_cast<const volatile unsigned *>(p);
}
__device__ inline int load_volatile(const int *p) {
  return *static_cast<const volatile int *>(p);
}
__device__ inline unsigned long long
load_volatile(const unsigned long long *p) {
  return *static_cast<const volatile unsigned long long *>(p);
}
template <class T> __device__ inline void store_volatile(T *p, T v) {
  *static_cast<volatile T *>(p) = v;
}

} // namespace app
