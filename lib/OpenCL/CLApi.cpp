//===- CLApi.cpp - dlopen the OpenCL ICD loader -----------------------------===//
#include "CLApi.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace incant::opencl {

const CLApi *CLApi::get(std::string &Why) {
  static CLApi Api;
  static std::string Error;
  static std::once_flag Once;
  static bool Ok = false;
  std::call_once(Once, [] {
    // PoCL's CPU driver: pin its worker threads to cores. Unpinned, the two
    // work-groups holding an instance's roles were mostly run one after the
    // other on a 2-core machine and SB's weak outcome almost never showed
    // (docs/run.md). A user's own setting wins.
    setenv("POCL_AFFINITY", "1", /*overwrite=*/0);
    void *H = nullptr;
    for (const char *Name : {"libOpenCL.so.1", "libOpenCL.so"})
      if ((H = dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!H) {
      const char *E = dlerror();
      Error = "cannot load the OpenCL runtime (libOpenCL.so.1): " +
              std::string(E ? E : "not found") +
              "; install an OpenCL ICD loader and driver (e.g. Debian's "
              "ocl-icd-libopencl1 and pocl-opencl-icd)";
      return;
    }
#define INCANT_CL_LOAD(Name)                                                   \
  Api.Name = reinterpret_cast<decltype(&::Name)>(dlsym(H, #Name));             \
  if (!Api.Name) {                                                             \
    Error = "the OpenCL runtime lacks " #Name;                                 \
    return;                                                                    \
  }
    INCANT_CL_FUNCTIONS(INCANT_CL_LOAD)
#undef INCANT_CL_LOAD
    Ok = true;
  });
  if (!Ok) {
    Why = Error;
    return nullptr;
  }
  return &Api;
}

const char *errorName(cl_int Err) {
  switch (Err) {
#define E(N)                                                                   \
  case N:                                                                      \
    return #N;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE)
    E(CL_INVALID_PLATFORM) E(CL_INVALID_CONTEXT) E(CL_INVALID_COMMAND_QUEUE)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS)
    E(CL_INVALID_PROGRAM) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
    E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
    E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_GLOBAL_WORK_SIZE)
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
#undef E
  default:
    return "unknown OpenCL error";
  }
}

} // namespace incant::opencl
