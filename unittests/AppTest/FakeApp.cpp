//===- FakeApp.cpp - A program that fails at a known rate, for tests ------===//
//
// Stands in for a CUDA application in the tests of `incant stress`:
//   incant-fakeapp rate P     exit 1 ("fake: WRONG") when the run's seed
//                             (INCANT_SEED) hashes below P of 100, else 0
//   incant-fakeapp hang       never ends
//   incant-fakeapp crash      dies of SIGSEGV
//   incant-fakeapp exit N     exits with N
//   incant-fakeapp print TEXT prints TEXT, exits 0
//   incant-fakeapp env        prints the INCANT_* variables it was given
// The hash is Support/Hash.h's, so a test can tell which seeds fail.
//
//===----------------------------------------------------------------------===//
#include "incant/Support/Hash.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

extern char **environ;

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  std::string Mode = Argv[1];
  if (Mode == "rate" && Argc == 3) {
    const char *Seed = std::getenv("INCANT_SEED");
    unsigned P = static_cast<unsigned>(std::atoi(Argv[2]));
    bool Wrong = incant::fnv1a64(Seed ? Seed : "") % 100 < P;
    std::printf("fake: %s\n", Wrong ? "WRONG" : "ok");
    return Wrong ? 1 : 0;
  }
  if (Mode == "hang")
    for (;;)
      pause();
  if (Mode == "crash") {
    std::raise(SIGSEGV);
    return 3;
  }
  if (Mode == "exit" && Argc == 3)
    return std::atoi(Argv[2]);
  if (Mode == "print" && Argc == 3) {
    std::printf("%s\n", Argv[2]);
    return 0;
  }
  if (Mode == "env") {
    for (char **E = environ; *E; ++E)
      if (!std::strncmp(*E, "INCANT_", 7) || !std::strncmp(*E, "LD_PRELOAD=", 11))
        std::printf("%s\n", *E);
    return 0;
  }
  return 2;
}
