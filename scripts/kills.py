#!/usr/bin/env python3
"""scripts/kills.py: every long-running command killed with SIGKILL at random instants, run
again the same way, and its final result compared with an uninterrupted run (issue 58, part 3).

    scripts/kills.py [--kills K] [--commands solve,octal,...] [--smoke] [--bin PATH] [--seed S]
                     [--aimed F] [--json FILE] [--work DIR]

For each command (--list names them, with the sizes and the exact command lines):

  1. The reference: the command run once, never killed, in a folder of its own; its result is
     kept (the fields of its --json report that do not depend on time, the files it writes:
     a saved table, a values file, census rows, study rows).
  2. Trials, until K kills have landed: the command is started with its checkpoint (or --out)
     flags in a fresh folder, stopped at a random instant (SIGSTOP, so what is on disk can be
     looked at while nothing moves), its temporary files listed, then killed (SIGKILL); then
     the same command again (the resume), possibly killed again, up to 4 kills in a row, and
     at last run to its end. The end's result is compared with the reference.
     An instant is drawn uniformly over the uninterrupted checkpointed run's duration; a
     fraction F of the kills (--aimed, default 0.3) are aimed instead: the script waits for a
     checkpoint's temporary file to appear, then stops the process after a random 0-20 ms,
     so a good share of the kills fall in a checkpoint's write or rename.
  3. Counts, per command: kills; kills during a write or rename (a checkpoint's temporary
     sibling existed at the kill); trials whose end was equal to the reference; refused
     resumes (with their messages); wrong or lost results (with what differed); runs that
     crashed (a signal or an exit status other than 0 or a refusal's 1) or hung (no end
     within 20 times the uninterrupted time); temporary files left behind once a trial ended.

The binary is target/release/nimsquare unless --bin names another; build it first with
`cargo build --release`. Wisdom is off in every run (NIMSQUARE_NO_WISDOM=1), as in the tests.
--smoke: small sizes and 3 kills a command (under a minute in all), for CI (tests/kills.rs).

Output: a line per trial on stderr (with --verbose) and per command on stdout, then one line
`kills-summary {JSON}` holding every count; --json FILE writes the same JSON to FILE. Exit
status 0 when every trial ended equal to the reference with no temporary file left, 1
otherwise (a result wrong or lost, a refused resume, a crash, a hang, a temporary left), 2 on
a usage error.
"""

import argparse
import csv
import hashlib
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# The wisdom-off variable (nimsquare::run::wisdom::OFF_VARIABLE).
WISDOM_OFF = "NIMSQUARE_NO_WISDOM"
# How long an aimed kill waits, at most, after the temporary file appears.
AIM_WINDOW = 0.020
# The most kills in a row before a trial lets its run finish.
MOST_IN_A_ROW = 4
# A run that takes this many times the uninterrupted time has hung.
HANG_FACTOR = 20


# --- what each command's result is ------------------------------------------------------------

# Fields of a --json report that say how the run went rather than what it found: left out of
# the comparison (a resumed run builds fewer positions, and every run takes its own time).
VOLATILE = {
    "seconds", "load_average_start", "load_average_end", "memory_available_bytes",
    "peak_rss_bytes", "ns_per_step", "values_per_second", "positions_per_second",
    "positions_this_run", "option_steps_this_run", "seeded_positions", "seeded_from",
    "resumed_at", "pool_threads",
}


def volatile(key):
    return key in VOLATILE or key.endswith("_seconds")


def strip_volatile(value):
    """The JSON value without its volatile fields, at any depth."""
    if isinstance(value, dict):
        return {k: strip_volatile(v) for k, v in value.items() if not volatile(k)}
    if isinstance(value, list):
        return [strip_volatile(v) for v in value]
    return value


def report_of(stdout, d):
    """The --json report on stdout, its volatile fields left out and the run's folder `d`
    written `{d}` (so runs in different folders compare)."""
    return strip_volatile(json.loads(stdout.replace(d, "{d}")))


def file_bytes(path):
    """The bytes of a file, or None when there is none."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def digest(data):
    """A short fingerprint of bytes (SHA-256, 16 hex digits, and the length); None for no
    file."""
    if data is None:
        return None
    return f"{hashlib.sha256(data).hexdigest()[:16]}:{len(data)}"


def csv_rows(path, keep, key):
    """The rows of a CSV file (after its `#` line, if any) as tuples of the columns `keep`,
    with `key`'s columns; returns (rows sorted, duplicate keys, file text ends whole)."""
    text = open(path, encoding="utf-8").read()
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines) + "\n")))
    seen, dups, out = set(), [], []
    for r in rows:
        k = tuple(r[c] for c in key)
        if k in seen:
            dups.append(k)
        seen.add(k)
        out.append(tuple(r.get(c) for c in keep))
    return sorted(out), dups, text.endswith("\n")


