#!/usr/bin/env python3
"""Runs the rows of an exit-code table and checks each command's exit code
and message.

    run-table.py TABLE --incant BIN --src DIR --fakeapp BIN --fakefenceapp BIN
                 --fakecuda DIR --inject LIB --tmp DIR

A row is a line of TABLE of the form

    ROW: KIND | EXIT | MESSAGE | COMMAND

KIND names the failure (input, missing-file, no-gpu, no-nvcc, no-ptxas,
unwritable, ...); EXIT is the exit code the command must give; MESSAGE a
Python regular expression that standard error must contain; COMMAND the
command line, split like a shell's words (no shell runs it), where leading
NAME=VALUE words set the environment and these words are replaced:

    {incant} the tool         {src} the source tree   {t} a fresh folder
    {fakeapp} {fakefenceapp}  {fakecuda} (folder)     {injectlib}
    {nosuch}   {t}/nosuch, a path that does not exist
    {unwritable}  {t}/file/out, under a regular file: no one can write it
    {nogpu}    INCANT_LIBCUDA=/nonexistent/libcuda.so.1 (no CUDA driver)
    {nonvcc}   INCANT_NVCC=/nonexistent/nvcc     {noptxas} INCANT_PTXAS=...

A row whose command the tool was built without (`incant --help` does not
list it) is skipped. Every command the tool lists must have a row. Exit
code 1 if a row fails or a command has none."""
import os
import re
import shlex
import subprocess
import sys


def arg(name):
    return sys.argv[sys.argv.index(name) + 1]


table, incant = sys.argv[1], arg("--incant")
src, inject, tmp = arg("--src"), arg("--inject"), arg("--tmp")
fakes = {w: arg("--" + w) for w in ("fakeapp", "fakefenceapp", "fakecuda")}

help_text = subprocess.run([incant, "--help"], capture_output=True, text=True).stdout
subs = help_text.split("Subcommands:", 1)[1] if "Subcommands:" in help_text else ""
commands = set(re.findall(r"^  ([a-z][a-z-]*) ", subs, re.M))

rows = []
for n, line in enumerate(open(table), 1):
    if line.startswith("ROW:"):
        parts = [p.strip() for p in line[4:].split("|", 3)]
        if len(parts) != 4:
            sys.exit(f"{table}:{n}: a row needs KIND | EXIT | MESSAGE | COMMAND")
        rows.append((n, *parts))

os.makedirs(tmp, exist_ok=True)
failed = skipped = 0
covered = set()
for n, kind, want_exit, message, command in rows:
    t = os.path.join(tmp, f"row{n}")
    subprocess.run(["rm", "-rf", t])
    os.makedirs(t)
    open(os.path.join(t, "file"), "w").close()
    words = {
        "{incant}": incant, "{src}": src, "{t}": t,
        **{"{" + w + "}": p for w, p in fakes.items()},
        "{injectlib}": inject,
        "{nosuch}": os.path.join(t, "nosuch"),
        "{unwritable}": os.path.join(t, "file", "out"),
        "{nogpu}": "INCANT_LIBCUDA=/nonexistent/libcuda.so.1",
        "{nonvcc}": "INCANT_NVCC=/nonexistent/nvcc",
        "{noptxas}": "INCANT_PTXAS=/nonexistent/ptxas",
    }
    argv = []
    for w in shlex.split(command):
        for k, v in words.items():
            w = w.replace(k, v)
        argv.append(w)
    env = dict(os.environ)
    while argv and re.match(r"^[A-Z_][A-Z0-9_]*=", argv[0]):
        k, v = argv.pop(0).split("=", 1)
        env[k] = v
    sub = argv[1] if len(argv) > 1 and argv[0] == incant else None
    if sub not in commands:
        skipped += 1
        print(f"SKIP {table}:{n}: {kind}: {command} (no command {sub})")
        continue
    covered.add(sub)
    p = subprocess.run(argv, env=env, cwd=t, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=300)
    problems = []
    if str(p.returncode) != want_exit:
        problems.append(f"exit {p.returncode}, expected {want_exit}")
    if not re.search(message, p.stderr):
        problems.append(f"no match for /{message}/ in standard error")
    if problems:
        failed += 1
        print(f"FAIL {table}:{n}: {kind}: {command}: {'; '.join(problems)}")
        print("  stderr: " + p.stderr.strip().replace("\n", "\n          ")[:2000])
    else:
        print(f"ok   {table}:{n}: {kind}: exit {want_exit}: {sub}")
missing = sorted(commands - covered)
for c in missing:
    print(f"FAIL: command {c} has no row in {table}")
print(f"{len(rows)} rows: {len(rows) - failed - skipped} passed, {failed} failed, "
      f"{skipped} skipped; commands without a row: {len(missing)}")
sys.exit(1 if failed or missing else 0)
