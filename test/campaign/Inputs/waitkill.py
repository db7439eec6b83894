#!/usr/bin/env python3
"""Starts a command, waits until its database holds at least N results,
then kills it with SIGKILL (as a scheduler or an out-of-memory killer
would) and prints how it ended: 'killed' or 'finished'.

With --signal NAME first (TERM, INT), sends that signal instead, waits for
the command to end, and prints its standard output and 'exit CODE'."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

args = sys.argv[1:]
sig = signal.SIGKILL
if args[0] == "--signal":
    sig = getattr(signal, "SIG" + args[1])
    args = args[2:]
db, want, cmd = args[0], int(args[1]), args[2:]
out = subprocess.DEVNULL if sig == signal.SIGKILL else subprocess.PIPE
# SIGINT as at a terminal, even where this script's was ignored (a job in
# the background), which the command would keep ignoring.
proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, text=True,
                        preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                         signal.SIG_DFL))
deadline = time.time() + 300
while proc.poll() is None and time.time() < deadline:
    try:
        con = sqlite3.connect("file:" + db + "?mode=ro", uri=True, timeout=1)
        n = con.execute("SELECT count(*) FROM results").fetchone()[0]
        con.close()
    except sqlite3.Error:
        n = 0
    if n >= want:
        os.kill(proc.pid, sig)
        if sig == signal.SIGKILL:
            proc.wait()
            print("killed")
            sys.exit(0)
        text, _ = proc.communicate(timeout=300)
        print(text, end="")
        print("exit %d" % proc.returncode)
        sys.exit(0)
    time.sleep(0.02)
if out == subprocess.PIPE:
    print(proc.communicate()[0], end="")
proc.wait()
print("finished")
