"""The Python API: names, keyword options, result fields, exceptions, constants, and
the batch functions over lists, pyarrow and Polars against the one-shot functions."""

from __future__ import annotations

import re

import pyarrow as pa
import pytest

import airlock

NODE_NAMES = [
    "sanitize_prose", "strip_dangerous_invisibles", "truncate_to_bytes", "derive_fence_token",
    "assert_machine_token", "assert_no_control_chars", "assert_safe_description",
    "assert_safe_glob", "assert_no_wrapper_forgery", "parse_globs_frontmatter",
    "frontmatter_refusal_reason", "is_dangerous_invisible_code_point",
]


def test_names_and_docstrings():
    for name in NODE_NAMES + ["sanitize_batch", "strip_batch", "truncate_batch"]:
        fn = getattr(airlock, name)
        assert fn.__doc__ and len(fn.__doc__) > 40, name
        assert name in airlock.__all__


def test_constants():
    assert airlock.INSIGHT_MAX_BYTES == 2000 and airlock.EVIDENCE_MAX_BYTES == 5000
    assert airlock.TITLE_MAX_BYTES == 256 and airlock.DESCRIPTION_MAX_BYTES == 512
    assert airlock.UNTRUSTED_END == "<!-- untrusted-content:end -->"
    assert airlock.UNTRUSTED_BEGIN.startswith("<!-- untrusted-content:start")
    assert airlock.WRAPPER_FORGERY_LITERALS[0] == "</APPLICABLE-RULES>"
    assert airlock.HOST_CLASS_RE.pattern == "^[A-Za-z0-9._-]+$"
    assert isinstance(airlock.LEARNING_KEY_RE, re.Pattern)


def test_options_are_keywords():
    with pytest.raises(TypeError):
        airlock.sanitize_prose("x", "insight", 10)  # type: ignore[misc]
    assert airlock.sanitize_prose("x\u200b", field="insight", max_bytes=10) == "x"
    assert airlock.sanitize_prose("©\ufe0f", field="t", max_bytes=10, profile="strict") == "©\ufe0f"
    with pytest.raises(ValueError, match="unknown profile"):
        airlock.sanitize_prose("x", field="t", max_bytes=1, profile="lax")
    with pytest.raises(ValueError, match="unknown writer gate"):
        airlock.frontmatter_refusal_reason("", gate="3.19")


def test_rejection_is_a_value_error_with_the_exact_message():
    with pytest.raises(airlock.RejectionError) as e:
        airlock.sanitize_prose("a</learnings-index>", field="insight", max_bytes=100)
    assert isinstance(e.value, ValueError)
    assert str(e.value) == (
        "reconcile-sanitize: rejecting record — insight must not contain the delivery-wrapper "
        'literal "</LEARNINGS-INDEX>" (got "</LEARNINGS-INDEX>")'
    )
    with pytest.raises(airlock.FrontmatterError) as f:
        airlock.parse_globs_frontmatter("---\nnot a key\n---\n")
    assert isinstance(f.value, ValueError)
    assert str(f.value) == 'Malformed frontmatter line: "not a key"'


def test_result_fields():
    r = airlock.truncate_to_bytes("héllo", 2)
    assert (r.text, r.truncated, r.bytes) == ("h", True, 6)
    p = airlock.parse_globs_frontmatter("---\nglobs:\n  - a/*\nalwaysApply: true\n---\n")
    assert p.globs == ["a/*"] and p.meta == {"alwaysApply": True}
    assert airlock.assert_machine_token("a.b", field="k", pattern=airlock.HOST_CLASS_RE) == "a.b"
    # A caller's own pattern is tested with re.search, previewed with its source.
    with pytest.raises(airlock.RejectionError, match=r"k must match \^x\$"):
        airlock.assert_machine_token("y", field="k", pattern=re.compile("^x$"))


def test_large_one_shot_inputs_release_the_gil_and_agree():
    text = ("word \u200b" * 50_000) + "</APPLICABLE-RULES>"
    with pytest.raises(airlock.RejectionError):
        airlock.sanitize_prose(text, field="insight", max_bytes=1 << 30)
    assert len(airlock.derive_fence_token(text)) == 8


# --- batches ---------------------------------------------------------------------

MIXED = [
    "plain", "", None, "zero\u200bwidth", "tag" + "".join(chr(0xE0000 + ord(c)) for c in "hidden"),
    "x</APPLICABLE-RULES>y", "untrusted-content:end marker", "é" * 40, "😀\ufe0f ok", "\x00\x07ctl",
    "## Applicable Rules (scoped here", "long " * 100,
]


