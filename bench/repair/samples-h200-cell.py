#!/usr/bin/env python3
"""One cell of docs/repair.md's H200 samples table from an incant race
--dynamic text report (REPORT, with REPORT.rc holding incant's exit status).

  samples-h200-cell.py REPORT

Prints, e.g., 'race (4 races, 134251 hazards; mergeHistogram256Kernel;
app 1; rc 1; 38496916 unchecked)' or 'none (8 launches, 268558336 accesses;
app 0; rc 0)'. 'app' is the program's own exit status as the report gives it;
'unchecked' counts the accesses that found no free shadow entry.
"""
import re
import sys

rep = sys.argv[1]
try:
    rc = open(rep + ".rc").read().strip()
except OSError:
    rc = "?"
try:
    text = open(rep).read()
except OSError:
    print(f"no report (rc {rc})")
    sys.exit()
m = re.search(r"^summary: (\d+) races? \((\d+) hazards\); (\d+) launch(?:es)? "
              r"checked; (\d+) thread accesses.*?(\d+) access sites instrumented"
              r"(?:.*?, (\d+) proved safe)?", text, re.M)
if not m:
    print(f"no summary (rc {rc})")
    sys.exit()
races, hazards, launches, acc, sites, pruned = m.groups()
kernels = sorted({re.sub(r"\(.*", "", k).replace("void ", "").strip()
                  for k in re.findall(r"^race: .* in kernel (.*)$", text, re.M)})
app = re.search(r"^note: the application exited with status (\d+)", text, re.M)
lost = re.search(r"^note: (\d+) accesses found no free shadow entry", text, re.M)
tail = f"app {app.group(1) if app else '?'}; rc {rc}"
if lost:
    tail += f"; {lost.group(1)} unchecked"
if races != "0":
    print(f"race ({races} races, {hazards} hazards; {', '.join(kernels)}; {tail})")
elif acc == "0" and sites == "0":
    print(f"none (every site proved safe statically: {pruned or 0}; {tail})")
else:
    print(f"none ({launches} launches, {acc} accesses; {tail})")
