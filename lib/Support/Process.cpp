//===- Process.cpp - Run a program and capture what it prints -------------===//
//
// posix_spawn with pipes, polled until the program exits and its streams
// close or the deadline passes. Not fork(): glibc's posix_spawn starts the
// child in the caller's memory (CLONE_VM | CLONE_VFORK), so nothing of a
// large process is copied. fork() copies the page tables (of a campaign's
// 15 compiling threads and their heaps), holds the memory map's lock
// meanwhile (every other thread's page fault waits) and leaves each page
// copy-on-write (docs/campaign.md, Throughput). glibc's posix_spawn leaves
// its two internal realtime signals ignored in the program (a program's C
// library takes them over at start); every other signal is at its default.
//
//===----------------------------------------------------------------------===//
#include "incant/Support/Process.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/TempDir.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

extern char **environ;

namespace incant {

namespace {

/// The process groups of the children running now (0: a free slot), for
/// the signal handler: lock-free atomics, so reading them there is safe.
constexpr size_t MaxLiveGroups = 256;
std::atomic<pid_t> LiveGroups[MaxLiveGroups];

size_t registerGroup(pid_t Pid) {
  for (size_t I = 0; I < MaxLiveGroups; ++I) {
    pid_t Free = 0;
    if (LiveGroups[I].compare_exchange_strong(Free, Pid))
      return I;
  }
  return MaxLiveGroups; // more at once than the table holds: not followed
}

void endChildrenThenSelf(int Sig) {
  for (std::atomic<pid_t> &G : LiveGroups)
    if (pid_t P = G.load(); P > 0)
      ::kill(-P, Sig);
  // A child that still writes into a removed folder fails to: its paths
  // are gone.
  removeLiveTempDirs();
  ::signal(Sig, SIG_DFL);
  ::raise(Sig);
}

using Clock = std::chrono::steady_clock;

std::string errnoText(int E) {
  return std::error_code(E, std::generic_category()).message();
}

/// A file descriptor closed when it goes out of scope.
struct Fd {
  int N = -1;
  Fd() = default;
  explicit Fd(int N) : N(N) {}
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }
  void reset(int New = -1) {
    if (N >= 0)
      ::close(N);
    N = New;
  }
};

bool makePipe(Fd &Read, Fd &Write) {
  int P[2];
  if (::pipe2(P, O_CLOEXEC) != 0)
    return false;
  Read.reset(P[0]);
  Write.reset(P[1]);
  return true;
}

/// The child's environment as NAME=value strings.
std::vector<std::string> childEnvironment(const ProcessOptions &Opts) {
  std::vector<std::string> Env;
  if (Opts.InheritEnv)
    for (char **E = environ; E && *E; ++E)
      Env.emplace_back(*E);
  auto NameOf = [](const std::string &S) { return S.substr(0, S.find('=')); };
  for (const auto &NV : Opts.SetEnv) {
    // Not a structured binding: clang 14 (the fuzzing build) cannot capture
    // one in a lambda.
    const std::string &Name = NV.first;
    auto It = std::find_if(Env.begin(), Env.end(), [&](const std::string &S) {
      return NameOf(S) == Name;
    });
    std::string Entry = Name + "=" + NV.second;
    if (It != Env.end())
      *It = std::move(Entry);
    else
      Env.push_back(std::move(Entry));
  }
  for (const std::string &Name : Opts.UnsetEnv)
    std::erase_if(Env, [&](const std::string &S) { return NameOf(S) == Name; });
  return Env;
}

/// posix_spawn's file actions and attributes, destroyed with it.
struct SpawnSetup {
  posix_spawn_file_actions_t Actions;
  posix_spawnattr_t Attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&Actions);
    posix_spawnattr_init(&Attr);
  }
  SpawnSetup(const SpawnSetup &) = delete;
  SpawnSetup &operator=(const SpawnSetup &) = delete;
  ~SpawnSetup() {
    posix_spawnattr_destroy(&Attr);
    posix_spawn_file_actions_destroy(&Actions);
  }
};

const char *signalName(int Sig) {
  switch (Sig) {
  case SIGHUP:
    return "SIGHUP";
  case SIGINT:
    return "SIGINT";
  case SIGQUIT:
    return "SIGQUIT";
  case SIGILL:
    return "SIGILL";
  case SIGTRAP:
    return "SIGTRAP";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGKILL:
    return "SIGKILL";
  case SIGUSR1:
    return "SIGUSR1";
  case SIGSEGV:
    return "SIGSEGV";
  case SIGUSR2:
    return "SIGUSR2";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGALRM:
    return "SIGALRM";
  case SIGTERM:
    return "SIGTERM";
  case SIGXCPU:
    return "SIGXCPU";
  case SIGXFSZ:
    return "SIGXFSZ";
  default:
    return nullptr;
  }
}

