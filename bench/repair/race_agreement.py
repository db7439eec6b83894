#!/usr/bin/env python3
"""Whether `incant race` and `incant repair` agree on the kernels of a
gpurepair_suite.py run.

    bench/repair/race_agreement.py INCANT SUITE_DIR OUT_DIR [-j N] [--cuda-only]

SUITE_DIR is the suite gpurepair_suite.py ran on. Reads
OUT_DIR/results.jsonl (gpurepair_suite.py's records, which keep each
kernel's arguments and what repair found before repairing), runs `incant
race` on each kernel with the same launch and compiler arguments, and
compares: repair found races or divergence before repairing exactly when
race exits 1; repair found none and every pair proved exactly when race
exits 0. Kernels repair could not read (error, timeout, beyond-cuda-launch)
are skipped. Writes OUT_DIR/agreement.jsonl and prints the disagreements.
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

REPAIR_ONLY = {"--grid-level", "--no-remove", "--remove"}


def race_args(args):
    return [a for a in args if a not in REPAIR_ONLY]


def one(incant, suite, rec):
    path = os.path.join(suite, rec["kernel"])
    try:
        p = subprocess.run([incant, "race", path, "--json"] +
                           race_args(rec["args"]),
                           capture_output=True, text=True, timeout=300)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    before = rec.get("before_races")
    unknown_before = rec.get("before_unknown", 0)
    if before is None:  # a record of an earlier script: from the outcome
        before = int(rec["outcome"] == "unrepairable" or bool(rec["added"]) or
                     any(why == "divergent" for _, why in rec["removed"]))
        unknown_before = int(rec["outcome"].endswith("-unknown"))
    want = 1 if before else (0 if not unknown_before else 4)
    return {"kernel": rec["kernel"], "outcome": rec["outcome"],
            "before_races": before, "before_unknown": unknown_before,
            "race_rc": rc, "agree": rc == want}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("incant")
    ap.add_argument("suite")
    ap.add_argument("out")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--cuda-only", action="store_true")
    a = ap.parse_args()
    with open(os.path.join(a.out, "results.jsonl")) as f:
        recs = [json.loads(l) for l in f]
    recs = [r for r in recs if "added" in r and
            (not a.cuda_only or r["kernel"].endswith(".cu"))]
    n = agree = 0
    with ThreadPoolExecutor(a.j) as ex, \
            open(os.path.join(a.out, "agreement.jsonl"), "w") as out:
        for r in ex.map(lambda rec: one(a.incant, a.suite, rec), recs):
            out.write(json.dumps(r) + "\n")
            out.flush()
            n += 1
            agree += r["agree"]
            if not r["agree"]:
                print(f"disagree: {r['kernel']}: repair {r['outcome']} "
                      f"({r['before_races']} races/divergent, "
                      f"{r['before_unknown']} unknown before), race exit "
                      f"{r['race_rc']}", file=sys.stderr)
    print(f"kernels compared: {n}; race and repair agree on {agree}, "
          f"disagree on {n - agree}")


if __name__ == "__main__":
    main()
