#!/usr/bin/env python3
"""Starts a command, waits until its database holds at least N results,
then kills it with SIGKILL (as a scheduler or an out-of-memory killer
would) and prints how it ended: 'killed' or 'finished'."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

db, want, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 300
while proc.poll() is None and time.time() < deadline:
    try:
        con = sqlite3.connect("file:" + db + "?mode=ro", uri=True, timeout=1)
        n = con.execute("SELECT count(*) FROM results").fetchone()[0]
        con.close()
    except sqlite3.Error:
        n = 0
    if n >= want:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        print("killed")
        sys.exit(0)
    time.sleep(0.02)
proc.wait()
print("finished")
