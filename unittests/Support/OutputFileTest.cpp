#include "incant/Support/FileLock.h"
#include "incant/Support/OutputFile.h"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
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

namespace {

/// A fresh folder of this test's own, removed at the end.
struct Scratch {
  fs::path Dir = fs::temp_directory_path() /
                 ("incant-outputs-" + std::to_string(getpid()));
  Scratch() {
    fs::remove_all(Dir);
    fs::create_directories(Dir);
  }
  ~Scratch() { fs::remove_all(Dir); }
  std::string operator/(const char *Name) const { return (Dir / Name).string(); }
};

std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

/// /dev/null stays the character device the whole machine reads: a test
/// that replaced it would break every later program (none here writes it).
void expectDevNullIntact() {
  struct stat St;
  ASSERT_EQ(::stat("/dev/null", &St), 0);
  EXPECT_TRUE(S_ISCHR(St.st_mode)) << "/dev/null is no longer a device";
}

} // namespace

TEST(OutputFile, AnOutputThatIsAnInputIsRefused) {
  Scratch S;
  std::string In = S / "k.ptx", Link = S / "link.ptx", Hard = S / "hard.ptx";
  std::ofstream(In) << "input";
  fs::create_symlink(In, Link);
  fs::create_hard_link(In, Hard);
  std::string E;
  for (const std::string &Out : {In, Link, Hard, S / "./k.ptx"}) {
    EXPECT_FALSE(checkOutputs({Out}, {In}, E)) << Out;
    EXPECT_NE(E.find("is the input '" + In + "'"), std::string::npos) << E;
    EXPECT_NE(E.find("'" + Out + "'"), std::string::npos) << E;
  }
  // Two outputs naming one file, and either order of the names.
  EXPECT_FALSE(checkOutputs({S / "a", S / "a"}, {In}, E));
  EXPECT_NE(E.find("are the same file"), std::string::npos) << E;
  EXPECT_FALSE(checkOutputs({"", Link}, {S / "other", Hard}, E));
  // Other files, stdout ("-"), empty (not given) and new files pass; the
  // input is untouched.
  EXPECT_TRUE(checkOutputs({S / "new.ptx", "-", ""}, {In}, E)) << E;
  EXPECT_FALSE(fs::exists(S / "new.ptx"));
  EXPECT_EQ(slurp(In), "input");
  // A character device may be both (reading /dev/null, writing it).
  EXPECT_TRUE(checkOutputs({"/dev/null"}, {"/dev/null"}, E)) << E;
  expectDevNullIntact();
}

TEST(OutputFile, RegularFilesAreReplacedWhole) {
  Scratch S;
  std::string Out = S / "out.txt", Link = S / "link.txt";
  std::ofstream(Out) << "old contents, longer than the new";
  ::chmod(Out.c_str(), 0640);
  fs::create_symlink(Out, Link);
  std::string E;
  ASSERT_TRUE(writeOutputFile(Link, "new", E)) << E;
  // Through the link: the link stays, the file it names holds the text
  // and keeps its permissions; no temporary file is left.
  EXPECT_TRUE(fs::is_symlink(Link));
  EXPECT_EQ(slurp(Out), "new");
  EXPECT_EQ(fs::status(Out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write |
                fs::perms::group_read);
  ASSERT_TRUE(writeOutputFile(S / "fresh.txt", "x", E)) << E;
  EXPECT_EQ(slurp(S / "fresh.txt"), "x");
  ASSERT_TRUE(writeOutputFile(Out, "+more", E, /*Append=*/true)) << E;
  EXPECT_EQ(slurp(Out), "new+more");
  size_t Files = 0;
  for (const auto &Entry : fs::directory_iterator(S.Dir)) {
    (void)Entry;
    ++Files;
  }
  EXPECT_EQ(Files, 3u); // out.txt, link.txt, fresh.txt
  EXPECT_FALSE(writeOutputFile(S / "no/such/dir.txt", "x", E));
  EXPECT_NE(E.find("cannot write"), std::string::npos) << E;
}

TEST(OutputFile, APipeIsWrittenInPlace) {
  Scratch S;
  std::string Fifo = S / "fifo";
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  std::string Got;
  std::thread Reader([&] { Got = slurp(Fifo); });
  std::string E;
  EXPECT_TRUE(writeOutputFile(Fifo, "through the pipe", E)) << E;
  Reader.join();
  EXPECT_EQ(Got, "through the pipe");
  struct stat St;
  ASSERT_EQ(::stat(Fifo.c_str(), &St), 0);
  EXPECT_TRUE(S_ISFIFO(St.st_mode)); // still a pipe, never a file
  expectDevNullIntact();
}

TEST(OutputFile, AFullDeviceIsAnError) {
  struct stat St;
  if (::stat("/dev/full", &St) != 0 || !S_ISCHR(St.st_mode))
    GTEST_SKIP() << "no /dev/full here";
  std::string E;
  EXPECT_FALSE(writeOutputFile("/dev/full", "x", E));
  EXPECT_NE(E.find("cannot write '/dev/full'"), std::string::npos) << E;
  EXPECT_NE(E.find("No space left on device"), std::string::npos) << E;
  ASSERT_EQ(::stat("/dev/full", &St), 0);
  EXPECT_TRUE(S_ISCHR(St.st_mode));
}

TEST(OutputFile, StandardOutputOnAFullDeviceIsAnError) {
  // In a child, so that this process's own stdout is left alone.
  pid_t Pid = ::fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    int Fd = ::open("/dev/full", O_WRONLY);
    if (Fd < 0)
      ::_exit(3);
    ::dup2(Fd, 1);
    std::cout << "lost";
    std::string E;
    bool Ok = finishStandardOutput(E);
    ::_exit(!Ok && E.find("cannot write the standard output") == 0 ? 0 : 1);
  }
  int Status = 0;
  ASSERT_EQ(::waitpid(Pid, &Status, 0), Pid);
  ASSERT_TRUE(WIFEXITED(Status));
  if (WEXITSTATUS(Status) == 3)
    GTEST_SKIP() << "no /dev/full here";
  EXPECT_EQ(WEXITSTATUS(Status), 0);
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
