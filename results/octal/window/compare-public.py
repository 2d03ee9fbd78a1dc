#!/usr/bin/env python3
"""Compare the histogram rows of an `octal CODE --histogram --json` report with a public
solver's published histograms.

    python3 compare-public.py REPORT.json FOLDER

FOLDER holds the files `results/0.CODE/L` of a snapshot of the public Rust solver
rogalski-wmii-uni-lodz-pl/octal (one `value count` line per value, zeros included). Its
file L counts g(1..=L), ours g(0..L), so the two must differ by g(0) = 0 out and g(L) in:
every count agrees but for one 0 fewer and one more of a single value (nothing if
g(L) = 0). Prints each row that does not, then the totals.
"""
import json, sys, os
rep, folder = sys.argv[1], sys.argv[2]
rows = json.load(open(rep))["histogram"]
agree = differ = 0
for r in rows:
    L = r["below"]
    f = os.path.join(folder, str(L))
    if not os.path.exists(f):
        continue
    theirs = {}
    for line in open(f):
        v, c = line.split(); theirs[int(v)] = int(c)
    ours = {v: c for v, c in enumerate(r["counts"]) if c}
    diff = {v: theirs.get(v, 0) - ours.get(v, 0) for v in set(theirs) | set(ours)}
    diff = {v: d for v, d in diff.items() if d}
    ok = diff == {} or (diff.get(0) == -1 and len(diff) == 2 and sorted(diff.values()) == [-1, 1])
    if ok: agree += 1
    else:
        differ += 1; print("differ at", L, diff)
print(rep, "rows compared:", agree + differ, "agree:", agree, "differ:", differ)
