#!/usr/bin/env python3
"""Writes the benchmark's 3- and 4-thread GPU_PTX litmus tests (and a few
2-thread coherence shapes) into this folder, and its 6- and 8-thread tests
(IRIW with more observers, 2+2W chains) into ../Big/. Run it from
anywhere; it overwrites the .litmus files it owns.

Each shape is a list of threads; a thread is a list of accesses:
  ('st', loc, value) | ('ld', loc) | ('F',) (the variant's fence, if any)
  ('dst', loc, value): a store whose value depends on the previous load.
"""
import os

SHAPES = {
    'WRC': ([[('st', 'x', 1)],
             [('ld', 'x'), ('F',), ('st', 'y', 1)],
             [('ld', 'y'), ('F',), ('ld', 'x')]],
            '1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0'),
    'ISA2': ([[('st', 'x', 1), ('F',), ('st', 'y', 1)],
              [('ld', 'y'), ('F',), ('st', 'z', 1)],
              [('ld', 'z'), ('F',), ('ld', 'x')]],
             '1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0'),
    'IRIW': ([[('st', 'x', 1)],
              [('ld', 'x'), ('F',), ('ld', 'y')],
              [('st', 'y', 1)],
              [('ld', 'y'), ('F',), ('ld', 'x')]],
             '1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0'),
    'RWC': ([[('st', 'x', 1)],
             [('ld', 'x'), ('F',), ('ld', 'y')],
             [('st', 'y', 1), ('F',), ('ld', 'x')]],
            '1:r0=1 /\\ 1:r1=0 /\\ 2:r0=0'),
    'Z6': ([[('st', 'x', 1), ('F',), ('st', 'y', 1)],
            [('ld', 'y'), ('F',), ('st', 'z', 1)],
            [('st', 'z', 2), ('F',), ('ld', 'x')]],
           '1:r0=1 /\\ z=2 /\\ 2:r0=0'),
    '3.SB': ([[('st', 'x', 1), ('F',), ('ld', 'y')],
              [('st', 'y', 1), ('F',), ('ld', 'z')],
              [('st', 'z', 1), ('F',), ('ld', 'x')]],
             '0:r0=0 /\\ 1:r0=0 /\\ 2:r0=0'),
    '3.LB': ([[('ld', 'x'), ('F',), ('dst', 'y', 1)],
              [('ld', 'y'), ('F',), ('dst', 'z', 1)],
              [('ld', 'z'), ('F',), ('dst', 'x', 1)]],
             '0:r0=1 /\\ 1:r0=1 /\\ 2:r0=1'),
    'W+RWC': ([[('st', 'x', 1), ('F',), ('st', 'y', 1)],
               [('ld', 'y'), ('F',), ('ld', 'z')],
               [('st', 'z', 1), ('F',), ('ld', 'x')]],
              '1:r0=1 /\\ 1:r1=0 /\\ 2:r0=0'),
    'R': ([[('st', 'x', 1), ('F',), ('st', 'y', 1)],
           [('st', 'y', 2), ('F',), ('ld', 'x')]],
          'y=2 /\\ 1:r0=0'),
    'S': ([[('st', 'x', 2), ('F',), ('st', 'y', 1)],
           [('ld', 'y'), ('F',), ('dst', 'x', 1)]],
          'x=2 /\\ 1:r0=1'),
    '2+2W': ([[('st', 'x', 1), ('F',), ('st', 'y', 2)],
              [('st', 'y', 1), ('F',), ('st', 'x', 2)]],
             'x=1 /\\ y=1'),
}

# (suffix, fence instruction or None, placement: 'cta' = every thread in
# its own CTA (global memory), 'warp' = one CTA, one warp per thread)
VARIANTS = [('', None, 'cta'), ('+membar.ctas', 'membar.cta', 'cta'),
            ('+membar.gls', 'membar.gl', 'cta'),
            ('+membar.ctas+one-cta', 'membar.cta', 'warp')]
PICK = {
    'WRC': 4, 'ISA2': 4, 'IRIW': 4, 'RWC': 3, 'Z6': 3, '3.SB': 3, '3.LB': 2,
    'W+RWC': 3, 'R': 2, 'S': 2, '2+2W': 2,
}


