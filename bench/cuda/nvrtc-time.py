#!/usr/bin/env python3
"""CPU time of one NVRTC compile of a test that `incant run --backend cuda
--emit DIR` wrote, as incant compiles it (sm_90, C++17, -minimal), with
extra NVRTC options; and NVRTC's own phase times (--time).

Usage: nvrtc-time.py DIR/TEST.cu [--runs N] [NVRTC-OPTION...]
Prints the least CPU time of N runs (default 4) and the phases of the last.
Needs libnvrtc (CUDA_HOME/lib64 or the loader's path), no GPU.
"""
import ctypes
import os
import sys
import tempfile
import time

args = sys.argv[1:]
if not args:
    sys.exit(__doc__)
src_path, extra, runs = args[0], [], 4
rest = args[1:]
while rest:
    a = rest.pop(0)
    if a == "--runs":
        runs = int(rest.pop(0))
    else:
        extra.append(a)
cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
try:
    nvrtc = ctypes.CDLL(os.path.join(cuda, "lib64", "libnvrtc.so"))
except OSError:
    nvrtc = ctypes.CDLL("libnvrtc.so")
folder = os.path.dirname(os.path.abspath(src_path))
names = [b"incant_params.h", b"incant_harness.cuh"]
texts = [open(os.path.join(folder, n.decode()), "rb").read() for n in names]
source = open(src_path, "rb").read()


def strings(xs):
    return (ctypes.c_char_p * len(xs))(*xs)


best = None
phases = ""
for _ in range(runs):
    prog = ctypes.c_void_p()
    nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source, b"test.cu",
                             len(names), strings(texts), strings(names))
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "time.csv")
        opts = [b"--gpu-architecture=sm_90", b"-std=c++17", b"-minimal",
                ("--time=" + csv).encode()] + [o.encode() for o in extra]
        t = time.process_time()
        rc = nvrtc.nvrtcCompileProgram(prog, len(opts), strings(opts))
        cpu = time.process_time() - t
        if os.path.exists(csv):
            phases = open(csv).read()
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    if rc != 0:
        sys.exit("nvrtcCompileProgram failed (%d) with %s" % (rc, extra))
    best = cpu if best is None else min(best, cpu)
print("least CPU of %d compile(s): %.3f s  options: %s" % (runs, best, " ".join(extra) or "(none)"))
print(phases.strip())
