#!/usr/bin/env python3
"""Writes a PTX kernel whose race check is slow: STORES stores and LOADS
loads of shared memory, each at ((tid * odd constant) & 1023) words, so
every pair of them is a solver query of its own (STORES*(STORES-1)/2 +
STORES*LOADS pairs; the defaults give 1,780) and most of them race.

    slow-kernel.py [STORES [LOADS]] > slow.ptx
"""
import sys

stores = int(sys.argv[1]) if len(sys.argv) > 1 else 40
loads = int(sys.argv[2]) if len(sys.argv) > 2 else 25
n = stores + loads
out = [
    ".version 7.8",
    ".target sm_80",
    ".address_size 64",
    "",
    ".visible .entry slow(.param .u64 slow_param_0)",
    "{",
    "  .reg .b32 %r<{}>;".format(3 * n + 2),
    "  .reg .b64 %rd<{}>;".format(2 * n + 2),
    "  .shared .align 4 .b8 buf[4096];",
    "  mov.u32 %r0, %tid.x;",
    "  mov.u64 %rd0, buf;",
]
for k in range(n):
    a, b, c = 3 * k + 1, 3 * k + 2, 3 * k + 3
    out += [
        "  mul.lo.s32 %r{}, %r0, {};".format(a, 2 * k + 3),
        "  and.b32 %r{}, %r{}, 1023;".format(b, a),
        "  mul.wide.u32 %rd{}, %r{}, 4;".format(2 * k + 1, b),
        "  add.s64 %rd{}, %rd0, %rd{};".format(2 * k + 2, 2 * k + 1),
    ]
    if k < stores:
        out.append("  st.shared.u32 [%rd{}], %r0;".format(2 * k + 2))
    else:
        out.append("  ld.shared.u32 %r{}, [%rd{}];".format(c, 2 * k + 2))
out += ["  ret;", "}", ""]
print("\n".join(out))
