// cupti_probe.cpp - the CUPTI way in, for comparison (bench/intercept).
//
// A library for CUDA_INJECTION64_PATH: the driver calls
// InitializeInjection(), which subscribes to the launch entry points and to
// module loads (where it scans the cubin for incant units, as the
// LD_PRELOAD library scans images). It counts what it sees and prints the
// counts at exit; launches.cu measures what the callbacks cost per launch.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

static CUpti_SubscriberHandle Sub;
static std::atomic<long> Launches{0}, Modules{0}, Units{0};

static void scan(const char *P, size_t N) {
  const char Prefix[] = "__incant_unit_";
  for (size_t I = 0; I + sizeof Prefix < N; ++I)
    if (!std::memcmp(P + I, Prefix, sizeof Prefix - 1))
      ++Units;
}

static void CUPTIAPI callback(void *, CUpti_CallbackDomain Dom,
                              CUpti_CallbackId Id, const void *Data) {
  if (Dom == CUPTI_CB_DOMAIN_DRIVER_API) {
    auto *D = static_cast<const CUpti_CallbackData *>(Data);
    if (D->callbackSite == CUPTI_API_ENTER)
      ++Launches;
  } else if (Dom == CUPTI_CB_DOMAIN_RESOURCE &&
             Id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    auto *R = static_cast<const CUpti_ResourceData *>(Data);
    auto *M = static_cast<CUpti_ModuleResourceData *>(R->resourceDescriptor);
    ++Modules;
    if (M && M->pCubin)
      scan(M->pCubin, M->cubinSize);
  }
}

static void report() {
  std::fprintf(stderr, "cupti_probe: %ld launches, %ld modules, %ld unit names\n",
               Launches.load(), Modules.load(), Units.load());
}

extern "C" int InitializeInjection() {
  if (cuptiSubscribe(&Sub, callback, nullptr) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "cupti_probe: cuptiSubscribe failed\n");
    return 0;
  }
  for (CUpti_CallbackId Id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz})
    cuptiEnableCallback(1, Sub, CUPTI_CB_DOMAIN_DRIVER_API, Id);
  cuptiEnableCallback(1, Sub, CUPTI_CB_DOMAIN_RESOURCE,
                      CUPTI_CBID_RESOURCE_MODULE_LOADED);
  std::atexit(report);
  return 1;
}
