#!/usr/bin/env python3
"""The tables of docs/race.md ("Dynamic") from bench/DynRace/run.sh's
OUTDIR: races found against the labels per group, false positives, kernel
slowdowns (medians) of each scheme against the uninstrumented kernels and
against compute-sanitizer racecheck, and what pruning removed.

    bench/DynRace/summarize.py OUTDIR [GROUP=PREFIX ...]

A program belongs to the first group one of whose PREFIXes (comma
separated) its name starts with (default: one group, "all")."""
import csv
import json
import statistics
import sys


def load(out):
    rows = {}
    with open(out + "/results.tsv") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows.setdefault(r["name"], {"label": r["label"]})[r["variant"]] = r
    return rows


def ms(r):
    try:
        return float(r["kernel_ms"])
    except (KeyError, ValueError, TypeError):
        return None


def counts(r):
    try:
        with open(r["report"]) as f:
            j = json.load(f)
        return j.get("static", {}), j.get("dynamic", {})
    except (OSError, ValueError, KeyError, TypeError):
        return {}, {}


def med(xs):
    xs = [x for x in xs if x is not None]
    return (statistics.median(xs), len(xs)) if xs else (None, 0)


def fmt(x, n=None):
    if x is None:
        return "-"
    s = f"{x:.1f}x" if x < 1000 else f"{x:,.0f}x"
    return s if n is None else f"{s} (n={n})"


def main():
    out = sys.argv[1]
    groups = [a.split("=", 1) for a in sys.argv[2:]] or [["all", ""]]
    rows = load(out)
    table = {g: [] for g, _ in groups}
    for name, r in rows.items():
        for g, p in groups:
            if any(name.startswith(x) for x in p.split(",")):
                table[g].append((name, r))
                break
    print("| group | programs (racy / race-free) | run | addr: races found | "
          "stmt: found | unpruned addr: found | racecheck: found | "
          "false positives addr / stmt / racecheck |")
    print("|---|---|---|---|---|---|---|---|")
    slow = {}
    for g, progs in table.items():
        racy = [x for x in progs if x[1]["label"] == "racy"]
        free = [x for x in progs if x[1]["label"] != "racy"]
        ran = [x for x in progs if "addr" in x[1]]

        def found(sel, v):
            n = 0
            for _, r in sel:
                x = r.get(v, {})
                if v != "racecheck" and x.get("report", "-") != "-":
                    # incant's report says how many races it saw (the exit
                    # status 1 can be the application's own failure).
                    try:
                        with open(x["report"]) as f:
                            n += bool(json.load(f).get("races"))
                        continue
                    except (OSError, ValueError):
                        pass
                f = x.get("found", "0")
                n += f not in ("0", "-", "?", "timeout", "", None)
            return n

        def tried(sel, v):
            return sum(1 for _, r in sel
                       if v in r and r[v]["rc"] not in ("-", "build-failed"))

        def of(sel, v):
            n = tried(sel, v)
            return f"{found(sel, v)} of {n}" if n else "-"

        def fp(v):
            n = tried(free, v)
            return f"{found(free, v)} of {n}" if n else "-"

        print(f"| {g} | {len(racy)} / {len(free)} | {len(ran)} | "
              f"{of(racy, 'addr')} | {of(racy, 'stmt')} | {of(racy, 'all')} | "
              f"{of(racy, 'racecheck')} | {fp('addr')} / {fp('stmt')} / "
              f"{fp('racecheck')} |")
        for v in ("addr", "stmt", "all", "racecheck"):
            xs = []
            for _, r in ran:
                p, q = ms(r.get("plain", {})), ms(r.get(v, {}))
                if p and q and p > 0:
                    xs.append(q / p)
            slow[(g, v)] = med(xs)
        ys = []
        for _, r in ran:
            a, c = ms(r.get("addr", {})), ms(r.get("racecheck", {}))
            if a and c:
                ys.append(c / a)
        slow[(g, "rc/addr")] = med(ys)
    print()
    print("| group | addr vs plain | stmt vs plain | unpruned addr vs plain | "
          "racecheck vs plain | racecheck vs addr |")
    print("|---|---|---|---|---|---|")
    for g in table:
        print(f"| {g} | " + " | ".join(
            fmt(*slow[(g, v)]) for v in ("addr", "stmt", "all", "racecheck",
                                           "rc/addr")) + " |")
    print()
    print("| group | access sites instrumented (pruned build) | pruned | "
          "thread accesses checked, pruned / unpruned |")
    print("|---|---|---|---|")
    for g, progs in table.items():
        si = sp = dp = du = 0
        for _, r in progs:
            s, d = counts(r.get("addr", {}))
            _, d2 = counts(r.get("all", {}))
            si += s.get("instrumented_accesses", 0)
            sp += s.get("pruned_accesses", 0)
            dp += d.get("thread_accesses", 0)
            du += d2.get("thread_accesses", 0)
        print(f"| {g} | {si} | {sp} | {dp:,} / {du:,} |")
    print()
    print("| program | label | addr | stmt | unpruned | racecheck | "
          "plain ms | addr ms | stmt ms | racecheck ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for g, progs in table.items():
        for name, r in sorted(progs):
            def cell(v):
                x = r.get(v, {})
                return f"{x.get('found', '-')}/{x.get('rc', '-')}"
            def t(v):
                x = ms(r.get(v, {}))
                return "-" if x is None else f"{x:.3f}"
            print(f"| {name} | {r['label']} | {cell('addr')} | {cell('stmt')} "
                  f"| {cell('all')} | {cell('racecheck')} | {t('plain')} | "
                  f"{t('addr')} | {t('stmt')} | {t('racecheck')} |")


if __name__ == "__main__":
    main()
