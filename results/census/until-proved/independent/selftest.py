#!/usr/bin/env python3
"""Self-test of octal_check against a slow, separately written Python reference.

    python3 selftest.py [./octal_check]

1. For random codes (1-4 digits, d0 = 0 or 4) and random claims, the table g(0..N)
   that `octal_check -d` prints is compared with the Python brute force below, which
   lists every move explicitly (both orders of every split).
2. For random codes (1-3 digits) whose values the Python table shows periodic well
   inside N = 1500, the least (e, p) is taken from the table and octal_check must say
   `agree` to (e, p) and disagree to (e, p+1), (e, 2p), (e+1, p) and (e-1, p), with
   and without -x.
Takes about a minute.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "octal_check")


def parse(code):
    a, b = code.split(".")
    return (int(a) if a else 0), [int(c) for c in b]


def grundy(code, n_max):
    d0, ds = parse(code)
    moves = [(0, d0)] + [(k + 1, d) for k, d in enumerate(ds)]
    g = [0] * (n_max + 1)
    for n in range(1, n_max + 1):
        opts = set()
        for k, d in moves:
            r = n - k
            if r < 0:
                continue
            if d & 1 and r == 0 and k > 0:
                opts.add(0)
            if d & 2 and r >= 1 and k > 0:
                opts.add(g[r])
            if d & 4:
                for a in range(1, r):
                    opts.add(g[a] ^ g[r - a])
        m = 0
        while m in opts:
            m += 1
        g[n] = m
    return g


def run(args, lines):
    return subprocess.run([CHECKER] + args, input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True, check=True).stdout.splitlines()


def random_code(rng, tmax):
    t = rng.randint(1, tmax)
    return rng.choice(["0", "4", ""]) + "." + "".join(str(rng.randint(0, 7)) for _ in range(t))


def test_tables(rng):
    codes = {"0.07", ".137", "0.77", "4.7", "4.07", "0.4", "0.6", ".31", ".71", "4.4", "4.3", ".16"}
    while len(codes) < 300:
        codes.add(random_code(rng, 4))
    codes = sorted(codes)
    lines = [f"{c} {rng.randint(0, 80)} {rng.randint(1, 60)}" for c in codes]
    out = run(["-d"], lines)
    bad = 0
    for c, head, table in zip(codes, out[0::2], out[1::2]):
        f = head.split()
        assert f[0] == c, (c, head)
        if list(map(int, table[1:].split())) != grundy(c, int(f[3])):
            bad += 1
            print("TABLE MISMATCH", c)
    print(f"tables: {len(codes)} codes, {bad} mismatches")
    return bad


def test_verdicts(rng):
    n_table = 1500
    codes = {"0.07", ".137", "0.77", ".31", ".71", "4.7", "0.4", "4.4", ".16", "0.6"}
    while len(codes) < 250:
        codes.add(random_code(rng, 3))
    lines, expect = [], []
    for c in sorted(codes):
        g = grundy(c, n_table)
        t = len(c.split(".")[1])
        for p in range(1, 200):
            last = -1
            for n in range(n_table - p, -1, -1):
                if g[n + p] != g[n]:
                    last = n
                    break
            e = last + 1
            if 2 * max(e, 1) + 3 * p + t < n_table - 10:
                lines.append(f"{c} {e} {p}")
                expect.append(True)
                for e2, p2 in [(e, p + 1), (e, 2 * p), (e + 1, p)] + ([(e - 1, p)] if e > 0 else []):
                    lines.append(f"{c} {e2} {p2}")
                    expect.append(False)
                break
    bad = 0
    for args in ([], ["-x"]):
        for l, x, o in zip(lines, expect, run(args, lines)):
            if (o.split()[4] == "agree") != x:
                bad += 1
                print("UNEXPECTED", args, l, "expected", "agree" if x else "disagree", "got", o)
    print(f"verdicts: {expect.count(True)} periodic codes, {len(lines)} claims x 2, {bad} unexpected")
    return bad


if __name__ == "__main__":
    rng = random.Random(2026)
    sys.exit(1 if test_tables(rng) + test_verdicts(rng) else 0)
