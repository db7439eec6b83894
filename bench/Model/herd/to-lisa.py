#!/usr/bin/env python3
"""Translates GPU_PTX litmus tests (the ASPLOS'15 dialect that incant reads)
into herd7's LISA dialect, with the scope tree as a bell `scopes:` tree, so
that herd7 can check the same tests under ptx-rmo-lisa.cat (this folder).

  to-lisa.py OUT_DIR TEST.litmus...

Writes OUT_DIR/NAME.litmus for each test it can translate and lists the
others on standard error with the reason (exit 0 either way). It knows what
the benchmark's tests use: ld/st with any cache operator or .volatile
(ptx-rmo reads them all as plain accesses), membar.{cta,gl,sys}, and the
register arithmetic of false dependencies (add, and, xor, cvt, mov).
Registers holding a location's address that no instruction writes become
the location's name. Memory regions are dropped (ptx-rmo ignores them).
"""
import os
import re
import sys


class Unsupported(Exception):
    pass


def strip_comments(text):
    # (* ... *) comments, not nested in the tests we translate.
    return re.sub(r'\(\*.*?\*\)', '', text, flags=re.S)


def split_sections(text):
    """Header line, init block, code rows, scope tree, condition."""
    text = strip_comments(text)
    lines = text.split('\n')
    head = lines[0].split()
    if len(head) < 2 or head[0] != 'GPU_PTX':
        raise Unsupported('not a GPU_PTX test')
    name = head[1]
    rest = '\n'.join(lines[1:])
    b = rest.index('{')
    e = rest.index('}', b)
    init = rest[b + 1:e]
    body = rest[e + 1:]
    m = re.search(r'~\s*exists\b|\bexists\b|\bforall\b', body)
    if not m:
        raise Unsupported('no final condition')
    cond = body[m.start():].strip()
    body = body[:m.start()]
    st = body.find('ScopeTree')
    if st < 0:
        raise Unsupported('no ScopeTree')
    code = body[:st]
    tree_and_map = body[st + len('ScopeTree'):]
    depth, end = 0, None
    for i, c in enumerate(tree_and_map):
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                end = i + 1
                break
    if end is None:
        raise Unsupported('unbalanced ScopeTree')
    return name, init, code, tree_and_map[:end], cond


def parse_tree(s):
    toks = re.findall(r'\(|\)|[A-Za-z0-9_]+', s)
    pos = 0

    def node():
        nonlocal pos
        assert toks[pos] == '('
        pos += 1
        kind = toks[pos]
        pos += 1
        kids = []
        while toks[pos] != ')':
            if toks[pos] == '(':
                kids.append(node())
            else:
                kids.append(toks[pos])
                pos += 1
        pos += 1
        return (kind, kids)

    return node()


LEVELS = {'device': 'sys', 'kernel': 'gl', 'cta': 'cta'}


def lisa_tree(t):
    """device/kernel/cta become sys/gl/cta; warps are dropped (ptx-rmo has
    no warp scope); thread Tn becomes Pn."""
    kind, kids = t
    parts = []
    for k in kids:
        if isinstance(k, tuple):
            parts.extend(lisa_tree(k))
        else:
            if not re.fullmatch(r'T\d+', k):
                raise Unsupported('thread %s in the scope tree' % k)
            parts.append('P' + k[1:])
    if kind == 'warp':
        return parts
    if kind not in LEVELS:
        raise Unsupported('scope level %s' % kind)
    return ['(%s %s)' % (LEVELS[kind], ' '.join(parts))]


