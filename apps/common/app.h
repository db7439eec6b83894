// The host-side frame every case-study application shares: options, the
// repeat loop, kernel timing, the verdict line and the exit codes.
//
// An application is a struct with
//   static constexpr const char *name;                 // "dot"
//   static constexpr unsigned long long default_size;  // --size default
//   static constexpr const char *size_meaning;         // for --help
//   explicit App(const app::Options &);                // allocate, make input, reference
//   app::Verdict run(app::Timer &);                    // reset, launch (timed), check
// and main() is `return app::main<App>(argc, argv);`.
//
// Output: one line on stdout, "<name>: ok: ...", "<name>: WRONG: ..." or
// "<name>: ERROR: ..."; with --repeat N, also a line for each of the first
// ten wrong runs before the summary line. Exit codes: 0 every run passed its
// post-condition, 1 a run failed it (a wrong result or a wait that passed
// its deadline), 2 a usage, setup or CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device.cuh"

#ifdef APP_NF
#define APP_VARIANT "-nf"
#else
#define APP_VARIANT ""
#endif

namespace app {

inline std::string &program_name() {
  static std::string name;
  return name;
}

// printf-style formatting into a std::string.
inline std::string format(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string s(n > 0 ? n : 0, '\0');
  if (n > 0)
    std::vsnprintf(s.data(), n + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

[[noreturn]] inline void setup_error(const std::string &what) {
  std::printf("%s: ERROR: %s\n", program_name().c_str(), what.c_str());
  std::fflush(stdout);
  std::exit(2);
}

inline void cuda_check(cudaError_t e, const char *call, const char *file,
                       int line) {
  if (e != cudaSuccess) {
    const char *base = std::strrchr(file, '/');
    setup_error(format("%s:%d: %s: %s", base ? base + 1 : file, line, call,
                       cudaGetErrorString(e)));
  }
}
#define APP_CUDA(call) ::app::cuda_check((call), #call, __FILE__, __LINE__)

struct Options {
  unsigned long long size = 0; // the application's unit of work
  unsigned long long repeat = 1;
  unsigned blocks = 0; // 0: the application's default
  unsigned long long seed = 1;
  unsigned timeout_ms = 2000; // deadline of each bounded wait
  int sms = 0;                // filled in: the device's multiprocessors
};

struct Verdict {
  bool ok = true;
  std::string detail;
};
inline Verdict pass(std::string detail) { return {true, std::move(detail)}; }
inline Verdict wrong(std::string detail) { return {false, std::move(detail)}; }

// Times the application's kernels with CUDA events: start() before the
// first launch, stop() after the last; stop() waits for them to finish.
class Timer {
public:
  Timer() {
    APP_CUDA(cudaEventCreate(&begin_));
    APP_CUDA(cudaEventCreate(&end_));
  }
  ~Timer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
  }
  Timer(const Timer &) = delete;
  Timer &operator=(const Timer &) = delete;
  void start() { APP_CUDA(cudaEventRecord(begin_)); }
  void stop() {
    APP_CUDA(cudaGetLastError()); // a launch that did not start
    APP_CUDA(cudaEventRecord(end_));
    APP_CUDA(cudaEventSynchronize(end_));
    APP_CUDA(cudaGetLastError()); // a kernel that faulted
    float ms = 0;
    APP_CUDA(cudaEventElapsedTime(&ms, begin_, end_));
    ms_ += ms;
  }
  float take_ms() {
    float ms = ms_;
    ms_ = 0;
    return ms;
  }

private:
  cudaEvent_t begin_, end_;
  float ms_ = 0;
};

// Device memory of n elements of T, freed with the owner.
template <class T> class DeviceArray {
public:
  DeviceArray() = default;
  explicit DeviceArray(size_t n) : n_(n) {
    APP_CUDA(cudaMalloc(&p_, std::max<size_t>(n, 1) * sizeof(T)));
  }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(DeviceArray &&o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
  DeviceArray &operator=(DeviceArray &&o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  T *get() const { return p_; }
  size_t size() const { return n_; }
  void upload(const std::vector<T> &v) {
    APP_CUDA(cudaMemcpy(p_, v.data(), v.size() * sizeof(T),
                        cudaMemcpyHostToDevice));
  }
  // Elements [first, first + n).
  std::vector<T> download(size_t n, size_t first = 0) const {
    std::vector<T> v(n);
    APP_CUDA(cudaMemcpy(v.data(), p_ + first, n * sizeof(T),
                        cudaMemcpyDeviceToHost));
    return v;
  }
  std::vector<T> download() const { return download(n_); }
  void fill_bytes(int byte) { APP_CUDA(cudaMemset(p_, byte, n_ * sizeof(T))); }

private:
  T *p_ = nullptr;
  size_t n_ = 0;
};

// A deterministic generator for inputs (splitmix64).
class Random {
public:
  explicit Random(unsigned long long seed) : s_(seed) {}
  unsigned long long next() {
    unsigned long long z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0.
  unsigned long long below(unsigned long long n) { return next() % n; }

private:
  unsigned long long s_;
};

// Random 32-bit words from the input generator.
inline std::vector<unsigned> random_words(size_t n, unsigned long long seed) {
  Random rng(seed);
  std::vector<unsigned> v(n);
  for (unsigned &x : v)
    x = static_cast<unsigned>(rng.next());
  return v;
}

// Exits with a setup error unless the device has compute capability 9.0
// or later, which `what` needs (thread-block clusters, bulk copies).
inline void require_sm90(const char *what) {
  int major = 0;
  APP_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                  0));
  if (major < 9)
    setup_error(format("%s need compute capability 9.0", what));
}

// Wrong at the first output that is not the CPU's, naming it and its tile
// of `per_tile` outputs; else a pass with `detail`.
inline Verdict check_outputs(const std::vector<unsigned> &got,
                             const std::vector<unsigned> &expected,
                             size_t per_tile, const std::string &detail) {
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i])
      return wrong(format("output %zu (tile %zu) is %08x, expected %08x", i,
                          i / per_tile, got[i], expected[i]));
  return pass(detail);
}

// One timed launch of a kernel that writes every element of `out` (filled
// first with a pattern no output takes), then every output compared with
// `expected`: the run() of the tiled case studies.
template <class Launch>
Verdict run_checked(Timer &t, DeviceArray<unsigned> &out,
                    const std::vector<unsigned> &expected, size_t per_tile,
                    const std::string &detail, Launch launch) {
  out.fill_bytes(0xff);
  t.start();
  launch();
  t.stop();
  return check_outputs(out.download(), expected, per_tile, detail);
}

// Whole-grid default: enough blocks of `threads` to fill every
// multiprocessor `per_sm` times (or what --blocks asks for).
inline unsigned default_blocks(const Options &o, unsigned per_sm) {
  return o.blocks ? o.blocks : per_sm * static_cast<unsigned>(o.sms);
}

namespace detail {

inline bool parse_number(const char *text, unsigned long long lo,
                         unsigned long long hi, unsigned long long &out) {
  if (!*text || *text == '-' || *text == '+')
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 0);
  if (errno || *end || v < lo || v > hi)
    return false;
  out = v;
  return true;
}

inline void usage(FILE *to, const char *size_meaning,
                  unsigned long long default_size) {
  std::fprintf(
      to,
      "usage: %s [--size N] [--repeat N] [--blocks N] [--seed N] "
      "[--timeout-ms N]\n"
      "  --size N        %s (default %llu)\n"
      "  --repeat N      run the whole computation N times, checking each "
      "(default 1)\n"
      "  --blocks N      grid size (default: the application's choice, "
      "enough to fill every SM)\n"
      "  --seed N        input generator seed (default 1)\n"
      "  --timeout-ms N  deadline of each bounded wait on the GPU "
      "(default 2000)\n"
      "exit status: 0 every run correct, 1 a run wrong or hung, 2 usage, "
      "setup or CUDA error\n",
      program_name().c_str(), size_meaning, default_size);
}

inline Options parse(int argc, char **argv, const char *size_meaning,
                     unsigned long long default_size) {
  Options o;
  o.size = default_size;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      usage(stdout, size_meaning, default_size);
      std::exit(0);
    }
    std::string key = arg, value;
    bool inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    struct Spec {
      const char *key;
      unsigned long long lo, hi;
    };
    static const Spec specs[] = {{"--size", 1, 1ull << 31},
                                 {"--repeat", 1, 1ull << 40},
                                 {"--blocks", 1, 1u << 20},
                                 {"--seed", 0, ~0ull},
                                 {"--timeout-ms", 1, 3600000}};
    const Spec *spec = nullptr;
    for (const Spec &s : specs)
      if (key == s.key)
        spec = &s;
    if (!spec) {
      usage(stderr, size_meaning, default_size);
      setup_error(format("unknown option '%s'", arg.c_str()));
    }
    if (!inline_value) {
      if (i + 1 >= argc)
        setup_error(format("option %s needs a value", key.c_str()));
      value = argv[++i];
    }
    unsigned long long v = 0;
    if (!parse_number(value.c_str(), spec->lo, spec->hi, v))
      setup_error(format("option %s: '%s' is not a number in [%llu, %llu]",
                         key.c_str(), value.c_str(), spec->lo, spec->hi));
    if (key == "--size")
      o.size = v;
    else if (key == "--repeat")
      o.repeat = v;
    else if (key == "--blocks")
      o.blocks = static_cast<unsigned>(v);
    else if (key == "--seed")
      o.seed = v;
    else
      o.timeout_ms = static_cast<unsigned>(v);
  }
  return o;
}

