#!/usr/bin/env python3
"""Check the proved periods of census rows files with octal_check (independent C code).

    python3 check_rows.py ROWS.csv... [--max-n 700000] [--raw OUT.txt] [--report OUT.md]
                          [--resume] [--checker ./octal_check] [--strong]

Reads the census CSV rows files (lines starting with '#' are comments; a later file's
row replaces an earlier one's for the same code), keeps the rows with stop == proved,
and for each computes N = 2 max(e, 1) + 2p + t - 1 (t = digits after the point), the
table size octal_check needs.  Rows with N > --max-n are listed as not checked.  The
others are fed to octal_check (one process, one code at a time, cheapest first); its
lines are appended to --raw as they come, and --resume reuses the lines already there
(same code, preperiod and period) instead of recomputing them.  At the end a markdown
report (counts, every disagreement, the codes not checked with their N, every row) is
written to --report (default: stdout).  --strong passes -x to octal_check (table p
positions further).  The checker is built with gcc if it is missing.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def read_rows(paths):
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            lines = [l for l in f if not l.startswith("#") and l.strip()]
        for r in csv.DictReader(lines):
            rows[r["code"]] = r
    return rows


def digits_after_point(code):
    return len(code.split(".", 1)[1])


def table_size(code, e, p, strong=False):
    t = digits_after_point(code)
    return 2 * max(e, 1) + 2 * p + t - 1 + (p if strong else 0)


def splitting_moves(code):
    """Number of moves that split into two heaps (bit 4 of a digit, d0 included)."""
    head, tail = code.split(".", 1)
    ds = ([int(head)] if head else [0]) + [int(c) for c in tail]
    return sum(1 for d in ds if d & 4)


def pair_visits(code, n):
    return splitting_moves(code) * n * n / 4.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--max-n", type=float, default=700000)
    ap.add_argument("--raw", help="octal_check output file (appended)")
    ap.add_argument("--report", help="markdown report (default stdout)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--strong", action="store_true")
    ap.add_argument("--checker", default=os.path.join(HERE, "octal_check"))
    ap.add_argument("--dry-run", action="store_true", help="only list the work and its estimate")
    args = ap.parse_args()

    rows = read_rows(args.rows)
    proved = []
    for code, r in rows.items():
        if r["stop"] == "proved":
            e, p = int(r["preperiod"]), int(r["period"])
            proved.append((code, e, p, table_size(code, e, p, args.strong)))
    todo = sorted([x for x in proved if x[3] <= args.max_n], key=lambda x: (pair_visits(x[0], x[3]), x[0]))
    skipped = sorted([x for x in proved if x[3] > args.max_n], key=lambda x: (x[3], x[0]))
    est = sum(pair_visits(c, n) for c, _, _, n in todo)
    print(f"{len(rows)} codes, {len(proved)} proved, {len(todo)} to check "
          f"({est:.3g} pair visits), {len(skipped)} past N = {int(args.max_n)}", file=sys.stderr)
    if args.dry_run:
        for c, e, p, n in todo:
            print(c, e, p, n, f"{pair_visits(c, n):.3g}", file=sys.stderr)
        return

    done = {}
    if args.resume and args.raw and os.path.exists(args.raw):
        with open(args.raw) as f:
            for line in f:
                f_ = line.split()
                if len(f_) == 6 and not line.startswith("#"):
                    done[(f_[0], int(f_[1]), int(f_[2]))] = f_
    need = [x for x in todo if (x[0], x[1], x[2]) not in done]
    print(f"{len(todo) - len(need)} already in {args.raw}, {len(need)} to run", file=sys.stderr)

    if need:
        if not os.path.exists(args.checker):
            src = os.path.join(HERE, "octal_check.c")
            subprocess.run(["gcc", "-O2", "-o", args.checker, src], check=True)
        cmd = [args.checker] + (["-x"] if args.strong else [])
        raw = open(args.raw, "a") if args.raw else None
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        proc.stdin.write("".join(f"{c} {e} {p}\n" for c, e, p, _ in need))
        proc.stdin.close()
        for line in proc.stdout:
            f_ = line.split()
            done[(f_[0], int(f_[1]), int(f_[2]))] = f_
            if raw:
                raw.write(line)
                raw.flush()
            print(line, end="", file=sys.stderr)
        if proc.wait() != 0:
            sys.exit(f"octal_check exited with {proc.returncode}")
        if raw:
            raw.close()

    results = [done[(c, e, p)] for c, e, p, _ in todo]
    agree = [r for r in results if r[4] == "agree"]
    disagree = [r for r in results if r[4] != "agree"]
    cpu = sum(float(r[5]) for r in results)

    out = []
    out.append("# Independent check of proved periods (octal_check.c)\n")
    out.append("Rows files (a later file's row replaces an earlier one's for the same code):\n")
    for path in args.rows:
        out.append(f"- `{os.path.basename(path)}`")
    out.append("")
    out.append(f"- codes in the files: {len(rows)}")
    out.append(f"- proved: {len(proved)}")
    out.append(f"- checked (N <= {int(args.max_n)}): {len(results)}; "
               f"agree: {len(agree)}; disagree: {len(disagree)}")
    out.append(f"- not checked (N > {int(args.max_n)}): {len(skipped)}")
    out.append(f"- CPU time of the checks: {cpu:.1f} s ({cpu / 3600:.2f} h)")
    out.append(f"- table: N = 2 max(e,1) + {'3' if args.strong else '2'}p + t - 1\n")
    out.append("## Disagreements\n")
    if disagree:
        out.append("| code | preperiod | period | N | verdict |")
        out.append("|---|---:|---:|---:|---|")
        for r in disagree:
            out.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} |")
    else:
        out.append("None.")
    out.append("\n## Not checked (N too large)\n")
    if skipped:
        out.append("| code | preperiod | period | N |")
        out.append("|---|---:|---:|---:|")
        for c, e, p, n in skipped:
            out.append(f"| {c} | {e} | {p} | {n} |")
    else:
        out.append("None.")
    out.append("\n## Every checked code\n")
    out.append("| code | preperiod | period | N | verdict | CPU s |")
    out.append("|---|---:|---:|---:|---|---:|")
    for r in sorted(results, key=lambda r: r[0]):
        out.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} |")
    text = "\n".join(out) + "\n"
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