# --- the commands ---------------------------------------------------------------------------

class Command:
    """One long-running command: how it is started the first time and again, what its
    uninterrupted reference is, where its temporary files appear and what its result is."""

    def __init__(self, name, size, reference, first, again, result, temporaries,
                 env=None, steady=()):
        self.name = name
        self.size = size
        self.reference = reference  # argument list, `{d}` = the run's folder
        self.first = first
        self.again = again
        self.result = result  # (folder, stdout) -> comparable value
        self.temporaries = temporaries  # folder -> temporary files there now
        self.env = env or {}
        # Files the finished trial keeps beside its result (not leftovers).
        self.steady = steady


def in_dir(args, d):
    return [a.replace("{d}", d) for a in args]


def tmp_files(*patterns):
    """The temporary files of a folder: names matching one of `patterns`, searched one folder
    deep. Returns {relative path: (inode, mtime, size)}, so that a file a run found on disk
    (left by an earlier kill) can be told from one it is writing now."""
    def find(d):
        found = {}
        for root, dirs, files in os.walk(d):
            for f in files:
                if any(p(f) for p in patterns):
                    path = os.path.join(root, f)
                    try:
                        st = os.stat(path)
                    except FileNotFoundError:
                        continue
                    found[os.path.relpath(path, d)] = (st.st_ino, st.st_mtime_ns, st.st_size)
            if root != d:
                dirs[:] = []
        return found
    return find


def written_since(before, now):
    """The temporary files of `now` that are not as they were in `before`: new, or written to
    since (another inode, mtime or size). These are the writes in progress."""
    return sorted(k for k, v in now.items() if before.get(k) != v)


def table_tmp(name):
    """The tempfile sibling of a table file NAME (`NAME.XXXXXX.tmp`, tablefile/writer.rs)."""
    return lambda f: f.startswith(name + ".") and f.endswith(".tmp") and f != name + ".tmp"


def exact(name):
    return lambda f: f == name


def suffix(s):
    return lambda f: f.endswith(s)


def solve_result(d, stdout):
    return {"report": report_of(stdout, d), "saved table": digest(file_bytes(f"{d}/table.tbl")),
            "checkpoint": digest(file_bytes(f"{d}/ck.tbl"))}


def solve_reference(d, stdout):
    table = digest(file_bytes(f"{d}/table.tbl"))
    # A finished run's checkpoint is the complete table file (driver.rs).
    return {"report": report_of(stdout, d), "saved table": table, "checkpoint": table}


def octal_result(d, stdout):
    return {"report": report_of(stdout, d), "checkpoint": digest(file_bytes(f"{d}/ck.tbl"))}


def octal_reference(d, stdout):
    return {"report": report_of(stdout, d), "checkpoint": digest(file_bytes(f"{d}/table.tbl"))}


def window_result(d, stdout):
    return {"report": report_of(stdout, d), "values": digest(file_bytes(f"{d}/values.u16"))}


CENSUS_KEEP = ["code", "limit", "status", "stop", "preperiod", "period", "max_value", "rare",
               "backend", "build", "cpu"]


def census_result(d, stdout):
    rows, dups, whole = csv_rows(f"{d}/rows.csv", CENSUS_KEEP, ["code"])
    text = open(f"{d}/rows.csv", encoding="utf-8").read()
    # A completed census rewrites its file in code order: the order must be the reference's.
    order = [line.split(",", 1)[0] for line in text.splitlines()[2:]]
    return {"rows": rows, "order": order, "duplicates": dups, "ends whole": whole,
            "tables folder left": os.path.exists(f"{d}/rows.csv.tables")}


def scale_result(d, stdout):
    rows, dups, whole = csv_rows(f"{d}/study.csv", ["backend", "n", "moves", "threads", "repeats"],
                                 ["backend", "n"])
    return {"points": rows, "duplicates": dups, "ends whole": whole}


