"""airlock.spark on real PySpark (pinned from PyPI) in local mode, with Debian's
openjdk-17-jre-headless: mixed text through mapInArrow, the Arrow-optimized Python UDF
(useArrow=True) and the vectorized arrow_udf, every row equal to the one-shot
result. AIRLOCK_SPARK_ROWS sets the row count (scripts/test-python.sh: 100,000 in the
test command, 1,000,000 with --full)."""

from __future__ import annotations

import os
import sys

import pyarrow as pa
import pytest

import airlock

pyspark = pytest.importorskip("pyspark")

import mixed_text  # noqa: E402

from airlock import spark as aspark  # noqa: E402

ROWS = int(os.environ.get("AIRLOCK_SPARK_ROWS", "100000"))
FIELD, CAP = "insight", 200


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession

    os.chdir(tmp_path_factory.mktemp("spark"))
    # The workers run this interpreter (the venv the wheel is installed in).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("airlock-test")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    yield s
    s.stop()


@pytest.fixture(scope="module")
def data():
    texts = mixed_text.rows(ROWS)
    want = []
    for t in texts:
        try:
            want.append(airlock.sanitize_prose(t, field=FIELD, max_bytes=CAP))
        except airlock.RejectionError:
            want.append(None)
    return texts, want


@pytest.fixture(scope="module")
def df(spark, data, tmp_path_factory):
    import pyarrow.parquet as pq

    texts, _ = data
    table = pa.table({"id": pa.array(range(len(texts)), pa.int64()), "text": pa.array(texts)})
    # Through a Parquet file, not createDataFrame(table): that ships the whole table to
    # the JVM as one task (at 1,000,000 rows, most of this module's time). Cached: the
    # three tests read the partitions once made.
    path = tmp_path_factory.mktemp("rows") / "rows.parquet"
    # Uncompressed: snappy-java picks a musl build of its native library here.
    pq.write_table(table, path, row_group_size=max(1, len(texts) // 8), compression="none")
    frame = spark.read.parquet(str(path)).repartition(8).cache()
    assert frame.count() == len(texts)
    yield frame
    frame.unpersist()


def collected(frame, column):
    t = frame.toArrow().sort_by("id")
    return t.column("id").to_pylist(), t.column(column).to_pylist()


def test_rows_are_mixed(data):
    texts, want = data
    assert len(texts) == ROWS
    assert sum(w is None for w in want) > ROWS // 200  # rejections are in there
    assert sum(w != t for t, w in zip(texts, want) if w is not None) > ROWS // 4


def test_map_in_arrow(df, data):
    texts, want = data
    out = aspark.sanitize_dataframe(df, "text", field=FIELD, max_bytes=CAP)
    t = out.toArrow().sort_by("id")
    assert t.column("id").to_pylist() == list(range(ROWS))
    assert t.column("text").to_pylist() == want
    reasons = t.column("reason").to_pylist()
    assert [r is not None for r in reasons] == [w is None for w in want]
    assert all(r.startswith("reconcile-sanitize: rejecting record — insight") for r in reasons if r)


def test_arrow_optimized_udf(df, data):
    _, want = data
    f = aspark.sanitize_udf(field=FIELD, max_bytes=CAP)
    ids, got = collected(df.select("id", f("text").alias("clean")), "clean")
    assert ids == list(range(ROWS))
    assert got == want


def test_vectorized_arrow_udf(df, data):
    _, want = data
    f = aspark.sanitize_arrow_udf(field=FIELD, max_bytes=CAP)
    ids, got = collected(df.select("id", f("text").alias("clean")), "clean")
    assert ids == list(range(ROWS))
    assert got == want


def test_raise_mode_fails_the_job(spark):
    frame = spark.createDataFrame(pa.table({"id": [0, 1], "text": ["ok", "x</APPLICABLE-RULES>"]}))
    out = aspark.sanitize_dataframe(frame, "text", field=FIELD, max_bytes=CAP, errors="raise")
    with pytest.raises(Exception, match="delivery-wrapper literal"):
        out.collect()
