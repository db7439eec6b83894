"""Runs the commands of docs/tutorial.md as the tour says, and checks
their exit codes.

Every ```sh block is run, in order, by one bash in a fresh folder that
holds links to the source tree's top-level entries and the built tool at
build/tools/incant (so that the tour's relative paths and its `export
PATH=$PWD/build/tools/incant:$PATH` work as they do in a checkout). A
block's commands must all succeed; a block marked ```sh exit=N holds one
command, which must exit N. ```text blocks are output, not run.

Usage: run-tutorial.py INCANT_BIN_DIR SOURCE_DIR [WORK_DIR]. Prints one
line per block; exit 1 at the first block that fails.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

bin_dir, src = sys.argv[1], os.path.abspath(sys.argv[2])
work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="incant-tour-")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "build", "tools"))
for entry in os.listdir(src):
    if entry not in ("build", "tour", ".git"):
        os.symlink(os.path.join(src, entry), os.path.join(work, entry))
os.symlink(os.path.abspath(bin_dir), os.path.join(work, "build", "tools", "incant"))

text = open(os.path.join(src, "docs", "tutorial.md"), encoding="utf-8").read()
blocks = re.findall(r"^```sh( exit=(\d+))?\n(.*?)^```$", text, re.M | re.S)
if not blocks:
    print("no ```sh block in docs/tutorial.md")
    sys.exit(1)

# One shell for the whole tour, so that `export` carries over: a block
# runs under `set -e` (a failing command ends the tour there), a block
# marked exit=N has its one command's status compared.
lines = []
for i, (_, code, body) in enumerate(blocks):
    name = body.strip().splitlines()[0][:70].replace("'", "")
    lines.append("echo 'tour block %d: %s'" % (i + 1, name))
    if code:
        lines.append("set +e")
        lines.append(body.rstrip("\n"))
        lines.append("rc=$?")
        lines.append("if [ $rc -ne %s ]; then echo \"tour block %d: exit $rc, "
                     "expected %s\"; exit 1; fi" % (code, i + 1, code))
    else:
        lines.append("set -e")
        lines.append(body.rstrip("\n"))
        lines.append("set +e")
proc = subprocess.run(["bash", "-c", "\n".join(lines)], cwd=work,
                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.STDOUT, text=True, timeout=900)
if proc.returncode:
    sys.stdout.write(proc.stdout)
    print("tour failed (exit %d) in the last block named above" % proc.returncode)
    sys.exit(1)
for line in proc.stdout.splitlines():
    if line.startswith("tour block"):
        print(line)
print("%d block(s), all ok" % len(blocks))
