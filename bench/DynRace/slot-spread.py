#!/usr/bin/env python3
"""slot-spread.py: the addr scheme's shadow table on the host, filled with
the granules of two 2 MB arrays (one launch, as a kernel touches them), with
the slot hash before 0d50a3d (bits 29-47 of the group of eight times
0x9E3779B97F4A7C15) and after it (MurmurHash3's 64-bit finalizer of the
group): distinct slots of the 131,072 groups of eight, and granules that find
no free entry within 64 linear probes of a table of 4M entries (the device's
defaults; runtime/incant_race.h, incant_race_shadow.h)."""
import random

MASK = (1 << 22) - 1
U64 = (1 << 64) - 1


def key(granule, launch=1):
    return (launch << 47) | (granule & ((1 << 46) - 1))


def slot_before(k):
    h = ((k >> 3) * 0x9E3779B97F4A7C15) & U64
    return (((h >> 29) << 3) | (k & 7)) & MASK


def slot_after(k):
    h = k >> 3
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & U64
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & U64
    h ^= h >> 33
    return ((h << 3) | (k & 7)) & MASK


granules = [(base + 4 * i) >> 2
            for base in (0x7F3A00000000, 0x7F3A00200000)
            for i in range(1 << 19)]
random.Random(1).shuffle(granules)  # the order threads reach them in
for name, slot in (("before", slot_before), ("after", slot_after)):
    groups = {slot(key(g)) >> 3 for g in granules}
    table, full = {}, 0
    for g in granules:
        k = key(g)
        s = slot(k)
        for p in range(64):
            t = (s + p) & MASK
            if table.get(t, k) == k:
                table[t] = k
                break
        else:
            full += 1
    print(f"{name}: {len(groups)} group slots of 131072 groups; "
          f"{full} of {len(granules)} granules found no free entry")
