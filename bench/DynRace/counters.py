#!/usr/bin/env python3
"""counters.py LOGDIR: one line per report of a run of bench/DynRace/run.sh
(LOGDIR/*.json): program, variant, thread accesses checked, accesses left
unchecked for want of a shadow entry (addr) or log room (stmt), races; then
the totals per variant."""
import glob
import json
import os
import sys

totals = {}
print("name\tvariant\taccesses\tshadow_full\tlog_full\traces")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    name, variant = os.path.basename(path)[:-5].rsplit(".", 1)
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError):
        continue
    c = j.get("counters", {})
    row = (c.get("accesses", 0), c.get("shadow_full", 0), c.get("log_full", 0),
           len(j.get("races", [])))
    print(name, variant, *row, sep="\t")
    t = totals.setdefault(variant, [0, 0, 0, 0])
    for k, v in enumerate(row):
        t[k] += v
for variant, t in sorted(totals.items()):
    print("total", variant, *t, sep="\t")
