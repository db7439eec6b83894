#!/usr/bin/env python3
"""incant check on Dat3M's PTX litmus tests, against Dat3M's expected results.

  agree.py --dat3m DIR [--incant INCANT] [--unroll N] [--timeout S]
           [--only-expected]

DIR is a copy of github.com/hernanponcedeleon/Dat3M (not part of incant):
its litmus/PTX tests, cat/ptx-v7.5.cat and cat/ptx-v6.0.cat, and the
expectations dartagnan/src/test/resources/PTXv7_5-expected.csv and
PTXv6_0-expected.csv (path,1 when the test's condition holds, path,0 when
it does not). Every test under litmus/PTX is checked in one incant process
per model: incant's `ptx` and ptx-v7.5.cat against the v7.5 expectations,
ptx-v6.0.cat against the v6.0 ones. Each row counts the tests checked, the
ones refused (exit 2, with the message), the searches cut short, and, over
the tests with an expectation, agreements and disagreements (each printed);
it also names the slowest test. --cross adds two rows across versions. Exit status 1 if any test disagrees, is
refused or is cut short.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))


def expectations(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('//'):
                continue
            test, verdict = line.rsplit(',', 1)
            out[test] = verdict.strip() == '1'
    return out


def check(incant, dat3m, model, tests, args):
    """Runs one incant process over the tests; path -> JSON or error text."""
    cmd = [incant, 'check', '--model', model, '--json', '--unroll',
           str(args.unroll), '--timeout', str(args.timeout)] + tests
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=dat3m, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    errors = {}
    for line in r.stderr.splitlines():
        m = re.match(r'(\S+\.litmus):\d+:\d+: error: (.*)', line)
        if m:
            errors.setdefault(m.group(1), m.group(2))
    results = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
    checked = [t for t in tests if t not in errors]
    if len(checked) != len(results):
        sys.exit(f'{model}: {len(results)} results for {len(checked)} tests '
                 f'(exit {r.returncode}):\n{r.stderr[:2000]}')
    out = dict(zip(checked, results))
    out.update(errors)
    return out, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dat3m', required=True)
    ap.add_argument('--incant',
                    default=os.path.join(ROOT, 'build', 'tools', 'incant',
                                         'incant'))
    ap.add_argument('--unroll', type=int, default=2)
    ap.add_argument('--timeout', type=float, default=60)
    ap.add_argument('--only-expected', action='store_true',
                    help='check only the tests that have an expectation')
    ap.add_argument('--cross', action='store_true',
                    help='also incant\'s ptx against the v6.0 expectations '
                    'and ptx-v6.0.cat against the v7.5 ones (counts only; '
                    'their disagreements do not set the exit status)')
    args = ap.parse_args()
    dat3m = os.path.abspath(args.dat3m)
    res = os.path.join(dat3m, 'dartagnan', 'src', 'test', 'resources')
    tests = sorted(os.path.relpath(p, dat3m) for p in glob.glob(
        os.path.join(dat3m, 'litmus', 'PTX', '**', '*.litmus'),
        recursive=True))
    runs = [('ptx', 'PTXv7_5-expected.csv', False),
            ('cat/ptx-v7.5.cat', 'PTXv7_5-expected.csv', False),
            ('cat/ptx-v6.0.cat', 'PTXv6_0-expected.csv', False)]
    if args.cross:
        runs += [('ptx', 'PTXv6_0-expected.csv', True),
                 ('cat/ptx-v6.0.cat', 'PTXv7_5-expected.csv', True)]
    rows = []
    bad = False
    for model, exp_name, cross in runs:
        expected = expectations(os.path.join(res, exp_name))
        missing = [t for t in expected if t not in tests]
        if missing:
            sys.exit(f'{exp_name}: {len(missing)} tests not found, e.g. '
                     f'{missing[0]}')
        path = os.path.join(dat3m, model) if model.endswith('.cat') else model
        todo = sorted(expected) if args.only_expected else tests
        got, seconds = check(args.incant, dat3m, path, todo, args)
        refused = {t: g for t, g in got.items() if isinstance(g, str)}
        cut = [t for t, g in got.items()
               if not isinstance(g, str) and g['incomplete']]
        agree = differ = 0
        for t, want in sorted(expected.items()):
            g = got[t]
            if isinstance(g, str) or g['incomplete']:
                continue
            if g['ok'] == want:
                agree += 1
            else:
                differ += 1
                if cross:
                    continue
                print(f'DIFFER {model} {t}: expected '
                      f'{"Ok" if want else "No"}, got '
                      f'{"Ok" if g["ok"] else "No"}')
        for t, msg in sorted(refused.items()):
            print(f'REFUSED {model} {t}: {msg}')
        for t in sorted(cut):
            print(f'INCOMPLETE {model} {t}: {got[t]["incomplete_reason"]}')
        bad |= bool((differ and not cross) or refused or cut)
        times = sorted((g['time_s'], t) for t, g in got.items()
                       if not isinstance(g, str))
        slowest = '%.2f s (%s)' % (times[-1][0], os.path.basename(
            times[-1][1])) if times else '-'
        rows.append((model, exp_name, len(todo), len(todo) - len(refused),
                     len(refused), len(cut), len(expected), agree, differ,
                     seconds, slowest))
    print(f'\nunroll {args.unroll}, timeout {args.timeout:g} s')
    print('| model | expectations | tests | checked | refused | incomplete '
          '| expected | agree | disagree | seconds | slowest test |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for r in rows:
        print('| `%s` | %s | %d | %d | %d | %d | %d | %d | %d | %.2f | %s |'
              % r)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
