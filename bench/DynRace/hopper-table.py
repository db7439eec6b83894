#!/usr/bin/env python3
"""The table of bench/DynRace/hopper-call.sh: per case study, what the
dynamic checker's two schemes and compute-sanitizer racecheck reported,
their kernel slowdowns, the native post-condition over 100 runs and, for
the racy twins, incant stress.

    bench/DynRace/hopper-table.py RESULTS.tsv NATIVE.tsv STRESS.tsv"""
import csv
import sys


def main(results, native, stress):
    rows = {}
    with open(results) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows.setdefault(r["name"], {"label": r["label"]})[r["variant"]] = r
    nat = {}
    for line in open(native):
        p = line.rstrip("\n").split("\t")
        if len(p) >= 3:
            nat[p[0]] = p[2]
    st = {}
    for line in open(stress):
        p = line.rstrip("\n").split("\t")
        if len(p) >= 2:
            st["app_" + p[0]] = p[-1]

    def ms(r):
        try:
            return float(r["kernel_ms"])
        except (KeyError, ValueError, TypeError):
            return None

    print("| program | label | addr races | stmt races | racecheck hazards "
          "| addr x | stmt x | racecheck x | plain kernel ms | native 100 runs "
          "| stress |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, v in rows.items():
        plain = ms(v.get("plain", {}))
        cells = []
        for k in ("addr", "stmt", "racecheck"):
            cells.append(v.get(k, {}).get("found", "-"))
        for k in ("addr", "stmt", "racecheck"):
            t = ms(v.get(k, {}))
            cells.append("%.1f" % (t / plain) if t and plain else "-")
        native_line = nat.get(name, "-")
        for cut in (": ok: ", ": WRONG: "):
            if cut in native_line:
                native_line = ("ok: " if "ok" in cut else "WRONG: ") + \
                    native_line.split(cut, 1)[1][:60]
        print("| %s | %s | %s | %s | %s | %s |" % (
            name, v["label"], " | ".join(cells),
            "%.3f" % plain if plain else "-", native_line,
            st.get(name, "")))


if __name__ == "__main__":
    main(*sys.argv[1:4])
