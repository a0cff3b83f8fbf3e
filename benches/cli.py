#!/usr/bin/env python3
"""Whole-process CLI bench (issue 17): each command on a large file of mixed prose
against reading the same file (`cat FILE >/dev/null`), interleaved in one run
(read, cmd, read, cmd, ...), medians of CPU time (user + sys of the child: a loaded
machine's waits are not counted) and of wall time, and each run's peak RSS.

    benches/cli.py [--bin target/release/airlock] [--mib 256] [--kind mixed] [--rounds 5]
                   [--baseline OTHER/airlock]

With --baseline, each round also runs the same command with the other binary (read,
cmd, baseline, ...), and each row reports both: a before/after in one run.

Reports only; never fails. Prints one JSON object per command, then a table.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(argv):
    """Wall seconds, CPU seconds and peak RSS (KiB) of one run; stdout to /dev/null."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        err = child.stderr.read().decode(errors="replace")
        child.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"cli.py: {argv} exited {code}: {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=os.path.join(ROOT, "target/release/airlock"))
    p.add_argument("--mib", type=int, default=256)
    p.add_argument("--kind", default="mixed")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--file", default=None)
    p.add_argument("--only", default="", help="comma-separated command names")
    p.add_argument("--baseline", default=None, help="another airlock binary, run interleaved")
    a = p.parse_args()
    path = a.file or f"/tmp/airlock-bench-{a.kind}-{a.mib}.txt"
    if not os.path.exists(path) or os.path.getsize(path) != a.mib << 20:
        gen = os.path.join(ROOT, "target/release/gen")
        if not os.path.exists(gen):
            subprocess.run(["cargo", "build", "--release", "--locked", "-q", "-p",
                            "airlock-benches", "--bin", "gen"], cwd=ROOT, check=True)
        subprocess.run([gen, a.kind, str(a.mib), path], check=True)
    size = os.path.getsize(path)
    read = ["cat", path]
    commands = {
        "strip": [a.bin, "strip", path],
        "sanitize (cap 2000)": [a.bin, "sanitize", path],
        "sanitize (cap 999999999)": [a.bin, "sanitize", "--max-bytes", "999999999", path],
        "sanitize stdin (cap 999999999)": ["sh", "-c", f'exec "$0" sanitize --max-bytes 999999999 < "$1"', a.bin, path],
        "truncate (cap 5000)": [a.bin, "truncate", "--max-bytes", "5000", path],
        "fence": [a.bin, "fence", path],
    }
    only = [s for s in a.only.split(",") if s]
    rows = []
    run(read)  # the page cache holds the file
    for name, argv in commands.items():
        if only and not any(o in name for o in only):
            continue
        reads, cmds, bases = [], [], []
        base_argv = [a.baseline if x == a.bin else x for x in argv] if a.baseline else None
        for _ in range(a.rounds):
            reads.append(run(read))
            cmds.append(run(argv))
            if base_argv:
                bases.append(run(base_argv))
        r_cpu = statistics.median(x[1] for x in reads)
        c_cpu = statistics.median(x[1] for x in cmds)
        r_wall = statistics.median(x[0] for x in reads)
        c_wall = statistics.median(x[0] for x in cmds)
        row = {
            "command": name,
            "bytes": size,
            "read_cpu_s": round(r_cpu, 4),
            "cmd_cpu_s": round(c_cpu, 4),
            "ratio_cpu": round(r_cpu / c_cpu, 3) if c_cpu else None,
            "read_wall_s": round(r_wall, 4),
            "cmd_wall_s": round(c_wall, 4),
            "ratio_wall": round(r_wall / c_wall, 3),
            "cmd_gb_s_wall": round(size / c_wall / 1e9, 2),
            "peak_rss_kib": max(x[2] for x in cmds),
        }
        if bases:
            b_cpu = statistics.median(x[1] for x in bases)
            b_wall = statistics.median(x[0] for x in bases)
            row["baseline_ratio_cpu"] = round(r_cpu / b_cpu, 3) if b_cpu else None
            row["baseline_ratio_wall"] = round(r_wall / b_wall, 3)
            row["baseline_peak_rss_kib"] = max(x[2] for x in bases)
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(f"\n{size >> 20} MiB of {a.kind}, {a.rounds} interleaved rounds, medians")
    print(f"{'command':<32} {'ratio cpu':>9} {'ratio wall':>10} {'GB/s wall':>9} {'peak RSS':>9}"
          + (f" {'baseline cpu':>12} {'wall':>6}" if a.baseline else ""))
    for r in rows:
        line = f"{r['command']:<32} {r['ratio_cpu']:>9} {r['ratio_wall']:>10} {r['cmd_gb_s_wall']:>9} {r['peak_rss_kib'] // 1024:>6} MiB"
        if "baseline_ratio_cpu" in r:
            line += f" {r['baseline_ratio_cpu']:>12} {r['baseline_ratio_wall']:>6}"
        print(line)


if __name__ == "__main__":
    main()
