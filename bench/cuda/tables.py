#!/usr/bin/env python3
"""Markdown tables from bench/cuda/tables.sh's runs.jsonl (one JSON object
per run: section, row, col and the bench program's fields)."""
import json
import sys


def num(x):
    """Counts below 1e4 in full, larger ones as 2.7e7."""
    if x < 1e4:
        return str(int(x)) if x == int(x) else f"{x:.2g}"
    return f"{x:.1e}".replace("e+0", "e").replace("e+", "e")


def opt(r):
    o = r.get("optcheck", "")
    if o == "optcheck: ok":
        return "ok"
    if o.startswith("optcheck: ok ("):
        return "ok (" + o[len("optcheck: ok ("):].split(";")[0] + ")"
    return o.replace("optcheck: ", "") or "?"


def cell(r):
    if r is None:
        return ""
    if r.get("error"):
        return "error"
    c = f"{num(r['weak'])} / {num(r['instances'])}"
    if not r["optcheck"].startswith("optcheck: ok"):
        c += " (optcheck " + opt(r) + ")"
    return c


def pivot(runs, title):
    rows, cols = [], []
    by = {}
    for r in runs:
        if r["row"] not in rows:
            rows.append(r["row"])
        if r["col"] not in cols:
            cols.append(r["col"])
        by[(r["row"], r["col"])] = r
    print(f"\n### {title}\n")
    print("Cells: runs whose final state satisfied the condition / instances.\n")
    print("| test | " + " | ".join(cols) + " | optcheck |")
    print("|---" * (len(cols) + 2) + "|")
    for row in rows:
        oks = sorted({opt(by[(row, c)]) for c in cols
                      if (row, c) in by and not by[(row, c)].get("error")})
        print(f"| {row} | " + " | ".join(cell(by.get((row, c))) for c in cols)
              + " | " + ", ".join(oks) + " |")


def main():
    runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    sec = lambda s: [r for r in runs if r["section"] == s]
    if sec("1"):
        pivot(sec("1"), "Tests under each incantation (100 launches each)")
    if sec("2"):
        pivot(sec("2"), "Intra-CTA placements")
    if sec("3"):
        print("\n### bar.sync, 64-bit, and tests that needed a lower ptxas level\n")
        print("| test | condition held | instances | instances/s | optcheck |")
        print("|---|---|---|---|---|")
        for r in sec("3"):
            if r.get("error"):
                print(f"| {r['row']} | error | | | |")
                continue
            print(f"| {r['row']} | {r['weak']} | {num(r['instances'])} | "
                  f"{num(r['instances_per_s'])} | {r['optcheck'][10:]} |")
    if sec("4"):
        print("\n### Parallel testing against one instance per launch (SB, relaxed.gpu)\n")
        print("| incantations | mode | launches | instances | weak | seconds | "
              "weak/s |")
        print("|---|---|---|---|---|---|---|")
        by = {}
        for r in sec("4"):
            if r.get("error"):
                continue
            by[(r["row"], r["col"])] = r
            print(f"| {r['row']} | {r['col']} | {r['launches']} | "
                  f"{r['instances']} | {r['weak']} | {r['seconds']:.2f} | "
                  f"{num(r['weak_per_s'])} |")
        for row in dict.fromkeys(k[0] for k in by):
            p, s = by.get((row, "parallel")), by.get((row, "single"))
            if not p or not s:
                continue
            if p["weak"] == 0 and s["weak"] == 0:
                print(f"\n{row}: no weak outcome in either mode")
            elif s["weak"] > 0:
                print(f"\n{row}: parallel / single weak per second = "
                      f"{p['weak_per_s'] / s['weak_per_s']:.3g}")
            else:
                bound = 3.0 / s["seconds"]  # 95 % upper bound on the rate
                print(f"\n{row}: single saw 0 weak in {s['instances']} "
                      f"instances; ratio > {p['weak_per_s'] / bound:.3g} "
                      f"(95 % bound: 3 weak in {s['seconds']:.1f} s)")


if __name__ == "__main__":
    main()
