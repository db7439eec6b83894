//===- DataFilesTest.cpp - Where the shipped data lives -------------------===//
#include "incant/Support/DataFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

using namespace incant;
namespace fs = std::filesystem;

namespace {

std::string sourceDir(const char *Sub) {
  return (fs::path(INCANT_SOURCE_DIR) / Sub).lexically_normal().string();
}

TEST(DataFilesTest, TheSourceTreeIsTheLastRoot) {
  std::vector<std::string> Roots = dataRoots();
  ASSERT_FALSE(Roots.empty());
  EXPECT_EQ(fs::path(Roots.back()).lexically_normal(),
            fs::path(INCANT_SOURCE_DIR).lexically_normal());
}

TEST(DataFilesTest, ModelSearchPathOrder) {
  ::setenv("INCANT_MODELS", "/from/env", 1);
  std::vector<std::string> Dirs = modelSearchPath({"/first", "/second"});
  ::unsetenv("INCANT_MODELS");
  ASSERT_GE(Dirs.size(), 4u);
  EXPECT_EQ(Dirs[0], "/first");
  EXPECT_EQ(Dirs[1], "/second");
  EXPECT_EQ(Dirs[2], "/from/env");
  EXPECT_EQ(Dirs.back(), sourceDir("models"));
  EXPECT_EQ(modelSearchPath({}).back(), sourceDir("models"));
}

TEST(DataFilesTest, FindsTheLibraryAndTheProfiles) {
  // No installed share folder beside a unit test: the source tree's.
  EXPECT_EQ(libraryDir(), sourceDir("litmus"));
  std::vector<std::string> Profiles = shippedProfileFiles();
  EXPECT_NE(std::find(Profiles.begin(), Profiles.end(),
                      sourceDir("profiles/nvidia-h100.json")),
            Profiles.end());
  for (const std::string &P : Profiles)
    EXPECT_EQ(fs::path(P).extension(), ".json") << P;
}

} // namespace
