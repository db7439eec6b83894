#!/usr/bin/env python3
"""Weak outcomes of campaign databases side by side (an A/B of two builds).

Usage: bench/cuda/ab-campaign.py LABEL=DB.sqlite [LABEL=DB.sqlite ...]

For each database: results and their status, optcheck lines that are not
"ok", instances per result (min and max), barrier timeouts, the tests that
showed the weak outcome (the condition's final state) and how many
instances did, and the observed states each model forbids (docs/campaign.md's
query). Then the pooled weak rate per family, between CTAs and within one
(the scope's level), one column per database; then, for the first two, the
tests that showed the weak outcome in both, only in the first, only in the
second; and for each database after the first, the tests whose optcheck
line differs from the first's. Reads with Python's sqlite3 only (the device machine has no sqlite3
tool)."""
import sqlite3
import sys

if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
    sys.exit(__doc__.split("\n\n")[1])
dbs = [a.split("=", 1) for a in sys.argv[1:]]
weak_tests, pooled, optlines = {}, {}, {}

for label, path in dbs:
    c = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    q = lambda s: c.execute(s).fetchall()
    n, ok = q("SELECT count(*), sum(status = 'ok') FROM results")[0]
    bad_opt = q("SELECT count(*) FROM results WHERE optcheck NOT LIKE 'optcheck: ok%'")[0][0]
    imin, imax = q("SELECT min(instances), max(instances) FROM results")[0]
    bt = q("SELECT coalesce(sum(barrier_timeouts), 0) FROM results")[0][0]
    wt, wi = q("SELECT sum(positive > 0), sum(positive) FROM results")[0]
    forb = dict(q("""
        SELECT v.model, count(*) FROM results r
        JOIN outcomes o ON o.result_id = r.id
        JOIN verdicts v ON v.test_hash = r.test_hash AND NOT v.incomplete
        WHERE NOT EXISTS (SELECT 1 FROM allowed a WHERE a.test_hash = r.test_hash
                          AND a.model = v.model AND a.state = o.state)
        GROUP BY v.model"""))
    print(f"{label}: {n} results, {ok} ok, {bad_opt} optcheck not ok, "
          f"instances {imin}..{imax}, barrier timeouts {bt}, "
          f"{wt} tests with the weak outcome, {wi} weak instances; observed "
          f"states forbidden: " + ", ".join(
              f"{m} {forb.get(m, 0)}" for m in ("sc", "ptx-rmo", "ptx")))
    optlines[label] = dict(q("SELECT test_hash, optcheck FROM results"))
    weak_tests[label] = {h for (h,) in q(
        "SELECT test_hash FROM results WHERE positive > 0")}
    for fam, level, pos, inst, k, t in q("""
            SELECT t.family, substr(t.scope, 1, instr(t.scope, '/') - 1),
                   sum(r.positive), sum(r.instances), sum(r.positive > 0), count(*)
            FROM results r JOIN tests t ON t.hash = r.test_hash
            GROUP BY 1, 2"""):
        inter = "between CTAs" if level in ("inter-cta", "inter-device") else "within a CTA"
        cell = pooled.setdefault((fam, inter), {}).setdefault(label, [0, 0, 0, 0])
        for i, v in enumerate((pos, inst, k, t)):
            cell[i] += v

labels = [l for l, _ in dbs]
print("\npooled weak rate (tests showing it / tests) per family")
print(f"{'family':6} {'where':13} " + " ".join(f"{l:>22}" for l in labels))
for (fam, inter) in sorted(pooled):
    row = pooled[(fam, inter)]
    cells = []
    for l in labels:
        pos, inst, k, t = row.get(l, [0, 0, 0, 0])
        cells.append(f"{(pos / inst if inst else 0):9.3e} ({k:4}/{t:4})")
    print(f"{fam:6} {inter:13} " + " ".join(f"{c:>22}" for c in cells))
if len(labels) >= 2:
    a, b = weak_tests[labels[0]], weak_tests[labels[1]]
    print(f"\ntests with the weak outcome: both {len(a & b)}, only "
          f"{labels[0]} {len(a - b)}, only {labels[1]} {len(b - a)}")
    first = optlines[labels[0]]
    for l in labels[1:]:
        other = optlines[l]
        differ = sum(1 for h in first if h in other and other[h] != first[h])
        print(f"optcheck lines that differ between {labels[0]} and {l}: "
              f"{differ} of {len(set(first) & set(other))} tests in both")
