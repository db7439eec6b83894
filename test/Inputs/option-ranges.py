#!/usr/bin/env python3
"""Lists every numeric option of every incant subcommand with its range,
from `incant SUB --help` (CLI11 prints a validator's description after the
type: `--iterations UINT:in 1 to 10^9=1000`). An option whose type is a
number and that has no range is reported as `NO RANGE`; the exit code is 1
if there is one. With --docs FILE, also checks that FILE (docs/limits.md)
has a row `| `--opt` | sub | range |` for each, exit 1 if not."""
import re
import subprocess
import sys

incant = sys.argv[1]
docs = sys.argv[sys.argv.index("--docs") + 1] if "--docs" in sys.argv else None


def help_of(args):
    return subprocess.run([incant] + args + ["--help"], capture_output=True,
                          text=True).stdout


subs = []
section = None
for line in help_of([]).splitlines():
    if line.strip().endswith(":") and not line.startswith(" "):
        section = line.strip()
        continue
    if section == "Subcommands:" and line.startswith("  "):
        subs.append(line.split()[0])

bad = 0
rows = []
opt_re = re.compile(r"^\s+((?:-{1,2}[\w-]+,?)+)\s+(UINT|INT|FLOAT|NUMBER)(.*)$")
for sub in subs:
    for line in help_of([sub]).splitlines():
        m = opt_re.match(line)
        if not m:
            continue
        name = m.group(1).split(",")[-1]
        # The type's column ends at two spaces (the description) or the line.
        rng = re.match(r":in (.+? to [^ =]+)", m.group(3))
        if not rng:
            print(f"{sub} {name}: NO RANGE")
            bad = 1
            continue
        rows.append((sub, name, rng.group(1)))
        print(f"{sub} {name}: {rng.group(1)}")
if docs:
    text = open(docs).read()
    for sub, name, rng in rows:
        row = re.compile(r"^\|\s*`" + re.escape(name) + r"`\s*\|[^|\n]*\b" +
                         re.escape(sub) + r"\b[^|\n]*\|\s*" + re.escape(rng) +
                         r"\s*\|", re.M)
        if not row.search(text):
            print(f"{sub} {name}: not in {docs} as `{name}` | {sub} | {rng}")
            bad = 1
print(f"{len(rows)} numeric options")
sys.exit(bad)
