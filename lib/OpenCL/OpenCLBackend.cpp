//===- OpenCLBackend.cpp - Build and launch the OpenCL harness -------------===//
#include "incant/OpenCL/OpenCLBackend.h"
#include "incant/Harness/ParamRanges.h"
#include "incant/Support/OutputFile.h"
#include "CLApi.h"
#include "incant/OpenCL/Codegen.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <random>

namespace incant::opencl {

namespace {

using harness::DeviceInfo;

struct Device {
  cl_platform_id Platform = nullptr;
  cl_device_id Id = nullptr;
  DeviceInfo Info;
  DeviceCaps Caps;
};

std::string deviceString(const CLApi &Api, cl_device_id D, cl_device_info P) {
  size_t N = 0;
  if (Api.clGetDeviceInfo(D, P, 0, nullptr, &N) != CL_SUCCESS || N == 0)
    return "";
  std::string S(N, '\0');
  Api.clGetDeviceInfo(D, P, N, S.data(), nullptr);
  while (!S.empty() && (S.back() == '\0' || S.back() == ' '))
    S.pop_back();
  return S;
}

template <typename T> T deviceValue(const CLApi &Api, cl_device_id D,
                                    cl_device_info P, T Default = T()) {
  T V = Default;
  if (Api.clGetDeviceInfo(D, P, sizeof(T), &V, nullptr) != CL_SUCCESS)
    return Default;
  return V;
}

std::vector<Device> listDevices(const CLApi &Api) {
  std::vector<Device> Out;
  cl_uint NP = 0;
  if (Api.clGetPlatformIDs(0, nullptr, &NP) != CL_SUCCESS || NP == 0)
    return Out;
  std::vector<cl_platform_id> Ps(NP);
  Api.clGetPlatformIDs(NP, Ps.data(), nullptr);
  for (cl_platform_id P : Ps) {
    char PName[256] = {0};
    Api.clGetPlatformInfo(P, CL_PLATFORM_NAME, sizeof(PName) - 1, PName,
                          nullptr);
    cl_uint ND = 0;
    if (Api.clGetDeviceIDs(P, CL_DEVICE_TYPE_ALL, 0, nullptr, &ND) !=
            CL_SUCCESS ||
        ND == 0)
      continue;
    std::vector<cl_device_id> Ds(ND);
    Api.clGetDeviceIDs(P, CL_DEVICE_TYPE_ALL, ND, Ds.data(), nullptr);
    for (cl_device_id D : Ds) {
      Device Dev;
      Dev.Platform = P;
      Dev.Id = D;
      DeviceInfo &I = Dev.Info;
      I.Backend = "opencl";
      I.Index = uint32_t(Out.size());
      I.Name = deviceString(Api, D, CL_DEVICE_NAME);
      I.Vendor = deviceString(Api, D, CL_DEVICE_VENDOR);
      I.Platform = PName;
      I.Version = deviceString(Api, D, CL_DEVICE_VERSION);
      I.Driver = deviceString(Api, D, CL_DRIVER_VERSION);
      auto Type = deviceValue<cl_device_type>(Api, D, CL_DEVICE_TYPE);
      I.IsGPU = Type & CL_DEVICE_TYPE_GPU;
      I.IsCPU = Type & CL_DEVICE_TYPE_CPU;
      I.IsNvidia = I.Vendor.find("NVIDIA") != std::string::npos;
      I.ComputeUnits = deviceValue<cl_uint>(Api, D, CL_DEVICE_MAX_COMPUTE_UNITS);
      I.MaxGroupSize =
          uint32_t(deviceValue<size_t>(Api, D, CL_DEVICE_MAX_WORK_GROUP_SIZE));
      // "OpenCL <major>.<minor> ..."
      unsigned Major = 0, Minor = 0;
      if (std::sscanf(I.Version.c_str(), "OpenCL %u.%u", &Major, &Minor) != 2)
        Major = 0;
      DeviceCaps &C = Dev.Caps;
      cl_device_atomic_capabilities M3 = 0;
      if (Major >= 3) {
        C.CVersion = 300;
        auto M = deviceValue<cl_device_atomic_capabilities>(
            Api, D, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
            CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
        M3 = M;
        C.OrderAcqRel = M & CL_DEVICE_ATOMIC_ORDER_ACQ_REL;
        C.OrderSeqCst = M & CL_DEVICE_ATOMIC_ORDER_SEQ_CST;
        C.ScopeWorkGroup = M & CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
        C.ScopeDevice = M & CL_DEVICE_ATOMIC_SCOPE_DEVICE;
        // The API capability is not enough: PoCL 3.1 reports it while its
        // OpenCL C lacks memory_scope_all_svm_devices (that needs the
        // __opencl_c_atomic_scope_all_devices feature). Device scope orders
        // the same threads, since a test runs on one device.
        C.ScopeAllDevices = false;
      } else if (Major == 2) {
        C.CVersion = 200;
      } else {
        Dev.Info.Usable = false;
      }
      if (!Dev.Info.Usable) {
        I.Notes.push_back("OpenCL 1.x: no C11-style atomics; not usable");
      } else {
        std::string Orders = "relaxed";
        if (C.OrderAcqRel)
          Orders += " acq_rel";
        if (C.OrderSeqCst)
          Orders += " seq_cst";
        std::string Scopes;
        if (C.ScopeWorkGroup)
          Scopes += " work_group";
        if (C.ScopeDevice)
          Scopes += " device";
        if (M3 & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES)
          Scopes += " all_devices (API only; .sys emitted at device scope)";
        I.Notes.push_back(fmt::format("atomics: OpenCL C {}.0, orders {}, "
                                      "scopes{}",
                                      C.CVersion / 100, Orders, Scopes));
        if (!C.ScopeDevice)
          Dev.Info.Usable = false;
      }
      Out.push_back(std::move(Dev));
    }
  }
  return Out;
}

/// The objects of one run, released in reverse order.
struct Session {
  const CLApi &Api;
  cl_context Ctx = nullptr;
  cl_command_queue Q = nullptr;
  cl_program Prog = nullptr;
  cl_kernel Test = nullptr, Collect = nullptr;
  std::vector<cl_mem> Bufs;
  explicit Session(const CLApi &A) : Api(A) {}
  ~Session() {
    if (Q)
      Api.clFinish(Q);
    for (cl_mem M : Bufs)
      Api.clReleaseMemObject(M);
    if (Collect)
      Api.clReleaseKernel(Collect);
    if (Test)
      Api.clReleaseKernel(Test);
    if (Prog)
      Api.clReleaseProgram(Prog);
    if (Q)
      Api.clReleaseCommandQueue(Q);
    if (Ctx)
      Api.clReleaseContext(Ctx);
  }
  cl_mem buffer(size_t Bytes, cl_int &Err) {
    cl_mem M = Api.clCreateBuffer(Ctx, CL_MEM_READ_WRITE,
                                  std::max<size_t>(Bytes, 4), nullptr, &Err);
    if (M)
      Bufs.push_back(M);
    return M;
  }
};

class OpenCLBackend : public harness::Backend {
public:
  const char *name() const override { return "opencl"; }

  bool available(std::string &Why) override {
    return CLApi::get(Why) != nullptr;
  }

  std::vector<DeviceInfo> devices() override {
    std::vector<DeviceInfo> Out;
    for (const Device &D : loaded())
      Out.push_back(D.Info);
    return Out;
  }

  Expected<harness::RunResult> run(const harness::RunRequest &Req,
                                   DiagnosticEngine &Diags) override;

private:
  const std::vector<Device> &loaded() {
    if (!Listed) {
      std::string Why;
      if (const CLApi *Api = CLApi::get(Why))
        Devs = listDevices(*Api);
      Listed = true;
    }
    return Devs;
  }
  bool Listed = false;
  std::vector<Device> Devs;
};

bool check(cl_int Err, const char *What, DiagnosticEngine &Diags) {
  if (Err == CL_SUCCESS)
    return true;
  Diags.error(fmt::format("OpenCL: {} failed: {}", What, errorName(Err)));
  return false;
}

template <typename T>
cl_int setArg(const CLApi &Api, cl_kernel K, cl_uint I, const T &V) {
  return Api.clSetKernelArg(K, I, sizeof(T), &V);
}

/// One run on a device, in named steps: build the harness, lay out the
/// instances, make and clear the buffers, set the kernels' arguments, then
/// the launches (with the outcome table drained now and then) and what
/// the device counted. Each step reports its error to Diags and returns
/// its kind.
class DeviceRun {
public:
  DeviceRun(const CLApi &Api, const Device &Dev, const GeneratedKernel &K,
            const harness::RunRequest &Req, harness::RunResult &Res,
            DiagnosticEngine &Diags)
      : Api(Api), Dev(Dev), K(K), Req(Req), P(*Req.Prog), RP(Req.Params),
        Res(Res), Diags(Diags), S(Api) {}

  std::optional<ErrorKind> build();
  std::optional<ErrorKind> layOut();
  std::optional<ErrorKind> makeBuffers();
  std::optional<ErrorKind> setArgs();
  std::optional<ErrorKind> launchAll();
  std::optional<ErrorKind> readStats();

private:
  bool ok(cl_int Err, const char *What) { return check(Err, What, Diags); }
  bool upload(const harness::Layout &Lay);
  bool collect(cl_uint Record, cl_event *Done = nullptr);
  bool drain();

  static constexpr uint32_t Table = 1024;
  const CLApi &Api;
  const Device &Dev;
  const GeneratedKernel &K;
  const harness::RunRequest &Req;
  const litmus::Program &P;
  const harness::RunParams &RP;
  harness::RunResult &Res;
  DiagnosticEngine &Diags;
  Session S;
  harness::LayoutParams LP;
  std::optional<harness::Layout> L;
  uint32_t N = 0, NumLocs = 1, ScratchWords = 0;
  cl_mem Mem = nullptr, RoleB = nullptr, InstB = nullptr, AddrB = nullptr,
         Regs = nullptr, Sync = nullptr, Scratch = nullptr,
         SharedFinal = nullptr, Stats = nullptr, TState = nullptr,
         TKeys = nullptr, TCount = nullptr;
  size_t CollectLocal = 64, CollectGlobal = 0, TestGlobal = 0, TestLocal = 0;
  uint64_t Launches = 0;
};

/// The context, queue, program and its two kernels.
std::optional<ErrorKind> DeviceRun::build() {
  cl_int Err = CL_SUCCESS;
  S.Ctx = Api.clCreateContext(nullptr, 1, &Dev.Id, nullptr, nullptr, &Err);
  if (!ok(Err, "clCreateContext"))
    return ErrorKind::Device;
  S.Q = Api.clCreateCommandQueueWithProperties(S.Ctx, Dev.Id, nullptr, &Err);
  if (!ok(Err, "clCreateCommandQueueWithProperties"))
    return ErrorKind::Device;
  const char *Src = K.Source.c_str();
  S.Prog = Api.clCreateProgramWithSource(S.Ctx, 1, &Src, nullptr, &Err);
  if (!ok(Err, "clCreateProgramWithSource"))
    return ErrorKind::Device;
  Err = Api.clBuildProgram(S.Prog, 1, &Dev.Id, K.BuildOptions.c_str(),
                           nullptr, nullptr);
  if (Err != CL_SUCCESS) {
    size_t Len = 0;
    Api.clGetProgramBuildInfo(S.Prog, Dev.Id, CL_PROGRAM_BUILD_LOG, 0,
                              nullptr, &Len);
    std::string Log(Len, '\0');
    Api.clGetProgramBuildInfo(S.Prog, Dev.Id, CL_PROGRAM_BUILD_LOG, Len,
                              Log.data(), nullptr);
    Diags.error(fmt::format("OpenCL: the generated kernel did not build ({}); "
                            "this is a bug in incant. Build log:\n{}",
                            errorName(Err), Log));
    return ErrorKind::Internal;
  }
  S.Test = Api.clCreateKernel(S.Prog, "incant_test", &Err);
  if (!ok(Err, "clCreateKernel(incant_test)"))
    return ErrorKind::Device;
  S.Collect = Api.clCreateKernel(S.Prog, "incant_collect", &Err);
  if (!ok(Err, "clCreateKernel(incant_collect)"))
    return ErrorKind::Device;
  return std::nullopt;
}

/// The work-groups the kernel can run, and the instances laid out in them.
std::optional<ErrorKind> DeviceRun::layOut() {
  size_t Multiple = 0, KMax = 0;
  Api.clGetKernelWorkGroupInfo(S.Test, Dev.Id,
                               CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                               sizeof(Multiple), &Multiple, nullptr);
  Api.clGetKernelWorkGroupInfo(S.Test, Dev.Id, CL_KERNEL_WORK_GROUP_SIZE,
                               sizeof(KMax), &KMax, nullptr);
  uint32_t Warp = uint32_t(std::clamp<size_t>(Multiple, 1, 128));
  uint32_t MaxGroup = uint32_t(
      std::min<size_t>(KMax ? KMax : 256, Dev.Info.MaxGroupSize
                                              ? Dev.Info.MaxGroupSize
                                              : 256));
  // A work-group size the device cannot run as given is an error, not a
  // value changed without a word (--group-size 3 used to become 8).
  if (RP.GroupSize && (RP.GroupSize % Warp || RP.GroupSize > MaxGroup)) {
    Diags.error(fmt::format("--group-size {}: this device runs work-groups "
                            "of a multiple of {} work-items, at most {}",
                            RP.GroupSize, Warp, MaxGroup / Warp * Warp));
    return ErrorKind::Input;
  }
  LP = chooseLayout(P, RP, Dev.Info, Warp, MaxGroup);
  std::string LayoutErr;
  L = harness::computeLayout(P, LP, LayoutErr);
  if (!L) {
    Diags.error("cannot lay out the test: " + LayoutErr);
    return ErrorKind::Input;
  }
  N = L->NumInstances;
  NumLocs = std::max<uint32_t>(L->NumLocs, 1);
  if (RP.Instances && N != RP.Instances)
    Res.Device.Notes.push_back(fmt::format(
        "--instances {}: {} per launch (whole rows of work-groups)",
        RP.Instances, N));
  return std::nullopt;
}

/// Every buffer of the harness, zeroed, and the layout uploaded.
std::optional<ErrorKind> DeviceRun::makeBuffers() {
  const uint32_t Obs = K.NumObs;
  ScratchWords = std::max<uint32_t>(RP.Inc.StressLocs, 1) *
                     std::max<uint32_t>(RP.Inc.StressPatch, 1) +
                 8 * 4096;
  const size_t RegWords =
      size_t(N) * std::max<uint32_t>(K.RegsPerInstance, 1);
  cl_int Err = CL_SUCCESS;
  std::vector<std::pair<cl_mem *, size_t>> Sizes = {
      {&Mem, size_t(L->GlobalWords) * 4},
      {&RoleB, size_t(L->numWorkItems()) * 4},
      {&InstB, size_t(L->numWorkItems()) * 4},
      {&AddrB, size_t(N) * NumLocs * 4},
      {&Regs, RegWords * 4},
      {&Sync, size_t(N) * 4},
      {&Scratch, size_t(ScratchWords) * 4},
      {&SharedFinal, size_t(N) * NumLocs * 4},
      {&Stats, 8 * 4},
      {&TState, Table * 4},
      {&TKeys, size_t(Table) * Obs * 4},
      {&TCount, Table * 4}};
  for (auto &[B, Bytes] : Sizes) {
    cl_int E = CL_SUCCESS;
    *B = S.buffer(Bytes, E);
    if (E != CL_SUCCESS)
      Err = E;
  }
  if (!ok(Err, "clCreateBuffer"))
    return ErrorKind::Device;
  const uint32_t Zero = 0;
  for (auto &[B, Bytes] : Sizes)
    if (Bytes && !ok(Api.clEnqueueFillBuffer(S.Q, *B, &Zero, 4, 0, Bytes, 0,
                                             nullptr, nullptr),
                     "clEnqueueFillBuffer"))
      return ErrorKind::Device;
  if (!upload(*L))
    return ErrorKind::Device;
  return std::nullopt;
}

/// The roles, instances and addresses of a layout.
bool DeviceRun::upload(const harness::Layout &Lay) {
  cl_int E1 = Api.clEnqueueWriteBuffer(S.Q, RoleB, CL_TRUE, 0,
                                       Lay.Role.size() * 4, Lay.Role.data(), 0,
                                       nullptr, nullptr);
  cl_int E2 = Api.clEnqueueWriteBuffer(S.Q, InstB, CL_TRUE, 0,
                                       Lay.Instance.size() * 4,
                                       Lay.Instance.data(), 0, nullptr,
                                       nullptr);
  std::vector<uint32_t> Addr = Lay.LocAddr;
  if (Addr.empty())
    Addr.assign(N, 0);
  cl_int E3 = Api.clEnqueueWriteBuffer(S.Q, AddrB, CL_TRUE, 0, Addr.size() * 4,
                                       Addr.data(), 0, nullptr, nullptr);
  return ok(E1 != CL_SUCCESS ? E1 : E2 != CL_SUCCESS ? E2 : E3,
            "clEnqueueWriteBuffer");
}

std::optional<ErrorKind> DeviceRun::setArgs() {
  cl_uint NumTestGroups = L->NumTestGroups;
  cl_uint ScratchW = ScratchWords;
  cl_int Err = setArg(Api, S.Test, 0, Mem);
  Err |= setArg(Api, S.Test, 1, RoleB);
  Err |= setArg(Api, S.Test, 2, InstB);
  Err |= setArg(Api, S.Test, 3, AddrB);
  Err |= setArg(Api, S.Test, 4, Regs);
  Err |= setArg(Api, S.Test, 5, Sync);
  Err |= setArg(Api, S.Test, 6, Scratch);
  Err |= setArg(Api, S.Test, 7, ScratchW);
  Err |= setArg(Api, S.Test, 8, SharedFinal);
  Err |= setArg(Api, S.Test, 9, Stats);
  Err |= setArg(Api, S.Test, 10, NumTestGroups);
  Err |= Api.clSetKernelArg(S.Test, 12,
                            std::max<size_t>(L->SharedWordsPerGroup, 1) * 4,
                            nullptr);
  cl_uint NI = N;
  Err |= setArg(Api, S.Collect, 0, Mem);
  Err |= setArg(Api, S.Collect, 1, AddrB);
  Err |= setArg(Api, S.Collect, 2, Regs);
  Err |= setArg(Api, S.Collect, 3, SharedFinal);
  Err |= setArg(Api, S.Collect, 4, Sync);
  Err |= setArg(Api, S.Collect, 5, TState);
  Err |= setArg(Api, S.Collect, 6, TKeys);
  Err |= setArg(Api, S.Collect, 7, TCount);
  Err |= setArg(Api, S.Collect, 8, Stats);
  Err |= setArg(Api, S.Collect, 9, NI);
  if (!ok(Err, "clSetKernelArg"))
    return ErrorKind::Device;
  CollectGlobal = (size_t(N) + CollectLocal - 1) / CollectLocal * CollectLocal;
  TestGlobal = L->numWorkItems();
  TestLocal = L->GroupSize;
  return std::nullopt;
}

bool DeviceRun::collect(cl_uint Record, cl_event *Done) {
  cl_int E = setArg(Api, S.Collect, 10, Record);
  if (E == CL_SUCCESS)
    E = Api.clEnqueueNDRangeKernel(S.Q, S.Collect, 1, nullptr, &CollectGlobal,
                                   &CollectLocal, 0, nullptr, Done);
  return ok(E, "clEnqueueNDRangeKernel(incant_collect)");
}

/// Reads the outcome table into the histogram and clears it.
bool DeviceRun::drain() {
  const uint32_t Obs = K.NumObs;
  std::vector<uint32_t> St(Table), Cnt(Table);
  std::vector<int32_t> Keys(size_t(Table) * Obs);
  cl_int E = Api.clEnqueueReadBuffer(S.Q, TState, CL_TRUE, 0, Table * 4,
                                     St.data(), 0, nullptr, nullptr);
  E |= Api.clEnqueueReadBuffer(S.Q, TCount, CL_TRUE, 0, Table * 4, Cnt.data(),
                               0, nullptr, nullptr);
  E |= Api.clEnqueueReadBuffer(S.Q, TKeys, CL_TRUE, 0, Keys.size() * 4,
                               Keys.data(), 0, nullptr, nullptr);
  if (!ok(E, "clEnqueueReadBuffer"))
    return false;
  for (uint32_t I = 0; I < Table; ++I) {
    if (St[I] != 2 || Cnt[I] == 0)
      continue;
    // An instance cut by the loop bound did not finish: no outcome.
    if (K.CutSlot >= 0 && Keys[size_t(I) * Obs + Obs - 1] != 0) {
      Res.LoopBoundHits += Cnt[I];
      continue;
    }
    harness::Outcome O;
    for (uint32_t J = 0; J < P.Observe.size(); ++J) {
      int64_t Raw = Keys[size_t(I) * Obs + J];
      const litmus::Observed &Ob = P.Observe[J];
      if (Ob.Thread >= 0) {
        const litmus::Register &R = P.Threads[Ob.Thread].Regs[Ob.Index];
        if (!R.Signed && R.Bits == 32)
          Raw = int64_t(uint32_t(Raw));
      }
      O.push_back(litmus::Value{-1, Raw});
    }
    Res.Hist.add(O, Cnt[I]);
  }
  const uint32_t Zero = 0;
  E = Api.clEnqueueFillBuffer(S.Q, TState, &Zero, 4, 0, Table * 4, 0, nullptr,
                              nullptr);
  E |= Api.clEnqueueFillBuffer(S.Q, TCount, &Zero, 4, 0, Table * 4, 0,
                               nullptr, nullptr);
  return ok(E, "clEnqueueFillBuffer");
}

/// The initial values, then every launch with its collect, the queue kept
/// short (see Marks) and the table drained before it can fill.
std::optional<ErrorKind> DeviceRun::launchAll() {
  if (!collect(0)) // initial values
    return ErrorKind::Device;
  Api.clFinish(S.Q);
  Launches = std::max<uint64_t>(RP.Iterations, 1);
  uint64_t DrainEvery = std::max<uint64_t>(1, (1ull << 31) / N);
  std::mt19937_64 Rng(RP.Seed);
  // At most about 2 * MarkEvery launches queued ahead of the device: the
  // queue's memory stays bounded however many launches a run has, the
  // device never waits for the host, and OnLaunch hears of launches the
  // device finished (an in-order queue: a launch's collect done means
  // every launch before it done).
  constexpr uint64_t MarkEvery = 32;
  struct Marks {
    const CLApi &Api;
    std::deque<std::pair<uint64_t, cl_event>> Q; ///< Launches done, event.
    ~Marks() {
      for (auto &[N, E] : Q)
        Api.clReleaseEvent(E);
    }
    /// Waits for the oldest mark; \p Done: the launches done then.
    cl_int pop(uint64_t &Done) {
      auto [N, E] = Q.front();
      Q.pop_front();
      cl_int R = Api.clWaitForEvents(1, &E);
      Api.clReleaseEvent(E);
      Done = N;
      return R;
    }
  } Mark{Api, {}};
  auto Start = std::chrono::steady_clock::now();
  std::string LayoutErr;
  for (uint64_t It = 0; It < Launches; ++It) {
    if (RP.Inc.Randomise && It > 0) {
      harness::LayoutParams LPr = LP;
      LPr.Seed = Rng();
      LPr.Shuffle = true;
      std::optional<harness::Layout> L2 =
          harness::computeLayout(P, LPr, LayoutErr);
      if (L2 && (!upload(*L2) || !collect(0)))
        return ErrorKind::Device;
    }
    cl_uint LaunchSeed = cl_uint(Rng());
    if (!ok(setArg(Api, S.Test, 11, LaunchSeed), "clSetKernelArg"))
      return ErrorKind::Device;
    if (!ok(Api.clEnqueueNDRangeKernel(S.Q, S.Test, 1, nullptr, &TestGlobal,
                                       &TestLocal, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel(incant_test)"))
      return ErrorKind::Device;
    cl_event Done = nullptr;
    bool Marked = (It + 1) % MarkEvery == 0;
    if (!collect(1, Marked ? &Done : nullptr))
      return ErrorKind::Device;
    if (Marked)
      Mark.Q.emplace_back(It + 1, Done);
    if (Mark.Q.size() > 2) {
      uint64_t Finished = 0;
      if (!ok(Mark.pop(Finished), "clWaitForEvents"))
        return ErrorKind::Device;
      if (Req.OnLaunch)
        Req.OnLaunch(Finished);
    }
    if ((It + 1) % DrainEvery == 0 && !drain())
      return ErrorKind::Device;
  }
  if (!ok(Api.clFinish(S.Q), "clFinish"))
    return ErrorKind::Device;
  if (Launches % DrainEvery != 0 && !drain())
    return ErrorKind::Device;
  Api.clFinish(S.Q);
  Res.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              Start)
                    .count();
  return std::nullopt;
}

/// What the device counted (barrier timeouts, lost instances) and the
/// run's shape.
std::optional<ErrorKind> DeviceRun::readStats() {
  uint32_t St[8] = {0};
  if (!ok(Api.clEnqueueReadBuffer(S.Q, Stats, CL_TRUE, 0, sizeof(St), St, 0,
                                  nullptr, nullptr),
          "clEnqueueReadBuffer"))
    return ErrorKind::Device;
  Res.BarrierTimeouts = St[0];
  // Every testing work-item (one per role of each instance) waits once a
  // launch.
  Res.BarrierWaits =
      RP.Inc.SpinBarrier ? Launches * N * uint64_t(P.Threads.size()) : 0;
  Res.Lost = St[2];
  Res.Launches = Launches;
  Res.InstancesPerLaunch = N;
  Res.Instances = Launches * N;
  Res.Groups = L->NumGroups;
  Res.GroupSize = L->GroupSize;
  Res.WarpSize = L->WarpSize;
  for (const std::string &Note : K.Notes)
    Res.Device.Notes.push_back(Note);
  return std::nullopt;
}

/// --emit: the kernel source written to \p Dir, not run.
Expected<harness::RunResult> emitKernel(const GeneratedKernel &K,
                                        const litmus::Program &P,
                                        const std::string &Dir,
                                        harness::RunResult Res,
                                        DiagnosticEngine &Diags) {
  std::error_code EC;
  std::filesystem::create_directories(Dir, EC);
  std::string Path =
      (std::filesystem::path(Dir) / (safeFileName(P.Name) + ".cl")).string();
  std::string Error;
  if (!writeOutputFile(Path,
                       "// Build options: " + K.BuildOptions + "\n" + K.Source,
                       Error)) {
    Diags.error(EC ? "cannot write '" + Path + "': " + EC.message() : Error);
    return ErrorKind::Input;
  }
  Res.EmittedFiles.push_back(Path);
  return Res;
}

Expected<harness::RunResult>
OpenCLBackend::run(const harness::RunRequest &Req, DiagnosticEngine &Diags) {
  const litmus::Program &P = *Req.Prog;
  const harness::RunParams &RP = Req.Params;
  harness::RunResult Res;
  std::string RangeError;
  if (!harness::checkParams(RP, RangeError)) {
    Diags.error(RangeError);
    return ErrorKind::Input;
  }

  // --emit needs no device: generate for a full OpenCL 3.0 device.
  const Device *Dev = nullptr;
  std::string Why;
  const CLApi *Api = CLApi::get(Why);
  if (Api) {
    const std::vector<Device> &Ds = loaded();
    if (Req.Device < Ds.size())
      Dev = &Ds[Req.Device];
  }
  if (Req.EmitDir.empty()) {
    if (!Api) {
      Diags.error(Why);
      return ErrorKind::Device;
    }
    if (!Dev) {
      Diags.error(fmt::format("no OpenCL device {} (there are {}; see "
                              "`incant devices`)",
                              Req.Device, loaded().size()));
      return ErrorKind::Device;
    }
    if (!Dev->Info.Usable) {
      Diags.error(fmt::format("OpenCL device {} ({}) cannot run litmus tests: "
                              "{}",
                              Req.Device, Dev->Info.Name,
                              Dev->Info.Notes.empty() ? "unsupported"
                                                      : Dev->Info.Notes[0]));
      return ErrorKind::Device;
    }
    Res.Device = Dev->Info;
  }
  DeviceCaps Caps = Dev ? Dev->Caps : DeviceCaps{};
  std::optional<GeneratedKernel> K =
      generateKernel(P, Caps, RP.Inc, RP.LoopBound, Req.File, Diags);
  if (!K)
    return ErrorKind::Input;
  if (!Req.EmitDir.empty())
    return emitKernel(*K, P, Req.EmitDir, std::move(Res), Diags);

  DeviceRun R(*Api, *Dev, *K, Req, Res, Diags);
  for (auto Step : {&DeviceRun::build, &DeviceRun::layOut,
                    &DeviceRun::makeBuffers, &DeviceRun::setArgs,
                    &DeviceRun::launchAll, &DeviceRun::readStats})
    if (std::optional<ErrorKind> Failed = (R.*Step)())
      return *Failed;
  return Res;
}

} // namespace

harness::LayoutParams chooseLayout(const litmus::Program &P,
                                   const harness::RunParams &RP,
                                   const harness::DeviceInfo &Dev,
                                   uint32_t WarpSize, uint32_t MaxGroupSize) {
  harness::LayoutParams LP;
  harness::PlacementShape Shape = harness::placementShape(P);
  LP.WarpSize = std::max<uint32_t>(WarpSize, 1);
  LP.Stride = RP.Stride;
  LP.Seed = RP.Seed;
  // On a CPU the work-items of a work-group run as a loop in local-id
  // order, so partners meet only if every work-group holds its instances in
  // the same order: no slot permutation (thread randomisation still
  // reshuffles per launch when asked).
  LP.Shuffle = !Dev.IsCPU;
  uint32_t Max = std::max<uint32_t>(MaxGroupSize / LP.WarpSize, 1) * LP.WarpSize;
  uint32_t Want = RP.GroupSize ? RP.GroupSize : Dev.IsCPU ? 1024 : 256;
  // Round to a multiple of the warp size, within the device's limit.
  uint32_t G = std::clamp<uint32_t>((Want + LP.WarpSize - 1) / LP.WarpSize *
                                        LP.WarpSize,
                                    LP.WarpSize, Max);
  uint32_t PerRow = harness::instancesPerRow(Shape, G, LP.WarpSize);
  // A profile's work-group size gives way to the smallest that holds one
  // instance (buildLayout names it when even the largest does not).
  while (RP.GroupSizeAtLeast && PerRow == 0 && G + LP.WarpSize <= Max)
    PerRow = harness::instancesPerRow(Shape, G += LP.WarpSize, LP.WarpSize);
  if (RP.Instances && PerRow > RP.Instances && !RP.GroupSize) {
    // Fewer instances than one row holds: shrink the work-groups.
    while (G > LP.WarpSize &&
           harness::instancesPerRow(Shape, G - LP.WarpSize, LP.WarpSize) >=
               RP.Instances)
      G -= LP.WarpSize;
    PerRow = harness::instancesPerRow(Shape, G, LP.WarpSize);
  }
  LP.GroupSize = G;
  if (RP.Instances && PerRow)
    LP.Rows = (RP.Instances + PerRow - 1) / PerRow;
  else
    LP.Rows = Dev.IsCPU ? 1 : std::max<uint32_t>(Dev.ComputeUnits, 1) * 2;
  if (RP.Inc.MemStress)
    LP.StressGroups = RP.Inc.StressGroups
                          ? RP.Inc.StressGroups
                          : Dev.IsCPU ? std::max<uint32_t>(Dev.ComputeUnits, 1)
                                      : LP.Rows * Shape.NumClasses;
  return LP;
}

std::unique_ptr<harness::Backend> createOpenCLBackend() {
  return std::make_unique<OpenCLBackend>();
}

} // namespace incant::opencl