def growth_result(d, stdout):
    text = open(f"{d}/study.csv", encoding="utf-8").read()
    header = text.splitlines()[0].split(",")
    # What a run found, not how: the build's N, time, back-end (a resumed study builds to a
    # smaller N, where `auto` may choose another), the load and the provenance are left out.
    keep = [c for c in header if c not in ("built_to", "seconds", "backend", "load_start",
                                          "load_end", "git_rev", "cpu")]
    rows, dups, whole = csv_rows(f"{d}/study.csv", keep, ["n"])
    return {"columns": keep, "rows": rows, "duplicates": dups, "ends whole": whole}


def commands(smoke):
    """The commands and their sizes: ~3-10 s uninterrupted on a 2-core EPYC (AVX2); --smoke:
    a fraction of a second."""
    s = smoke
    solve_n = "1e5" if s else "2e6"
    octal_n = "3e4" if s else "3e5"
    window_n = "1e5" if s else "4e5"
    census_d, census_n = ("2", "300") if s else ("3", "2e3")
    until_d, until_max = ("1", "1e4") if s else ("2", "2e4")
    scale_to, scale_points = ("3e3", "2") if s else ("5e4", "3")
    growth_to = "1e5" if s else "1e6"
    every = ["--checkpoint-every", "0"]
    q = ["--quiet"]
    out = []
    out.append(Command(
        "solve", f"subtract-a-square, N = {solve_n}, 3 heaps",
        ["solve", "--limit", solve_n, "--json", *q, "--save-table", "{d}/table.tbl"],
        ["solve", "--limit", solve_n, "--json", *q, "--checkpoint", "{d}/ck.tbl", *every,
         "--save-table", "{d}/table.tbl"],
        None, solve_result, tmp_files(table_tmp("ck.tbl"), table_tmp("table.tbl"))))
    out[-1].again = out[-1].first
    out[-1].reference_result = solve_reference
    out.append(Command(
        "octal", f"0.6 (Officers), N = {octal_n}, whole table",
        ["octal", "0.6", "--limit", octal_n, "--json", "--histogram", *q,
         "--save-table", "{d}/table.tbl"],
        ["octal", "0.6", "--limit", octal_n, "--json", "--histogram", *q,
         "--checkpoint", "{d}/ck.tbl", *every],
        None, octal_result, tmp_files(table_tmp("ck.tbl"))))
    out[-1].again = out[-1].first
    out[-1].reference_result = octal_reference
    out.append(Command(
        "octal-window", f"0.6 (Officers), N = {window_n}, window mode, values file kept",
        ["octal", "0.6", "--limit", window_n, "--json", "--histogram", *q, "--window",
         "--window-file", "{d}/values.u16"],
        ["octal", "0.6", "--limit", window_n, "--json", "--histogram", *q, "--window",
         "--checkpoint", "{d}/ck", *every, "--window-file", "{d}/values.u16"],
        None, window_result, tmp_files(suffix(".tmp-window-checkpoint"))))
    out[-1].again = out[-1].first
    out.append(Command(
        "census", f"every code of up to {census_d} digits, N = {census_n}",
        ["census", "--digits", census_d, "--limit", census_n, "--csv", *q, "--out", "{d}/rows.csv"],
        ["census", "--digits", census_d, "--limit", census_n, "--csv", *q, "--out", "{d}/rows.csv"],
        ["census", "--digits", census_d, "--limit", census_n, "--csv", *q, "--out", "{d}/rows.csv",
         "--resume"],
        census_result, tmp_files(exact("rows.csv.tmp"))))
    out.append(Command(
        "census-until", f"every code of up to {until_d} digits, from N = 1000 until proved, "
        f"at most N = {until_max}, a table kept at every doubling",
        ["census", "--digits", until_d, "--limit", "1000", "--until-proved", "--max-limit",
         until_max, "--csv", *q, "--out", "{d}/rows.csv"],
        ["census", "--digits", until_d, "--limit", "1000", "--until-proved", "--max-limit",
         until_max, "--csv", *q, "--out", "{d}/rows.csv"],
        ["census", "--digits", until_d, "--limit", "1000", "--until-proved", "--max-limit",
         until_max, "--csv", *q, "--out", "{d}/rows.csv", "--resume"],
        census_result, tmp_files(exact("rows.csv.tmp"), suffix(".tmp")),
        env={"NIMSQUARE_CENSUS_TABLE_EVERY": "0"}))
    out.append(Command(
        "scale", f"scaling study, N = 1e3..{scale_to}, {scale_points} points, 1 repeat, every back-end",
        ["scale", "--from", "1e3", "--to", scale_to, "--points", scale_points, "--repeat", "1",
         "--out", "{d}/study.csv"],
        ["scale", "--from", "1e3", "--to", scale_to, "--points", scale_points, "--repeat", "1",
         "--out", "{d}/study.csv", "--resume"],
        None, scale_result, tmp_files(exact("study.csv.tmp"))))
    out[-1].again = out[-1].first
    out.append(Command(
        "growth", f"growth study of m(N), N = 1e3..{growth_to}, 6 points",
        ["growth", "--quantity", "max", "--from", "1e3", "--to", growth_to, "--points", "6",
         "--out", "{d}/study.csv"],
        ["growth", "--quantity", "max", "--from", "1e3", "--to", growth_to, "--points", "6",
         "--out", "{d}/study.csv", "--resume"],
        None, growth_result, tmp_files(exact("study.csv.tmp"))))
    out[-1].again = out[-1].first
    return out


