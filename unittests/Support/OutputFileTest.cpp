#include "incant/Support/FileLock.h"
#include "incant/Support/OutputFile.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace incant;
namespace fs = std::filesystem;

TEST(OutputFile, SafeFileNames) {
  EXPECT_EQ(safeFileName("MP+cta-global"), "MP+cta-global");
  EXPECT_EQ(safeFileName("a/b c"), "a_b_c");
  EXPECT_EQ(safeFileName(".hidden"), "test.hidden");
  EXPECT_EQ(safeFileName(""), "test");
  std::string Long(5000, 'N');
  std::string S = safeFileName(Long);
  EXPECT_LE(S.size(), 120u);
  EXPECT_NE(S, safeFileName(Long + "x")); // the hash tells them apart
}

TEST(OutputFile, CheckedBeforeTheWork) {
  fs::path Dir = fs::temp_directory_path() /
                 ("incant-output-" + std::to_string(getpid()));
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  std::string E;
  EXPECT_TRUE(checkWritable((Dir / "p.json").string(), E)) << E;
  EXPECT_FALSE(fs::exists(Dir / "p.json")); // the check leaves nothing
  EXPECT_FALSE(checkWritable((Dir / "no" / "p.json").string(), E));
  EXPECT_NE(E.find("No such file or directory"), std::string::npos) << E;
  EXPECT_FALSE(checkWritable(Dir.string(), E));
  EXPECT_NE(E.find("it is a folder"), std::string::npos) << E;
  EXPECT_TRUE(checkWritableDir((Dir / "plots").string(), E)) << E;
  EXPECT_TRUE(fs::is_empty(Dir / "plots"));
  fs::remove_all(Dir);
}

TEST(FileLock, OneWriterAtATime) {
  std::string Path = (fs::temp_directory_path() /
                      ("incant-lock-" + std::to_string(getpid())))
                         .string();
  std::string E;
  auto A = WriterLock::acquire(Path, E);
  ASSERT_TRUE(A) << E;
  EXPECT_FALSE(WriterLock::acquire(Path, E));
  EXPECT_NE(E.find("is being written by another incant process"),
            std::string::npos);
  A.reset();
  EXPECT_FALSE(fs::exists(Path + "-lock"));
  EXPECT_TRUE(WriterLock::acquire(Path, E)) << E;
}
