#!/usr/bin/env python3
"""table.py WORK COST.jsonl - the tables of docs/fences.md from h100.sh's
output: one row per search (WORK/NAME.json, WORK/searches.tsv) and one per
cost measurement (COST.jsonl, `incant fences cost --results`)."""
import json
import os
import statistics
import sys


def searches(work):
    times = {}
    path = os.path.join(work, "searches.tsv")
    if os.path.exists(path):
        for line in open(path):
            parts = line.split()
            if len(parts) == 3:
                times[parts[0]] = (int(parts[1]), float(parts[2]))
    print("| app | candidates | reduced | fences kept (after source line: kind) "
          "| vs. fenced build | checks | runs | rounds | time s | exit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in sorted(times):
        rc, secs = times[name]
        path = os.path.join(work, name + ".json")
        try:
            j = json.load(open(path))
        except (OSError, ValueError):
            print(f"| {name}-nf | | | (no result: exit {rc}) | | | | | {secs} | {rc} |")
            continue
        kept = ", ".join(
            f"{os.path.basename(f['file'])}:{f['line']} {f['kind'].replace('fence.', '')}"
            for f in j["fences"]) or "none"
        runs = sum(c["runs"] for c in j["checks"])
        status = j["status"]
        reduced = len(j["fences"]) if status == "reduced" else f"{len(j['fences'])} ({status})"
        print(f"| {name}-nf | {j['candidates']} | {reduced} | {kept} | "
              f"{j['match']} | {len(j['checks'])} | {runs} | {j['rounds']} | "
              f"{secs} | {rc} |")


def costs(path):
    if not os.path.exists(path):
        return
    rows = [json.loads(l) for l in open(path) if l.strip()]
    print()
    print("| app | fences no / cons / emp | kernel ms: no | cons | emp | "
          "energy J: no | cons | emp | counter steps (no/cons/emp) | runs passed (no/cons/emp) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    cons_t, emp_t, cons_e, emp_e = [], [], [], []
    for r in rows:
        v = {x["name"]: x for x in r["variants"]}
        no, cons, emp = v.get("no"), v.get("cons"), v.get("emp")
        if not no or not cons:
            continue

        def cost(x, base, key):
            if not x or not base[key] or not x[key]:
                return "-"
            return f"{x[key]:.4g} ({100 * (x[key] / base[key] - 1):+.0f}%)"

        if no["median_ms"] > 0:
            cons_t.append(cons["median_ms"] / no["median_ms"] - 1)
            if emp and emp["median_ms"] > 0:
                emp_t.append(emp["median_ms"] / no["median_ms"] - 1)
        if no["energy_j"] > 0:
            cons_e.append(cons["energy_j"] / no["energy_j"] - 1)
            if emp and emp["energy_j"] > 0:
                emp_e.append(emp["energy_j"] / no["energy_j"] - 1)
        fences = f"0 / {cons['fences']} / {emp['fences'] if emp else '-'}"
        steps = "/".join(str(x["energy_steps"]) for x in (no, cons, emp) if x)
        passed = "/".join(f"{x['passed']}" for x in (no, cons, emp) if x)
        print(f"| {r['app']} | {fences} | {no['median_ms']:.4g} | "
              f"{cost(cons, no, 'median_ms')} | {cost(emp, no, 'median_ms')} | "
              f"{no['energy_j']:.4g} | {cost(cons, no, 'energy_j')} | "
              f"{cost(emp, no, 'energy_j')} | {steps} | {passed} of {no['runs']} |")
    med = lambda xs: f"{100 * statistics.median(xs):+.0f}%" if xs else "-"
    print()
    print(f"Median cost over the applications: runtime cons {med(cons_t)}, "
          f"emp {med(emp_t)}; energy cons {med(cons_e)}, emp {med(emp_e)}.")


if __name__ == "__main__":
    searches(sys.argv[1])
    costs(sys.argv[2])
