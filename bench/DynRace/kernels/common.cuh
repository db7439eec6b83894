// Shared by the benchmark kernels of bench/DynRace: a checked CUDA call and
// the command line (blocks, threads per block), nothing else.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(X)                                                               \
  do {                                                                         \
    cudaError_t E_ = (X);                                                      \
    if (E_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(E_));                                    \
      std::exit(3);                                                            \
    }                                                                          \
  } while (0)

/// argv: [blocks [threads]]; defaults as given.
inline void geometry(int argc, char **argv, int &Blocks, int &Threads) {
  if (argc > 1)
    Blocks = std::atoi(argv[1]);
  if (argc > 2)
    Threads = std::atoi(argv[2]);
  if (Blocks < 1 || Threads < 1 || Threads > 1024) {
    std::fprintf(stderr, "usage: %s [blocks [threads<=1024]]\n", argv[0]);
    std::exit(2);
  }
}
