#!/usr/bin/env python3
"""Compares until-proved census rows with every published table of octal-game periods.

usage: compare.py ROWS.csv [ROWS.csv ...]      a Markdown report on standard output
       compare.py --check-lookup [MAX_HEAP]    checks the lookup table's offsets (see below)

ROWS.csv are files `nimsquare census --until-proved --out` writes (# lines, then CSV with
code, limit, status, stop, preperiod, period, max_value, ...); a later file's row for a code
replaces an earlier one's. `limit` is the N a code reached: its table is g(0..=N).

The proof check: a period p from preperiod e is proved by the theorem of Guy and Smith when
g(n + p) = g(n) for every n with e' <= n < 2e' + p + t, e' = max(e, 1), t the number of
digits after the point. The largest value that reads is g(2e' + 2p + t - 1), so a proof
needs N >= 2e' + 2p + t - 1 ("N needed"); a proved row with N needed > N is flagged.

Published readings, from ../../../tests/data (relative to this script):
- oeis_octal_periods.csv: the OEIS entries, read as results/census/summarise.py reads them
  (preperiod = last exception + 1, or the largest of the only exceptions + 1, or 2 / 1 for
  "For n>1" / "For n>=1" and "After the initial 0"); matched directly, through the
  reduction R below, and through the lookup table (an entry whose code has the same
  tczajka class as the census code).
- octal_periods_tczajka.csv: tczajka's "Trivial games" (direct code match, and through the
  lookup: the rows it keeps are in their games' own heap sizes).
- octal_solved_tczajka.csv, octal_unsolved_tczajka.csv: tczajka's solved and unsolved
  games, reached through octal_lookup_tczajka.csv (code -> equivalent game, offset).
A code's published reading may also be reached through the exact reduction R: in a game
where a heap of 1 cannot be taken (bit 1 of d1 clear) a heap of 1 is dead, and heap n of
the game is heap n - 1 of the game R(code) (see `reduce_code`), so g_code(n) = g_R(n - 1).
The reduction is applied while it goes (a heap of 1 dead), and every game of that chain is
looked up in each table. With offset o between the code and the published game
(g_code(n) = g_pub(n - o)), a published preperiod e >= 1 reads as max(0, e + o) here and
e = 0 as at most max(0, o); the period is the same.

--check-lookup computes g(0..MAX_HEAP) (default 90) of every code of the lookup table and of
its equivalent game, and checks g_code(n) = g_equivalent(n - offset); it checks
g_code(n) = g_R(n - 1) for every code of the table with a dead heap of 1 as well.
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', '..', '..', 'tests', 'data'))


def data_rows(name):
    with open(os.path.join(DATA, name)) as f:
        return list(csv.DictReader(l for l in f if not l.startswith('#')))


# --- codes ---------------------------------------------------------------------------

def digits_of(code):
    """[d0, d1, ..., dt] of a code written 0.d1d2... or 4.d1d2..."""
    before, after = code.split('.')
    return [int(before or '0')] + [int(c, 8) for c in after]


def code_of(ds):
    """The code of digits [d0, d1, ...], trailing zero digits dropped (at least one kept)."""
    ds = list(ds)
    while len(ds) > 2 and ds[-1] == 0:
        ds.pop()
    return f"{ds[0]}." + ''.join(str(d) for d in ds[1:])


def t_of(code):
    return len(code.split('.')[1])


def first_move(code):
    """n0: the least heap size with a move (None for a game without moves)."""
    best = None
    for k, d in enumerate(digits_of(code)):
        for bit, plus in ((1, 0), (2, 1), (4, 2)):
            if d & bit and (k > 0 or bit == 4):
                n = k + plus
                best = n if best is None else min(best, n)
    return best


def reduce_code(code):
    """R(code) when a heap of 1 is dead in code (bit 1 of d1 clear), else None.

    Heap n >= 1 of code is heap n - 1 of R(code). A move of code removing k tokens and
    leaving nothing (heap k, k >= 2) is R's removal of the whole heap k - 1 (bit 1 of
    d'(k-1)); leaving one heap a >= 1 it is R's removal of k leaving a - 1 >= 0 (bits 1, 2 of
    d'k); leaving two heaps a, b >= 1 it is R's removal of k + 1 leaving a - 1, b - 1 >= 0
    (bits 1, 2, 4 of d'(k+1)); d0 = 4 (split only) is R's d'1 = 7. Each map is onto R's moves
    of that kind, so the positions and their values correspond exactly."""
    ds = digits_of(code)
    if len(ds) < 2:
        ds.append(0)
    if ds[1] & 1:
        return None
    if first_move(code) is None:
        return None
    out = [0] * (len(ds) + 1)
    for k, d in enumerate(ds):
        if k > 0 and d & 1:
            out[k - 1] |= 1
        if k > 0 and d & 2:
            out[k] |= 3
        if d & 4:
            out[k + 1] |= 7
    out[0] = 0  # bit 1 of d1 is clear, so nothing lands on d'0
    return code_of(out)


def chain(code):
    """[(code, 0), (R(code), 1), (R(R(code)), 2), ...] while a heap of 1 is dead."""
    out = [(code, 0)]
    c = code
    while True:
        c = reduce_code(c)
        if c is None or len(out) > 64:
            return out
        out.append((c, len(out)))


# --- published readings ----------------------------------------------------------------

def oeis():
    """(anumber, code, e, p) as results/census/summarise.py's oeis() reads the file."""
    for r in data_rows('oeis_octal_periods.csv'):
        if not r['period']:
            continue
        if r['last_exception']:
            e = int(r['last_exception']) + 1
        elif r['only_exceptions']:
            e = max(int(x) for x in r['only_exceptions'].split(' ')) + 1
        elif 'For n>1' in r['note']:
            e = 2
        elif 'For n>=1' in r['note'] or 'After the initial 0' in r['note']:
            e = 1
        else:
            raise SystemExit(f"oeis_octal_periods.csv: no reading for {r['anumber']}")
        code = '0' + r['code'] if r['code'].startswith('.') else r['code']
        yield r['anumber'], code, e, int(r['period'])


def shifted(e, o):
    """The preperiod range (lo, hi) here of a published preperiod e at offset o."""
    if e >= 1:
        v = max(0, e + o)
        return v, v
    return 0, max(0, o)


class Reading:
    def __init__(self, source, via, e, p, o):
        self.source, self.via, self.p, self.o = source, via, p, o
        self.published_e = e
        self.lo, self.hi = shifted(e, o)

    def e_text(self):
        return str(self.lo) if self.lo == self.hi else f"{self.lo}..{self.hi}"

    def text(self):
        return f"({self.e_text()}, {self.p}) from {self.via}"

    def agrees(self, row):
        e, p = int(row['preperiod']), int(row['period'])
        return p == self.p and self.lo <= e <= self.hi

    def need(self, code):
        return 2 * max(self.hi, 1) + 2 * self.p + t_of(code) - 1


def offset_text(o):
    return '' if o == 0 else f", offset {o:+d}"


def load_sources():
    oe = {}
    for a, code, e, p in oeis():
        code = code_of(digits_of(code))  # .560 is the code 0.56
        oe.setdefault(code, []).append((a, e, p))
    trivial = {r['code']: (int(r['preperiod']), int(r['period']))
               for r in data_rows('octal_periods_tczajka.csv')}
    solved = {r['code']: (int(r['preperiod']), int(r['period']))
              for r in data_rows('octal_solved_tczajka.csv')}
    unsolved = {r['code'] for r in data_rows('octal_unsolved_tczajka.csv')}
    lookup = {r['code']: (r['equivalent_game'], int(r['offset']))
              for r in data_rows('octal_lookup_tczajka.csv')}
    # OEIS entries by the lookup class of their code: g_X(n) = g_E(n - oX)
    oe_class = {}
    for code, entries in oe.items():
        if code in lookup:
            g, ox = lookup[code]
            for a, e, p in entries:
                oe_class.setdefault(g, []).append((a, code, e, p, ox))
    return oe, trivial, solved, unsolved, lookup, oe_class


def readings(code, src):
    """{source: [Reading]} and the tczajka class (game, offset, via) of one code."""
    oe, trivial, solved, unsolved, lookup, oe_class = src
    out = {'OEIS': [], 'tczajka Trivial': [], 'tczajka Solved': []}
    cls = None
    for c, k in chain(code):
        how = 'the code' if k == 0 else f"R^{k} = {c}" if k > 1 else f"R = {c}"
        for a, e, p in oe.get(c, []):
            out['OEIS'].append(Reading('OEIS', f"{a} {c} ({how}{offset_text(k)})", e, p, k))
        if c in trivial:
            e, p = trivial[c]
            out['tczajka Trivial'].append(
                Reading('tczajka Trivial', f"Trivial {c} ({how}{offset_text(k)})", e, p, k))
        if cls is None and c in lookup:
            g, o = lookup[c]
            cls = (g, k + o, how)
    if cls is not None:
        g, o, how = cls
        via = f"{g} (lookup of {'the code' if how == 'the code' else how}{offset_text(o)})"
        seen = {(r.via.split(' ')[1], r.o) for r in out['tczajka Trivial']}
        if g in trivial and (g, o) not in seen:
            e, p = trivial[g]
            out['tczajka Trivial'].append(Reading('tczajka Trivial', f"Trivial {via}", e, p, o))
        if g in solved:
            e, p = solved[g]
            out['tczajka Solved'].append(Reading('tczajka Solved', f"Solved {via}", e, p, o))
        # an OEIS entry whose code is in the same lookup class: g_code(n) = g_X(n - (o - oX))
        # (one reading per entry and offset: A071436 names .560-.563, all of class .56)
        have = {(r.via.split(' ')[0], r.o) for r in out['OEIS']}
        for a, x, e, p, ox in oe_class.get(g, []):
            if (a, o - ox) not in have:
                have.add((a, o - ox))
                out['OEIS'].append(Reading('OEIS', f"{a} {x} (same lookup class {g} as "
                                           f"{'the code' if how == 'the code' else how}"
                                           f"{offset_text(o - ox)})", e, p, o - ox))
    return out, cls


# --- rows --------------------------------------------------------------------------------

def read_rows(paths):
    rows, runs = {}, []
    for path in paths:
        meta = None
        with open(path) as f:
            lines = f.readlines()
        for l in lines:
            if l.startswith('# census '):
                try:
                    meta = json.loads(l[len('# census '):])
                except ValueError:
                    pass
        body = [l for l in lines if not l.startswith('#')]
        n, skipped = 0, 0
        for r in csv.DictReader(body):
            if None in r.values() or r.get('status') not in ('periodic', 'open') \
                    or not r.get('limit', '').isdigit():
                skipped += 1  # a line still being written
                continue
            if r['status'] == 'periodic' and not (r['preperiod'].isdigit() and r['period'].isdigit()):
                skipped += 1
                continue
            r['file'] = os.path.basename(path)
            rows[r['code']] = r
            n += 1
        runs.append((path, meta, n, skipped))
    return rows, runs


def sort_key(code):
    return (t_of(code), code.startswith('4'), code)


def report(paths):
    src = load_sources()
    rows, runs = read_rows(paths)
    p = print
    p("# Until-proved census rows against the published periods\n")
    p("Files read (a later file's row replaces an earlier one's for the same code):\n")
    for path, meta, n, skipped in runs:
        m = ''
        if meta:
            m = (f" (shard {meta.get('shard')}, start N = {meta.get('limit')}, "
                 f"max N = {meta.get('max_limit')}, budget {meta.get('budget')} s, "
                 f"back-end {meta.get('backend')})")
        s = f"; {skipped} incomplete line(s) skipped" if skipped else ''
        p(f"- `{path}`: {n} rows{m}{s}")
    p(f"\n{len(rows)} codes in all.\n")

    # counts by stop and digits
    stops = ['proved', 'limit', 'budget']
    ds = sorted({t_of(c) for c in rows})
    p("## Counts by stop and digit count\n")
    p("| digits | " + " | ".join(stops) + " | other | all |")
    p("|---" * (len(stops) + 3) + "|")
    tot = {s: 0 for s in stops + ['other', 'all']}
    for d in ds:
        rs = [r for c, r in rows.items() if t_of(c) == d]
        cnt = {s: sum(r['stop'] == s for r in rs) for s in stops}
        cnt['other'] = len(rs) - sum(cnt.values())
        cnt['all'] = len(rs)
        for k in tot:
            tot[k] += cnt[k]
        p(f"| {d} | " + " | ".join(str(cnt[s]) for s in stops + ['other', 'all']) + " |")
    p("| all | " + " | ".join(str(tot[s]) for s in stops + ['other', 'all']) + " |")
    odd = [c for c, r in rows.items() if (r['stop'] == 'proved') != (r['status'] == 'periodic')]
    if odd:
        p(f"\n**Rows whose status and stop disagree:** {', '.join(sorted(odd, key=sort_key))}")

    # proved codes and the proof range
    proved = sorted((c for c, r in rows.items() if r['status'] == 'periodic'), key=sort_key)
    p("\n## Proved codes\n")
    p("N is the largest heap computed (the table is g(0..=N)). The theorem of Guy and Smith "
      "compares g(n) = g(n + p) for e' <= n < 2e' + p + t (e' = max(e, 1), t = digits after "
      "the point), so a proof needs N >= N needed = 2e' + 2p + t - 1.\n")
    if not proved:
        p("(none)")
    else:
        p("| code | period p | preperiod e | N reached | max value | n checked | N needed | ok |")
        p("|---|---:|---:|---:|---:|---|---:|---|")
        for c in proved:
            r = rows[c]
            e, per, n, t = int(r['preperiod']), int(r['period']), int(r['limit']), t_of(c)
            e1 = max(e, 1)
            need = 2 * e1 + 2 * per + t - 1
            ok = 'yes' if need <= n else '**NO: N needed > N reached**'
            p(f"| {c} | {per} | {e} | {n} | {r['max_value']} | [{e1}, {2 * e1 + per + t}) "
              f"| {need} | {ok} |")

    # comparisons
    per_code = {c: readings(c, src) for c in rows}
    for source in ('OEIS', 'tczajka Trivial', 'tczajka Solved'):
        agree, differ, open_ = [], [], []
        for c in sorted(rows, key=sort_key):
            r = rows[c]
            for rd in per_code[c][0][source]:
                if r['status'] == 'periodic':
                    if rd.agrees(r):
                        agree.append(f"{c}: ({r['preperiod']}, {r['period']}) = {rd.text()}")
                    else:
                        de = ''
                        if rd.p == int(r['period']) and rd.lo == rd.hi:
                            de = f"; preperiod here {int(r['preperiod']) - rd.lo:+d} against the published"
                        differ.append(f"{c}: here ({r['preperiod']}, {r['period']}), "
                                      f"published {rd.text()}{de}")
                else:
                    need = rd.need(c)
                    n = int(r['limit'])
                    open_.append(f"{c} ({r['stop']} at N = {n}): published {rd.text()}, "
                                 f"needs N >= {need}")
        p(f"\n## {source}\n")
        p(f"agree {len(agree)}, differ {len(differ)}, published but open here {len(open_)}\n")
        for title, lst in (('Agree', agree), ('Differ', differ),
                           ('Published but open here', open_)):
            if lst:
                p(f"**{title}:**\n")
                for x in lst:
                    p(f"- {x}")
                p("")

    # tczajka unsolved
    oe, trivial, solved, unsolved, lookup, oe_class = src
    new, still, uncovered = [], [], []
    for c in sorted(rows, key=sort_key):
        r = rows[c]
        cls = per_code[c][1]
        if cls is None:
            uncovered.append(c)
            continue
        g, o, how = cls
        if g not in unsolved:
            continue
        if r['status'] == 'periodic':
            others = [rd.text() for s in ('OEIS', 'tczajka Trivial', 'tczajka Solved')
                      for rd in per_code[c][0][s]]
            also = f"; also published: {'; '.join(others)}" if others else \
                "; no other source here states a period for it"
            via = '' if how == 'the code' else f" (lookup of {how})"
            e_here = int(r['preperiod'])
            then = ''
            if o:
                then = (f", so {g} would have preperiod {max(0, e_here - o)}"
                        if e_here - o >= 1 else f", so {g} would have preperiod at most 0")
            new.append(f"**{c}** period {r['period']} from {e_here} (N = {r['limit']}): "
                       f"class {g}{via}{offset_text(o)} is listed unsolved{then}{also}")
        else:
            still.append(f"{c} ({g})")
    p("\n## tczajka Unsolved\n")
    p(f"proved here although the class is listed unsolved {len(new)}, "
      f"open here and listed unsolved {len(still)}\n")
    if new:
        p("### NEW claims: proved here, class listed unsolved by tczajka (needs an independent check)\n")
        for x in new:
            p(f"- {x}")
        p("")
    if still:
        p("Open here, class listed unsolved: " + ", ".join(still) + "\n")
    if uncovered:
        p(f"Not covered by the lookup table (neither the code nor a reduction of it): "
          f"{len(uncovered)} code(s)" + (": " + ", ".join(uncovered) if len(uncovered) <= 40 else "") + "\n")

    none = [c for c in sorted(rows, key=sort_key)
            if not any(per_code[c][0][s] for s in per_code[c][0])
            and not (per_code[c][1] and per_code[c][1][0] in unsolved)]
    p("## Codes with no published reading\n")
    p(f"{len(none)} code(s) are in none of the tables above (directly, by reduction or by "
      f"the lookup): " + (", ".join(f"{c} ({rows[c]['stop']})" for c in none) or "none"))


# --- --check-lookup --------------------------------------------------------------------

def grundy(code, top):
    ds = digits_of(code)
    g = [0] * (top + 1)
    for n in range(1, top + 1):
        seen = set()
        for k, d in enumerate(ds):
            if k > n:
                break
            r = n - k
            if k > 0 and d & 1 and r == 0:
                seen.add(0)
            if k > 0 and d & 2 and r >= 1:
                seen.add(g[r])
            if d & 4 and r >= 2:
                for a in range(1, r // 2 + 1):
                    seen.add(g[a] ^ g[r - a])
        m = 0
        while m in seen:
            m += 1
        g[n] = m
    return g


def check_lookup(top):
    memo = {}

    def g(c):
        if c not in memo:
            memo[c] = grundy(c, top + 8)
        return memo[c]

    def holds(a, b, o):  # g_a(n) = g_b(n - o), n - o < 0 read as 0
        return all(g(a)[n] == (g(b)[n - o] if n - o >= 0 else 0)
                   for n in range(top + 1) if n - o <= top + 8)

    rows = data_rows('octal_lookup_tczajka.csv')
    bad = [(r['code'], r['equivalent_game'], r['offset']) for r in rows
           if not holds(r['code'], r['equivalent_game'], int(r['offset']))]
    print(f"lookup: {len(rows) - len(bad)} of {len(rows)} rows hold with their offset "
          f"for heaps 0..{top}")
    for b in bad:
        print(f"  fails: {b}")
    red = [(r['code'], reduce_code(r['code'])) for r in rows if reduce_code(r['code'])]
    badr = [(c, rc) for c, rc in red if not holds(c, rc, 1)]
    print(f"reduction R: {len(red) - len(badr)} of {len(red)} codes with a dead heap of 1 "
          f"have g(n) = g_R(n - 1) for heaps 0..{top}")
    for b in badr:
        print(f"  fails: {b}")
    return 0 if not bad and not badr else 1


def main(argv):
    if argv and argv[0] == '--check-lookup':
        return check_lookup(int(argv[1]) if len(argv) > 1 else 90)
    if not argv or argv[0].startswith('-'):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    report(argv)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