std::string seconds(double S) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.3g", S);
  return Buf;
}

} // namespace

std::string ProcessResult::describe() const {
  switch (St) {
  case Status::NotStarted:
    return Error;
  case Status::Exited:
    return "exit code " + std::to_string(ExitCode);
  case Status::Signaled: {
    std::string S = "killed by signal " + std::to_string(Signal);
    if (const char *N = signalName(Signal))
      S += std::string(" (") + N + ")";
    return S;
  }
  case Status::TimedOut:
    return "timed out after " + seconds(Seconds) + " s";
  }
  return {};
}

std::string findOnPath(const std::string &Name, const std::string &PathVar) {
  if (Name.find('/') != std::string::npos)
    return Name;
  size_t B = 0;
  while (B <= PathVar.size()) {
    size_t E = PathVar.find(':', B);
    if (E == std::string::npos)
      E = PathVar.size();
    // Empty entries (POSIX: the current directory) are skipped: a program
    // incant runs is never picked up from wherever it was started.
    if (E > B) {
      std::string Cand = PathVar.substr(B, E - B) + "/" + Name;
      if (isExecutableFile(Cand))
        return Cand;
    }
    B = E + 1;
  }
  return {};
}

std::string shellQuote(const std::vector<std::string> &Argv) {
  std::string S;
  for (const std::string &A : Argv) {
    if (!S.empty())
      S += ' ';
    bool Plain = !A.empty();
    for (char C : A)
      if (!(std::isalnum(static_cast<unsigned char>(C)) ||
            std::strchr("-_./=:+,@%", C)))
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

ProcessResult runProcess(const std::vector<std::string> &Argv) {
  ProcessOptions Opts;
  Opts.Argv = Argv;
  return runProcess(Opts);
}

namespace {

/// The child's stdin: a temporary file holding Opts.Input, or /dev/null.
/// False with \p Error ("what: errno text").
bool openInput(const ProcessOptions &Opts, Fd &In, std::string &Error) {
  auto Fail = [&](const std::string &What) {
    Error = What + ": " + errnoText(errno);
    return false;
  };
  if (!Opts.Input) {
    In.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    return In.N >= 0 || Fail("cannot open /dev/null");
  }
  std::string Dir = "/tmp";
  if (const char *T = std::getenv("TMPDIR"); T && *T)
    Dir = T;
  std::string Tmpl = Dir + "/incant-stdin-XXXXXX";
  In.reset(::mkostemp(Tmpl.data(), O_CLOEXEC));
  if (In.N < 0)
    return Fail("cannot create a file for the program's input");
  ::unlink(Tmpl.c_str());
  const char *P = Opts.Input->data();
  size_t Left = Opts.Input->size();
  while (Left > 0) {
    ssize_t N = ::write(In.N, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return Fail("cannot write the program's input");
    P += N;
    Left -= static_cast<size_t>(N);
  }
  ::lseek(In.N, 0, SEEK_SET);
  return true;
}

/// posix_spawn says only that a step failed, not which: a working
/// directory that cannot be entered is told apart here.
bool checkWorkingDir(const std::string &Dir, std::string &Error) {
  struct stat St;
  bool Ok = ::stat(Dir.c_str(), &St) == 0;
  if (Ok && !S_ISDIR(St.st_mode)) {
    errno = ENOTDIR;
    Ok = false;
  }
  Ok = Ok && ::access(Dir.c_str(), X_OK) == 0;
  if (!Ok)
    Error = "cannot change to " + Dir + ": " + errnoText(errno);
  return Ok;
}

/// The child's streams (-1: inherited; -2, for stderr: wherever stdout
/// goes), working folder, process group and signals.
bool setUpSpawn(SpawnSetup &Setup, int InFd, int OutTarget, int ErrTarget,
                const char *Dir) {
  posix_spawn_file_actions_t *FA = &Setup.Actions;
  bool SetUp = posix_spawn_file_actions_adddup2(FA, InFd, 0) == 0;
  if (OutTarget >= 0)
    SetUp &= posix_spawn_file_actions_adddup2(FA, OutTarget, 1) == 0;
  if (ErrTarget == -2)
    SetUp &= posix_spawn_file_actions_adddup2(FA, 1, 2) == 0;
  else if (ErrTarget >= 0)
    SetUp &= posix_spawn_file_actions_adddup2(FA, ErrTarget, 2) == 0;
  if (Dir)
    SetUp &= posix_spawn_file_actions_addchdir_np(FA, Dir) == 0;
  // Its own process group (a timeout kills the whole group), no blocked
  // signals, and every signal at its default: ignored signals stay ignored
  // across exec, and the program expects the defaults (a caller that
  // ignores SIGPIPE must not pass that on).
  sigset_t Empty, All;
  sigemptyset(&Empty);
  sigfillset(&All);
  sigdelset(&All, SIGKILL);
  sigdelset(&All, SIGSTOP);
  posix_spawnattr_t *A = &Setup.Attr;
  SetUp &= posix_spawnattr_setpgroup(A, 0) == 0 &&
           posix_spawnattr_setsigmask(A, &Empty) == 0 &&
           posix_spawnattr_setsigdefault(A, &All) == 0 &&
           posix_spawnattr_setflags(A, POSIX_SPAWN_SETPGROUP |
                                           POSIX_SPAWN_SETSIGMASK |
                                           POSIX_SPAWN_SETSIGDEF) == 0;
  return SetUp;
}

/// The running child \p Pid: reads its captured streams until they close
/// and it has exited, or kills its group at the deadline; fills \p R's
/// output, status and time.
void collectChild(pid_t Pid, const ProcessOptions &Opts, Fd &OutRead,
                  Fd &ErrRead, Clock::time_point Start, ProcessResult &R) {
  int WStatus = 0;
  bool Reaped = false;
  auto Reap = [&](bool Block) {
    while (!Reaped) {
      pid_t W = ::waitpid(Pid, &WStatus, Block ? 0 : WNOHANG);
      if (W == Pid)
        Reaped = true;
      else if (W < 0 && errno == EINTR)
        continue;
      break;
    }
    return Reaped;
  };

  const bool HasDeadline = Opts.TimeoutSeconds > 0;
  auto Deadline =
      Start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(Opts.TimeoutSeconds));
  bool TimedOut = false;
  int LastSignal = 0;
  int Backoff = 1;
  std::vector<char> Buf(1 << 16);

  struct Stream {
    Fd *F;
    std::string *Text;
    bool *Truncated;
  };
  Stream Streams[2] = {{&OutRead, &R.Out, &R.OutTruncated},
                       {&ErrRead, &R.Err, &R.ErrTruncated}};
  auto Drain = [&](Stream &S) {
    ssize_t N = ::read(S.F->N, Buf.data(), Buf.size());
    if (N < 0 && (errno == EINTR || errno == EAGAIN))
      return;
    if (N <= 0) {
      S.F->reset();
      return;
    }
    size_t Keep = static_cast<size_t>(N);
    if (Opts.MaxOutputBytes) {
      size_t Room =
          Opts.MaxOutputBytes - std::min(Opts.MaxOutputBytes, S.Text->size());
      if (Keep > Room) {
        Keep = Room;
        *S.Truncated = true;
      }
    }
    S.Text->append(Buf.data(), Keep);
  };

  while (true) {
    bool Open = OutRead.N >= 0 || ErrRead.N >= 0;
    if (!Open && Reap(!HasDeadline))
      break;
    int WaitMs = -1;
    if (HasDeadline) {
      auto Now = Clock::now();
      if (Now >= Deadline) {
        if (!TimedOut && Opts.KillGraceSeconds > 0) {
          TimedOut = true;
          LastSignal = SIGTERM;
          ::kill(-Pid, SIGTERM);
          Deadline =
              Now + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(Opts.KillGraceSeconds));
          continue;
        }
        TimedOut = true;
        LastSignal = SIGKILL;
        ::kill(-Pid, SIGKILL);
        // A program that left the group may still hold the pipes: stop
        // reading rather than wait for it.
        OutRead.reset();
        ErrRead.reset();
        Reap(true);
        break;
      }
      WaitMs = static_cast<int>(std::ceil(
          std::chrono::duration<double, std::milli>(Deadline - Now).count()));
    }
    if (!Open) {
      // Streams closed, program still running, a deadline to watch.
      WaitMs = std::min(WaitMs, Backoff);
      Backoff = std::min(Backoff * 2, 50);
      ::poll(nullptr, 0, WaitMs);
      continue;
    }
    pollfd P[2];
    Stream *Which[2];
    nfds_t N = 0;
    for (Stream &S : Streams)
      if (S.F->N >= 0) {
        P[N] = {S.F->N, POLLIN, 0};
        Which[N++] = &S;
      }
    int Ready = ::poll(P, N, WaitMs);
    if (Ready < 0 && errno != EINTR) {
      // Cannot happen with valid descriptors; do not spin.
      OutRead.reset();
      ErrRead.reset();
      continue;
    }
    for (nfds_t K = 0; Ready > 0 && K < N; ++K)
      if (P[K].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
        Drain(*Which[K]);
  }

  R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
  if (TimedOut) {
    R.St = ProcessResult::Status::TimedOut;
    R.Signal = LastSignal;
  } else if (WIFEXITED(WStatus)) {
    R.St = ProcessResult::Status::Exited;
    R.ExitCode = WEXITSTATUS(WStatus);
  } else {
    R.St = ProcessResult::Status::Signaled;
    R.Signal = WIFSIGNALED(WStatus) ? WTERMSIG(WStatus) : 0;
  }
}

} // namespace

ProcessResult runProcess(const ProcessOptions &Opts) {
  ProcessResult R;
  if (Opts.Argv.empty() || Opts.Argv[0].empty()) {
    R.Error = "no program to run";
    return R;
  }
  for (const auto &[Name, Value] : Opts.SetEnv)
    if (Name.empty() || Name.find('=') != std::string::npos) {
      R.Error = "bad environment variable name '" + Name + "'";
      return R;
    }

  // Everything the child needs, built before it starts.
  std::vector<std::string> Env = childEnvironment(Opts);
  std::string PathVar;
  for (const std::string &E : Env)
    if (E.rfind("PATH=", 0) == 0)
      PathVar = E.substr(5);
  if (PathVar.empty())
    if (const char *P = std::getenv("PATH"))
      PathVar = P;
  std::string Program = findOnPath(Opts.Argv[0], PathVar);
  if (Program.empty()) {
    R.Error = Opts.Argv[0] + ": not found on PATH";
    return R;
  }
  std::vector<char *> ArgvP, EnvP;
  for (const std::string &A : Opts.Argv)
    ArgvP.push_back(const_cast<char *>(A.c_str()));
  ArgvP.push_back(nullptr);
  for (const std::string &E : Env)
    EnvP.push_back(const_cast<char *>(E.c_str()));
  EnvP.push_back(nullptr);

  Fd In, OutRead, OutWrite, ErrRead, ErrWrite, Null;
  auto Fail = [&](const std::string &What) {
    R.Error = What + ": " + errnoText(errno);
    return R;
  };
  if (!openInput(Opts, In, R.Error))
    return R;
  if (Opts.Stdout == OutputMode::Discard ||
      Opts.Stderr == OutputMode::Discard) {
    Null.reset(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (Null.N < 0)
      return Fail("cannot open /dev/null");
  }
  // stdout "to stdout" is plain capture; stderr to stdout goes wherever
  // stdout goes (the child dups its fd 1).
  bool CaptureOut =
      Opts.Stdout == OutputMode::Capture || Opts.Stdout == OutputMode::ToStdout;
  if (CaptureOut && !makePipe(OutRead, OutWrite))
    return Fail("cannot create a pipe");
  if (Opts.Stderr == OutputMode::Capture && !makePipe(ErrRead, ErrWrite))
    return Fail("cannot create a pipe");

  auto TargetFd = [&](OutputMode M, int Own) {
    switch (M) {
    case OutputMode::Capture:
      return Own;
    case OutputMode::Discard:
      return Null.N;
    case OutputMode::Inherit:
      return -1;
    case OutputMode::ToStdout:
      return -2;
    }
    return -1;
  };
  int OutTarget = CaptureOut ? OutWrite.N : TargetFd(Opts.Stdout, -1);
  int ErrTarget = TargetFd(Opts.Stderr, ErrWrite.N);
  const char *Dir = Opts.WorkingDir.empty() ? nullptr : Opts.WorkingDir.c_str();
  if (Dir && !checkWorkingDir(Opts.WorkingDir, R.Error))
    return R;
  SpawnSetup Setup;
  if (!setUpSpawn(Setup, In.N, OutTarget, ErrTarget, Dir))
    return Fail("cannot set up the streams of " + Program);

  auto Start = Clock::now();
  pid_t Pid = -1;
  if (int E = ::posix_spawn(&Pid, Program.c_str(), &Setup.Actions,
                            &Setup.Attr, ArgvP.data(), EnvP.data());
      E != 0) {
    R.Error = Program + ": " + errnoText(E);
    return R;
  }
  // Also here, as before with fork (EACCES once it has exec-ed is fine: it
  // did it itself).
  ::setpgid(Pid, Pid);
  size_t Slot = registerGroup(Pid);
  In.reset();
  OutWrite.reset();
  ErrWrite.reset();
  Null.reset();
  collectChild(Pid, Opts, OutRead, ErrRead, Start, R);
  if (Slot < MaxLiveGroups)
    LiveGroups[Slot].store(0);
  return R;
}

void endChildrenWithIncant() {
  static_assert(std::atomic<pid_t>::is_always_lock_free);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction Old {};
    if (::sigaction(Sig, nullptr, &Old) != 0 || Old.sa_handler == SIG_IGN)
      continue;
    struct sigaction New {};
    New.sa_handler = endChildrenThenSelf;
    sigemptyset(&New.sa_mask);
    ::sigaction(Sig, &New, nullptr);
  }
}

} // namespace incant
