"""Checks that the documentation keeps up with the tool and the tree:

  every long option that `incant COMMAND --help` lists appears in README.md
  or docs/*.md, and every path of the source tree named in them exists
  (markdown links, and `lib/...`, `include/...`, ... in backquotes).

Usage: check-docs.py INCANT SOURCE_DIR. Prints each problem; exit 1 if any.
"""
import glob
import os
import re
import subprocess
import sys

incant, src = sys.argv[1], sys.argv[2]
pages = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
texts = {p: open(p, encoding="utf-8").read() for p in pages}
alltext = "\n".join(texts.values())
problems = []


def help_of(args):
    return subprocess.run([incant] + args + ["--help"], capture_output=True,
                          text=True, timeout=60).stdout


top = help_of([])
commands = re.findall(r"^  ([a-z][a-z-]*) ", top.split("Subcommands:", 1)[1], re.M)
assert "check" in commands, top
# `--[no-]NAME` in a page documents --NAME and --no-NAME.
alltext += "\n" + re.sub(r"--\[no-\]([a-z][a-z0-9-]*)", r"--\1 --no-\1", alltext)
for cmd in commands:
    text = help_of([cmd])
    # nvcc and ptxas pass --help on to NVIDIA's tools: not incant's options.
    if not re.search(r"^Usage: \S*incant " + re.escape(cmd) + r"\b", text, re.M):
        continue
    for opt in sorted(set(re.findall(r"(?:^|[ ,])(--[a-z][a-z0-9-]*)", text, re.M))):
        if opt in ("--help", "--version"):
            continue
        if not re.search(re.escape(opt) + r"(?![a-z0-9-])", alltext):
            problems.append("incant %s %s: in --help, in no page of docs/ or README.md" % (cmd, opt))

roots = ("lib/", "include/", "tools/", "test/", "unittests/", "docs/", "bench/",
         "scripts/", "litmus/", "models/", "profiles/", "apps/", "corpus/", "fuzz/", ".ci/")
for page, text in texts.items():
    name = os.path.relpath(page, src)
    here = os.path.dirname(page)
    for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", link):
            continue
        if not os.path.exists(os.path.join(here, link)):
            problems.append("%s: link to %s, which does not exist" % (name, link))
    for code in re.findall(r"`([^`\n]+)`", text):
        for word in code.split():
            word = word.strip("(),;:'\"")
            if not word.startswith(roots) or re.search(r"[*<>{}$%\[\]|]|\.\.\.", word):
                continue
            if not os.path.exists(os.path.join(src, word)):
                problems.append("%s: names %s, which does not exist" % (name, word))

for p in problems:
    print(p)
print("%d problem(s) in %d page(s), %d command(s)" % (len(problems), len(pages), len(commands)))
sys.exit(1 if problems else 0)
