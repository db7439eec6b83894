#!/usr/bin/env python3
"""Runs `incant repair` on GPURepair's test suite and summarises the results.

    bench/repair/gpurepair_suite.py INCANT SUITE_DIR OUT_DIR [-j N] [--only DIR]

SUITE_DIR is a copy of tests/testsuite of cs17resch01003/gpurepair (fetch
it yourself, outside this repository). Each kernel.cu / kernel.cl there
names its launch on its second line (GPUVerify's --blockDim/--gridDim or
--local_size/--num_groups/--global_size) and GPURepair's expected outcome on
its first; GPUVerify's --kernel-args=K,v1,... (scalar parameters' values)
become --param. GPUVerify's specification functions are compiled away with
bench/repair/gpuverify.h, and a function declared without a body is taken
to touch no memory (--assume-pure-externals: GPUVerify's convention, as
bench/Race/suites.sh gives it for GPUVerify's suite), except in kernels
whose specifications use __reads_from / __writes_to. CUDA kernels are
repaired with --grid-level (as GPURepair's default configuration).

Ground truth: in the NVIDIA samples, the barriers GPURepair's authors
commented out (`// __syncthreads();`). A repair "matches" when it inserts
a barrier exactly where each commented-out one was (before the next line of
code) and nothing else; it is "no costlier" when its cost (10^loop depth per
barrier, +12 for a grid barrier) is at most that of the original barriers,
which the script measures by repairing the uncommented kernel with
--no-remove and reading the barriers' costs.

Outcomes: clean (nothing to repair), repaired (verified), repaired-unknown
and clean-unknown (pairs the checker cannot decide remain), unrepairable,
error (the compiler rejects the kernel, or incant fails), timeout (120 s),
beyond-cuda-launch (GPUVerify's launch has more threads per block than CUDA
allows, which incant refuses; --oversize symbolic leaves such a block size
out, so that the kernel is checked for every launch CUDA allows).

Writes OUT_DIR/results.jsonl (one line per kernel) and prints a summary.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
COMMENTED = re.compile(r"^(\s*)//\s*(__syncthreads\(\)\s*;)\s*$")


def dims(text):
    """'32', '[32,32]', '[32,32,1]' -> 'X,Y,Z'; None where a size is '*'
    (GPUVerify's unconstrained size: the launch is left symbolic)."""
    parts = [p for p in re.split(r"[\[\],\s]+", text) if p]
    if "*" in parts:
        return None
    return ",".join(parts + ["1"] * (3 - len(parts)))


def launch(line, opencl):
    args = []
    opts = dict(re.findall(r"--([A-Za-z_]+)=(\[[^\]]*\]|\S+)", line))
    if opencl:
        local = opts.get("local_size")
        if local and dims(local):
            args += ["--block-dim", dims(local)]
        groups = opts.get("num_groups")
        groups = dims(groups) if groups else None
        if not groups and "global_size" in opts and local:
            try:
                g = [int(x) for x in dims(opts["global_size"]).split(",")]
                l = [int(x) for x in dims(local).split(",")]
                groups = ",".join(str(max(1, a // b)) for a, b in zip(g, l))
            except (ValueError, AttributeError):
                groups = None  # a symbolic size ('*'): left open
        if groups:
            args += ["--grid-dim", groups]
    else:
        for opt, flag in (("blockDim", "--block-dim"), ("gridDim", "--grid-dim")):
            if opt in opts and dims(opts[opt]):
                args += [flag, dims(opts[opt])]
    # Macros the launch line defines (-DWIDTH=256) go to the compiler.
    for d in re.findall(r"(?:^|\s)(-D\S+)", line):
        args += ["-X", d]
    # GPUVerify's flag of the same name: equal-value write races are races.
    if re.search(r"(?:^|\s)--no-benign-tolerance\b", line):
        args += ["--no-benign-tolerance"]
    return args


def kernel_args(line, source):
    """GPUVerify's --kernel-args=K,v1,...: the values of kernel K's
    parameters that are not pointers, in order, as --param POSITION=VALUE
    (a parameter that is no plain scalar, a struct by value, stops it)."""
    m = re.search(r"--kernel-args=(\w+),(\S+)", line)
    if not m:
        return []
    name, values = m.group(1), m.group(2).split(",")
    sig = re.search(r"\b" + name + r"\s*\(([^)]*)\)", source)
    if not sig:
        return []
    out, v = [], 0
    for pos, p in enumerate(x.strip() for x in sig.group(1).split(",")):
        if "*" in p:
            continue
        if v >= len(values) or re.search(r"\bstruct\b", p):
            break
        out += ["--param", f"{pos}={int(values[v], 0)}"]
        v += 1
    return out


def next_code_line(lines, i):
    """1-based number of the first line after index i with code."""
    for j in range(i + 1, len(lines)):
        s = lines[j].strip()
        if s and not s.startswith("//"):
            return j + 1
    return None


def run(incant, path, args, timeout=120):
    t0 = time.monotonic()
    try:
        p = subprocess.run([incant, "repair", path, "--json"] + args,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "wall": timeout}
    out = {"rc": p.returncode, "wall": time.monotonic() - t0}
    try:
        out["json"] = json.loads(p.stdout)
    except ValueError:
        out["stderr"] = p.stderr[-2000:]
    return out


def matches(rec):
    """Whether the repair put barriers exactly where the commented-out ones
    were: one source line each (copies of a statement in unrolled code
    count once), nothing removed, and every added barrier has a line."""
    got = {a[0] for a in rec["added"]}
    return (rec["outcome"] == "repaired" and None not in got and
            sorted(got) == rec["original_lines"] and not rec["removed"])


def symbolic_oversize(args):
    """args without a --block-dim of more than CUDA's 1024 threads (and
    whether one was dropped): the block is left symbolic instead."""
    out, dropped = [], False
    i = 0
    while i < len(args):
        if args[i] == "--block-dim":
            x, y, z = (int(v) for v in args[i + 1].split(","))
            if x * y * z > 1024:
                dropped = True
                i += 2
                continue
        out.append(args[i])
        i += 1
    return out, dropped


def one(incant, suite, path, oversize="refuse"):
    rel = os.path.relpath(path, suite)
    opencl = path.endswith(".cl")
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    expected = lines[0].lstrip("/").strip().lower() if lines else ""
    args = launch(lines[1] if len(lines) > 1 else "", opencl)
    args += kernel_args(lines[1] if len(lines) > 1 else "", "\n".join(lines))
    dropped = False
    if oversize == "symbolic":
        args, dropped = symbolic_oversize(args)
    # GPUVerify's cuda.h brought cooperative groups and cuRAND along.
    source = "\n".join(lines)
    if not opencl and "curand" in source:
        args += ["-X", "-include", "-X", "curand_kernel.h"]
    if not opencl and re.search(r"cooperative_groups|grid_group", source):
        args += ["-X", "-include", "-X", "cooperative_groups.h"]
    args += ["-X", "-include", "-X", os.path.join(HERE, "gpuverify.h")]
    # The suite's convention (GPUVerify's, GPURepair's oracle): a function
    # declared without a body touches no memory. The reports name each
    # function the assumption was used for. Not where a specification's
    # __reads_from / __writes_to stand for accesses (gpuverify.h makes them
    # calls of functions without a body, which must stay calls).
    if not re.search(r"\b__(?:reads_from|writes_to)\b", source):
        args.append("--assume-pure-externals")
    if not opencl:
        args.append("--grid-level")
    rec = {"kernel": rel, "expected": expected, "args": args}
    if dropped:
        rec["block"] = "symbolic (GPUVerify's launch exceeds 1024 threads)"
    gt = [i for i, l in enumerate(lines) if COMMENTED.match(l)]
    if gt:
        rec["original_lines"] = sorted(
            filter(None, (next_code_line(lines, i) for i in gt)))
    r = run(incant, path, args)
    rec["rc"], rec["wall"] = r["rc"], r["wall"]
    if "json" not in r:
        rec["stderr"] = r.get("stderr", "")
        rec["outcome"] = ("timeout" if r["rc"] == "timeout" else
                          "beyond-cuda-launch" if "more than CUDA allows"
                          in rec["stderr"] else "error")
        return rec
    j = r["json"]
    rec["seconds"] = j["seconds"]
    ks = j["kernels"]
    results = [k["result"] for k in ks]
    unknown = sum(k["after"]["unknown"] + k["after"]["unknown_barriers"]
                  for k in ks)
    if "unrepairable" in results:
        rec["outcome"] = "unrepairable"
    elif unknown:
        rec["outcome"] = ("repaired-unknown" if "repaired" in results
                          else "clean-unknown")
    elif "repaired" in results:
        rec["outcome"] = "repaired" if j["ptx_verified"] else "not-verified"
    else:
        rec["outcome"] = "clean"
    rec["problems"] = [p for k in ks for p in k["problems"]]
    # What the repaired build had before repairing (race_agreement.py).
    rec["before_races"] = sum(k["before"]["races"] + k["before"]["divergent"]
                              for k in ks)
    rec["before_unknown"] = sum(k["before"]["unknown"] +
                                k["before"].get("unknown_barriers", 0)
                                for k in ks)
    rec["added"] = [(a.get("source", {}).get("line"), a["kind"], a["cost"])
                    for k in ks for a in k["added"]]
    rec["removed"] = [(a.get("line"), a.get("why")) for k in ks
                      for a in k["removed"]]
    rec["cost"] = sum(k["added_cost"] for k in ks)
    rec["patch"] = j["patch"]["verified"]
    if "problem" in j["patch"]:
        rec["patch_problem"] = j["patch"]["problem"][:300]
    rec["build"] = j.get("build", "")

    # Ground truth: the commented-out barriers.
    if gt:
        rec["matches"] = matches(rec)
        # The original barriers' cost: uncomment them and read their costs.
        fixed = [COMMENTED.sub(r"\1\2", l) if i in gt else l
                 for i, l in enumerate(lines)]
        with tempfile.TemporaryDirectory() as d:
            p2 = os.path.join(d, os.path.basename(path))
            with open(p2, "w") as f:
                f.write("\n".join(fixed))
            r2 = run(incant, p2, args + ["--no-remove",
                                         "-X", "-I" + os.path.dirname(path)])
        if "json" in r2:
            lines_gt = {i + 1 for i in gt}
            rec["original_cost"] = sum(
                e["cost"] for k in r2["json"]["kernels"]
                for e in k["existing"] if e.get("line") in lines_gt)
            rec["original_verifies"] = all(
                k["result"] == "clean" and not k["after"]["unknown"]
                for k in r2["json"]["kernels"])
            rec["no_costlier"] = (rec["outcome"] == "repaired" and
                                  rec["cost"] <= rec["original_cost"])
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("incant")
    ap.add_argument("suite")
    ap.add_argument("out")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--summarise", action="store_true",
                    help="only print the summary of OUT_DIR/results.jsonl")
    ap.add_argument("--oversize", choices=["refuse", "symbolic"],
                    default="refuse",
                    help="a launch of more than 1024 threads per block: "
                    "passed as it is (incant refuses it) or left symbolic")
    ap.add_argument("--only", action="append", default=[],
                    help="only kernels under this folder of the suite")
    a = ap.parse_args()
    if a.summarise:
        with open(os.path.join(a.out, "results.jsonl")) as f:
            recs = [json.loads(l) for l in f]
        for r in recs:
            if "original_lines" in r:
                r["matches"] = matches(r)
        summarise(recs)
        return
    files = []
    for root, _, names in os.walk(a.suite):
        for n in names:
            if n in ("kernel.cu", "kernel.cl"):
                files.append(os.path.join(root, n))
    files.sort()
    if a.only:
        files = [f for f in files
                 if any(os.path.relpath(f, a.suite).startswith(o) for o in a.only)]
    os.makedirs(a.out, exist_ok=True)
    recs = []
    with ThreadPoolExecutor(a.j) as ex, \
            open(os.path.join(a.out, "results.jsonl"), "w") as out:
        for rec in ex.map(lambda f: one(a.incant, a.suite, f, a.oversize),
                          files):
            recs.append(rec)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(f"{rec['outcome']:17} {rec.get('seconds', 0):7.3f}s "
                  f"{rec['kernel']}", file=sys.stderr)
    summarise(recs)


def summarise(recs):
    n = len(recs)
    by = {}
    for r in recs:
        by[r["outcome"]] = by.get(r["outcome"], 0) + 1
    print(f"kernels: {n}")
    for k, v in sorted(by.items(), key=lambda kv: -kv[1]):
        print(f"  {k:17} {v:4}  {100.0 * v / n:5.1f} %")
    proved = sum(r["outcome"] in ("clean", "repaired") for r in recs)
    print(f"repaired or clean, every pair proved: {proved} of {n}")
    rep = [r for r in recs if r["outcome"] == "repaired"]
    if rep:
        pv = sum(bool(r.get("patch")) for r in rep)
        print(f"repaired with a source patch that compiled and verified: "
              f"{pv} of {len(rep)} ({100.0 * pv / len(rep):.1f} %)")
        why = {}
        for r in rep:
            if not r.get("patch"):
                k = r.get("patch_problem", "?").split(":")[0][:70]
                why[k] = why.get(k, 0) + 1
        for k, v in sorted(why.items(), key=lambda kv: -kv[1]):
            print(f"    no verified patch: {v:3}  {k}")
    secs = [r["seconds"] for r in recs if "seconds" in r]
    walls = [r["wall"] for r in recs if isinstance(r.get("wall"), float)]
    if secs:
        print(f"repair time per kernel: median {statistics.median(secs):.3f} s, "
              f"mean {statistics.mean(secs):.3f} s, max {max(secs):.2f} s")
    if walls:
        print(f"wall time per kernel (compiling, repair, patch check): median "
              f"{statistics.median(walls):.2f} s")
    gt = [r for r in recs if "original_lines" in r]
    if gt:
        rep = sum(r["outcome"] == "repaired" for r in gt)
        match = sum(bool(r.get("matches")) for r in gt)
        cheap = sum(bool(r.get("no_costlier")) for r in gt)
        print(f"with ground truth (commented-out barriers): {len(gt)}; "
              f"repaired {rep}, exactly the original barriers {match}, "
              f"a set no costlier {cheap}")
    for label in sorted({r["expected"] for r in recs}):
        sub = [r for r in recs if r["expected"] == label]
        cnt = {}
        for r in sub:
            cnt[r["outcome"]] = cnt.get(r["outcome"], 0) + 1
        print(f"  GPURepair's label {label!r}: {len(sub)}: " +
              ", ".join(f"{k} {v}" for k, v in sorted(cnt.items())))


if __name__ == "__main__":
    main()
