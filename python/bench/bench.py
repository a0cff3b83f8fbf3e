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


def best(fn, repeats):
    b = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        b = min(b, time.perf_counter() - t)
    return b


def per_call(rows, rounds):
    scanner = InvisibleText()
    cases = {
        "airlock.sanitize_prose": lambda r: [safe_sanitize(t) for t in r],
        "airlock.strip_dangerous_invisibles": lambda r: [airlock.strip_dangerous_invisibles(t) for t in r],
        "InvisibleText.scan (airlock)": lambda r: [scanner.scan(t) for t in r],
        "llm-guard algorithm, pure Python": lambda r: [pure_python.scan(t) for t in r],
    }
    times = {k: float("inf") for k in cases}
    for _ in range(rounds):  # interleaved A/B/C/D rounds, best of each
        for k, f in cases.items():
            t = time.perf_counter()
            f(rows)
            times[k] = min(times[k], time.perf_counter() - t)
    print(f"\n## cost per call ({len(rows)} mixed rows, mean {sum(map(len, rows)) / len(rows):.0f} chars; best of {rounds} interleaved rounds)")
    base = times["llm-guard algorithm, pure Python"]
    for k, v in times.items():
        print(f"  {k:40s} {v / len(rows) * 1e9:9.0f} ns/call   {base / v:6.1f}x the pure-Python baseline")


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
    print(f"\n## batch throughput ({len(rows)} rows, {total / 1e6:.1f} MB; best of {rounds}, interleaved)")
    ncpu = os.cpu_count() or 1
    for op in ("sanitize", "strip"):
        core_best = 0.0
        one_best = 0.0
        all_best = 0.0
        for _ in range(rounds):
            out = subprocess.run([core_bin, path, FIELD, str(CAP), "3", op], capture_output=True, text=True, check=True)
            core_best = max(core_best, float(out.stdout.split()[0]))
            if op == "sanitize":
                one = best(lambda: airlock.sanitize_batch(arr, field=FIELD, max_bytes=CAP, threads=1), 3)
                al = best(lambda: airlock.sanitize_batch(arr, field=FIELD, max_bytes=CAP), 3)
            else:
                one = best(lambda: airlock.strip_batch(arr, threads=1), 3)
                al = best(lambda: airlock.strip_batch(arr), 3)
            one_best = max(one_best, total / one)
            all_best = max(all_best, total / al)
        print(f"  {op:8s} core loop, 1 thread      {core_best / 1e6:8.0f} MB/s")
        print(f"  {op:8s} {op}_batch, threads=1   {one_best / 1e6:8.0f} MB/s   {one_best / core_best:5.2f}x core (target >= 0.5x)")
        print(f"  {op:8s} {op}_batch, threads={ncpu}   {all_best / 1e6:8.0f} MB/s   {all_best / core_best:5.2f}x core")
    os.unlink(path)


def spark_bench(rows, rounds):
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import udf
    from pyspark.sql.types import StringType

    from airlock import spark as aspark

    print(f"\n## Spark rows/s ({len(rows)} rows; best of {rounds} interleaved rounds; write.format('noop'))")
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
        times = {k: float("inf") for k in cases}
        for _ in range(rounds):
            for k, make in cases.items():
                t = time.perf_counter()
                make().write.format("noop").mode("overwrite").save()
                times[k] = min(times[k], time.perf_counter() - t)
        results[master] = times
        df.unpersist()
        s.stop()
    for master, times in results.items():
        base = times["plain Python UDF, llm-guard algorithm"]
        for k, v in times.items():
            print(f"  {master} {k:40s} {len(rows) / v:10.0f} rows/s   {base / v:5.1f}x the plain Python UDF (target >= 20x)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--core-bin", required=True)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--spark-rows", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-spark", action="store_true")
    a = ap.parse_args()
    rows = mixed_text.rows(a.rows)
    print(f"airlock {airlock.VERSION} from {airlock.__file__}; {os.cpu_count()} CPUs")
    per_call(rows[:20_000], a.rounds)
    batch_vs_core(rows, a.core_bin, a.rounds)
    if not a.no_spark:
        spark_bench(mixed_text.rows(a.spark_rows, seed=31), a.rounds)


if __name__ == "__main__":
    main()
