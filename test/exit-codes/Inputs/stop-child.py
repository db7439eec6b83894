"""stop-child.py INCANT DIR SIGNAL: runs `incant race` with a stand-in nvcc
that only sleeps (in a process group of its own, as incant runs every
program), sends incant SIGNAL (TERM or INT) once the stand-in runs, and
prints how incant ended, whether the stand-in ended with it, and how many
of incant's temporary folders (under a TMPDIR of its own) are left."""
import os
import shutil
import signal
import subprocess
import sys
import time

incant, work, name = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
nvcc = os.path.join(work, "nvcc")
with open(nvcc, "w") as f:
    f.write('#!/bin/sh\necho $$ >> "$STAND_IN_PIDS"\nexec sleep 120\n')
os.chmod(nvcc, 0o755)
src = os.path.join(work, "k.cu")
with open(src, "w") as f:
    f.write("__global__ void k(int *p) { p[threadIdx.x] = 1; }\n")
pids = os.path.join(work, "nvcc.pids")
tmp = os.path.join(work, "tmp")
os.makedirs(tmp)
env = dict(os.environ, INCANT_NVCC=nvcc, STAND_IN_PIDS=pids, TMPDIR=tmp)
# As a shell runs a job in the foreground: SIGINT and SIGTERM at their
# defaults in the child.
p = subprocess.Popen([incant, "race", src], env=env, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
deadline = time.time() + 60
while not (os.path.exists(pids) and open(pids).read().strip()):
    if time.time() > deadline or p.poll() is not None:
        print("the stand-in nvcc never ran")
        sys.exit(1)
    time.sleep(0.1)
time.sleep(0.5)  # both builds' stand-ins started
children = [int(x) for x in open(pids).read().split()]
p.send_signal(getattr(signal, "SIG" + name))
rc = p.wait()
print("incant:", "signal " + signal.Signals(-rc).name if rc < 0 else rc)
left = []
for _ in range(50):
    left = []
    for c in children:
        try:
            os.kill(c, 0)
            left.append(c)
        except ProcessLookupError:
            pass
    if not left:
        break
    time.sleep(0.1)
for c in left:
    os.kill(c, signal.SIGKILL)
print("nvcc:", "still running" if left else "ended")
print("temporary folders left:", len(os.listdir(tmp)))
