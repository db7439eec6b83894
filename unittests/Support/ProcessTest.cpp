//===- ProcessTest.cpp - The process runner -------------------------------===//
#include "incant/Support/Process.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace incant;
using St = ProcessResult::Status;

namespace {

ProcessResult sh(const std::string &Script, ProcessOptions O = {}) {
  O.Argv = {"/bin/sh", "-c", Script};
  return runProcess(O);
}

/// Whether a process is gone (no such pid, or a zombie waiting for init).
bool gone(pid_t Pid) {
  std::ifstream Stat("/proc/" + std::to_string(Pid) + "/stat");
  if (!Stat)
    return true;
  std::string Line;
  std::getline(Stat, Line);
  size_t Paren = Line.rfind(')');
  return Paren == std::string::npos || Paren + 2 >= Line.size() ||
         Line[Paren + 2] == 'Z';
}

TEST(ProcessTest, CapturesBothStreamsApartAndTheExitCode) {
  ProcessResult R = sh("echo out; echo err >&2; exit 3");
  ASSERT_EQ(R.St, St::Exited) << R.describe();
  EXPECT_EQ(R.ExitCode, 3);
  EXPECT_FALSE(R.succeeded());
  EXPECT_EQ(R.Out, "out\n");
  EXPECT_EQ(R.Err, "err\n");
  EXPECT_EQ(R.describe(), "exit code 3");
}

TEST(ProcessTest, ArgumentsReachTheProgramUnchangedWithNoShell) {
  ProcessResult R =
      runProcess({"printf", "%s|", "a b", "$HOME", "'q'", "*", ""});
  ASSERT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(R.Out, "a b|$HOME|'q'|*||");
}

TEST(ProcessTest, BareNamesAreFoundOnPath) {
  ProcessResult R = runProcess({"true"});
  EXPECT_TRUE(R.succeeded()) << R.describe();
  EXPECT_TRUE(R.started());
}

TEST(ProcessTest, AMissingProgramDoesNotStart) {
  ProcessResult R = runProcess({"incant-no-such-program"});
  EXPECT_EQ(R.St, St::NotStarted);
  EXPECT_FALSE(R.started());
  EXPECT_EQ(R.Error, "incant-no-such-program: not found on PATH");
  EXPECT_EQ(R.describe(), R.Error);

  R = runProcess({"/nonexistent/prog"});
  EXPECT_EQ(R.St, St::NotStarted);
  EXPECT_EQ(R.Error, "/nonexistent/prog: No such file or directory");

  R = runProcess({"/tmp"});
  EXPECT_EQ(R.St, St::NotStarted);
  EXPECT_EQ(R.Error, "/tmp: Permission denied");

  R = runProcess(std::vector<std::string>{});
  EXPECT_EQ(R.St, St::NotStarted);
}

TEST(ProcessTest, ReportsTheSignalThatEndedIt) {
  ProcessResult R = sh("kill -SEGV $$");
  ASSERT_EQ(R.St, St::Signaled) << R.describe();
  EXPECT_EQ(R.Signal, SIGSEGV);
  EXPECT_EQ(R.describe(), "killed by signal 11 (SIGSEGV)");
}

TEST(ProcessTest, MergesStderrIntoStdoutInOrder) {
  ProcessOptions O;
  O.Stderr = OutputMode::ToStdout;
  ProcessResult R = sh("echo a; echo b >&2; echo c", O);
  ASSERT_TRUE(R.succeeded());
  EXPECT_EQ(R.Out, "a\nb\nc\n");
  EXPECT_EQ(R.Err, "");
}

TEST(ProcessTest, DiscardsStreams) {
  ProcessOptions O;
  O.Stdout = OutputMode::Discard;
  ProcessResult R = sh("echo a; echo b >&2", O);
  ASSERT_TRUE(R.succeeded());
  EXPECT_EQ(R.Out, "");
  EXPECT_EQ(R.Err, "b\n");
}

TEST(ProcessTest, StdinIsEmptyUnlessGiven) {
  // cat would wait for ever on an inherited terminal; it reads end of file.
  ProcessResult R = runProcess({"cat"});
  ASSERT_TRUE(R.succeeded());
  EXPECT_EQ(R.Out, "");

  ProcessOptions O;
  O.Argv = {"cat"};
  O.Input = std::string("line 1\nline 2\n") + std::string(300000, 'x');
  R = runProcess(O);
  ASSERT_TRUE(R.succeeded());
  EXPECT_EQ(R.Out, *O.Input);
}

TEST(ProcessTest, LargeOutputsOnBothStreamsDoNotDeadlock) {
  // 3 MB on stderr first, then 3 MB on stdout: far more than a pipe holds,
  // so reading one stream at a time would block both sides.
  ProcessResult R = sh("head -c 3000000 /dev/zero >&2; "
                       "head -c 3000000 /dev/zero");
  ASSERT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(R.Out.size(), 3000000u);
  EXPECT_EQ(R.Err.size(), 3000000u);
}

TEST(ProcessTest, OutputBeyondTheLimitIsReadAndDropped) {
  ProcessOptions O;
  O.MaxOutputBytes = 1000;
  ProcessResult R = sh("head -c 500000 /dev/zero; echo tail >&2", O);
  ASSERT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(R.Out.size(), 1000u);
  EXPECT_TRUE(R.OutTruncated);
  EXPECT_EQ(R.Err, "tail\n");
  EXPECT_FALSE(R.ErrTruncated);
}

TEST(ProcessTest, EnvironmentCanBeSetEditedOrReplaced) {
  ::setenv("INCANT_PROCESS_TEST_A", "inherited", 1);
  ::setenv("INCANT_PROCESS_TEST_B", "removed", 1);
  ProcessOptions O;
  O.SetEnv = {{"INCANT_PROCESS_TEST_C", "set"},
              {"INCANT_PROCESS_TEST_A", "overridden"}};
  O.UnsetEnv = {"INCANT_PROCESS_TEST_B"};
  ProcessResult R =
      sh("echo \"$INCANT_PROCESS_TEST_A,${INCANT_PROCESS_TEST_B-unset},"
         "$INCANT_PROCESS_TEST_C\"",
         O);
  ASSERT_TRUE(R.succeeded());
  EXPECT_EQ(R.Out, "overridden,unset,set\n");

  ProcessOptions Empty;
  Empty.Argv = {"/usr/bin/env"};
  Empty.InheritEnv = false;
  Empty.SetEnv = {{"ONLY", "this"}};
  R = runProcess(Empty);
  ASSERT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(R.Out, "ONLY=this\n");

  ProcessOptions Bad;
  Bad.Argv = {"true"};
  Bad.SetEnv = {{"A=B", "x"}};
  EXPECT_EQ(runProcess(Bad).St, St::NotStarted);
  ::unsetenv("INCANT_PROCESS_TEST_A");
  ::unsetenv("INCANT_PROCESS_TEST_B");
}

TEST(ProcessTest, ABareNameIsLookedUpOnTheChildsPath) {
  std::string Dir = ::testing::TempDir() + "incant-process-path";
  ::mkdir(Dir.c_str(), 0755);
  std::string Prog = Dir + "/incant-hello";
  {
    std::ofstream F(Prog);
    F << "#!/bin/sh\necho hello from path\n";
  }
  ::chmod(Prog.c_str(), 0755);
  ProcessOptions O;
  O.Argv = {"incant-hello"};
  EXPECT_EQ(runProcess(O).St, St::NotStarted);
  O.SetEnv = {{"PATH", "/nonexistent:" + Dir}};
  ProcessResult R = runProcess(O);
  ASSERT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(R.Out, "hello from path\n");
  ::unlink(Prog.c_str());
  ::rmdir(Dir.c_str());
}

TEST(ProcessTest, RunsInTheWorkingDirectory) {
  ProcessOptions O;
  O.Argv = {"pwd"};
  O.WorkingDir = "/";
  ProcessResult R = runProcess(O);
  ASSERT_TRUE(R.succeeded());
  EXPECT_EQ(R.Out, "/\n");

  O.WorkingDir = "/nonexistent-dir";
  R = runProcess(O);
  EXPECT_EQ(R.St, St::NotStarted);
  EXPECT_EQ(R.Error,
            "cannot change to /nonexistent-dir: No such file or directory");

  O.WorkingDir = "/bin/sh";
  R = runProcess(O);
  EXPECT_EQ(R.St, St::NotStarted);
  EXPECT_EQ(R.Error, "cannot change to /bin/sh: Not a directory");
}

TEST(ProcessTest, AProgramThatCannotBeExecutedIsNotStarted) {
  // Found on the path but not a program the kernel can run: posix_spawn
  // reports the exec's failure, and nothing is left running.
  std::string Dir = ::testing::TempDir() + "incant-process-noexec";
  std::filesystem::create_directories(Dir);
  std::string File = Dir + "/not-a-program";
  {
    std::ofstream F(File, std::ios::binary);
    F << "\x7f" "ELF garbage";
  }
  std::filesystem::permissions(File, std::filesystem::perms::owner_all);
  ProcessResult R = runProcess({File});
  EXPECT_EQ(R.St, St::NotStarted);
  EXPECT_EQ(R.Error, File + ": Exec format error");
  std::filesystem::remove_all(Dir);
}

TEST(ProcessTest, ATimeoutKillsTheWholeProcessGroup) {
  // The shell starts a child and waits; both must die at the deadline.
  ProcessOptions O;
  O.TimeoutSeconds = 0.3;
  ProcessResult R = sh("sleep 30 & echo $!; wait", O);
  ASSERT_EQ(R.St, St::TimedOut) << R.describe();
  EXPECT_EQ(R.Signal, SIGKILL);
  EXPECT_LT(R.Seconds, 10.0);
  EXPECT_GE(R.Seconds, 0.3);
  pid_t Child = std::stoi(R.Out);
  for (int I = 0; I < 100 && !gone(Child); ++I)
    ::usleep(10000);
  EXPECT_TRUE(gone(Child)) << "the grandchild " << Child << " survived";
  EXPECT_EQ(R.describe().rfind("timed out after ", 0), 0u);
}

TEST(ProcessTest, ATimeoutWithGraceSendsTermFirst) {
  ProcessOptions O;
  O.TimeoutSeconds = 0.3;
  O.KillGraceSeconds = 5;
  // The trap runs once `wait` is interrupted; the sleep dies of SIGTERM.
  ProcessResult R = sh("trap 'echo term; exit 7' TERM; sleep 30 & wait", O);
  ASSERT_EQ(R.St, St::TimedOut) << R.describe();
  EXPECT_EQ(R.Signal, SIGTERM);
  EXPECT_EQ(R.Out, "term\n");
  EXPECT_LT(R.Seconds, 5.0);
}

TEST(ProcessTest, AProgramThatClosesItsStreamsEarlyIsStillWaitedFor) {
  ProcessOptions O;
  O.TimeoutSeconds = 20;
  ProcessResult R = sh("exec >/dev/null 2>&1; sleep 0.2; exit 4", O);
  ASSERT_EQ(R.St, St::Exited) << R.describe();
  EXPECT_EQ(R.ExitCode, 4);
  EXPECT_GE(R.Seconds, 0.2);
}

TEST(ProcessTest, FinishesWellBeforeItsTimeout) {
  ProcessOptions O;
  O.TimeoutSeconds = 60;
  ProcessResult R = sh("echo quick", O);
  ASSERT_TRUE(R.succeeded());
  EXPECT_EQ(R.Out, "quick\n");
  EXPECT_LT(R.Seconds, 10.0);
}

TEST(ProcessTest, IgnoredSignalsAreNotPassedOn) {
  // A caller that ignores SIGPIPE (servers do) must not make the child
  // ignore it: a writer to a closed pipe should die as usual.
  struct sigaction Old, Ign = {};
  Ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &Ign, &Old);
  ProcessResult R = runProcess({"grep", "SigIgn", "/proc/self/status"});
  ::sigaction(SIGPIPE, &Old, nullptr);
  ASSERT_TRUE(R.succeeded()) << R.describe();
  ASSERT_EQ(R.Out.rfind("SigIgn:\t", 0), 0u) << R.Out;
  // Signals 1 to 31 (bits 0 to 30) at their defaults. glibc's posix_spawn
  // leaves its own two realtime signals (32, 33: thread cancellation and
  // setxid) ignored, and a program's C library takes them over at start.
  uint64_t Ignored = std::stoull(R.Out.substr(8), nullptr, 16);
  EXPECT_EQ(Ignored & 0x7fffffffull, 0u) << R.Out;
}

