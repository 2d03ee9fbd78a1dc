#!/usr/bin/env python3
"""Each back-end's cost model (predicted stores and loads) against Valgrind's counts.

  scripts/model-vs-counts.py --run --breakdown   # run everything (~12 min), keep the JSON under RAW, print the table
  scripts/model-vs-counts.py                      # the table again from the JSON kept under RAW

--breakdown runs each back-end once more under Callgrind as `compare` does and splits its
writes and reads by function (callgrind_annotate); the table's notes quote those numbers.

The predicted op counts come from `nimsquare roofline --json`: its JSON has, per back-end,
`bound_seconds_per_resource` (ops x ns/op of each primitive, summed per resource) and
`primitives_ns_per_op`, so ops of the one primitive a resource holds is
seconds / (ns/op * 1e-9): scatter_store for `store`, span_load for `load`, stream_byte for
`bandwidth`. The counts are `compare X X --metric writes --pairs 1 --json --quiet` (two runs
of X under Callgrind, one thread, avx2; `a.counts[0].cache`). Python 3 standard library only.
Writes RAW/*.json and prints the markdown table on stdout.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.join(ROOT, "target", "release", "nimsquare")
RAW = os.path.join(ROOT, "results", "counts", "raw")

TABLE = ["naive-mex", "stamped", "bitset", "stamped-lanes", "stamped-parallel",
         "bitset-parallel", "value-bounded"]
COUNT = ["brute", "sweep", "rayon-sweep", "burnside", "wht"]
OCTAL = ["octal-naive", "octal-sparse", "octal-sparse-parallel", "octal-vector",
         "octal-vector-parallel", "octal-block", "octal-pairs", "auto"]
T_LIMIT, O_LIMIT, CODE = "1e5", "1e4", "0.6"

ROOFLINES = {
    "roofline-table": ["roofline", "--limit", T_LIMIT, "--repeat", "1", "--json"],
    "roofline-naive": ["roofline", "--limit", T_LIMIT, "--repeat", "1", "--json",
                       "--table", "naive-mex", "--count", "sweep"],
    "roofline-octal": ["roofline", "--octal", CODE, "--limit", O_LIMIT, "--repeat", "1", "--json"],
    "roofline-octal-naive": ["roofline", "--octal", CODE, "--limit", O_LIMIT, "--repeat", "1",
                             "--json", "--table", "octal-naive"],
}


def compare_args(name, octal):
    args = ["compare", name, name]
    args += ["--octal", CODE, "--limit", O_LIMIT] if octal else ["--limit", T_LIMIT]
    return args + ["--metric", "writes", "--pairs", "1", "--json", "--quiet"]


def run(key, args):
    env = dict(os.environ, NIMSQUARE_NO_WISDOM="1")
    p = subprocess.run([BIN] + args, capture_output=True, text=True, env=env)
    rec = {"command": "NIMSQUARE_NO_WISDOM=1 target/release/nimsquare " + " ".join(args),
           "status": p.returncode, "stderr": p.stderr.strip()[-400:]}
    try:
        rec["json"] = json.loads(p.stdout)
    except ValueError:
        rec["json"] = None
    with open(os.path.join(RAW, key + ".json"), "w") as f:
        json.dump(rec, f, indent=1)
    print(f"{key}: status {p.returncode}", file=sys.stderr)


def provenance():
    def out(cmd):
        return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()
    lscpu = out("lscpu")
    pick = lambda k: next((l.split(":", 1)[1].strip() for l in lscpu.splitlines()
                           if l.startswith(k + ":")), "?")
    rec = {"date": out("date -u +%Y-%m-%dT%H:%M:%SZ"), "cpu": pick("Model name"),
           "family": pick("CPU family"), "model": pick("Model"), "cpus": pick("CPU(s)"),
           "valgrind": out("valgrind --version")}
    with open(os.path.join(RAW, "provenance.json"), "w") as f:
        json.dump(rec, f, indent=1)


GEOMETRY = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=33554432,16,64"]  # compare's own


def breakdown(stage, name):
    """One counted run of `name` under Callgrind as `compare` makes it (one thread, avx2, the
    stage alone, the same cache geometry), its writes and reads split by function with
    callgrind_annotate (inlined code is charged to the function it sits in)."""
    out = os.path.join(RAW, f"callgrind.{stage}-{name}")
    if stage == "octal":
        args = ["build", "--workload", f"octal:{CODE}", "--json", "--quiet", "--limit", "10000",
                "--backend", name]
    else:
        args = ["solve", "--json", "--quiet", "--limit", "100000", "--moves", "squares",
                "--heaps", "3", "--count" if stage == "count" else "--table", name]
    env = dict(os.environ, NIMSQUARE_NO_WISDOM="1",
               NIMSQUARE_COUNTED_STAGE="build" if stage == "octal" else stage)
    cmd = (["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--log-file=/dev/null",
            "--instr-atstart=no", "--cache-sim=yes"] + GEOMETRY
           + [BIN, "--threads", "1", "--isa", "avx2"] + args)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    ann = subprocess.run(["callgrind_annotate", "--show=Ir,Dr,Dw", "--sort=Dw", "--threshold=100",
                          "--auto=no", "--inclusive=no", out], capture_output=True, text=True).stdout
    rows, total = {}, None
    cell = r"(\.|0|[\d,]+ \(\s*[\d.]+%\))\s+"
    for line in ann.splitlines():
        m = re.match(r"^\s*" + cell * 3 + r"(.*)$", line)
        if not m:
            continue
        ir, dr, dw = (0 if c in (".", "0") else int(c.split()[0].replace(",", ""))
                      for c in m.groups()[:3])
        rest = m.group(4)
        if "PROGRAM TOTALS" in rest:
            total = (ir, dr, dw)
            continue
        fn = rest.split(" [")[0].split(":", 1)[-1]
        r = rows.setdefault(fn, [0, 0, 0])
        r[0] += ir; r[1] += dr; r[2] += dw
    os.remove(out)
    # the functions holding 0.5% of the writes or of the reads, and the sum of the rest
    big, rest = [], [0, 0, 0]
    for k, v in sorted(rows.items(), key=lambda kv: -kv[1][2]):
        if total and (v[2] >= 0.005 * total[2] or v[1] >= 0.005 * total[1]):
            big.append([k] + v)
        else:
            rest = [a + b for a, b in zip(rest, v)]
    rec = {"command": f"NIMSQUARE_COUNTED_STAGE={env['NIMSQUARE_COUNTED_STAGE']} NIMSQUARE_NO_WISDOM=1 "
                      + " ".join(cmd[:1] + cmd[1:]).replace(out, "OUT")
                      + "; callgrind_annotate --show=Ir,Dr,Dw --sort=Dw --threshold=100 --auto=no OUT",
           "status": p.returncode, "total_ir_dr_dw": total,
           "functions": big, "rest": rest}
    with open(os.path.join(RAW, f"breakdown-{stage}-{name}.json"), "w") as f:
        json.dump(rec, f, indent=1)
    print(f"breakdown {stage} {name}: status {p.returncode}", file=sys.stderr)


def load(key):
    path = os.path.join(RAW, key + ".json")
    return json.load(open(path)) if os.path.exists(path) else None


def demand(entry):
    """Predicted ops per primitive of one roofline entry (None where the resource is 0)."""
    sec = entry["bound_seconds_per_resource"]
    ns = {k: v["median"] for k, v in entry["primitives_ns_per_op"].items()}
    ops = {}
    for res, prim in (("store", "scatter_store"), ("load", "span_load"),
                      ("bandwidth", "stream_byte")):
        if sec.get(res, 0) > 0 and prim in ns:
            ops[prim] = sec[res] / (ns[prim] * 1e-9)
    ops["units"] = entry["bound_seconds"] / (entry["bound_ns_per_unit"] * 1e-9)
    return ops


def models():
    out = {}
    for key in ROOFLINES:
        rec = load(key)
        if rec and rec["json"]:
            for e in rec["json"]["backends"]:
                stage = "octal" if key.startswith("roofline-octal") else e["stage"]
                out.setdefault((stage, e["backend"]), demand(e))
    return out


def fmt(x):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x / 1e6:.2f}M" if abs(x) >= 1e5 else f"{x:,.0f}"


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "-"


def fn(stage, name, part, col):
    """Reads (col 2) or writes (col 3) Callgrind charged to the functions whose name holds
    `part`, from the breakdown of `stage`/`name`, formatted."""
    rec = load(f"breakdown-{stage}-{name}")
    if not rec:
        return "?"
    return fmt(sum(r[col] for r in rec["functions"] if part in r[0]))


W, R = 3, 2
PREFIX_STEPS = sum(m // 2 for m in range(2, 4095))  # 0.6's full searches, heaps 3..4095 (rare_steps)

# Why a ratio is off (or the model has no term): each number is read from the breakdowns.
NOTES = {
    "naive-mex": lambda: f"a BTreeSet collected per position: sort functions {fn('table', 'naive-mex', 'sort', W)} W, "
                         f"collect {fn('table', 'naive-mex', 'from_iter', W)} W, malloc/free",
    "stamped": lambda: "W: an 8-byte usize stamp a step, not a byte; R: 2 a step (the move s and g[n-s]) + the mex walk",
    "bitset": lambda: f"no store term: block loop {fn('table', 'bitset', 'masks::avx2_entry', W)} W (a RMW or "
                      f"per near option, g), memset {fn('table', 'bitset', 'memset', W)}; far OR: 8-B vmovq "
                      f"of 4 values + reloaded constants, {fn('table', 'bitset', 'far_or', R)} R",
    "stamped-lanes": lambda: f"R: stamp_moves loads each value (movzwl), {fn('table', 'stamped-lanes', 'stamp_moves', R)}; "
                             f"+ in-block options and mex scans {fn('table', 'stamped-lanes', 'lanes::avx2_entry', R)}",
    "stamped-parallel": lambda: f"in-order part (pipeline::finish {fn('table', 'stamped-parallel', 'pipeline::finish', R)} R, "
                                f"{fn('table', 'stamped-parallel', 'pipeline::finish', W)} W) ORs into masks; memset "
                                f"{fn('table', 'stamped-parallel', 'memset', W)} W",
    "bitset-parallel": lambda: f"no store term: finish {fn('table', 'bitset-parallel', 'pipeline::finish', W)} W, "
                               f"far_or {fn('table', 'bitset-parallel', 'far_or', W)} W; R as bitset",
    "value-bounded": lambda: f"no store/load term: memset {fn('table', 'value-bounded', 'memset', W)} W, sumset kernel "
                             f"{fn('table', 'value-bounded', 'sumset', W)} W, {fn('table', 'value-bounded', 'sumset', R)} R",
    "sweep": lambda: f"P/S updates, 5 a position ({fn('count', 'sweep', 'xor_dot', W)} W); R: the dot's operands "
                     f"({fn('count', 'sweep', 'xor_dot', R)}), priced as mul_add",
    "rayon-sweep": lambda: f"as sweep, + chunk histograms {fn('count', 'rayon-sweep', 'call_mut', W)} W",
    "burnside": lambda: "negligible (mostly malloc)",
    "wht": lambda: "negligible",
    "octal-naive": lambda: f"BTreeSet insert per option: node writes {fn('octal', 'octal-naive', 'btree::node', W)} "
                           f"+ malloc/free; inlined tree searches {fn('octal', 'octal-naive', 'OctalNaive', R)} R",
    "octal-sparse": lambda: f"{fmt(PREFIX_STEPS)} of the steps are heaps < 4096's full searches: compares "
                            f"(settle {fn('octal', 'octal-sparse', 'settle', R)} R), not stores; mark_options "
                            f"{fn('octal', 'octal-sparse', 'mark_options', W)} W",
    "octal-sparse-parallel": lambda: "as octal-sparse",
    "octal-vector": lambda: f"each candidate is its own early-stopping pass (2 x 32-B loads per 16 pairs): "
                            f"{fn('octal', 'octal-vector', 'xor_pairs', R)} R, not one pass",
    "octal-vector-parallel": lambda: "as octal-vector",
    "octal-block": lambda: f"mark_lanes {fn('octal', 'octal-block', 'mark_lanes', W)} W, sweep+near "
                           f"{fn('octal', 'octal-block', 'sweep::sweep', W)}+{fn('octal', 'octal-block', 'near_block', W)}, "
                           f"memset {fn('octal', 'octal-block', 'memset', W)}",
    "octal-pairs": lambda: f"mark_avx2 {fn('octal', 'octal-pairs', 'mark_avx2', W)} W (byte stores) + memset "
                           f"{fn('octal', 'octal-pairs', 'memset', W)}",
    "auto": lambda: f"auto ran octal-block's code (mark_lanes {fn('octal', 'auto', 'mark_lanes', W)} W); "
                    "its model is 1x rare steps, block's 2x",
}


def table():
    prov = load("provenance") or {}
    mods = models()
    steps = sum(math.isqrt(n) for n in range(1, 100_001))
    lines = ["| back-end | model stores | writes | W/model | model loads | reads | R/model | why off / what the model leaves out |",
             "|---|---|---|---|---|---|---|---|"]
    builds, versions, worst = set(), set(), 0.0
    for stage, names in (("table", TABLE), ("count", COUNT), ("octal", OCTAL)):
        for name in names:
            rec = load(f"compare-{stage}-{name}")
            if rec is None:
                continue
            j = rec["json"]
            if rec["status"] != 0 or not j:
                why = "naive control, too large an N" if "naive control" in rec["stderr"] else "failed"
                lines.append(f"| {name} | refused: {why} | | | | | | |")
                continue
            builds.add(j["build"]); versions.add(j.get("valgrind"))
            c, cb = j["a"]["counts"][0]["cache"], j["b"]["counts"][0]["cache"]
            for k in ("writes", "reads"):
                worst = max(worst, abs(cb[k] - c[k]) / c[k])
            w, r = c["writes"], c["reads"]
            m = mods.get((stage, name), {})
            st = m.get("scatter_store")
            if m.get("span_load"):
                ld, unit = 32 * m["span_load"], f"{fmt(m['span_load'])} spans = {fmt(32 * m['span_load'])} u16"
            elif m.get("stream_byte") and stage == "count":
                ld, unit = m["stream_byte"] / 2, f"{fmt(m['stream_byte'])} B = {fmt(m['stream_byte'] / 2)} u16"
            elif m.get("stream_byte") and stage == "octal":
                ld, unit = m["stream_byte"] / 32, f"{fmt(m['stream_byte'])} B = {fmt(m['stream_byte'] / 32)} x 32 B"
            else:
                ld, unit = None, "-"
            off = lambda a, b: b is None or not b or abs(a / b - 1) > 0.10
            note = NOTES[name]() if (off(w, st) or off(r, ld)) and name in NOTES else ""
            lines.append(f"| {name} | {fmt(st) if st else 0} | {fmt(w)} | {ratio(w, st)} | {unit} | {fmt(r)} | "
                         f"{ratio(r, ld)} | {note} |")
    tail = (f"S(10^5) = {steps:,} (sum of isqrt(n), the roofline's step count too); A and B runs "
            f"differ by <= {100 * worst:.4f}%; build {', '.join(sorted(builds))}, "
            f"{', '.join(sorted(v for v in versions if v))}, {prov.get('date', '?')}, {prov.get('cpu', '?')} "
            f"{prov.get('family', '?')}/{prov.get('model', '?')}.")
    return "\n".join(lines + ["", tail])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="run the commands (about 10-20 minutes)")
    ap.add_argument("--only", help="with --run: only the keys containing this string")
    ap.add_argument("--breakdown", action="store_true",
                    help="split each back-end's counted writes and reads by function (Callgrind)")
    a = ap.parse_args()
    os.makedirs(RAW, exist_ok=True)
    if a.run:
        provenance()
        jobs = dict(ROOFLINES)
        for stage, names in (("table", TABLE), ("count", COUNT), ("octal", OCTAL)):
            for name in names:
                jobs[f"compare-{stage}-{name}"] = compare_args(name, stage == "octal")
        for key, args in jobs.items():
            if not a.only or a.only in key:
                run(key, args)
    if a.breakdown:
        for stage, names in (("table", TABLE), ("count", COUNT), ("octal", OCTAL)):
            for name in names:
                if (not a.only or a.only in name) and name not in ("brute",):
                    breakdown(stage, name)
    print(table())


if __name__ == "__main__":
    main()