# --- running, stopping, killing ---------------------------------------------------------------

class Run:
    """One start of the binary in folder `d`, stdout and stderr to files there."""

    def __init__(self, binary, args, d, env, tag):
        self.d = d
        self.out_path = os.path.join(d, f".stdout-{tag}")
        self.err_path = os.path.join(d, f".stderr-{tag}")
        self.started = time.monotonic()
        with open(self.out_path, "wb") as o, open(self.err_path, "wb") as e:
            self.proc = subprocess.Popen([binary, *in_dir(args, d)], stdout=o, stderr=e,
                                         stdin=subprocess.DEVNULL, env=env,
                                         start_new_session=True)
        self.status = None  # the waitpid status once reaped

    def reap(self, flags=0):
        """waitpid on the child; returns the status, or None (WNOHANG, still running)."""
        pid, status = os.waitpid(self.proc.pid, flags)
        if pid == 0:
            return None
        if os.WIFSTOPPED(status):
            return status
        self.status = status
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return status

    def alive(self):
        return self.status is None and self.reap(os.WNOHANG) is None

    def wait(self, timeout):
        """Waits for the end; False if it did not come within `timeout` seconds (then the
        run is killed)."""
        end = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > end:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.reap()
                return False
            time.sleep(0.01)
        return True

    def stop_and_kill(self, temporaries):
        """SIGSTOP, then the temporary files on disk, then SIGKILL. Returns the temporary
        files at the kill, or None when the run had ended before the stop."""
        try:
            os.kill(self.proc.pid, signal.SIGSTOP)
        except ProcessLookupError:
            pass
        status = self.reap(os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            return None  # it ended first: reaped, its status kept
        found = temporaries(self.d)
        os.kill(self.proc.pid, signal.SIGKILL)
        self.reap()
        return found

    def stdout(self):
        return open(self.out_path, encoding="utf-8", errors="replace").read()

    def stderr(self):
        return open(self.err_path, encoding="utf-8", errors="replace").read()

    def code(self):
        return self.proc.returncode

    def seconds(self):
        return time.monotonic() - self.started


def first_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1][:300] if lines else "(nothing on stderr)"


