//===- Memory.cpp - How the C library's malloc hands memory back ----------===//
#include "incant/Support/Memory.h"

#include <cstdlib> // defines __GLIBC__ where it is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace incant {

bool keepFreedMemory() {
#if defined(__GLIBC__)
  // 32 MiB is glibc's largest mmap threshold on 64-bit hosts; setting it
  // also stops the threshold from moving by itself.
  bool Ok = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  Ok &= mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  return Ok;
#else
  return false;
#endif
}

} // namespace incant
