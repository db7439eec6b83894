//===- OpenCLBackend.h - Litmus tests through OpenCL ------------*- C++ -*-===//
//
// The OpenCL implementation of harness::Backend: any OpenCL 2.0/3.0 device,
// PoCL's CPU device by default on machines without a GPU. The runtime is
// loaded with dlopen on first use; without it, available() says why and
// devices() is empty.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_OPENCL_OPENCLBACKEND_H
#define INCANT_OPENCL_OPENCLBACKEND_H

#include "incant/Harness/Backend.h"
#include "incant/Harness/Layout.h"

#include <memory>

namespace incant::opencl {

std::unique_ptr<harness::Backend> createOpenCLBackend();

/// The launch geometry the backend uses for \p P on a device: explicit
/// RunParams win; otherwise CPU devices get one row of large work-groups
/// (each work-group is one OS thread there, so an instance's roles in
/// different work-groups run concurrently) and GPUs several rows per
/// compute unit.
harness::LayoutParams chooseLayout(const litmus::Program &P,
                                   const harness::RunParams &RP,
                                   const harness::DeviceInfo &Dev,
                                   uint32_t WarpSize, uint32_t MaxGroupSize);

} // namespace incant::opencl

#endif // INCANT_OPENCL_OPENCLBACKEND_H
