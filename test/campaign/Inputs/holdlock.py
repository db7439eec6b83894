#!/usr/bin/env python3
"""Holds the writer lock of a database (PATH-lock, flock) while it runs a
command, as a running campaign or merge would; prints the command's exit
code."""
import fcntl
import subprocess
import sys

db, cmd = sys.argv[1], sys.argv[2:]
with open(db + "-lock", "w") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    print("exit", subprocess.call(cmd))
