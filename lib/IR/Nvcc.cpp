//===- Nvcc.cpp - Running nvcc to get PTX from CUDA source ----------------===//
#include "Nvcc.h"
#include "incant/Support/FindProgram.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace incant::ir {

std::string findNvcc() {
  // INCANT_NVCC names nvcc explicitly (tests set it to a missing path).
  if (const char *Env = std::getenv("INCANT_NVCC"))
    return isExecutableFile(Env) ? std::string(Env) : std::string();
  return findCudaProgram("nvcc");
}

NvccResult runProgram(const std::vector<std::string> &Argv) {
  NvccResult R;
  char Template[] = "/tmp/incant-nvcc-XXXXXX";
  int OutFd = ::mkstemp(Template);
  if (OutFd < 0)
    return R;
  ::unlink(Template);

  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, OutFd, 1);
  posix_spawn_file_actions_adddup2(&Actions, OutFd, 2);
  posix_spawn_file_actions_addclose(&Actions, OutFd);
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  pid_t Pid = 0;
  int Err = ::posix_spawn(&Pid, Args[0], &Actions, nullptr, Args.data(),
                          environ);
  posix_spawn_file_actions_destroy(&Actions);
  if (Err != 0) {
    ::close(OutFd);
    return R;
  }
  R.Started = true;
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0) {
  }
  R.ExitCode = WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
  ::lseek(OutFd, 0, SEEK_SET);
  char Buf[4096];
  ssize_t N;
  while ((N = ::read(OutFd, Buf, sizeof Buf)) > 0)
    R.Output.append(Buf, static_cast<size_t>(N));
  ::close(OutFd);
  return R;
}

std::string shellQuote(const std::vector<std::string> &Argv) {
  std::string S;
  for (const std::string &A : Argv) {
    if (!S.empty())
      S += ' ';
    bool Plain = !A.empty();
    for (char C : A)
      if (!(isalnum(static_cast<unsigned char>(C)) ||
            std::string_view("-_./=:+,@%").find(C) != std::string_view::npos))
        Plain = false;
    if (Plain) {
      S += A;
      continue;
    }
    S += '\'';
    for (char C : A) {
      if (C == '\'')
        S += "'\\''";
      else
        S += C;
    }
    S += '\'';
  }
  return S;
}

} // namespace incant::ir
