#!/usr/bin/env python3
"""incant check against herd7 on the same GPU_PTX tests, family by family.

  compare.py --herd HERD7 --herd-libdir DIR [--incant INCANT] [--repeat N]
             [--families NAME,...]

herd7 is not part of incant: build it yourself (herdtools7, `dune build
herd/herd.exe`) and pass the binary and its herd/libdir. Each family's tests
are translated to LISA (to-lisa.py); herd7 checks them under
ptx-rmo-lisa.cat with ptx.bell, incant checks the originals under ptx-rmo.
Both run in batch mode: one process per family, every test on its command
line. A family's time is the least CPU time (user + sys, the process and its
children) of --repeat runs. The verdicts (Ok/No) and the sets of final
states must agree test by test; any difference is printed and makes the exit
status 1. The last lines are a table (docs/checker.md).
"""
import argparse
import glob
import os
import re
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, HERE)
to_lisa = __import__('to-lisa')


def threads_of(text):
    first = [l for l in text.split('\n') if re.match(r'\s*T0\s*\|', l)]
    return first[0].count('|') + 1 if first else 1


def families():
    """Name -> sorted test paths (GPU_PTX tests that to-lisa translates)."""
    lib = sorted(glob.glob(os.path.join(ROOT, 'litmus', '**', '*.litmus'),
                           recursive=True))
    shapes = sorted(glob.glob(os.path.join(ROOT, 'bench', 'Model', 'Inputs',
                                           '*.litmus')))
    big = sorted(glob.glob(os.path.join(ROOT, 'bench', 'Model', 'Big',
                                        '*.litmus')))
    out = {'library-2': [], 'library-3+': [], 'shapes-3-4': [],
           'big-6-8': []}
    for p in lib:
        text = open(p).read()
        try:
            to_lisa.translate(text)
        except to_lisa.Unsupported:
            continue
        out['library-2' if threads_of(text) == 2 else 'library-3+'].append(p)
    for p in shapes:
        out['shapes-3-4'].append(p)
    for p in big:
        out['big-6-8'].append(p)
    return out


def run_timed(cmd):
    """(stdout, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                 before.ru_stime)
    if r.returncode not in (0, 1):
        sys.exit('compare: %s failed (%d): %s' % (cmd[0], r.returncode,
                                                  r.stderr[:2000]))
    return r.stdout, cpu


def parse_report(out):
    """herd7's report (incant prints the same): test -> (Ok/No, states,
    seconds)."""
    res, cur = {}, None
    for line in out.split('\n'):
        m = re.match(r'Test (\S+) (Allowed|Forbidden|Required)', line)
        if m:
            cur = m.group(1)
            res[cur] = {'ok': None, 'states': set(), 'time': 0.0}
            continue
        if cur is None:
            continue
        s = line.strip()
        if s in ('Ok', 'No'):
            res[cur]['ok'] = s
        elif s.endswith(';') and '=' in s and not s.startswith('Condition'):
            # "1:r0=0; [y]=1;" (herd) or "y=1; 1:r0=0;" (incant)
            pairs = frozenset(p.strip().replace('[', '').replace(']', '')
                              for p in s.split(';') if p.strip())
            res[cur]['states'].add(pairs)
        m = re.match(r'Time (\S+) ([0-9.]+)', line)
        if m:
            res[cur]['time'] = float(m.group(2))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--herd', required=True)
    ap.add_argument('--herd-libdir', required=True)
    ap.add_argument('--incant',
                    default=os.path.join(ROOT, 'build', 'tools', 'incant',
                                         'incant'))
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--families', default='')
    a = ap.parse_args()
    fams = families()
    if a.families:
        fams = {k: v for k, v in fams.items() if k in a.families.split(',')}
    herd = [a.herd, '-set-libdir', a.herd_libdir,
            '-bell', os.path.join(HERE, 'ptx.bell'),
            '-model', os.path.join(HERE, 'ptx-rmo-lisa.cat')]
    incant = [a.incant, 'check', '--model', 'ptx-rmo']
    rows, differ = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for fam, paths in fams.items():
            if not paths:
                continue
            lisa = []
            for p in paths:
                name, text = to_lisa.translate(open(p).read())
                q = os.path.join(tmp, fam + '-' + name + '.litmus')
                with open(q, 'w') as f:
                    f.write(text)
                lisa.append(q)
            h_best = i_best = None
            for _ in range(a.repeat):
                h_out, h_cpu = run_timed(herd + lisa)
                i_out, i_cpu = run_timed(incant + paths)
                h_best = h_cpu if h_best is None else min(h_best, h_cpu)
                i_best = i_cpu if i_best is None else min(i_best, i_cpu)
            h, i = parse_report(h_out), parse_report(i_out)
            for name in sorted(h):
                x, y = h[name], i.get(name)
                if y is None or x['ok'] != y['ok'] or x['states'] != y['states']:
                    differ += 1
                    print('DIFFER %s %s: herd7 %s %s, incant %s %s' % (
                        fam, name, x['ok'], sorted(map(sorted, x['states'])),
                        y and y['ok'], y and sorted(map(sorted, y['states']))))
            if len(h) != len(paths) or len(i) != len(paths):
                differ += 1
                print('DIFFER %s: %d tests, herd7 reported %d, incant %d' % (
                    fam, len(paths), len(h), len(i)))
            n = len(paths)
            rows.append((fam, n, h_best, i_best, h_best / i_best,
                         max(x['time'] for x in h.values()),
                         max(y['time'] for y in i.values())))
    print('| family | tests | herd7 CPU ms | incant CPU ms | herd7 tests/s '
          '| incant tests/s | ratio | slowest test herd7 / incant (s) |')
    print('|---|---|---|---|---|---|---|---|')
    for fam, n, hc, ic, ratio, ht, it in rows:
        print('| %s | %d | %.1f | %.1f | %.0f | %.0f | %.0fx | %.2f / %.2f |'
              % (fam, n, hc * 1e3, ic * 1e3, n / hc, n / ic, ratio, ht, it))
    print('verdicts and states: %s' % ('%d differ' % differ if differ
                                       else 'identical'))
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