TEST(ProcessTest, SeveralThreadsRunProgramsAtOnce) {
  std::vector<std::thread> Ts;
  std::vector<ProcessResult> Rs(8);
  for (size_t I = 0; I < Rs.size(); ++I)
    Ts.emplace_back([&Rs, I] {
      Rs[I] = runProcess({"/bin/sh", "-c", "echo " + std::to_string(I)});
    });
  for (auto &T : Ts)
    T.join();
  for (size_t I = 0; I < Rs.size(); ++I) {
    EXPECT_TRUE(Rs[I].succeeded());
    EXPECT_EQ(Rs[I].Out, std::to_string(I) + "\n");
  }
}

TEST(ProcessTest, ShellQuoteQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shellQuote({"nvcc", "-arch=sm_90", "a b.cu", "it's", ""}),
            "nvcc -arch=sm_90 'a b.cu' 'it'\\''s' ''");
}

TEST(ProcessTest, FindOnPathSkipsEmptyEntries) {
  EXPECT_EQ(findOnPath("sh", "/nonexistent::/bin"), "/bin/sh");
  EXPECT_EQ(findOnPath("incant-no-such-program", "/bin:/usr/bin"), "");
  EXPECT_EQ(findOnPath("./x", ""), "./x");
}

} // namespace