def thread_code(t, ops, fence):
    regs, code, nld, addr = [], [], 0, {}
    def areg(loc):
        if loc not in addr:
            addr[loc] = 'a%s' % loc
            regs.append('%d:.reg .b64 a%s = %s;' % (t, loc, loc))
        return addr[loc]
    for op in ops:
        if op[0] == 'st':
            code.append('st.cg.s32 [%s],%d' % (areg(op[1]), op[2]))
        elif op[0] == 'ld':
            r = 'r%d' % nld
            nld += 1
            regs.append('%d:.reg .s32 %s;' % (t, r))
            code.append('ld.cg.s32 %s,[%s]' % (r, areg(op[1])))
        elif op[0] == 'dst':
            last = 'r%d' % (nld - 1)
            regs.append('%d:.reg .s32 d%d;' % (t, nld))
            code.append('and.b32 d%d,%s,0' % (nld, last))
            code.append('add.s32 d%d,d%d,%d' % (nld, nld, op[2]))
            code.append('st.cg.s32 [%s],d%d' % (areg(op[1]), nld))
        elif op[0] == 'F' and fence:
            code.append(fence)
    return regs, code


def iriw(readers):
    """Two writers, then readers alternating x-then-y and y-then-x; the
    condition: the first two readers see the writes in opposite orders and
    every other reader sees both."""
    threads, cond = [[('st', 'x', 1)], [('st', 'y', 1)]], []
    for k in range(readers):
        a, b = ('x', 'y') if k % 2 == 0 else ('y', 'x')
        threads.append([('ld', a), ('F',), ('ld', b)])
        t = 2 + k
        cond += ['%d:r0=1' % t, '%d:r1=%d' % (t, 0 if k < 2 else 1)]
    return threads, ' /\\ '.join(cond)


def chain(n):
    """2+2W around n locations: thread i stores 1 to x_i, then 2 to x_i+1;
    the condition: every location ends with 1 (the cycle)."""
    locs = ['x%d' % i for i in range(n)]
    threads = [[('st', locs[i], 1), ('F',), ('st', locs[(i + 1) % n], 2)]
               for i in range(n)]
    return threads, ' /\\ '.join('%s=1' % l for l in locs)


BIG = {'IRIW+4obs': iriw(4), 'IRIW+6obs': iriw(6),
       '2+2W.6': chain(6), '2+2W.8': chain(8)}


def write(name, threads, cond, fence, placement, folder=None):
    regs, cols = [], []
    for t, ops in enumerate(threads):
        r, c = thread_code(t, ops, fence)
        regs += r
        cols.append(['T%d' % t] + c)
    height = max(len(c) for c in cols)
    widths = [max(len(s) for s in c) for c in cols]
    rows = []
    for i in range(height):
        cells = [(c[i] if i < len(c) else '').ljust(w)
                 for c, w in zip(cols, widths)]
        rows.append(' ' + ' | '.join(cells) + ' ;')
    if placement == 'cta':
        tree = ' '.join('(cta T%d)' % t for t in range(len(threads)))
    else:
        tree = '(cta %s)' % ' '.join('(warp T%d)' % t
                                     for t in range(len(threads)))
    locs = sorted({op[1] for ops in threads for op in ops if len(op) > 1})
    text = 'GPU_PTX %s\n{\n%s\n}\n%s\n\nScopeTree (device (kernel %s))\n\n%s\n\nexists (%s)\n' % (
        name, '\n'.join(' ' + r for r in regs), '\n'.join(rows), tree,
        ', '.join('%s: global' % l for l in locs), cond)
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(folder or here, name + '.litmus')
    with open(path, 'w') as f:
        f.write(text)


for shape, (threads, cond) in SHAPES.items():
    for suffix, fence, placement in VARIANTS[:PICK[shape]]:
        write(shape + suffix, threads, cond, fence, placement)

BIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Big')
os.makedirs(BIG_DIR, exist_ok=True)
for shape, (threads, cond) in BIG.items():
    for suffix, fence, placement in VARIANTS[:3]:
        write(shape + suffix, threads, cond, fence, placement, BIG_DIR)
