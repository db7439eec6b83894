"""Checks that every `incant ... --help` reads plainly (issue 19):

  - no switch shows CLI11's `{false}` or `{true}` beside its description
    (a switch says its default in words: --NAME/--no-NAME);
  - in a command that takes files or arguments (a "Positionals:" section),
    no option takes several values per occurrence (`TEXT ...`), which would
    swallow the files after it.

Walks every command and subcommand. Usage: check-help.py INCANT. Prints
each problem; exit 1 if any.
"""
import re
import subprocess
import sys

incant = sys.argv[1]
problems = []
seen = 0


def sections(text):
    out, name = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            name = line[:-1]
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def walk(path):
    global seen
    text = subprocess.run([incant] + path + ["--help"], capture_output=True,
                          text=True, timeout=60).stdout
    # nvcc and ptxas pass --help on to NVIDIA's tools.
    if not re.search(r"^Usage: \S*incant " + re.escape(" ".join(path)), text, re.M):
        return
    seen += 1
    name = " ".join(["incant"] + path)
    parts = sections(text)
    for line in parts.get("Options", []):
        if re.search(r"\{(false|true)\}", line):
            problems.append("%s: %s" % (name, line.strip()))
        elif "Positionals" in parts and re.match(r"\s+-\S*\s+[A-Z]+\s+\.\.\.", line):
            problems.append("%s: several values per occurrence beside "
                            "positionals: %s" % (name, line.strip()))
    for line in parts.get("Subcommands", []):
        m = re.match(r"  ([a-z][a-z-]*)\b", line)
        if m:
            walk(path + [m.group(1)])


walk([])
for p in problems:
    print(p)
print("%d problem(s) in %d command(s)" % (len(problems), seen))
sys.exit(1 if problems else 0)
