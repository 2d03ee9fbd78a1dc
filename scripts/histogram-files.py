#!/usr/bin/env python3
"""Write the histograms of an `octal ... --histogram --json` report as files of `value count`
lines, one file per row (L = 1, 2, 4, ... and N + 1), the form published octal runs give.

    scripts/histogram-files.py REPORT.json DIR

DIR/histogram-2^K.txt holds the counts of g(0..2^K) (and DIR/histogram-N+1.txt the last row
when N + 1 is not a power of two); only the values that occur are listed, one line each,
`value count`, in value order. DIR must not hold any of these files already: nothing is
overwritten.
"""
import json
import os
import sys


def name(below):
    k = below.bit_length() - 1
    return f"histogram-2^{k}.txt" if below == 1 << k else f"histogram-{below}.txt"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: histogram-files.py REPORT.json DIR")
    report, folder = sys.argv[1], sys.argv[2]
    try:
        rows = json.load(open(report))["histogram"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"histogram-files.py: {report} is not a report with a histogram ({e}); run octal with --histogram --json")
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, name(r["below"])) for r in rows]
    clash = [p for p in paths if os.path.exists(p)]
    if clash:
        sys.exit(f"histogram-files.py: {clash[0]} exists already; choose another DIR")
    for row, path in zip(rows, paths):
        if sum(row["counts"]) != row["below"]:
            sys.exit(f"histogram-files.py: the row for L = {row['below']} does not sum to L")
        with open(path, "x") as f:
            for v, c in enumerate(row["counts"]):
                if c:
                    f.write(f"{v} {c}\n")
    print(f"{len(rows)} files in {folder}")


if __name__ == "__main__":
    main()
