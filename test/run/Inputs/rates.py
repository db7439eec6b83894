"""Checks `incant run`'s rates: the end-to-end rate of each test is below
its device rate, and its time covers at least the launches'."""
import re
import sys

text = open(sys.argv[1]).read()
dev = re.findall(r"^Device rate (\S+) instances/s, \S+ positive/s \((\S+) s", text, re.M)
e2e = re.findall(r"^End-to-end rate (\S+) instances/s, \S+ positive/s \((\S+) s", text, re.M)
assert len(dev) == len(e2e) == 2, (dev, e2e)
for (dr, ds), (er, es) in zip(dev, e2e):
    assert float(er) <= float(dr), (er, dr)
    assert float(es) >= float(ds), (es, ds)
print("rates ok")
