#!/usr/bin/env python3
"""Prints the rows of one SQL query on a campaign database, one per line,
fields separated by ' | ' (the lit tests' view of the store)."""
import sqlite3
import sys

con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in con.execute(sys.argv[2]):
    print(" | ".join(str(v) for v in row))
