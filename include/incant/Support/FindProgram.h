//===- FindProgram.h - Locate the CUDA toolkit's programs ---------*- C++ -*-===//
#ifndef INCANT_SUPPORT_FINDPROGRAM_H
#define INCANT_SUPPORT_FINDPROGRAM_H

#include <string>

namespace incant {

/// Whether \p Path is a regular file this process may execute.
bool isExecutableFile(const std::string &Path);

/// The full path of the program \p Name (nvcc, ptxas, cuobjdump, nvdisasm):
/// $INCANT_<NAME> where that is set ($INCANT_NVCC, $INCANT_PTXAS; "" if it
/// is not an executable), else the first executable found on $PATH, then
/// in $CUDA_HOME/bin, then in /usr/local/cuda/bin; "" if none.
std::string findCudaProgram(const std::string &Name);

} // namespace incant

#endif // INCANT_SUPPORT_FINDPROGRAM_H
