#!/usr/bin/env python3
"""Runs a command with its standard error on a pseudo-terminal (standard
output unchanged) and prints what came out on the terminal, each carriage
return shown as '<CR>' so that FileCheck can see a line rewritten in place.
With --stdout first, standard output is the terminal instead (and what came
out is printed on standard output). Exits with the command's exit code."""
import os
import pty
import subprocess
import sys

on_stdout = len(sys.argv) > 1 and sys.argv[1] == "--stdout"
argv = sys.argv[2:] if on_stdout else sys.argv[1:]
master, slave = pty.openpty()
proc = (subprocess.Popen(argv, stdout=slave) if on_stdout
        else subprocess.Popen(argv, stderr=slave))
os.close(slave)
chunks = []
while True:
    try:
        data = os.read(master, 65536)
    except OSError:  # EIO: the command closed the terminal
        break
    if not data:
        break
    chunks.append(data)
rc = proc.wait()
text = b"".join(chunks).decode("utf-8", "replace")
# The terminal turns '\n' into '\r\n'; keep the '\r's that rewrite a line.
text = text.replace("\r\n", "\n").replace("\r", "<CR>")
(sys.stdout if on_stdout else sys.stderr).write(text)
sys.exit(rc)