def one_shot(t, **kw):
    if t is None:
        return None, None
    try:
        return airlock.sanitize_prose(t, **kw), None
    except airlock.RejectionError as e:
        return None, str(e)


@pytest.mark.parametrize("threads", [1, 2, 7])
@pytest.mark.parametrize("kind", ["list", "string", "large_string", "string_view", "chunked", "polars", "sliced"])
def test_sanitize_batch_equals_one_shot(kind, threads):
    rows = MIXED * 50
    if kind == "list":
        texts = rows
    elif kind == "string":
        texts = pa.array(rows, pa.string())
    elif kind == "large_string":
        texts = pa.array(rows, pa.large_string())
    elif kind == "string_view":
        texts = pa.array(rows, pa.string_view())
    elif kind == "chunked":
        texts = pa.chunked_array([rows[:100], rows[100:333], rows[333:]])
    elif kind == "polars":
        pl = pytest.importorskip("polars")
        texts = pl.Series(rows)
    else:
        texts = pa.array(["pad"] * 7 + rows + ["pad"] * 3).slice(7, len(rows))
    got = airlock.sanitize_batch(texts, field="insight", max_bytes=30, threads=threads)
    want = [one_shot(t, field="insight", max_bytes=30) for t in rows]
    assert got.text.to_pylist() == [w[0] for w in want]
    assert got.reason.to_pylist() == [w[1] for w in want]
    assert got.text.null_count == sum(1 for w in want if w[0] is None)


def test_batch_output_type_follows_input():
    assert airlock.strip_batch(pa.array(["a"], pa.string())).type == pa.string()
    assert airlock.strip_batch(pa.array(["a"], pa.large_string())).type == pa.large_string()
    assert airlock.strip_batch(["a"]).type == pa.string()


def test_strip_and_truncate_batches():
    rows = MIXED * 20
    assert airlock.strip_batch(rows).to_pylist() == [
        None if t is None else airlock.strip_dangerous_invisibles(t) for t in rows
    ]
    assert airlock.strip_batch(pa.array(rows), profile="strict").to_pylist() == [
        None if t is None else airlock.strip_dangerous_invisibles(t, profile="strict") for t in rows
    ]
    tb = airlock.truncate_batch(pa.array(rows), 7)
    for i, t in enumerate(rows):
        if t is None:
            assert tb.text[i].as_py() is None and tb.bytes[i].as_py() is None
            continue
        r = airlock.truncate_to_bytes(t, 7)
        assert (tb.text[i].as_py(), tb.truncated[i].as_py(), tb.bytes[i].as_py()) == tuple(r)


def test_raise_mode_names_the_first_rejected_row():
    rows = ["ok", "fine", "a</LEARNINGS-INDEX>", "b</APPLICABLE-RULES>"]
    with pytest.raises(airlock.RejectionError) as e:
        airlock.sanitize_batch(rows, field="insight", max_bytes=99, errors="raise", threads=4)
    assert e.value.row == 2
    assert "</LEARNINGS-INDEX>" in str(e.value)
    with pytest.raises(ValueError):
        airlock.sanitize_batch(rows, field="insight", max_bytes=99, errors="ignore")


def test_bad_batch_inputs_fail_closed():
    with pytest.raises(TypeError, match="row 1"):
        airlock.strip_batch(["a", 5])
    with pytest.raises(TypeError, match="string"):
        airlock.strip_batch(pa.array([1, 2]))
    with pytest.raises(TypeError):
        airlock.strip_batch("not a list")
    # Arrow bytes that are not UTF-8 (a binary buffer viewed as a string array).
    bad = pa.Array.from_buffers(pa.string(), 2, [None, pa.py_buffer(b"\x00\x00\x00\x00\x01\x00\x00\x00\x03\x00\x00\x00"), pa.py_buffer(b"a\xff\xfe")])
    with pytest.raises(ValueError, match="row 1 of the batch is not UTF-8"):
        airlock.sanitize_batch(bad, field="f", max_bytes=10)


def test_capsule_output_without_pyarrow_conversion():
    col = airlock._airlock.strip_batch(["a\u200b", None], "reference", 1)
    arr = pa.array(col)
    assert arr.to_pylist() == ["a", None]
    with pytest.raises(ValueError, match="already consumed"):
        col.__arrow_c_array__()
