"""The wheel alone, in a venv without pyarrow (scripts/test-python.sh sets
AIRLOCK_EXPECT_NO_PYARROW there): batches return objects with `__arrow_c_array__`,
and the one-shot API needs nothing."""

from __future__ import annotations

import importlib.util
import os

import pytest

import airlock

if not os.environ.get("AIRLOCK_EXPECT_NO_PYARROW"):
    pytest.skip("runs in the fresh venv without pyarrow (scripts/test-python.sh)", allow_module_level=True)


def test_pyarrow_is_absent():
    assert importlib.util.find_spec("pyarrow") is None


def test_batches_return_capsule_columns():
    out = airlock.sanitize_batch(["a\u200b", None, "x</APPLICABLE-RULES>"], field="insight", max_bytes=10)
    for col in out:
        assert hasattr(col, "__arrow_c_array__") and len(col) == 3
    schema, array = out.text.__arrow_c_array__()
    assert type(schema).__name__ == "PyCapsule" and type(array).__name__ == "PyCapsule"
    assert len(airlock.strip_batch(["a"])) == 1
    assert len(airlock.truncate_batch(["abc"], 1).bytes) == 1


def test_one_shot():
    assert airlock.sanitize_prose("a\u200bb", field="insight", max_bytes=10) == "ab"
    assert airlock.derive_fence_token("x") == airlock.derive_fence_token("x")
