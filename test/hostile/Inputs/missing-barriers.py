#!/usr/bin/env python3
"""Writes a PTX kernel that needs N barriers (default 79): N phases, each
of which writes its own region of shared memory, s[k*32 + tid], and then
reads a neighbour's word of it, s[k*32 + (tid+1) % 32], with no barrier
between. For `incant repair` with --block-dim 32.

    missing-barriers.py [N] > k.ptx
"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 79
out = [
    ".version 7.8",
    ".target sm_80",
    ".address_size 64",
    "",
    ".visible .entry phases()",
    "{",
    "  .reg .b32 %r<{}>;".format(2 * n + 4),
    "  .reg .b64 %rd<{}>;".format(4 * n + 4),
    "  .shared .align 4 .b8 s[{}];".format(128 * n),
    "  mov.u32 %r0, %tid.x;",
    "  add.s32 %r1, %r0, 1;",
    "  and.b32 %r2, %r1, 31;",
    "  mov.u64 %rd2, s;",
]
for k in range(n):
    w, r, a, b = 4 * k + 3, 4 * k + 4, 4 * k + 5, 4 * k + 6
    out += [
        "  mul.wide.u32 %rd{}, %r0, 4;".format(w),
        "  add.s64 %rd{}, %rd2, %rd{};".format(a, w),
        "  st.shared.u32 [%rd{}+{}], %r0;".format(a, 128 * k),
        "  mul.wide.u32 %rd{}, %r2, 4;".format(r),
        "  add.s64 %rd{}, %rd2, %rd{};".format(b, r),
        "  ld.shared.u32 %r{}, [%rd{}+{}];".format(2 * k + 3, b, 128 * k),
    ]
out += ["  ret;", "}", ""]
print("\n".join(out))
