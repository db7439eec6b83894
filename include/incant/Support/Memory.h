//===- Memory.h - How the C library's malloc hands memory back ----*- C++ -*-===//
#ifndef INCANT_SUPPORT_MEMORY_H
#define INCANT_SUPPORT_MEMORY_H

namespace incant {

/// Makes malloc keep the memory the process frees for its next allocations
/// instead of giving large blocks back to the system at each free (glibc:
/// no mmap for blocks under 32 MiB, no trimming of the heaps). For many
/// threads that each allocate and free a compiler's worth of memory (a
/// campaign's NVRTC compiles): giving it back and taking it again costs
/// page faults and, with the threads on many CPUs, a TLB shootdown on every
/// CPU at each munmap. The process keeps its peak use. False where the C
/// library has no such settings.
bool keepFreedMemory();

} // namespace incant

#endif // INCANT_SUPPORT_MEMORY_H
