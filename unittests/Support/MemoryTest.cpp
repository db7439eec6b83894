#include "incant/Support/Memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define INCANT_OWN_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define INCANT_OWN_MALLOC 1
#endif
#endif

using namespace incant;

TEST(Memory, FreedBlocksStayInTheProcess) {
#if defined(__GLIBC__) && !defined(INCANT_OWN_MALLOC)
  ASSERT_TRUE(keepFreedMemory());
  constexpr size_t Size = 8 << 20; // glibc's default would mmap it
  size_t Mapped = mallinfo2().hblkhd;
  void *volatile P = std::malloc(Size);
  ASSERT_NE(P, nullptr);
  std::memset(P, 1, Size);
  EXPECT_EQ(mallinfo2().hblkhd, Mapped) << "the block was mmap-ed on its own";
  std::free(P);
  EXPECT_GE(mallinfo2().fordblks, Size) << "the freed block was given back";
#else
  GTEST_SKIP() << "not glibc's malloc";
#endif
}