def translate(text):
    name, init, code, tree, cond = split_sections(text)
    addr = {}      # (thread, reg) -> location, for address registers
    locs = []      # (location, value) initialisations
    for item in init.split(';'):
        item = item.strip()
        if not item:
            continue
        m = re.fullmatch(r'(\d+):\s*\.reg\s+\.\w+\s+(\w+)(?:\s*=\s*(\w+))?',
                         item)
        if m:
            t, r, v = int(m.group(1)), m.group(2), m.group(3)
            if v is not None:
                if re.fullmatch(r'-?\d+', v):
                    raise Unsupported('register initialised to a number')
                addr[(t, r)] = v
            continue
        m = re.fullmatch(r'(\w+)\s*=\s*(-?\d+)', item)
        if m:
            locs.append((m.group(1), m.group(2)))
            continue
        raise Unsupported('init item %r' % item)

    rows = [r for r in code.split(';') if r.strip()]
    header = [c.strip() for c in rows[0].split('|')]
    nthreads = len(header)
    if header != ['T%d' % i for i in range(nthreads)]:
        raise Unsupported('thread header %r' % header)
    cols = [[] for _ in range(nthreads)]
    for row in rows[1:]:
        cells = row.split('|')
        if len(cells) != nthreads:
            raise Unsupported('row with %d cells' % len(cells))
        for t, c in enumerate(cells):
            c = c.strip()
            if c:
                cols[t].append(c)

    # Address registers some instruction writes are real registers.
    for t, instrs in enumerate(cols):
        for ins in instrs:
            op = ins.split()[0]
            if op.startswith(('st', 'membar')):
                continue
            parts = ins.split(None, 1)
            if len(parts) < 2:
                # barrier.cluster, fence.proxy.async, cp.async.bulk's
                # group operations: none has a LISA counterpart.
                raise Unsupported('instruction without operands: ' + op)
            dst = parts[1].split(',')[0].strip()
            addr.pop((t, dst), None)

    out_cols = []
    for t, instrs in enumerate(cols):
        used = set(int(x) for x in re.findall(r'\br(\d+)\b', ' '.join(instrs)))
        rename = {}

        def reg(r):
            if re.fullmatch(r'r\d+', r):
                return r
            if r not in rename:
                n = max(used | set(rename.values()) | {-1}) + 1
                rename[r] = n
                used.add(n)
            return 'r%d' % rename[r]

        def val(v):
            v = v.strip()
            if re.fullmatch(r'-?\d+', v):
                return v
            if (t, v) in addr:
                return addr[(t, v)]
            return reg(v)

        def where(a):
            m = re.fullmatch(r'\[\s*(\w+)\s*\]', a.strip())
            if not m:
                raise Unsupported('address %r' % a)
            return val(m.group(1))

        out = []
        for ins in instrs:
            op, _, args = ins.partition(' ')
            args = [a.strip() for a in args.split(',')] if args else []
            parts = op.split('.')
            if parts[0] == 'st' and len(args) == 2:
                out.append('w[] %s %s' % (where(args[0]), val(args[1])))
            elif parts[0] == 'ld' and len(args) == 2:
                out.append('r[] %s %s' % (reg(args[0]), where(args[1])))
            elif op in ('membar.cta', 'membar.gl', 'membar.sys'):
                out.append('f[f%s]' % parts[1])
            elif parts[0] in ('add', 'and', 'xor') and len(args) == 3:
                out.append('mov %s (%s %s %s)' % (reg(args[0]), parts[0],
                                                   val(args[1]), val(args[2])))
            elif parts[0] in ('cvt', 'mov') and len(args) == 2:
                out.append('mov %s %s' % (reg(args[0]), val(args[1])))
            else:
                raise Unsupported('instruction %r' % ins)
        out_cols.append(out)

    width = [max([len('P%d' % t)] + [len(i) for i in c])
             for t, c in enumerate(out_cols)]
    lines = ['LISA %s' % name, '{']
    lines += ['%s=%s;' % lv for lv in locs]
    lines.append('}')
    height = max(len(c) for c in out_cols)
    lines.append(' ' + ' | '.join(('P%d' % t).ljust(width[t])
                                  for t in range(nthreads)) + ' ;')
    for i in range(height):
        cells = [(c[i] if i < len(c) else '').ljust(width[t])
                 for t, c in enumerate(out_cols)]
        lines.append(' ' + ' | '.join(cells) + ' ;')
    lines.append('scopes: ' + ' '.join(lisa_tree(parse_tree(tree))))
    lines.append(cond)
    return name, '\n'.join(lines) + '\n'


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: to-lisa.py OUT_DIR TEST.litmus...')
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        try:
            with open(path) as f:
                name, text = translate(f.read())
        except Unsupported as e:
            print('to-lisa: skipping %s: %s' % (path, e), file=sys.stderr)
            continue
        with open(os.path.join(out, name + '.litmus'), 'w') as f:
            f.write(text)


if __name__ == '__main__':
    main()