def describe_difference(want, got, path=""):
    """Where two results differ first, in a few words."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(want) | set(got), key=str):
            if want.get(k) != got.get(k):
                return describe_difference(want.get(k), got.get(k), f"{path}.{k}")
        return path
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got)):
            if a != b:
                return describe_difference(a, b, f"{path}[{i}]")
    w, g = json.dumps(want, default=str)[:160], json.dumps(got, default=str)[:160]
    return f"{path}: want {w}, got {g}"


class Tally:
    def __init__(self, cmd):
        self.name = cmd.name
        self.size = cmd.size
        self.trials = 0
        self.kills = 0
        self.aimed = 0
        self.in_write = 0
        self.finished_before_kill = 0
        self.equal = 0
        self.refused = 0
        self.refusals = {}
        self.wrong = 0
        self.wrongs = []
        self.crashed = 0
        self.crashes = []
        self.hung = 0
        self.leftovers = 0
        self.leftover_names = []
        self.seconds_reference = 0.0
        self.seconds_checkpointed = 0.0
        # Why the command could not be tried at all (its reference run failed), or None.
        self.error = None

    def as_json(self):
        return dict(self.__dict__)


def run_command(cmd, binary, kills, aimed, rng, work, verbose):
    t = Tally(cmd)
    env = dict(os.environ)
    env[WISDOM_OFF] = "1"
    env.update(cmd.env)
    say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if verbose else (lambda *a: None)

    def fresh(tag):
        d = os.path.join(work, f"{cmd.name}-{tag}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def finished_result(run, d):
        """The result of a run that ended, or raises with why there is none."""
        return cmd.result(d, run.stdout())

    # 1. The uninterrupted reference, and the checkpointed command uninterrupted (its time
    # is the span the random instants are drawn from; its result must equal the reference).
    d = fresh("reference")
    ref = Run(binary, cmd.reference, d, env, "ref")
    ref.wait(3600)
    if ref.code() != 0:
        t.error = (f"the reference run failed ({ref.code()}): {first_line(ref.stderr())}")
        return t
    t.seconds_reference = round(ref.seconds(), 3)
    want = getattr(cmd, "reference_result", cmd.result)(d, ref.stdout())
    d = fresh("checkpointed")
    whole = Run(binary, cmd.first, d, env, "whole")
    whole.wait(3600)
    span = whole.seconds()
    t.seconds_checkpointed = round(span, 3)
    if whole.code() != 0 or finished_result(whole, d) != want:
        got = finished_result(whole, d) if whole.code() == 0 else first_line(whole.stderr())
        t.error = ("the checkpointed run, not killed, differs from the reference: "
                   f"{describe_difference(want, got)}")
        return t
    say(f"{cmd.name}: reference {t.seconds_reference} s, checkpointed {t.seconds_checkpointed} s")

    # 2. Trials until `kills` kills have landed.
    trial = 0
    while t.kills < kills:
        trial += 1
        t.trials += 1
        d = fresh(f"trial")
        in_a_row = rng.choice([1, 1, 2, 2, 3, 4][:MOST_IN_A_ROW + 2])
        args = cmd.first
        ended = None  # the run that ended by itself, if one did
        notes = []
        for k in range(in_a_row):
            before = cmd.temporaries(d)  # left by the kills before: not this run's writes
            run = Run(binary, args, d, env, f"{trial}-{k}")
            aim = rng.random() < aimed
            if aim:
                # Wait for a write to start, then a random instant inside its life.
                deadline = time.monotonic() + HANG_FACTOR * span
                while (run.alive() and not written_since(before, cmd.temporaries(d))
                       and time.monotonic() < deadline):
                    time.sleep(0.001)
                time.sleep(rng.uniform(0, AIM_WINDOW))
            else:
                time.sleep(rng.uniform(0, span))
            at_kill = run.stop_and_kill(cmd.temporaries) if run.status is None else None
            if at_kill is None:
                t.finished_before_kill += 1
                ended = run
                break
            found = written_since(before, at_kill)
            t.kills += 1
            t.aimed += aim
            t.in_write += bool(found)
            notes.append(("aimed " if aim else "") + (f"kill in write {found}" if found else "kill"))
            args = cmd.again
        if ended is None:
            ended = Run(binary, cmd.again, d, env, f"{trial}-end")
            if not ended.wait(HANG_FACTOR * span + 10):
                t.hung += 1
                say(f"{cmd.name} trial {trial}: HUNG after {notes}")
                continue
        code = ended.code()
        if code == 0:
            got = finished_result(ended, d)
            if got == want:
                t.equal += 1
                verdict = "equal"
            else:
                t.wrong += 1
                why = describe_difference(want, got)
                t.wrongs.append({"trial": trial, "kills": notes, "difference": why})
                verdict = f"WRONG: {why}"
                keep = os.path.join(work, f"{cmd.name}-wrong-{trial}")
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(d, keep)
        elif code in (1, 2):
            # A one-line refusal (exit 2: before any work; 1: a run that failed).
            t.refused += 1
            msg = first_line(ended.stderr())
            t.refusals[msg] = t.refusals.get(msg, 0) + 1
            verdict = f"refused: {msg}"
        else:
            t.crashed += 1
            t.crashes.append({"trial": trial, "kills": notes, "status": code,
                              "stderr": first_line(ended.stderr())})
            verdict = f"CRASHED ({code}): {first_line(ended.stderr())}"
        left = sorted(cmd.temporaries(d))
        if left:
            t.leftovers += 1
            t.leftover_names.extend(left)
            verdict += f"; left behind {left}"
        say(f"{cmd.name} trial {trial}: {notes} -> {verdict}")
    return t


def provenance():
    """When, where and from what (as scripts/lib.sh's provenance line): date (UTC), CPU model,
    cores, rustc version, git revision."""
    def out(*cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "unknown"
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpu": cpu,
            "cores": os.cpu_count(), "rustc": out("rustc", "--version"),
            "git": out("git", "rev-parse", "--short", "HEAD") or "unknown"}


def main():
    p = argparse.ArgumentParser(
        description="Kill each long-running nimsquare command with SIGKILL at random instants, "
        "run it again, and compare its final result with an uninterrupted run.",
        epilog="Ends with a line `kills-summary {JSON}`; exit status 1 if any result was "
        "wrong or lost, a resume refused, a run crashed or hung, or a temporary file left.")
    p.add_argument("--kills", type=int, default=None,
                   help="kills that must land per command (default 100; 3 with --smoke)")
    p.add_argument("--commands", default=None,
                   help="comma-separated commands to run (default: all; --list names them)")
    p.add_argument("--smoke", action="store_true",
                   help="small sizes and 3 kills a command: a check that the script works")
    p.add_argument("--bin", default="target/release/nimsquare", help="the binary to run")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    p.add_argument("--aimed", type=float, default=0.3,
                   help="share of kills aimed at a checkpoint's write (default 0.3)")
    p.add_argument("--json", default=None, help="also write the summary JSON to this file")
    p.add_argument("--work", default=None,
                   help="folder for the runs (default: a new one under the system's temp folder, "
                   "removed at the end unless something went wrong)")
    p.add_argument("--list", action="store_true", help="print the commands and exit")
    p.add_argument("--verbose", action="store_true", help="a line per trial on stderr")
    a = p.parse_args()
    all_cmds = commands(a.smoke)
    if a.list:
        for c in all_cmds:
            print(f"{c.name}: {c.size}")
            print("  reference: nimsquare " + " ".join(c.reference))
            print("  first:     nimsquare " + " ".join(c.first))
            print("  again:     nimsquare " + " ".join(c.again))
            for k, v in c.env.items():
                print(f"  env:       {k}={v}")
        return 0
    names = [c.name for c in all_cmds]
    wanted = a.commands.split(",") if a.commands else names
    unknown = [w for w in wanted if w not in names]
    if unknown:
        p.error(f"unknown command {unknown[0]}; the commands are {', '.join(names)}")
    if not os.access(a.bin, os.X_OK):
        p.error(f"{a.bin} is not an executable; run `cargo build --release` or pass --bin")
    kills = a.kills if a.kills is not None else (3 if a.smoke else 100)
    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    binary = os.path.abspath(a.bin)
    work = a.work or tempfile.mkdtemp(prefix="nimsquare-kills-")
    os.makedirs(work, exist_ok=True)
    tallies = []
    for c in all_cmds:
        if c.name not in wanted:
            continue
        t = run_command(c, binary, kills, a.aimed, rng, work, a.verbose)
        tallies.append(t)
        if t.error:
            print(f"{t.name}: not tried: {t.error}", flush=True)
            continue
        print(f"{t.name}: {t.kills} kills ({t.in_write} in a write or rename, {t.aimed} aimed), "
              f"{t.trials} trials: {t.equal} equal, {t.refused} refused, {t.wrong} wrong, "
              f"{t.crashed} crashed, {t.hung} hung, {t.leftovers} with temporaries left; "
              f"{t.finished_before_kill} runs ended before their kill; uninterrupted "
              f"{t.seconds_reference} s (checkpointed {t.seconds_checkpointed} s)", flush=True)
        for msg, n in t.refusals.items():
            print(f"  refused {n}x: {msg}")
        for w in t.wrongs:
            print(f"  wrong: {w}")
        for c2 in t.crashes:
            print(f"  crashed: {c2}")
    bad = sum(t.wrong + t.crashed + t.hung + t.refused + t.leftovers + bool(t.error)
              for t in tallies)
    summary = {"provenance": provenance(), "command": " ".join(sys.argv),
               "seed": seed, "binary": binary, "smoke": a.smoke, "kills_per_command": kills,
               "aimed": a.aimed, "ok": bad == 0, "commands": [t.as_json() for t in tallies]}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    print("kills-summary " + json.dumps(summary, separators=(",", ":")))
    if bad == 0 and not a.work:
        shutil.rmtree(work, ignore_errors=True)
    elif bad:
        print(f"kills.py: the runs that went wrong are kept in {work}", file=sys.stderr)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
