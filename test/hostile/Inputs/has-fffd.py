#!/usr/bin/env python3
"""Exits 0 if standard input holds the text of argv[1] with each '?' read
as U+FFFD in UTF-8 (EF BF BD), 1 if not: what FileCheck cannot match."""
import sys

want = sys.argv[1].encode().replace(b"?", b"\xef\xbf\xbd")
data = sys.stdin.buffer.read()
if want not in data:
    sys.stderr.write("no %r in %r\n" % (want, data[:400]))
    sys.exit(1)
