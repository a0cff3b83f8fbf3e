"""Every conformance vector file (tests/conformance/*.jsonl) through the installed
wheel, every vector kind: `ok`, `throws` (the exact message), `throwsType`, with the
lines' `profile` and `gate`.

node-vectors.jsonl holds JavaScript values (numbers, null, arrays where a string is
expected). Python's API takes a str where the reference takes a string and raises
TypeError for anything else, except where it keeps the reference's behaviour (the
assert_* functions reject a non-str with the reference's message, and
strip_dangerous_invisibles walks a list as the reference walks an iterable). The
lines where Python differs are listed in JS_ONLY with the reason; for each the test
asserts what Python does instead (TypeError), so the list cannot go stale silently.
"""

from __future__ import annotations

import json
import pathlib

import pytest

import airlock

VECTORS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "conformance"
FILES = sorted(p.name for p in VECTORS.glob("*.jsonl"))


def load(name: str) -> list[tuple[int, dict]]:
    out = []
    with open(VECTORS / name, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                out.append((n, json.loads(line)))
    return out


def call(v: dict):
    fn, args = v["fn"], v["args"]
    profile = v.get("profile", "reference")
    if fn == "sanitizeProse":
        text, opts = args
        return airlock.sanitize_prose(text, field=opts["field"], max_bytes=opts["maxBytes"], profile=profile)
    if fn == "truncateToBytes":
        return airlock.truncate_to_bytes(*args)._asdict()
    if fn == "stripDangerousInvisibles":
        return airlock.strip_dangerous_invisibles(args[0], profile=profile)
    if fn == "assertNoControlChars":
        return airlock.assert_no_control_chars(args[0], args[1], profile=profile)
    if fn == "assertSafeDescription":
        return airlock.assert_safe_description(args[0], profile=profile)
    if fn == "assertSafeGlob":
        return airlock.assert_safe_glob(args[0], profile=profile)
    if fn == "assertNoWrapperForgery":
        return airlock.assert_no_wrapper_forgery(args[0], args[1])
    if fn == "assertMachineToken":
        value, opts = args
        return airlock.assert_machine_token(value, field=opts["field"], pattern=getattr(airlock, opts["pattern"]))
    if fn == "deriveFenceToken":
        return airlock.derive_fence_token(args[0])
    if fn == "parseGlobsFrontmatter":
        r = airlock.parse_globs_frontmatter(args[0])
        # The meta keys in the reference's insertion order, too.
        return {"globs": r.globs, "meta": r.meta, "_order": list(r.meta)}
    if fn == "frontmatterRefusalReason":
        return airlock.frontmatter_refusal_reason(args[0], gate=v.get("gate", "3.20"))
    if fn == "isDangerousInvisibleCodePoint":
        return airlock.is_dangerous_invisible_code_point(args[0])
    raise AssertionError(f"a vector kind this test does not know: {fn}")


def expected_ok(v: dict):
    ok = v["ok"]
    if v["fn"] == "parseGlobsFrontmatter":
        return {**ok, "_order": list(ok["meta"])}
    return ok


# node-vectors.jsonl lines (by line number) where Python's API differs from JavaScript's,
# with why; each raises TypeError in Python.
def js_only_reason(v: dict) -> str | None:
    fn, args = v["fn"], v["args"]
    first = args[0] if args else None
    if fn in ("sanitizeProse", "truncateToBytes", "deriveFenceToken", "assertNoWrapperForgery",
              "frontmatterRefusalReason") and not isinstance(first, str):
        return "String(value) coercion of a non-string: Python takes a str"
    if fn == "truncateToBytes" and (isinstance(args[1], bool) or not isinstance(args[1], int)):
        return "Number(maxBytes) coercion: Python takes an int"
    if fn == "isDangerousInvisibleCodePoint" and (isinstance(first, bool) or not isinstance(first, int)):
        return "Number(cp) coercion: Python takes an int"
    if fn == "stripDangerousInvisibles" and isinstance(first, dict):
        return "a plain object is not iterable in JavaScript; Python rejects a mapping the same way"
    return None


CASES = [(name, n, v) for name in FILES for n, v in load(name)]


def test_every_file_is_read():
    assert set(FILES) >= {
        "reference-vectors.jsonl",
        "edge-vectors.jsonl",
        "gate-3.21-vectors.jsonl",
        "node-vectors.jsonl",
        "strict-vectors.jsonl",
    }
    assert len(CASES) > 16_000


@pytest.mark.parametrize("name", FILES)
def test_vectors(name: str):
    failures = []
    differ = []
    for n, v in load(name):
        reason = js_only_reason(v) if name == "node-vectors.jsonl" else None
        try:
            got = call(v)
        except (airlock.RejectionError, airlock.FrontmatterError) as err:
            if "throws" in v and str(err) == v["throws"]:
                continue
            failures.append((n, v, f"raised {type(err).__name__}: {err}"))
            continue
        except TypeError as err:
            if "throwsType" in v and v["throwsType"] == "TypeError":
                continue
            if reason is not None:
                differ.append((n, reason))
                continue
            failures.append((n, v, f"TypeError: {err}"))
            continue
        if "ok" in v and got == expected_ok(v):
            continue
        failures.append((n, v, f"returned {got!r}"))
    for n, v, what in failures[:20]:
        print(f"{name}:{n}: {json.dumps(v, ensure_ascii=True)[:300]}\n    {what}")
    if differ:
        print(f"{name}: {len(differ)} JavaScript-only lines raise TypeError in Python (docs/PYTHON.md)")
    assert not failures, f"{len(failures)} of the vectors in {name} fail"
    if name == "node-vectors.jsonl":
        # Pinned: a new JavaScript-only line must be looked at, not absorbed.
        assert len(differ) == EXPECTED_JS_ONLY, differ


EXPECTED_JS_ONLY = 33
