//===- FindProgram.cpp - Locate the CUDA toolkit's programs ---------------===//
#include "incant/Support/FindProgram.h"
#include "incant/Support/Process.h"

#include <cctype>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace incant {

bool isExecutableFile(const std::string &Path) {
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode) &&
         ::access(Path.c_str(), X_OK) == 0;
}

std::string findCudaProgram(const std::string &Name) {
  // $INCANT_NVCC, $INCANT_PTXAS, ... name the program explicitly (tests
  // set one to a missing path).
  std::string Var = "INCANT_";
  for (char C : Name)
    Var += static_cast<char>(std::toupper(static_cast<unsigned char>(C)));
  if (const char *Given = std::getenv(Var.c_str()))
    return isExecutableFile(Given) ? std::string(Given) : std::string();
  std::string Dirs;
  if (const char *P = std::getenv("PATH"))
    Dirs = P;
  if (const char *H = std::getenv("CUDA_HOME"))
    Dirs += std::string(":") + H + "/bin";
  Dirs += ":/usr/local/cuda/bin";
  return findOnPath(Name, Dirs);
}

} // namespace incant
