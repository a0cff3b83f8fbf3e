"""The Python bench (scripts/bench-python.sh runs it; reported, not gated).

1. Cost per call: airlock's one-shot functions and InvisibleText.scan against
   llm-guard's algorithm in pure Python (tests/pure_python.py), interleaved.
2. Batch throughput: sanitize_batch / strip_batch over a pyarrow array against core's
   loop over the same rows (examples/core_throughput.rs), one thread and all cores.
3. Spark rows/s: mapInArrow and the Arrow UDFs against a plain Python UDF running
   llm-guard's algorithm, at local[1] and local[2], in one run.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import struct
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import pyarrow as pa  # noqa: E402

import airlock  # noqa: E402
from airlock.compat.llm_guard import InvisibleText  # noqa: E402

import mixed_text  # noqa: E402
import pure_python  # noqa: E402

FIELD, CAP = "insight", 2000


def timed(fn):
    """(wall seconds, this thread's CPU seconds) of one call of ``fn``. The CPU time
    is what other engineers' builds on a shared machine do not inflate."""
    w, c = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - w, time.thread_time() - c


def best_of(fn, repeats):
    runs = [timed(fn) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def per_call(rows, rounds):
    scanner = InvisibleText()
    cases = {
        "airlock.sanitize_prose": lambda r: [safe_sanitize(t) for t in r],
        "airlock.strip_dangerous_invisibles": lambda r: [airlock.strip_dangerous_invisibles(t) for t in r],
        "InvisibleText.scan (airlock)": lambda r: [scanner.scan(t) for t in r],
        "llm-guard algorithm, pure Python": lambda r: [pure_python.scan(t) for t in r],
        "llm-guard InvisibleText.scan, as written": lambda r: [pure_python.scan_as_written(t) for t in r],
    }
    wall = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(rounds):  # interleaved rounds: every case once a round
        for k, f in cases.items():
            w, c = timed(lambda: f(rows))
            wall[k].append(w)
            cpu[k].append(c)
    print(f"\n## cost per call ({len(rows)} mixed rows, mean {sum(map(len, rows)) / len(rows):.0f} chars; "
          f"median of {rounds} interleaved rounds)")
    base_w = statistics.median(wall["llm-guard algorithm, pure Python"])
    base_c = statistics.median(cpu["llm-guard algorithm, pure Python"])
    print(f"  {'':42s} {'wall ns/call':>12s} {'CPU ns/call':>12s}   speed-up over the pure-Python baseline (CPU)")
    for k in cases:
        w, c = statistics.median(wall[k]), statistics.median(cpu[k])
        print(f"  {k:42s} {w / len(rows) * 1e9:12.0f} {c / len(rows) * 1e9:12.0f}   {base_c / c:6.1f}x (wall {base_w / w:.1f}x)")


def safe_sanitize(t):
    try:
        return airlock.sanitize_prose(t, field=FIELD, max_bytes=CAP)
    except airlock.RejectionError:
        return None


def batch_vs_core(rows, core_bin, rounds):
    arr = pa.array(rows)
    total = sum(len(r.encode()) for r in rows)
    with tempfile.NamedTemporaryFile(delete=False) as f:
        for r in rows:
            b = r.encode()
            f.write(struct.pack("<I", len(b)) + b)
        path = f.name
    ncpu = os.cpu_count() or 1
    print(f"\n## batch throughput ({len(rows)} rows, {total / 1e6:.1f} MB; median of {rounds} interleaved rounds, "
          "each the best of 3 warm repeats)")
    print(f"  {'':36s} {'wall MB/s':>10s} {'CPU MB/s':>10s}   vs core (CPU; wall)")
    for op in ("sanitize", "strip"):
        if op == "sanitize":
            one_fn = lambda: airlock.sanitize_batch(arr, field=FIELD, max_bytes=CAP, threads=1)  # noqa: E731
            all_fn = lambda: airlock.sanitize_batch(arr, field=FIELD, max_bytes=CAP)  # noqa: E731
        else:
            one_fn = lambda: airlock.strip_batch(arr, threads=1)  # noqa: E731
            all_fn = lambda: airlock.strip_batch(arr)  # noqa: E731
        core_w, core_c, one_w, one_c, all_w = [], [], [], [], []
        for _ in range(rounds):
            out = subprocess.run([core_bin, path, FIELD, str(CAP), "3", op], capture_output=True, text=True, check=True)
            bps, _rps, cpu_bps = map(float, out.stdout.split())
            core_w.append(bps)
            core_c.append(cpu_bps)
            w, c = best_of(one_fn, 3)  # threads=1 runs on this thread: its CPU time is the batch's
            one_w.append(total / w)
            one_c.append(total / c)
            all_w.append(total / best_of(all_fn, 3)[0])
        cw, cc = statistics.median(core_w), statistics.median(core_c)
        ow, oc = statistics.median(one_w), statistics.median(one_c)
        aw = statistics.median(all_w)
        print(f"  {op:8s} core loop, 1 thread           {cw / 1e6:10.0f} {cc / 1e6:10.0f}")
        print(f"  {op:8s} {op + '_batch, threads=1':27s} {ow / 1e6:10.0f} {oc / 1e6:10.0f}   "
              f"{oc / cc:5.2f}x; {ow / cw:5.2f}x (target >= 0.5x)")
        print(f"  {op:8s} {op + f'_batch, threads={ncpu}':27s} {aw / 1e6:10.0f} {'':>10s}   {'':5s}  {aw / cw:5.2f}x")
    os.unlink(path)


def spark_bench(rows, rounds):
    from pyspark import cloudpickle
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import udf
    from pyspark.sql.types import StringType

    from airlock import spark as aspark

    # The workers cannot import the bench's helper module by name: ship it by value.
    cloudpickle.register_pickle_by_value(pure_python)
    print(f"\n## Spark rows/s ({len(rows)} rows; median of {rounds} interleaved rounds; write.format('noop'))")
    table = pa.table({"id": pa.array(range(len(rows)), pa.int64()), "text": pa.array(rows)})
    os.environ["PYSPARK_PYTHON"] = sys.executable
    results = {}
    for master in ("local[1]", "local[2]"):
        s = (
            SparkSession.builder.master(master).appName("airlock-bench")
            .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false").config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.driver.memory", "2g").getOrCreate()
        )
        parts = int(master[6:-1]) * 2
        df = s.createDataFrame(table).repartition(parts).cache()
        df.count()
        plain = udf(pure_python.strip, StringType(), useArrow=False)
        cases = {
            "mapInArrow sanitize_batch (airlock)": lambda: aspark.sanitize_dataframe(df, "text", field=FIELD, max_bytes=CAP),
            "arrow_udf sanitize_batch (airlock)": lambda: df.select(aspark.sanitize_arrow_udf(field=FIELD, max_bytes=CAP)("text")),
            "Python UDF useArrow=True (airlock)": lambda: df.select(aspark.sanitize_udf(field=FIELD, max_bytes=CAP)("text")),
            "plain Python UDF, llm-guard algorithm": lambda: df.select(plain("text")),
        }
        # One untimed pass each: Python workers start and the cache is read once.
        for make in cases.values():
            make().write.format("noop").mode("overwrite").save()
        times = {k: [] for k in cases}
        for _ in range(rounds):
            for k, make in cases.items():
                t = time.perf_counter()
                make().write.format("noop").mode("overwrite").save()
                times[k].append(time.perf_counter() - t)
        results[master] = {k: statistics.median(v) for k, v in times.items()}
        df.unpersist()
        s.stop()
    for master, times in results.items():
        base = times["plain Python UDF, llm-guard algorithm"]
        for k, v in times.items():
            print(f"  {master} {k:40s} {len(rows) / v:10.0f} rows/s   {base / v:5.1f}x the plain Python UDF (target >= 20x)")


def load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--core-bin", required=True)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--spark-rows", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-spark", action="store_true")
    a = ap.parse_args()
    rows = mixed_text.rows(a.rows)
    print(f"airlock {airlock.VERSION} from {airlock.__file__}; {os.cpu_count()} CPUs; at start: {load()}")
    per_call(rows[:20_000], a.rounds)
    batch_vs_core(rows, a.core_bin, a.rounds)
    if not a.no_spark:
        spark_bench(mixed_text.rows(a.spark_rows, seed=31), a.rounds)
    print(f"\nat the end: {load()}")


if __name__ == "__main__":
    main()
