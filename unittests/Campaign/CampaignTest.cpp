//===- CampaignTest.cpp - Test lists, shards and parameter keys -----------===//
#include "incant/Campaign/Campaign.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace incant;
using namespace incant::campaign;
namespace fs = std::filesystem;

namespace {

TEST(Shard, Parses) {
  uint32_t I = 9, N = 9;
  std::string E;
  EXPECT_TRUE(parseShard("0/1", I, N, E));
  EXPECT_EQ(I, 0u);
  EXPECT_EQ(N, 1u);
  EXPECT_TRUE(parseShard("3/4", I, N, E));
  EXPECT_EQ(I, 3u);
  EXPECT_EQ(N, 4u);
  for (const char *Bad : {"4/4", "1/0", "", "/", "1/", "/2", "-1/2", "a/b",
                          "1/2/3", "1 /2", "9999999999/1"}) {
    E.clear();
    EXPECT_FALSE(parseShard(Bad, I, N, E)) << Bad;
    EXPECT_NE(E.find("expected i/N"), std::string::npos) << Bad;
  }
}

TEST(ParamsKey, CanonicalAndComplete) {
  harness::RunParams P;
  std::string K = paramsKey("opencl", P);
  EXPECT_EQ(K, paramsKey("opencl", P));
  EXPECT_NE(K, paramsKey("cuda", P));
  harness::RunParams Q = P;
  Q.Inc.MemStress = true;
  EXPECT_NE(K, paramsKey("opencl", Q));
  Q = P;
  Q.Seed = 2;
  EXPECT_NE(K, paramsKey("opencl", Q));
  Q = P;
  Q.Inc.StressSeq = {{false, 1}};
  EXPECT_NE(K, paramsKey("opencl", Q));
  EXPECT_NE(K.find("\"iterations\":1000"), std::string::npos) << K;
}

TEST(CollectTests, RecursiveSortedUnique) {
  fs::path D = fs::temp_directory_path() /
               ("incant-collect-" + std::to_string(getpid()));
  fs::remove_all(D);
  fs::create_directories(D / "b" / "c");
  for (const char *F :
       {"a.litmus", "b/x.litmus", "b/c/y.litmus", "b/notes.txt"})
    std::ofstream(D / F) << "x";
  std::vector<std::string> Files;
  std::string E;
  ASSERT_TRUE(collectTests({D.string(), (D / "a.litmus").string()}, Files, E))
      << E;
  ASSERT_EQ(Files.size(), 3u);
  EXPECT_EQ(Files[0], (D / "a.litmus").string());
  EXPECT_EQ(Files[1], (D / "b/c/y.litmus").string());
  EXPECT_EQ(Files[2], (D / "b/x.litmus").string());
  EXPECT_FALSE(collectTests({(D / "missing").string()}, Files, E));
  EXPECT_NE(E.find("no such file or folder"), std::string::npos);
  fs::remove_all(D);
}

} // namespace
