#!/usr/bin/env python3
"""Summarise a Hopper campaign database (bench/cuda/hopper-h200.sh campaign,
bench/cuda/hopper-gen-h200.sh): weak outcomes per feature, scope (or, for
the tests of `incant gen --preset hopper`, the variant of the edge) and ptx
verdict, and every outcome the ptx model forbids but the chip showed, with
a one-command reproducer.

Usage: hopper-summary.py DB [--repro DIR]
  --repro DIR: write the source of each test with a forbidden outcome into
  DIR (as NAME.litmus), so that `incant run` on it reproduces it.
"""
import argparse
import os
import sqlite3
import sys

FEATURES = [  # (feature, test of the name or path) in order
    # incant gen's Hopper edges (docs/gen.md), named by their edges.
    ("gen: mbarrier (Mbar)", lambda n, p: "Mbar" in n),
    ("gen: st.async / red.async (Tx)", lambda n, p: "+Tx" in n or
     n.startswith("Tx")),
    ("gen: barrier.cluster (Cbar)", lambda n, p: "Cbar" in n),
    ("gen: bulk copy", lambda n, p: "_bulk" in n),
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


def gen_variant(name, coarse=False):
    """For a test of gen's Hopper edges, what orders it: the edge's words
    (arrive, wait, scope, .loop; test_wait and try_wait taken together),
    the level of the threads (cta: one CTA, cluster: two CTAs of one
    cluster) and, for async stores and bulk copies, the fence before the
    async access; None for other tests. With coarse, only whether the
    wait is retried, the level and the fence."""
    import re
    level = re.search(r"\+(warp|cta|cluster|gpu)-", name)
    level = level.group(1) if level else "?"
    m = re.search(r"(Mbar|Tx)[sd][RW][RW]\.(\w+)\.(\w+)\.(cta|cluster)"
                  r"(\.test)?(\.loop)?", name)
    if m:
        fence = ""
        if m.group(1) == "Tx":
            fence = (" after fence.proxy.async" if "fence.proxy.async" in name
                     else " after fence.acq_rel" if "fence.acq_rel" in name
                     else " after a plain write" if "PodWW" in name else "")
        where = "CTA" if level in ("warp", "cta") else level
        if coarse:
            return "wait %s, threads in one %s%s" % (
                "in a loop" if m.group(6) else "once", where, fence)
        return "%s.%s.%s%s, threads in one %s%s" % (
            m.group(2), m.group(3), m.group(4), m.group(6) or "", where,
            fence)
    m = re.search(r"Cbar[sd][RW][RW]\.(rel|rlx)", name)
    if m:
        where = "CTA" if level in ("warp", "cta") else level
        if coarse:
            return "threads in one %s" % where
        return "%s arrive, threads in one %s" % (m.group(1), where)
    if "_bulk" in name:
        what = ("bulk read after a generic write" if "weak_bulk_weak_bulk"
                in name else "bulk write then a generic read"
                if "bulk_weak_bulk_weak" in name else
                "MP, bulk read after the acquire" if name.endswith("_bulk")
                else "MP, bulk write before the release")
        fence = ("fence.proxy.async" if "fence.proxy.async" in name else
                 "fence.acq_rel" if "fence.acq_rel" in name else "no fence")
        return "%s, %s" % (what, fence)
    return None


def scope_of(name, coarse=False):
    """The test's scopes as its name or comment says them: the strongest
    scope qualifier written in the name (cluster, cta, gpu) or 'none'; for
    gen's Hopper edges, their variant (gen_variant)."""
    v = gen_variant(name, coarse)
    if v is not None:
        return v
    for s in ("cluster", "cta", "gpu", "sys"):
        if "." + s in name:
            return s
    return "none"


def print_table(table):
    print("| feature | scope or variant | ptx says the weak outcome is | "
          "tests | tests that showed it | weak | instances | rate |")
    print("|---|---|---|---|---|---|---|---|")
    for (f, s, v), (n, inst, pos, seen) in sorted(table.items()):
        rate = "%.3g" % (pos / inst) if inst else "-"
        print("| %s | %s | %s | %d | %d | %d | %d | %s |"
              % (f, s, v, n, seen, pos, inst, rate))


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
    table, fine = {}, {}
    errors = []
    forbidden = []
    for h, name, path, src, inst, pos, status, err, rid in rows:
        f = feature(name, path)
        if status != "ok":
            errors.append((name, err))
            continue
        v = verdict.get(h)
        v = "allowed" if v else "forbidden" if v is not None else "unknown"
        for t, key in ((table, (f, scope_of(name, True), v)),
                       (fine, (f, scope_of(name), v))):
            e = t.setdefault(key, [0, 0, 0, 0])
            e[0] += 1
            e[1] += inst or 0
            e[2] += pos or 0
            e[3] += (pos or 0) > 0
        if h in allowed:
            for st, n in c.execute("SELECT state, count FROM outcomes WHERE "
                                   "result_id = ?", (rid,)):
                if st not in allowed[h]:
                    forbidden.append((name, path, src, st, n, inst))
    print_table(table)
    if fine != table:
        print("\nBy the variant of each edge:\n")
        print_table(fine)
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
