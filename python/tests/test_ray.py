"""docs/PYTHON.md's Ray Data example, run: map_batches over pyarrow batches, every row
equal to the one-shot result (scripts/test-python.sh --full, when ray installs)."""

from __future__ import annotations

import pytest

import airlock

ray = pytest.importorskip("ray")

import mixed_text  # noqa: E402

ROWS = 20_000


def test_map_batches():
    # Defined here so that Ray pickles it by value (the test module is not importable
    # by name in Ray's workers).
    def clean(batch):  # batch_format="pyarrow": a pyarrow.Table
        out = airlock.sanitize_batch(batch["text"], field="insight", max_bytes=2000, threads=1)
        at = batch.schema.get_field_index("text")
        return batch.set_column(at, "text", out.text).append_column("reason", out.reason)

    texts = mixed_text.rows(ROWS, seed=7)
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    try:
        ds = ray.data.from_items([{"id": i, "text": t} for i, t in enumerate(texts)])
        rows = sorted(ds.map_batches(clean, batch_format="pyarrow").take_all(), key=lambda r: r["id"])
    finally:
        ray.shutdown()
    assert [r["id"] for r in rows] == list(range(ROWS))
    for r, t in zip(rows, texts):
        try:
            want, reason = airlock.sanitize_prose(t, field="insight", max_bytes=2000), None
        except airlock.RejectionError as e:
            want, reason = None, str(e)
        assert (r["text"], r["reason"]) == (want, reason)
