#!/usr/bin/env python3
"""Summarise a Hopper campaign database (bench/cuda/hopper-h200.sh campaign):
weak outcomes per feature, scope and ptx verdict, and every outcome the ptx
model forbids but the chip showed, with a one-command reproducer.

Usage: hopper-summary.py DB [--repro DIR]
  --repro DIR: write the source of each test with a forbidden outcome into
  DIR (as NAME.litmus), so that `incant run` on it reproduces it.
"""
import argparse
import os
import sqlite3
import sys

FEATURES = [  # (feature, test of the name or path) in order
    ("mbarrier + bulk copy (TMA)", lambda n, p: "tma" in n or "bulk" in n),
    ("st.async / red.async", lambda n, p: ".async" in n and "proxy" not in n),
    ("mbarrier", lambda n, p: "mbarrier" in n),
    ("barrier.cluster", lambda n, p: "barrier.cluster" in n),
    ("distributed shared memory", lambda n, p: "dsmem" in n or "/dsmem/" in p),
    ("cluster scope, global memory", lambda n, p: "/cluster/" in p),
]


def feature(name, path):
    for f, test in FEATURES:
        if test(name, path):
            return f
    return "other"


def scope_of(name):
    """The test's scopes as its name or comment says them: the strongest
    scope qualifier written in the name (cluster, cta, gpu) or 'none'."""
    for s in ("cluster", "cta", "gpu", "sys"):
        if "." + s in name:
            return s
    return "none"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--repro")
    a = ap.parse_args()
    c = sqlite3.connect(a.db)
    rows = c.execute(
        "SELECT t.hash, t.name, t.path, t.source, r.instances, r.positive, "
        "r.status, r.error, r.id FROM tests t JOIN results r ON "
        "r.test_hash = t.hash").fetchall()
    verdict = {h: ok for h, ok in c.execute(
        "SELECT test_hash, ok FROM verdicts WHERE model = 'ptx' AND NOT "
        "incomplete")}
    allowed = {}
    for h, st in c.execute("SELECT test_hash, state FROM allowed WHERE "
                           "model = 'ptx'"):
        allowed.setdefault(h, set()).add(st)
    table = {}
    errors = []
    forbidden = []
    for h, name, path, src, inst, pos, status, err, rid in rows:
        f = feature(name, path)
        if status != "ok":
            errors.append((name, err))
            continue
        v = verdict.get(h)
        key = (f, scope_of(name), "allowed" if v else "forbidden"
               if v is not None else "unknown")
        e = table.setdefault(key, [0, 0, 0, 0])
        e[0] += 1
        e[1] += inst or 0
        e[2] += pos or 0
        e[3] += (pos or 0) > 0
        if h in allowed:
            for st, n in c.execute("SELECT state, count FROM outcomes WHERE "
                                   "result_id = ?", (rid,)):
                if st not in allowed[h]:
                    forbidden.append((name, path, src, st, n, inst))
    print("| feature | scope | ptx says the weak outcome is | tests | "
          "tests that showed it | weak | instances | rate |")
    print("|---|---|---|---|---|---|---|---|")
    for (f, s, v), (n, inst, pos, seen) in sorted(table.items()):
        rate = "%.3g" % (pos / inst) if inst else "-"
        print("| %s | %s | %s | %d | %d | %d | %d | %s |"
              % (f, s, v, n, seen, pos, inst, rate))
    total = sum(e[0] for e in table.values())
    print("\n%d tests ran, %d failed to run" % (total, len(errors)))
    for name, err in errors[:20]:
        print("  error: %s: %s" % (name, (err or "").splitlines()[0][:160]))
    print("\n%d outcomes ptx forbids were observed" % len(forbidden))
    for name, path, src, st, n, inst in forbidden:
        print("  %s: %s x%d of %d" % (name, st, n, inst))
        if a.repro:
            os.makedirs(a.repro, exist_ok=True)
            with open(os.path.join(a.repro, name + ".litmus"), "w") as fh:
                fh.write(src)
            print("    reproduce: incant run --backend cuda --model ptx "
                  "--iterations 1000 %s/%s.litmus" % (a.repro, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