inline float median(std::vector<float> v) {
  if (v.empty())
    return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// What the device-side status says about the last run: nothing (false), or
// a wait that passed its deadline or an impossible state, which explains
// the run better than whatever result it left behind.
inline bool status_verdict(const char *file, unsigned timeout_ms,
                           Verdict &out, bool &hung) {
  Status s{};
  APP_CUDA(cudaMemcpyFromSymbol(&s, app_status, sizeof s));
  hung = s.hang_line != 0;
  if (s.hang_line) {
    out = wrong(format("hang: the wait at %s:%u passed its %u ms deadline",
                       file, s.hang_line, timeout_ms));
    return true;
  }
  if (s.bad_line) {
    out = wrong(format("inconsistent state seen at %s:%u (value %lld)", file,
                       s.bad_line, s.bad_value));
    return true;
  }
  return false;
}

} // namespace detail

template <class App> int main(int argc, char **argv) {
  program_name() = std::string(App::name) + APP_VARIANT;
  Options o = detail::parse(argc, argv, App::size_meaning, App::default_size);

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    setup_error("no CUDA device");
  APP_CUDA(cudaDeviceGetAttribute(&o.sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned long long timeout_ns = o.timeout_ms * 1000000ull;
  APP_CUDA(cudaMemcpyToSymbol(app_timeout_ns, &timeout_ns, sizeof timeout_ns));

  App application(o);
  std::string file = std::string(App::name) + ".cu";
  Timer timer;
  std::vector<float> kernel_ms, wall_ms;
  unsigned long long wrong_runs = 0, hung_runs = 0;
  Verdict first_wrong, last;
  for (unsigned long long r = 0; r < o.repeat; ++r) {
    Status zero{};
    APP_CUDA(cudaMemcpyToSymbol(app_status, &zero, sizeof zero));
    auto t0 = std::chrono::steady_clock::now();
    Verdict v = application.run(timer);
    auto t1 = std::chrono::steady_clock::now();
    bool hung = false;
    detail::status_verdict(file.c_str(), o.timeout_ms, v, hung);
    hung_runs += hung;
    kernel_ms.push_back(timer.take_ms());
    wall_ms.push_back(
        std::chrono::duration<float, std::milli>(t1 - t0).count());
    last = v;
    if (!v.ok) {
      if (wrong_runs == 0)
        first_wrong = v;
      if (++wrong_runs <= 10 && o.repeat > 1)
        std::printf("%s: WRONG (run %llu of %llu): %s\n",
                    program_name().c_str(), r + 1, o.repeat, v.detail.c_str());
    }
  }
  const char *name = program_name().c_str();
  std::string timing =
      format("kernel %.3f ms, run %.3f ms", detail::median(kernel_ms),
             detail::median(wall_ms));
  if (o.repeat == 1) {
    std::printf("%s: %s: %s (%s)\n", name, last.ok ? "ok" : "WRONG",
                last.detail.c_str(), timing.c_str());
  } else if (wrong_runs == 0) {
    std::printf("%s: ok: %llu of %llu runs correct (median %s)\n", name,
                o.repeat, o.repeat, timing.c_str());
  } else {
    std::printf("%s: WRONG: %llu of %llu runs wrong (%llu hung), the first: "
                "%s (median %s)\n",
                name, wrong_runs, o.repeat, hung_runs,
                first_wrong.detail.c_str(), timing.c_str());
  }
  std::fflush(stdout);
  return wrong_runs ? 1 : 0;
}

} // namespace app
