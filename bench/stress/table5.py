#!/usr/bin/env python3
"""table5.py FILE.jsonl... - Table 5 from `incant stress --json` lines.

One row per application, one column per environment, each cell
failures/runs (bold when more than 5 % of runs failed: the paper's
"effective"); then the paper's summary row per environment, a/b: b
applications with a failing run, a of them above 5 %. A second table gives
the failure rate of every cell with its Wilson 95 % interval. Lines of the
same label (from several files: calls with other seeds) are pooled: runs,
failures and hangs add up, and the rate and interval are those of the sums.
"""
import json
import math
import sys


def wilson(k, n, z=1.959964):
    if n == 0:
        return 0.0, 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return p, max(0.0, c - h), min(1.0, c + h)


def pool(rows):
    out, by = [], {}
    for r in rows:
        if r["label"] not in by:
            by[r["label"]] = {"label": r["label"], "environments": []}
            out.append(by[r["label"]])
        envs = by[r["label"]]["environments"]
        for e in r["environments"]:
            m = next((x for x in envs if x["env"] == e["env"]), None)
            if m is None:
                envs.append(dict(e))
                continue
            for k in ("runs", "failures", "hang", "fail", "crash"):
                m[k] = m.get(k, 0) + e.get(k, 0)
    for r in out:
        for e in r["environments"]:
            e["rate"], e["low"], e["high"] = wilson(e["failures"], e["runs"])
    return out


def main(paths):
    rows, envs = [], []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    rows.append(json.loads(line))
    rows = pool(rows)
    for r in rows:
        for e in r["environments"]:
            if e["env"] not in envs:
                envs.append(e["env"])
    def cell(r, env):
        for e in r["environments"]:
            if e["env"] == env:
                return e
        return None
    print("| app | " + " | ".join(envs) + " |")
    print("|---|" + "---|" * len(envs))
    for r in rows:
        cells = []
        for env in envs:
            e = cell(r, env)
            if not e:
                cells.append("")
                continue
            text = "%d/%d" % (e["failures"], e["runs"])
            if e["hang"]:
                text += " (%d hung)" % e["hang"]
            if e["runs"] and e["failures"] / e["runs"] > 0.05:
                text = "**" + text + "**"
            cells.append(text)
        print("| %s | %s |" % (r["label"], " | ".join(cells)))
    summary = []
    for env in envs:
        b = a = 0
        for r in rows:
            e = cell(r, env)
            if e and e["failures"]:
                b += 1
                if e["failures"] / e["runs"] > 0.05:
                    a += 1
        summary.append("%d / %d" % (a, b))
    print("| a / b | " + " | ".join(summary) + " |")
    print()
    print("| app | " + " | ".join(envs) + " |")
    print("|---|" + "---|" * len(envs))
    for r in rows:
        cells = []
        for env in envs:
            e = cell(r, env)
            cells.append("" if not e else "%.1f%% [%.1f, %.1f]" % (
                100 * e["rate"], 100 * e["low"], 100 * e["high"]))
        print("| %s | %s |" % (r["label"], " | ".join(cells)))


if __name__ == "__main__":
    main(sys.argv[1:])
