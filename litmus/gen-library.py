#!/usr/bin/env python3
"""Generate incant's litmus library (GPU_PTX tests) and litmus/manifest.tsv.

Usage: python3 litmus/gen-library.py [--check]

Writes one .litmus file per (shape or application test, fence, GPU
configuration) under litmus/<Family>/, and litmus/manifest.tsv with the
verdict each test must get under models/sc.cat, models/ptx-rmo.cat and
models/ptx.cat. The hand-written tests (litmus/PTX/*.litmus in the modern
PTX dialect, litmus/sanity/*.litmus) carry their verdicts in a
`(* verdict: sc X ptx-rmo Y ptx Z *)` line, which this script copies into
the manifest.

With --check, writes nothing and exits 1 if any generated file differs from
what is on disk.

The verdicts here are reasoned by hand (see the comment block of each test
and docs/library.md); `incant check --manifest litmus/manifest.tsv` checks
them against the models. Python 3 standard library only.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------
# GPU configurations of the thesis (Sorensen 2014, Sec. 2.5.1).

CONFIGS = {
    # name: (description, all threads in one CTA?, memory region)
    "warp-shared": ("threads in different warps of one CTA, locations in shared memory", True, "shared"),
    "warp-global": ("threads in different warps of one CTA, locations in global memory", True, "global"),
    "cta-global": ("threads in different CTAs, locations in global memory", False, "global"),
}

FENCES = [None, "cta", "gl", "sys"]

OK, NO = "Ok", "No"


def fence_name(f):
    return "membar." + f if f else None


def fences_order(f, same_cta):
    """Whether fences of scope f order accesses between the test's threads:
    a membar.cta covers threads of one CTA only; .gl and .sys cover the
    whole GPU (all our tests run on one GPU)."""
    if f is None:
        return False
    return f in ("gl", "sys") or same_cta


# --------------------------------------------------------------------------
# Test construction.


class Thread:
    def __init__(self, lines, types=None):
        # lines: PTX instructions; `[x]` names location x (replaced by an
        # address register), `{F}` the fence (line dropped without fence).
        self.lines = lines
        self.types = types or {}


def render(name, doc, comment, threads, locs, init, cond, same_cta, region, fence):
    locs = list(locs)
    decls = []
    bodies = []
    for tid, th in enumerate(threads):
        body = []
        for ln in th.lines:
            if "{F}" in ln:
                if fence is None:
                    continue
                ln = ln.replace("{F}", "membar." + fence)
            body.append(ln)
        text = "\n".join(body)
        used = set(int(n) for n in re.findall(r"\br(\d)\b", text))
        tlocs = [l for l in locs if ("[" + l + "]") in text]
        # Address registers: free odd numbers first (thesis style), then even.
        free = [n for n in list(range(1, 10, 2)) + list(range(0, 10, 2)) if n not in used]
        addr = {}
        for l in tlocs:
            addr[l] = "r%d" % free.pop(0)
        for l, r in addr.items():
            body = [b.replace("[" + l + "]", "[" + r + "]") for b in body]
        for n in sorted(used):
            r = "r%d" % n
            decls.append("%d:.reg %s %s;" % (tid, th.types.get(r, ".s32"), r))
        for l in tlocs:
            decls.append("%d:.reg .b64 %s = %s;" % (tid, addr[l], l))
        bodies.append(body)

    out = []
    out.append("GPU_PTX %s" % name)
    out.append('"%s"' % doc)
    out.append("(*")
    for c in comment:
        out.append("  " + c if c else "")
    out.append("*)")
    out.append("{")
    for d in decls:
        out.append(d)
    out.append(" ".join("%s=%d;" % (l, init.get(l, 0)) for l in locs))
    out.append("}")
    n = len(threads)
    rows = max(len(b) for b in bodies)
    cols = [["T%d" % i] + bodies[i] + [""] * (rows - len(bodies[i])) for i in range(n)]
    widths = [max(len(x) for x in c) for c in cols]
    for r in range(rows + 1):
        cells = [" " + cols[i][r].ljust(widths[i]) + " " for i in range(n)]
        out.append("|".join(cells) + ";")
    if same_cta:
        tree = "(device (kernel (cta %s)))" % " ".join("(warp T%d)" % i for i in range(n))
    else:
        tree = "(device (kernel %s))" % " ".join("(cta (warp T%d))" % i for i in range(n))
    out.append("ScopeTree")
    out.append(tree)
    out.append(", ".join("%s: %s" % (l, region) for l in locs))
    out.append("exists (%s)" % cond)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# The classic shapes (thesis ch. 5, ASPLOS'15 Tab. 3), all accesses .cg.
#
# ptx family:
#   "fsc": forbidden under ptx iff the fences are morally strong (their
#          scopes include each other's thread): every Fence-SC order of the
#          two (or three) fences puts a communication edge of the cycle
#          against causality order, even though all accesses are weak.
#   "racy": allowed under ptx whatever the fences: the cycle needs a
#          communication edge to be part of causality order (observation),
#          which weak accesses from different threads never are.

SHAPES = [
    dict(
        name="MP", doc="Message passing",
        cycle="PodWW Rfe PodRR Fre",
        threads=[["st.cg.s32 [x],1", "{F}", "st.cg.s32 [y],1"],
                 ["ld.cg.s32 r0,[y]", "{F}", "ld.cg.s32 r2,[x]"]],
        locs="xy", cond="1:r0=1 /\\ 1:r2=0", ptx="fsc",
        ptxwhy=["F0 before F1: W x -po-> F0 -sc-> F1 -po-> R x puts W x before R x in",
                "causality order, yet R x reads the initial x (fr: R x -> W x).",
                "F1 before F0: R y -po-> F1 -sc-> F0 -po-> W y puts R y before the",
                "write it reads from."]),
    dict(
        name="SB", doc="Store buffering",
        cycle="PodWR Fre PodWR Fre",
        threads=[["st.cg.s32 [x],1", "{F}", "ld.cg.s32 r2,[y]"],
                 ["st.cg.s32 [y],1", "{F}", "ld.cg.s32 r2,[x]"]],
        locs="xy", cond="0:r2=0 /\\ 1:r2=0", ptx="fsc",
        ptxwhy=["F0 before F1: W x -po-> F0 -sc-> F1 -po-> R x, and R x reads the",
                "initial x; F1 before F0: the same with y."]),
    dict(
        name="LB", doc="Load buffering",
        cycle="PodRW Rfe PodRW Rfe",
        threads=[["ld.cg.s32 r0,[x]", "{F}", "st.cg.s32 [y],1"],
                 ["ld.cg.s32 r0,[y]", "{F}", "st.cg.s32 [x],1"]],
        locs="xy", cond="0:r0=1 /\\ 1:r0=1", ptx="fsc",
        ptxwhy=["F0 before F1: R x -po-> F0 -sc-> F1 -po-> W x, yet R x reads from",
                "W x; F1 before F0: the same with y."]),
    dict(
        name="CoRR", doc="Coherence of read-read pairs",
        cycle="Rfe PosRR Fre",
        threads=[["st.cg.s32 [x],1"],
                 ["ld.cg.s32 r1,[x]", "{F}", "ld.cg.s32 r2,[x]"]],
        locs="x", cond="1:r1=1 /\\ 1:r2=0", ptx="racy",
        ptxwhy=["The weak reads are not morally strong with the other thread's weak",
                "write, so SC-per-location does not apply and the single fence has",
                "no partner in Fence-SC order."]),
    dict(
        name="IRIW", doc="Independent reads of independent writes",
        cycle="Rfe PodRR Fre Rfe PodRR Fre",
        threads=[["st.cg.s32 [x],1"],
                 ["ld.cg.s32 r0,[x]", "{F}", "ld.cg.s32 r2,[y]"],
                 ["st.cg.s32 [y],1"],
                 ["ld.cg.s32 r0,[y]", "{F}", "ld.cg.s32 r2,[x]"]],
        locs="xy", cond="1:r0=1 /\\ 1:r2=0 /\\ 3:r0=1 /\\ 3:r2=0", ptx="racy",
        ptxwhy=["Either Fence-SC order of F1, F3 orders one reader's first read before",
                "the other's second read, but the broken edge (fr then rf through a",
                "weak write) is not in causality order: weak reads observe nothing."]),
    dict(
        name="WRC", doc="Write-to-read causality",
        cycle="Rfe PodRW Rfe PodRR Fre",
        threads=[["st.cg.s32 [x],1"],
                 ["ld.cg.s32 r0,[x]", "{F}", "st.cg.s32 [y],1"],
                 ["ld.cg.s32 r0,[y]", "{F}", "ld.cg.s32 r2,[x]"]],
        locs="xy", cond="1:r0=1 /\\ 2:r0=1 /\\ 2:r2=0", ptx="racy",
        ptxwhy=["Fence-SC must put F1 before F2 (else R y precedes the write it",
                "reads); then R x(T1) precedes R x(T2) in causality, but the weak",
                "write of T0 is observed by neither, so nothing is broken."]),
    dict(
        name="ISA2", doc="ISA2: message passing through a third thread",
        cycle="PodWW Rfe PodRW Rfe PodRR Fre",
        threads=[["st.cg.s32 [x],1", "{F}", "st.cg.s32 [y],1"],
                 ["ld.cg.s32 r0,[y]", "{F}", "st.cg.s32 [z],1"],
                 ["ld.cg.s32 r0,[z]", "{F}", "ld.cg.s32 r2,[x]"]],
        locs="xyz", cond="1:r0=1 /\\ 2:r0=1 /\\ 2:r2=0", ptx="fsc",
        ptxwhy=["Fence-SC must put F0 before F1 (R y reads W y) and F1 before F2",
                "(R z reads W z), hence F0 before F2, and then W x precedes R x in",
                "causality while R x reads the initial x."]),
    dict(
        name="2+2W", doc="Two writers, two locations",
        cycle="PodWW Coe PodWW Coe",
        threads=[["st.cg.s32 [x],1", "{F}", "st.cg.s32 [y],2"],
                 ["st.cg.s32 [y],1", "{F}", "st.cg.s32 [x],2"]],
        locs="xy", cond="x=1 /\\ y=1", ptx="fsc",
        ptxwhy=["F0 before F1: W x=1 precedes W x=2 in causality order but follows",
                "it in coherence order (x=1 at the end); F1 before F0: the same",
                "with y (Coherence axiom)."]),
    dict(
        name="R", doc="Test R",
        cycle="PodWW Coe PodWR Fre",
        threads=[["st.cg.s32 [x],1", "{F}", "st.cg.s32 [y],1"],
                 ["st.cg.s32 [y],2", "{F}", "ld.cg.s32 r0,[x]"]],
        locs="xy", cond="y=2 /\\ 1:r0=0", ptx="fsc",
        ptxwhy=["F0 before F1: W x precedes R x in causality, which reads the",
                "initial x; F1 before F0: W y=2 precedes W y=1 in causality but",
                "follows it in coherence (y=2 at the end)."]),
    dict(
        name="S", doc="Test S",
        cycle="PodWW Rfe PodRW Coe",
        threads=[["st.cg.s32 [x],2", "{F}", "st.cg.s32 [y],1"],
                 ["ld.cg.s32 r0,[y]", "{F}", "st.cg.s32 [x],1"]],
        locs="xy", cond="x=2 /\\ 1:r0=1", ptx="fsc",
        ptxwhy=["F0 before F1: W x=2 precedes W x=1 in causality but follows it in",
                "coherence (x=2 at the end); F1 before F0: R y precedes the write",
                "it reads from."]),
]


def shape_tests():
    tests = []
    for s in SHAPES:
        for cfg, (cdesc, same_cta, region) in CONFIGS.items():
            for f in FENCES:
                fn = fence_name(f)
                name = s["name"] + ("+" + fn if fn else "") + "+" + cfg
                rmo = NO if fences_order(f, same_cta) else OK
                if s["ptx"] == "fsc":
                    ptx = NO if fences_order(f, same_cta) else OK
                else:
                    ptx = OK
                com = ["Cycle: %s%s." % (s["cycle"], " with %s on each po edge" % fn if fn else ""),
                       "Configuration: %s." % cdesc, ""]
                com.append("sc: No, the outcome is not sequentially consistent.")
                if rmo == NO:
                    scope = "cta" if (f == "cta") else "gl"
                    com.append("ptx-rmo: No, every edge of the cycle is in rmo-%s (fences of" % scope)
                    com.append("  scope >= %s, communication inside the %s)." % (scope, "CTA" if scope == "cta" else "GPU"))
                elif f is None:
                    com.append("ptx-rmo: Ok, RMO orders no pair of accesses to different")
                    com.append("  locations without a fence or dependency%s." %
                               (" (and read-read pairs\n  to one location are exempt from SC per location)" if s["name"] == "CoRR" else ""))
                else:
                    com.append("ptx-rmo: Ok, membar.cta orders only inside a CTA (rmo-cta), and")
                    com.append("  the communication edges cross CTAs.")
                if ptx == NO:
                    com.append("ptx: No. All accesses are weak, so no release/acquire pattern")
                    com.append("  synchronizes; but membar is fence.sc and the fences are morally")
                    com.append("  strong, so Fence-SC order ranks them either way:")
                    com += ["  " + w for w in s["ptxwhy"]]
                elif f is None:
                    com.append("ptx: Ok, weak accesses without fences are unordered.")
                elif s["ptx"] == "fsc":
                    com.append("ptx: Ok, membar.cta in different CTAs are not morally strong, so")
                    com.append("  Fence-SC order does not relate them, and weak accesses do not")
                    com.append("  synchronize.")
                else:
                    com.append("ptx: Ok, even with fences.")
                    com += ["  " + w for w in s["ptxwhy"]]
                threads = [Thread(t) for t in s["threads"]]
                text = render(name, "%s, %s" % (s["doc"], cdesc + (", " + fn if fn else ", no fence")),
                              com, threads, s["locs"], {}, s["cond"], same_cta, region, f)
                tests.append((os.path.join(s["name"], name + ".litmus"), text, (NO, rmo, ptx)))
    return tests


# --------------------------------------------------------------------------
# Application tests (thesis ch. 4; ASPLOS'15 Sec. 3).

def app_tests():
    tests = []

    def add(family, name, text, verdict):
        tests.append((os.path.join(family, name + ".litmus"), text, verdict))

    # mp-L1 (thesis Fig. 4.2, ASPLOS Fig. 3): loads via L1 (.ca), different CTAs.
    for f in FENCES:
        fn = fence_name(f)
        cdesc, same_cta, region = CONFIGS["cta-global"]
        name = "mp-L1" + ("+" + fn if fn else "") + "+cta-global"
        o = fences_order(f, same_cta)
        com = ["Message passing with .cg stores and .ca (L1) loads, threads in",
               "different CTAs (thesis Fig. 4.2, ASPLOS'15 Fig. 3). Cycle: PodWW Rfe",
               "PodRR Fre%s." % (" with " + fn if fn else ""),
               "Models ignore cache operators, so the verdicts are those of MP. On",
               "Fermi (Tesla C2075) the weak outcome was seen even with membar.gl/sys:",
               "the chip is unsound w.r.t. ptx-rmo, which assumes .cg accesses.", "",
               "sc: No.",
               "ptx-rmo: %s." % ("No, membar.%s orders the cycle in rmo-gl" % f if o else
                                "Ok, " + ("no fence" if f is None else "membar.cta does not reach the other CTA")),
               "ptx: %s." % ("No, the two fence.sc are morally strong; either Fence-SC order breaks\n  causality (as in MP)" if o else
                            "Ok, weak accesses and no morally strong pair of fences")]
        text = render(name, "MP with L1 loads (mp-L1), different CTAs, " + (fn or "no fence"), com,
                      [Thread(["st.cg.s32 [x],1", "{F}", "st.cg.s32 [y],1"]),
                       Thread(["ld.ca.s32 r1,[y]", "{F}", "ld.ca.s32 r2,[x]"])],
                      "xy", {}, "1:r1=1 /\\ 1:r2=0", same_cta, region, f)
        add("mp-L1", name, text, (NO, NO if o else OK, NO if o else OK))

    # coRR-L2-L1 (thesis Fig. 4.3, ASPLOS Fig. 4): first load .cg, second .ca.
    for cfg in ("warp-global", "cta-global"):
        cdesc, same_cta, region = CONFIGS[cfg]
        for f in FENCES:
            fn = fence_name(f)
            name = "coRR-L2-L1" + ("+" + fn if fn else "") + "+" + cfg
            o = fences_order(f, same_cta)
            com = ["CoRR where the first read goes to L2 (.cg) and the second to L1 (.ca)",
                   "(thesis Fig. 4.3; ASPLOS'15 Fig. 4). Cycle: Rfe PosRR Fre%s." % (" with " + fn if fn else ""),
                   "Configuration: %s." % cdesc,
                   "Models ignore cache operators: verdicts are those of CoRR. Fermi showed",
                   "the outcome with every fence.", "",
                   "sc: No.",
                   "ptx-rmo: %s." % ("No, the fenced read-read pair closes a cycle in rmo-%s" % ("cta" if f == "cta" else "gl") if o else
                                    "Ok, " + ("read-read pairs are exempt from SC per location" if f is None else "membar.cta does not order across CTAs")),
                   "ptx: Ok, the reads are weak: not morally strong with the other thread's",
                   "  weak write, so SC-per-location does not apply; one fence has no",
                   "  Fence-SC partner."]
            text = render(name, "coRR mixing cache operators, %s, %s" % (cdesc, fn or "no fence"), com,
                          [Thread(["st.cg.s32 [x],1"]),
                           Thread(["ld.cg.s32 r1,[x]", "{F}", "ld.ca.s32 r2,[x]"])],
                          "x", {}, "1:r1=1 /\\ 1:r2=0", same_cta, region, f)
            add("coRR-L2-L1", name, text, (NO, NO if o else OK, OK))

    # mp-volatile (thesis Fig. 4.4, ASPLOS Fig. 5).
    for cfg, (cdesc, same_cta, region) in CONFIGS.items():
        for f in FENCES:
            fn = fence_name(f)
            name = "mp-volatile" + ("+" + fn if fn else "") + "+" + cfg
            o = fences_order(f, same_cta)
            com = ["Message passing with .volatile accesses (thesis Fig. 4.4, ASPLOS'15",
                   "Fig. 5). Cycle: PodWW Rfe PodRR Fre%s." % (" with " + fn if fn else ""),
                   "Configuration: %s." % cdesc, "",
                   "sc: No (the PTX manual once said volatile gives SC; the chips disagree).",
                   "ptx-rmo: %s." % ("No, the cycle is in rmo-%s" % ("cta" if f == "cta" else "gl") if o else
                                    "Ok, volatile orders nothing in the model" + ("" if f is None else "; membar.cta does not reach the other CTA")),
                   "ptx: %s." % ("No, volatile is relaxed.sys (strong), so F0 -po-> W y -obs-> R y -po->\n  F1 is a release/acquire pattern pair: F0 synchronizes with F1, and\n  W x precedes R x in causality order" if o else
                                ("Ok, relaxed accesses alone do not synchronize" if f is None else
                                 "Ok, the membar.cta are not morally strong across CTAs, so they\n  do not synchronize"))]
            text = render(name, "MP with volatiles, %s, %s" % (cdesc, fn or "no fence"), com,
                          [Thread(["st.volatile.s32 [x],1", "{F}", "st.volatile.s32 [y],1"]),
                           Thread(["ld.volatile.s32 r0,[y]", "{F}", "ld.volatile.s32 r2,[x]"])],
                          "xy", {}, "1:r0=1 /\\ 1:r2=0", same_cta, region, f)
            add("mp-volatile", name, text, (NO, NO if o else OK, NO if o else OK))

    # Spin locks and the deque: inter-CTA interactions only (as in the papers).
    cdesc, same_cta, region = CONFIGS["cta-global"]

    def lock_test(family, lockop, short, figure):
        for f in FENCES:
            fn = fence_name(f)
            name = family + ("+" + fn if fn else "") + "+cta-global"
            o = fences_order(f, same_cta)
            com = ["%s (%s): T0 holds the lock (y=1), writes x and releases with" % (family, figure),
                   "atom.exch; T1 takes the lock with %s and, if it got it (r0=0)," % lockop,
                   "reads x. Cycle: PodWW Rfe DpCtrlR Fre%s (T1's read is guarded by the" % (" with " + fn if fn else ""),
                   "setp on the lock value: a control dependency). Threads in different CTAs.", "",
                   "sc: No.",
                   "ptx-rmo: %s." % ("No, the fence orders T0's write of x before the unlock, the control\n  dependency orders T1's reads, and the cycle is in rmo-gl" if o else
                                    "Ok, nothing orders T0's write of x before the unlock" +
                                    ("" if f is None else " across CTAs (membar.cta)")),
                   "ptx: %s." % ("No, F0 -po-> exch (strong write) -obs-> T1's %s (strong read) -po->\n  F1: F0 synchronizes with F1, so W x precedes R x in causality order" % short if o else
                                ("Ok, relaxed atomics and weak accesses do not synchronize" if f is None else
                                 "Ok, membar.cta in different CTAs are not morally strong"))]
            t1 = Thread([lockop, "setp.eq.u32 r1,r0,0", "@r1 {F}", "@r1 ld.cg.u32 r2,[x]"],
                        {"r0": ".b32", "r1": ".pred", "r2": ".u32"})
            t0 = Thread(["st.cg.u32 [x],1", "{F}", "atom.exch.b32 r0,[y],0"], {"r0": ".b32"})
            text = render(name, "%s spin lock, different CTAs, %s" % (family, fn or "no fence"), com,
                          [t0, t1], "xy", {"y": 1}, "1:r0=0 /\\ 1:r2=0", same_cta, region, f)
            add(family, name, text, (NO, NO if o else OK, NO if o else OK))

    lock_test("cas-sl", "atom.cas.b32 r0,[y],0,1", "atom.cas", "thesis Fig. 4.7, ASPLOS'15 Fig. 9")
    lock_test("exch-sl", "atom.exch.b32 r0,[y],1", "atom.exch", "thesis Fig. 4.8")

    # sl-future (ASPLOS Fig. 11). Original: unlock by st.cg and a trailing
    # membar.gl; fixed: membar before an atom.exch unlock, membar in T1.
    for f in FENCES:
        fn = fence_name(f)
        o = fences_order(f, same_cta)
        if f is None:
            name = "sl-future+cta-global"
            t0 = Thread(["ld.cg.s32 r0,[x]", "st.cg.s32 [m],0", "membar.gl"])
            t1 = Thread(["atom.cas.b32 r2,[m],0,1", "setp.eq.s32 p,r2,0", "@p mov.s32 r3,1", "@p st.cg.s32 [x],1"],
                        {"r2": ".b32", "p": ".pred"})
            how = ("the original code of He and Yu: the unlock is a st.cg and the\n"
                   "  membar.gl comes after it, so nothing orders T0's read of x before the\n  unlock")
        else:
            name = "sl-future+" + fn + "+cta-global"
            t0 = Thread(["ld.cg.s32 r0,[x]", "{F}", "atom.exch.b32 r1,[m],0"], {"r1": ".b32"})
            t1 = Thread(["atom.cas.b32 r2,[m],0,1", "setp.eq.s32 p,r2,0", "@p mov.s32 r3,1", "@p {F}", "@p st.cg.s32 [x],1"],
                        {"r2": ".b32", "p": ".pred"})
            how = "the fixed code: %s before an atom.exch unlock, and after the lock" % fn
        # The `p` predicate is not of the r<n> form; render() declares only
        # r<n> registers, so declare it through a dedicated hook below.
        com = ["sl-future (ASPLOS'15 Fig. 11): can a critical section read a value",
               "written by the next critical section? T0 reads x in its critical",
               "section and unlocks m; T1 locks m with atom.cas and, if it got the lock",
               "(r2=0), writes x. Cycle: PodRW Rfe DpCtrlW Rfe. Threads in different CTAs.",
               "This is " + how + ".", "",
               "sc: No.",
               "ptx-rmo: %s." % ("No, the fence orders T0's read before its unlock, T1's write is\n  control-dependent on the cas, and the cycle is in rmo-gl" if o else
                                "Ok, T0's read of x and its unlock are unordered" +
                                ("" if f is None else " across CTAs (membar.cta)")),
               "ptx: %s." % ("No, F0 -po-> exch -obs-> cas -po-> F1: F0 synchronizes with F1, so\n  T0's read of x precedes T1's write of x in causality order" if o else
                            ("Ok, a weak unlock and relaxed atomics do not synchronize, and only\n  one fence.sc" if f is None else
                             "Ok, membar.cta in different CTAs are not morally strong"))]
        text = render(name, "Spin lock future value, different CTAs, %s" % ("original" if f is None else fn), com,
                      [t0, t1], "xm", {"m": 1}, "0:r0=1 /\\ 1:r2=0", same_cta, region, f)
        text = declare_named_pred(text, 1, "p")
        add("sl-future", name, text, (NO, NO if o else OK, NO if o else OK))

    # dlb-mp (ASPLOS Fig. 7).
    for f in FENCES:
        fn = fence_name(f)
        o = fences_order(f, same_cta)
        name = "dlb-mp" + ("+" + fn if fn else "") + "+cta-global"
        t0 = Thread(["st.cg.s32 [d],1", "{F}", "ld.volatile.s32 r2,[t]", "add.s32 r2,r2,1", "st.volatile.s32 [t],r2"])
        t1 = Thread(["ld.volatile.s32 r0,[t]", "setp.eq.s32 p4,r0,0", "@!p4 {F}", "@!p4 ld.cg.s32 r1,[d]"])
        com = ["dlb-mp (ASPLOS'15 Fig. 7): the work-stealing deque of Cederman and",
               "Tsigas. T0 pushes a task (writes d, increments the volatile tail t);",
               "T1 sees the new tail (r0=1) and reads the task: can it read a stale",
               "task (r1=0)? Cycle: PodWW Rfe DpCtrlR Fre%s. Threads in different CTAs." % (" with " + fn if fn else ""), "",
               "sc: No.",
               "ptx-rmo: %s." % ("No, the fence orders T0's task write before the tail write, the\n  control dependency orders T1's reads, and the cycle is in rmo-gl" if o else
                                "Ok, T0's two writes are unordered" + ("" if f is None else " across CTAs (membar.cta)")),
               "ptx: %s." % ("No, the volatile tail accesses are strong (relaxed.sys): F0 -po->\n  st t -obs-> ld t -po-> F1 makes F0 synchronize with F1" if o else
                            ("Ok, relaxed (volatile) accesses alone do not synchronize" if f is None else
                             "Ok, membar.cta in different CTAs are not morally strong"))]
        text = render(name, "Deque message passing, different CTAs, %s" % (fn or "no fence"), com,
                      [t0, t1], "td", {}, "1:r0=1 /\\ 1:r1=0", same_cta, region, f)
        text = declare_named_pred(text, 1, "p4")
        add("dlb-mp", name, text, (NO, NO if o else OK, NO if o else OK))

    # dlb-lb (ASPLOS Fig. 8).
    for f in FENCES:
        fn = fence_name(f)
        o = fences_order(f, same_cta)
        name = "dlb-lb" + ("+" + fn if fn else "") + "+cta-global"
        t0 = Thread(["atom.cas.b32 r0,[h],0,1", "{F}", "mov.s32 r2,1", "st.cg.s32 [t],r2"], {"r0": ".b32"})
        t1 = Thread(["ld.cg.s32 r1,[t]", "{F}", "atom.cas.b32 r3,[h],0,1"], {"r3": ".b32"})
        com = ["dlb-lb (ASPLOS'15 Fig. 8): the deque again. T0 pops (atom.cas on head h)",
               "then pushes a new task (writes t); T1 steals: reads the task array t,",
               "then increments h with atom.cas. Can the steal read the task pushed",
               "after its own increment (r1=1, T0's cas reads T1's h=1, r0=1)?",
               "Cycle: PodRW Rfe PodRW Rfe%s. Threads in different CTAs." % (" with " + fn if fn else ""), "",
               "sc: No.",
               "ptx-rmo: %s." % ("No, both read-write pairs are fenced and the cycle is in rmo-gl" if o else
                                "Ok, no dependency orders the reads before the writes" + ("" if f is None else "\n  across CTAs (membar.cta)")),
               "ptx: %s." % ("No, F1 -po-> T1's cas write -obs-> T0's cas read -po-> F0: F1\n  synchronizes with F0, so T1's read of t precedes the write it reads from" if o else
                            ("Ok, relaxed atomics and weak accesses do not synchronize" if f is None else
                             "Ok, membar.cta in different CTAs are not morally strong"))]
        text = render(name, "Deque load buffering, different CTAs, %s" % (fn or "no fence"), com,
                      [t0, t1], "th", {}, "0:r0=1 /\\ 1:r1=1", same_cta, region, f)
        add("dlb-lb", name, text, (NO, NO if o else OK, NO if o else OK))

    # bar.sync: CTA execution barrier, so only the one-CTA configurations
    # (threads of different CTAs never meet at one barrier).
    for shape, cycle, threads, cond, locs in (
            ("MP", "PodWW Rfe PodRR Fre",
             [["st.cg.s32 [x],1", "bar.sync 0", "st.cg.s32 [y],1"],
              ["ld.cg.s32 r0,[y]", "bar.sync 0", "ld.cg.s32 r2,[x]"]],
             "1:r0=1 /\\ 1:r2=0", "xy"),
            ("SB", "PodWR Fre PodWR Fre",
             [["st.cg.s32 [x],1", "bar.sync 0", "ld.cg.s32 r2,[y]"],
              ["st.cg.s32 [y],1", "bar.sync 0", "ld.cg.s32 r2,[x]"]],
             "0:r2=0 /\\ 1:r2=0", "xy"),
            ("LB", "PodRW Rfe PodRW Rfe",
             [["ld.cg.s32 r0,[x]", "bar.sync 0", "st.cg.s32 [y],1"],
              ["ld.cg.s32 r0,[y]", "bar.sync 0", "st.cg.s32 [x],1"]],
             "0:r0=1 /\\ 1:r0=1", "xy")):
        for cfg in ("warp-shared", "warp-global"):
            cdesc, same_cta, region = CONFIGS[cfg]
            name = "%s+bar.sync+%s" % (shape, cfg)
            com = ["%s with bar.sync 0 between the accesses of each thread." % shape,
                   "Cycle: %s. Configuration: %s." % (cycle, cdesc),
                   "Each thread's first access happens before the other thread's second",
                   "access: the barrier is an execution barrier for the CTA.", "",
                   "sc: No, and the barrier would forbid it even without SC.",
                   "ptx-rmo: No, bar.sync is treated as membar.cta plus an execution",
                   "  barrier (models/ptx-rmo.cat); the cycle is in rmo-cta.",
                   "ptx: No, matching bar.sync synchronize: everything before one",
                   "  thread's barrier precedes everything after the other's in base",
                   "  causality order, so the cycle's communication edge breaks",
                   "  Causality."]
            text = render(name, "%s with bar.sync, %s" % (shape, cdesc), com,
                          [Thread(t) for t in threads], locs, {}, cond, same_cta, region, None)
            tests.append((os.path.join("bar", name + ".litmus"), text, (NO, NO, NO)))

    return tests


def declare_named_pred(text, tid, reg):
    """Adds `tid:.reg .pred reg;` to the declarations (for predicates not
    named r<n>, as in the papers' tests)."""
    return text.replace("{\n", "{\n%d:.reg .pred %s;\n" % (tid, reg), 1)


# --------------------------------------------------------------------------
# Hand-written tests: verdicts from their `(* verdict: ... *)` line.

def handwritten():
    out = []
    for family in ("PTX", "sanity", "Hopper", "HopperGen"):
        d = os.path.join(HERE, family)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            if not fn.endswith(".litmus"):
                continue
            with open(os.path.join(d, fn)) as fh:
                text = fh.read()
            m = re.search(r"verdict:\s*sc\s+(Ok|No)\s+ptx-rmo\s+(Ok|No|-)\s+ptx\s+(Ok|No)", text)
            if not m:
                sys.exit("%s/%s: no `verdict: sc X ptx-rmo Y ptx Z` line" % (family, fn))
            out.append((os.path.join(family, fn), None, m.groups()))
    return out


def main():
    check = "--check" in sys.argv[1:]
    tests = shape_tests() + app_tests()
    stale = []
    for path, text, _ in tests:
        full = os.path.join(HERE, path)
        old = None
        if os.path.exists(full):
            with open(full) as fh:
                old = fh.read()
        if old != text:
            stale.append(path)
            if not check:
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as fh:
                    fh.write(text)
    rows = ["# path\tsc\tptx-rmo\tptx"]
    for path, _, v in tests + handwritten():
        rows.append("\t".join([path] + list(v)))
    manifest = "\n".join(rows) + "\n"
    mpath = os.path.join(HERE, "manifest.tsv")
    old = open(mpath).read() if os.path.exists(mpath) else None
    if old != manifest:
        stale.append("manifest.tsv")
        if not check:
            with open(mpath, "w") as fh:
                fh.write(manifest)
    if check:
        for s in stale:
            print("stale: " + s)
        return 1 if stale else 0
    print("%d tests, manifest with %d rows" % (len(tests), len(rows) - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
