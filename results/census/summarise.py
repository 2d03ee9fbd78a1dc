#!/usr/bin/env python3
"""Summarises a census rows file and compares it with published rows.
usage: analyse.py ROWS.csv OEIS.csv TCZAJKA.csv D3_CENSUS.csv"""
import csv, sys, collections, json

rows_path, oeis_path, tcz_path, d3_path = sys.argv[1:5]

def read_rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith('#')]
    return list(csv.DictReader(lines))

rows = read_rows(rows_path)
N = int(rows[0]['limit'])
by = {r['code']: r for r in rows}
digits = lambda c: len(c.split('.')[1])
out = {}
periodic = [r for r in rows if r['status'] == 'periodic']
opened = [r for r in rows if r['status'] == 'open']
out['codes'] = len(rows)
out['limit'] = N
out['periodic'] = len(periodic)
out['open'] = len(opened)
out['other'] = len(rows) - len(periodic) - len(opened)
out['by_digits'] = {}
for k in range(1, 5):
    rk = [r for r in rows if digits(r['code']) == k]
    out['by_digits'][k] = {
        'codes': len(rk),
        'periodic': sum(r['status'] == 'periodic' for r in rk),
        'open': sum(r['status'] == 'open' for r in rk)}
per = collections.Counter(int(r['period']) for r in periodic)
out['distinct_periods'] = len(per)
out['most_common_periods'] = per.most_common(12)
out['longest_periods'] = sorted(((int(r['period']), int(r['preperiod']), r['code']) for r in periodic), reverse=True)[:10]
out['longest_preperiods'] = sorted(((int(r['preperiod']), int(r['period']), r['code']) for r in periodic), reverse=True)[:10]
out['open_with_split'] = sum(r['rare'] != '' for r in opened)
out['open_without_split'] = sum(r['rare'] == '' for r in opened)
secs = sorted(((float(r['seconds']), r['code']) for r in rows), reverse=True)
out['seconds_sum'] = round(sum(s for s, _ in secs), 1)
out['seconds_largest'] = [(round(s, 3), c) for s, c in secs[:5]]
out['seconds_share_top_1pct'] = round(sum(s for s, _ in secs[:len(secs)//100]) / sum(s for s, _ in secs), 3)
out['seconds_open'] = round(sum(float(r['seconds']) for r in opened), 1)
mv = collections.Counter(int(r['max_value']) for r in opened)
out['open_largest_values'] = sorted(((int(r['max_value']), r['code']) for r in opened), reverse=True)[:5]

# OEIS periods (the rule of tests/octal_cli.rs: preperiod = last exception + 1)
def oeis():
    with open(oeis_path) as f:
        lines = [l for l in f if not l.startswith('#')]
    for r in csv.DictReader(lines):
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
            raise SystemExit(r['anumber'])
        yield r['anumber'], '0' + r['code'] if r['code'].startswith('.') else r['code'], e, int(r['period'])

cmp = {'agree': [], 'differ': [], 'open_here_needs_more': [], 'open_here_within_reach': [], 'not_in_census': []}
for a, code, e, p in oeis():
    r = by.get(code)
    if r is None:
        cmp['not_in_census'].append(code); continue
    need = 2 * e + 2 * p + digits(code)
    if r['status'] == 'periodic':
        if (int(r['preperiod']), int(r['period'])) == (e, p):
            cmp['agree'].append(code)
        else:
            cmp['differ'].append(f"{a} {code}: OEIS ({e}, {p}), census ({r['preperiod']}, {r['period']})")
    else:
        (cmp['open_here_needs_more'] if need > N else cmp['open_here_within_reach']).append(f"{a} {code} ({e}, {p}) needs N >= {need}")
out['oeis'] = {k: (v if k in ('differ', 'open_here_within_reach', 'open_here_needs_more') else len(v)) for k, v in cmp.items()}

# tczajka "Trivial games"
t = {'agree': 0, 'differ': []}
with open(tcz_path) as f:
    lines = [l for l in f if not l.startswith('#')]
for r in csv.DictReader(lines):
    c = by.get(r['code'])
    if c is None:
        continue
    if c['status'] == 'periodic' and (c['preperiod'], c['period']) == (r['preperiod'], r['period']):
        t['agree'] += 1
    else:
        t['differ'].append(f"{r['code']}: published ({r['preperiod']}, {r['period']}), census {c['status']} ({c['preperiod']}, {c['period']})")
out['tczajka_trivial'] = t

# the 3-digit census at 10^4 with octal-sparse (stop 34)
d3 = read_rows(d3_path)
d3n = int(d3[0]['limit'])
same, diff = 0, []
for r in d3:
    c = by[r['code']]
    a = (r['status'], r['preperiod'], r['period'])
    b = (c['status'], c['preperiod'], c['period'])
    if d3n == N:
        ok = a == b and r['max_value'] == c['max_value']
    else:  # a period proved at the lower N stays; an open code may settle higher up
        ok = a == b or (r['status'] == 'open' and c['status'] == 'periodic')
    if ok: same += 1
    else: diff.append(f"{r['code']}: N={d3n} {a} max {r['max_value']}, here {b} max {c['max_value']}")
out['d3_census'] = {'limit': d3n, 'backend': d3[0]['backend'], 'consistent': same, 'differ': diff,
                    'settled_since': sum(1 for r in d3 if r['status'] == 'open' and by[r['code']]['status'] == 'periodic')}
print(json.dumps(out, indent=1))
