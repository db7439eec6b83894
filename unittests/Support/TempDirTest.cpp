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
