//===- TempDirTest.cpp - The private temporary folder ---------------------===//
#include "incant/Support/TempDir.h"

#include <fstream>
#include <gtest/gtest.h>

using namespace incant;
namespace fs = std::filesystem;

TEST(TempDir, MadeEmptyAndRemovedWithItsFiles) {
  fs::path Kept;
  {
    TempDir T("incant-test");
    ASSERT_TRUE(T.ok());
    Kept = T.path();
    EXPECT_TRUE(fs::is_directory(Kept));
    EXPECT_TRUE(fs::is_empty(Kept));
    EXPECT_EQ(Kept.filename().string().rfind("incant-test-", 0), 0u);
    std::ofstream(Kept / "f") << "x";
    fs::create_directory(Kept / "sub");
  }
  EXPECT_FALSE(fs::exists(Kept));
}

TEST(TempDir, TwoAreDistinct) {
  TempDir A("incant-test"), B("incant-test");
  ASSERT_TRUE(A.ok() && B.ok());
  EXPECT_NE(A.path(), B.path());
}

// What a signal handler calls before incant ends: every live folder goes,
// with files and nested folders (more entries than one listing read
// returns), and the destructors afterwards find nothing to do.
TEST(TempDir, RemovedFromASignalHandlersCall) {
  TempDir A("incant-test"), B("incant-test");
  ASSERT_TRUE(A.ok() && B.ok());
  for (int I = 0; I < 300; ++I)
    std::ofstream(A.path() / ("file-with-a-long-name-" + std::to_string(I)))
        << I;
  fs::create_directories(B.path() / "one" / "two" / "three");
  std::ofstream(B.path() / "one" / "two" / "three" / "f") << "x";
  removeLiveTempDirs();
  EXPECT_FALSE(fs::exists(A.path()));
  EXPECT_FALSE(fs::exists(B.path()));
}
