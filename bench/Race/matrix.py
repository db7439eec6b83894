#!/usr/bin/env python3
"""The confusion matrix of a bench/Race/suites.sh run.

    bench/Race/matrix.py gv.txt              # the table (markdown)
    bench/Race/matrix.py gv.txt race,safe    # also the files in one cell
    bench/Race/matrix.py gv.txt all          # also every file

A file's verdict: "race" when incant found a race or a divergent barrier,
"unknown" when it found none but left a pair or a barrier undecided, "safe"
when it proved everything, "not analysed" when it stopped with exit code 2
or 3 (the compiler rejected the file, no kernel, an unsupported launch).
The exit code is 1 when a file labelled race is called safe (a soundness
bug), else 0.
"""
import statistics
import sys

LABELS = ["race", "bounds", "safe", "other"]
VERDICTS = ["race", "unknown", "safe", "not analysed"]


def verdict(rc, counts):
    if rc in ("2", "3") or counts[0] == "-":
        return "not analysed"
    races, divergent, unknown = map(int, counts)
    if races + divergent:
        return "race"
    return "unknown" if unknown else "safe"


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cells, seconds = {}, []
    with open(argv[1]) as lines:
        for n, line in enumerate(lines, 1):
            fields = line.rstrip("\n").split("|")
            if len(fields) < 5:
                print(f"{argv[1]}:{n}: expected path|label|rc|counts|seconds",
                      file=sys.stderr)
                return 2
            path, label, rc, counts, secs = fields[:5]
            v = verdict(rc, counts.split())
            cells.setdefault((label, v), []).append(path)
            if v != "not analysed":
                seconds.append(float(secs))
    print("| label | " + " | ".join(VERDICTS) + " | total |")
    print("|---|" + "---|" * (len(VERDICTS) + 1))
    for label in LABELS:
        row = [len(cells.get((label, v), [])) for v in VERDICTS]
        if sum(row):
            print(f"| {label} | " + " | ".join(map(str, row)) +
                  f" | {sum(row)} |")
    if seconds:
        print(f"\n{len(seconds)} files analysed; seconds per file (both nvcc "
              f"builds and the analysis): median "
              f"{statistics.median(seconds):.2f}, max {max(seconds):.2f}")
    if len(argv) == 3:
        for (label, v), paths in sorted(cells.items()):
            if argv[2] == "all" or argv[2] == f"{label},{v}":
                for p in sorted(paths):
                    print(label, v, p)
    missed = cells.get(("race", "safe"), [])
    for p in missed:
        print(f"UNSOUND: {p} is labelled race and was called safe",
              file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
