#!/usr/bin/env python3
"""The octal panel (issue 50): is the default back-end the fastest, code by code?

Usage: scripts/octal-panel.py BINARY --limit N --budget SECONDS [--pairs K] [--codes C,C,...]
       [--backends B,B,...] [--out FILE.md] [--screen-from FILE.jsonl]

For each code (default: every one- and two-digit code 0.d and 0.dd with a last digit above 0,
and three-digit codes of each kind), in two stages, each a whole process of
`BINARY octal CODE --limit N --quiet --json [--backend B]`, timed as wall seconds:

1. Screen: every registered back-end but the controls, once, the fastest found so far first,
   each under a time limit of min(budget, max(2 x the fastest so far, that + 0.25 s)): one
   that runs past it is "over" (slower than that, or past the budget), and cannot be the
   fastest.
2. Pairs: the default (no --backend) against the screen's fastest, in K alternating pairs
   (default first, then fastest, then fastest, then default, ...), the ratio default/fastest
   taken pair by pair; the median is the panel's figure. A default that chose the fastest
   back-end still pays for its prefix and its choice, so it is timed too.

Writes a markdown table (code, kind, each back-end's screen seconds or "over", the default's
choice and why, the median ratio and its range) and, beside it, the same rows as JSON lines.
Nothing else may run on the machine while this runs.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def panel_codes():
    codes = [f"0.{d}" for d in range(1, 8)]
    codes += [f"0.{a}{b}" for a in range(8) for b in range(1, 8)]
    # three-digit codes of each kind: one splitting digit; several of one parity; both
    # parities; no splitting digit; d0 = 4
    codes += [
        "0.137", "0.161",  # one splitting digit
        "0.165", "0.167", "0.354", "0.644", "0.346",  # splitting digits of both parities
        "0.426", "0.724", "0.404",  # splitting digits of one parity
        "0.333", "0.123",  # no splitting digit
        "4.07", "4.3", "4.03",  # d0 = 4
    ]
    seen, out = set(), []
    for c in codes:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def kind(code):
    whole, _, after = code.partition(".")
    digits = [int(whole or "0")] + [int(d) for d in after]
    t = len(digits) - 1
    splits = [k for k, d in enumerate(digits) if d & 4]
    if digits[0] == 4:
        return "d0 = 4"
    if not splits:
        return "no splitting digit"
    if len(splits) == 1:
        return "one splitting digit"
    parities = {(t - k) % 2 for k in splits}
    return "several, one parity" if len(parities) == 1 else "several, both parities"


def run(binary, code, limit, backend, timeout):
    cmd = [binary, "octal", code, "--limit", str(limit), "--quiet", "--json"]
    if backend:
        cmd += ["--backend", backend]
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    return seconds, json.loads(out.stdout)


def chosen(report):
    """The back-end the default ran and why: `auto`'s choice, or the back-end itself."""
    auto = report.get("auto")
    if auto:
        return auto.get("chose"), auto.get("reason")
    return report.get("backend"), None


def backends(binary):
    out = subprocess.run([binary, "list", "--json"], capture_output=True, text=True, check=True)
    names = []
    for entry in json.loads(out.stdout).get("octal", []):
        if entry.get("role") != "control" and entry["name"] != "auto":
            names.append(entry["name"])
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--limit", type=int, required=True)
    ap.add_argument("--budget", type=float, required=True)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--codes")
    ap.add_argument("--backends")
    ap.add_argument("--out")
    ap.add_argument("--screen-from", help="take stage 1 from the JSON lines of an earlier run (same limit)")
    ap.add_argument(
        "--smaller-from",
        help="the JSON lines of a run at a smaller N: each code's back-ends are screened fastest "
        "first, and one that was over there (slower than twice its fastest) is not run: 'over'",
    )
    args = ap.parse_args()
    earlier = {}
    if args.screen_from:
        for line in open(args.screen_from):
            r = json.loads(line)
            if r["limit"] == args.limit:
                earlier[r["code"]] = r["times"]
    smaller = {}
    if args.smaller_from:
        for line in open(args.smaller_from):
            r = json.loads(line)
            smaller[r["code"]] = r["times"]
    codes = args.codes.split(",") if args.codes else panel_codes()
    names = args.backends.split(",") if args.backends else backends(args.binary)
    order = list(names)
    rows = []
    jsonl = open(args.out + ".jsonl", "a") if args.out else None
    for code in codes:
        times = dict(earlier.get(code, {}))
        best = min((v for v in times.values() if v is not None), default=None)
        if code in smaller:
            before = smaller[code]
            for n in names:
                if n not in times and before.get(n, 0) is None:
                    times[n] = None
            order = sorted(names, key=lambda n: before.get(n) or 0)
        for name in [n for n in order if n not in times]:
            # twice the fastest so far, but never under a quarter second more (a process's
            # start-up and the machine's noise are milliseconds)
            limit_s = args.budget if best is None else min(args.budget, max(2 * best, best + 0.25))
            s, _ = run(args.binary, code, args.limit, name, limit_s)
            times[name] = s
            if s is not None and (best is None or s < best):
                best = s
        fastest = min((n for n in names if times[n] is not None), key=lambda n: times[n], default=None)
        ratios, choice, why = [], None, None
        if fastest is not None:
            for i in range(args.pairs):
                pair = [None, None]
                for which in ([0, 1] if i % 2 == 0 else [1, 0]):
                    s, report = run(args.binary, code, args.limit, None if which == 0 else fastest, 10 * args.budget)
                    pair[which] = s
                    if which == 0 and report is not None:
                        choice, why = chosen(report)
                if pair[0] is not None and pair[1]:
                    ratios.append(pair[0] / pair[1])
        else:
            # every back-end over: the default once, under the same budget, for its choice
            _, report = run(args.binary, code, args.limit, None, args.budget)
            if report:
                choice, why = chosen(report)
        row = {
            "code": code,
            "kind": kind(code),
            "limit": args.limit,
            "budget": args.budget,
            "times": times,
            "fastest": fastest,
            "choice": choice,
            "why": why,
            "ratios": ratios,
            "median": statistics.median(ratios) if ratios else None,
        }
        rows.append(row)
        if jsonl:
            jsonl.write(json.dumps(row) + "\n")
            jsonl.flush()
        # put the fastest first for the next code: it sets the tightest time limit
        order.sort(key=lambda n: (times[n] is None, times[n] or 0))
        print(
            f"{code:8} {row['kind']:24} fastest {fastest} choice {choice} "
            f"median {row['median'] and round(row['median'], 3)}",
            file=sys.stderr,
            flush=True,
        )
    lines = [
        f"| code | kind | {' | '.join(names)} | choice | default/fastest (median, range) |",
        "|" + "---|" * (len(names) + 4),
    ]
    for r in rows:
        cells = [("over" if r["times"][n] is None else f"{r['times'][n]:.3f}") for n in names]
        rng = (
            f"{r['median']:.3f} ({min(r['ratios']):.3f}-{max(r['ratios']):.3f})"
            if r["ratios"]
            else "every back-end over"
        )
        lines.append(f"| {r['code']} | {r['kind']} | {' | '.join(cells)} | {r['choice']} | {rng} |")
    worst = max((r for r in rows if r["median"] is not None), key=lambda r: r["median"], default=None)
    lines.append("")
    if worst:
        lines.append(f"worst median ratio: {worst['median']:.3f} on {worst['code']} ({worst['choice']} against {worst['fastest']})")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
