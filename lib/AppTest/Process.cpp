//===- Process.cpp - Running one program with a timeout -------------------===//
#include "incant/AppTest/Process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace incant::apptest {

std::vector<std::string> currentEnvironment() {
  std::vector<std::string> Env;
  for (char **E = environ; E && *E; ++E)
    Env.emplace_back(*E);
  return Env;
}

ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const std::vector<std::string> &Env,
                         double TimeoutSeconds) {
  ProcessResult R;
  if (Argv.empty()) {
    R.StartError = "no program";
    return R;
  }
  int Out[2], Err[2];
  if (::pipe2(Out, O_CLOEXEC) != 0) {
    R.StartError = std::strerror(errno);
    return R;
  }
  if (::pipe2(Err, O_CLOEXEC) != 0) {
    R.StartError = std::strerror(errno);
    ::close(Out[0]);
    ::close(Out[1]);
    return R;
  }
  posix_spawn_file_actions_t Fa;
  posix_spawn_file_actions_init(&Fa);
  posix_spawn_file_actions_addopen(&Fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&Fa, Out[1], 1);
  posix_spawn_file_actions_adddup2(&Fa, Err[1], 2);
  posix_spawnattr_t At;
  posix_spawnattr_init(&At);
  // A process group of its own, so a timeout kills what it started too.
  posix_spawnattr_setflags(&At, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&At, 0);

  std::vector<char *> A, E;
  for (const std::string &S : Argv)
    A.push_back(const_cast<char *>(S.c_str()));
  A.push_back(nullptr);
  for (const std::string &S : Env)
    E.push_back(const_cast<char *>(S.c_str()));
  E.push_back(nullptr);

  auto T0 = std::chrono::steady_clock::now();
  pid_t Pid = 0;
  int Rc = ::posix_spawnp(&Pid, A[0], &Fa, &At, A.data(), E.data());
  posix_spawn_file_actions_destroy(&Fa);
  posix_spawnattr_destroy(&At);
  ::close(Out[1]);
  ::close(Err[1]);
  if (Rc != 0) {
    R.StartError = std::strerror(Rc);
    ::close(Out[0]);
    ::close(Err[0]);
    return R;
  }
  R.Started = true;

  constexpr size_t Limit = 16u << 20;
  pollfd Fds[2] = {{Out[0], POLLIN, 0}, {Err[0], POLLIN, 0}};
  std::string *Sinks[2] = {&R.Stdout, &R.Stderr};
  int Open = 2;
  auto Elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
        .count();
  };
  while (Open > 0) {
    int Wait = -1;
    if (TimeoutSeconds > 0) {
      double Left = TimeoutSeconds - Elapsed();
      if (Left <= 0) {
        R.TimedOut = true;
        ::kill(-Pid, SIGKILL);
        break;
      }
      Wait = static_cast<int>(Left * 1000) + 1;
    }
    int N = ::poll(Fds, 2, Wait);
    if (N < 0 && errno == EINTR)
      continue;
    for (int I = 0; I < 2; ++I) {
      if (Fds[I].fd < 0 || !(Fds[I].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char Buf[65536];
      ssize_t Got = ::read(Fds[I].fd, Buf, sizeof Buf);
      if (Got > 0) {
        if (Sinks[I]->size() < Limit)
          Sinks[I]->append(Buf, std::min(size_t(Got), Limit - Sinks[I]->size()));
      } else if (Got == 0 || errno != EINTR) {
        ::close(Fds[I].fd);
        Fds[I].fd = -1;
        --Open;
      }
    }
  }
  for (pollfd &F : Fds)
    if (F.fd >= 0)
      ::close(F.fd);
  // Both pipes closed (or the timeout): wait for the program itself, still
  // under the timeout (it may have closed its output and kept running).
  int Status = 0;
  for (;;) {
    pid_t W = ::waitpid(Pid, &Status, R.TimedOut ? 0 : WNOHANG);
    if (W == Pid)
      break;
    if (W < 0 && errno != EINTR)
      break;
    if (W == 0) {
      if (TimeoutSeconds > 0 && Elapsed() >= TimeoutSeconds) {
        R.TimedOut = true;
        ::kill(-Pid, SIGKILL);
        continue;
      }
      ::usleep(1000);
    }
  }
  // Whatever the program left running in its group goes too.
  ::kill(-Pid, SIGKILL);
  R.Seconds = Elapsed();
  if (!R.TimedOut) {
    if (WIFEXITED(Status))
      R.ExitCode = WEXITSTATUS(Status);
    else if (WIFSIGNALED(Status))
      R.Signal = WTERMSIG(Status);
  }
  return R;
}

} // namespace incant::apptest
