#!/usr/bin/env python3
"""A fixed piece of Python work on 1 and 16 processes, to compare the device
machine's speed between calls (bench/cuda/cold-h100.sh, cold-ab-h100.sh)."""
import multiprocessing as mp
import time


def work(_):
    t = time.process_time()
    s = 0
    for i in range(3_000_000):
        s += i
    return time.process_time() - t


if __name__ == "__main__":
    for n in (1, 16):
        w = time.time()
        with mp.Pool(n) as p:
            c = p.map(work, range(n))
        print(f"{n:2} processes of the same work: wall {time.time()-w:.2f} s, "
              f"CPU each {sum(c)/n:.2f} s")
