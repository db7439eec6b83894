//===- FindProgram.cpp - Locate the CUDA toolkit's programs ---------------===//
#include "incant/Support/FindProgram.h"

#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace incant {

bool isExecutableFile(const std::string &Path) {
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode) &&
         ::access(Path.c_str(), X_OK) == 0;
}

std::string findCudaProgram(const std::string &Name) {
  std::vector<std::string> Dirs;
  if (const char *P = std::getenv("PATH")) {
    std::string S = P;
    size_t B = 0;
    while (B <= S.size()) {
      size_t E = S.find(':', B);
      if (E == std::string::npos)
        E = S.size();
      if (E > B)
        Dirs.push_back(S.substr(B, E - B));
      B = E + 1;
    }
  }
  if (const char *H = std::getenv("CUDA_HOME"))
    Dirs.push_back(std::string(H) + "/bin");
  Dirs.push_back("/usr/local/cuda/bin");
  for (const std::string &D : Dirs)
    if (isExecutableFile(D + "/" + Name))
      return D + "/" + Name;
  return {};
}

} // namespace incant
