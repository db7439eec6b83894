#!/usr/bin/env python3
"""Does an NVRTC option change the code the GPU runs? Compiles each test that
`incant run --backend cuda --emit DIR` wrote (DIR/*.cu beside
incant_params.h and incant_harness.cuh) as incant does (sm_90, C++17,
-minimal), and again with the options given, and compares the kernels'
machine code: the bytes of every .text.* section of the two cubins (what
cuobjdump -sass disassembles), section by section. Prints one line per test
that differs and a count; the CPU time of both compiles.

Usage: nvrtc-same-code.py DIR [NVRTC-OPTION...]
Exit status: 0 every test's code is the same, 1 some differ, 2 usage.
Needs libnvrtc (CUDA_HOME/lib64 or the loader's path), no GPU.
"""
import ctypes
import glob
import os
import struct
import sys
import time

if len(sys.argv) < 2:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
folder, extra = sys.argv[1], [o.encode() for o in sys.argv[2:]]
cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
try:
    nvrtc = ctypes.CDLL(os.path.join(cuda, "lib64", "libnvrtc.so"))
except OSError:
    nvrtc = ctypes.CDLL("libnvrtc.so")
names = [b"incant_params.h", b"incant_harness.cuh"]
texts = [open(os.path.join(folder, n.decode()), "rb").read() for n in names]
base = [b"--gpu-architecture=sm_90", b"-std=c++17", b"-minimal"]


def strings(xs):
    return (ctypes.c_char_p * len(xs))(*xs)


def compile_cubin(source, opts):
    prog = ctypes.c_void_p()
    nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source, b"test.cu",
                             len(names), strings(texts), strings(names))
    t = time.process_time()
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), strings(opts))
    cpu = time.process_time() - t
    size = ctypes.c_size_t()
    out = None
    if rc == 0 and nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size)) == 0:
        buf = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetCUBIN(prog, buf)
        out = buf.raw
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return out, cpu


def text_sections(elf):
    """{name: bytes} of the .text.* sections of an ELF64 little-endian file."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
             for i in range(shnum)]
    stroff = heads[shstrndx][4]
    out = {}
    for name, _type, _flags, _addr, off, size, *_ in heads:
        end = elf.index(b"\0", stroff + name)
        n = elf[stroff + name:end].decode()
        if n.startswith(".text."):
            out[n] = elf[off:off + size]
    return out


tests = sorted(glob.glob(os.path.join(folder, "*.cu")))
if not tests:
    print("no .cu file in " + folder, file=sys.stderr)
    sys.exit(2)
differ = 0
cpu_base = cpu_extra = 0.0
for path in tests:
    source = open(path, "rb").read()
    a, ca = compile_cubin(source, base)
    b, cb = compile_cubin(source, base + extra)
    cpu_base += ca
    cpu_extra += cb
    if a is None or b is None:
        print("%s: does not compile" % os.path.basename(path))
        differ += 1
        continue
    ta, tb = text_sections(a), text_sections(b)
    if ta != tb:
        differ += 1
        what = [n for n in sorted(set(ta) | set(tb)) if ta.get(n) != tb.get(n)]
        print("%s: differs in %s" % (os.path.basename(path), " ".join(what)))
print("%d of %d test(s) with other code; CPU %.2f s as incant compiles, "
      "%.2f s with %s" % (differ, len(tests), cpu_base, cpu_extra,
                          b" ".join(extra).decode() or "(nothing)"))
sys.exit(1 if differ else 0)
