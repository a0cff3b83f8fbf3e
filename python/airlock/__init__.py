"""airlock for Python: containment of untrusted text on its way into a model's prompt.

The functions are the Node drop-in's (``ffi/node/index.js``, itself a drop-in for the
reference module ``sanitize.mjs``) in Python's spelling: ``sanitizeProse`` is
:func:`sanitize_prose`, options are keyword arguments (``field=``, ``max_bytes=``,
``profile=``, ``gate=``), results carry the same fields, and a rejection raises
:class:`RejectionError` (a :class:`ValueError`) whose text is the reference's exact
message. The work is done by airlock-core, compiled into ``airlock._airlock``.

Batches (:func:`sanitize_batch`, :func:`strip_batch`, :func:`truncate_batch`) take a
list of ``str`` or an Arrow string array (pyarrow, Polars, anything with
``__arrow_c_array__`` or ``__arrow_c_stream__``), read it in place, release the GIL,
use every core and return Arrow arrays. See docs/PYTHON.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, Optional, Union

from . import _airlock
from ._airlock import FrontmatterError, RejectionError

__all__ = [
    "DESCRIPTION_MAX_BYTES",
    "EVIDENCE_ITEM_MAX_BYTES",
    "EVIDENCE_MAX_BYTES",
    "EXPIRES_AT_RE",
    "HOST_CLASS_RE",
    "INSIGHT_MAX_BYTES",
    "LEARNING_KEY_RE",
    "PROVENANCE_TOKEN_RE",
    "TITLE_MAX_BYTES",
    "UNICODE_VERSION",
    "UNTRUSTED_BEGIN",
    "UNTRUSTED_END",
    "VERSION",
    "WRAPPER_FORGERY_LITERALS",
    "FrontmatterError",
    "ParsedFrontmatter",
    "RejectionError",
    "SanitizeBatch",
    "TruncateBatch",
    "TruncateResult",
    "assert_machine_token",
    "assert_no_control_chars",
    "assert_no_wrapper_forgery",
    "assert_safe_description",
    "assert_safe_glob",
    "derive_fence_token",
    "frontmatter_refusal_reason",
    "is_dangerous_invisible_code_point",
    "parse_globs_frontmatter",
    "sanitize_batch",
    "sanitize_prose",
    "strip_batch",
    "strip_dangerous_invisibles",
    "truncate_batch",
    "truncate_to_bytes",
]

VERSION: str = _airlock.VERSION
"""This library's version (airlock-core's)."""
UNICODE_VERSION: str = _airlock.UNICODE_VERSION
"""The Unicode version of the Extended_Pictographic table."""

INSIGHT_MAX_BYTES = 2_000
"""Hard cap on the rendered ``insight`` region."""
EVIDENCE_ITEM_MAX_BYTES = 2_000
"""Hard cap on a single rendered evidence bullet."""
EVIDENCE_MAX_BYTES = 5_000
"""Hard cap on the whole rendered ``## Evidence`` region."""
TITLE_MAX_BYTES = 256
"""Hard cap on the H1 title."""
DESCRIPTION_MAX_BYTES: int = _airlock.DESCRIPTION_MAX_BYTES
"""Largest accepted frontmatter ``description:`` (a reject bound, not a cut)."""
UNTRUSTED_BEGIN: str = _airlock.UNTRUSTED_BEGIN
"""Opening delimiter of the untrusted-content region."""
UNTRUSTED_END: str = _airlock.UNTRUSTED_END
"""Closing delimiter of the untrusted-content region."""
WRAPPER_FORGERY_LITERALS: tuple[str, ...] = tuple(_airlock.WRAPPER_FORGERY_LITERALS)
"""The delivery-wrapper literals whose presence rejects prose, in checking order."""

# The reference's patterns, with its sources (they appear in its messages). The four
# are checked in Rust, with JavaScript's `$` (end of string only); another pattern is
# the caller's own and is tested with `re.search`.
HOST_CLASS_RE: re.Pattern[str] = re.compile(r"^[A-Za-z0-9._-]+$")
"""``host-class:`` — ``^[A-Za-z0-9._-]+$``"""
LEARNING_KEY_RE: re.Pattern[str] = re.compile(r"^[a-z0-9/-]+$")
"""``learning-key:`` — ``^[a-z0-9/-]+$``"""
EXPIRES_AT_RE: re.Pattern[str] = re.compile(r"^\d{4}-\d{2}-\d{2}$")
"""``expires-at:`` (YYYY-MM-DD) — ``^\\d{4}-\\d{2}-\\d{2}$``"""
PROVENANCE_TOKEN_RE: re.Pattern[str] = re.compile(r"^[A-Za-z0-9._:-]+$")
"""``learning-id`` / ``source-session`` — ``^[A-Za-z0-9._:-]+$``"""

_SHAPES = {
    id(p): p.pattern for p in (HOST_CLASS_RE, LEARNING_KEY_RE, EXPIRES_AT_RE, PROVENANCE_TOKEN_RE)
}
assert sorted(_SHAPES.values()) == sorted(_airlock.SHAPE_PATTERNS)

_REJECTION_PREFIX = "reconcile-sanitize: rejecting record — "


class TruncateResult(NamedTuple):
    """The result of :func:`truncate_to_bytes`."""

    text: str
    """The longest prefix of whole code points within the cap."""
    truncated: bool
    """Whether anything was cut."""
    bytes: int
    """The ORIGINAL UTF-8 length."""


class ParsedFrontmatter(NamedTuple):
    """The result of :func:`parse_globs_frontmatter`."""

    globs: Optional[list[str]]
    """``None`` when there is no ``globs``/``paths`` key (or no frontmatter block)."""
    meta: dict[str, Union[str, bool, float]]
    """Kept keys in the reference's insertion order."""


class SanitizeBatch(NamedTuple):
    """The result of :func:`sanitize_batch`: two Arrow arrays of the batch's length."""

    text: Any
    """The sanitized rows; null where the input was null or the row was rejected."""
    reason: Any
    """The rejection message of each rejected row, null elsewhere."""


class TruncateBatch(NamedTuple):
    """The result of :func:`truncate_batch`: three Arrow arrays of the batch's length."""

    text: Any
    truncated: Any
    bytes: Any


def _js_string(value: str) -> str:
    """``value`` as JavaScript holds it: two halves of a pair are one code point."""
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _well_formed(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_LONE = re.compile("[\ud800-\udfff]")


def _preview(value: Any) -> str:
    """``JSON.stringify`` of the first 120 UTF-16 units of ``value``, as the reference
    previews a rejected value (a non-str as the JSON it would be)."""
    if isinstance(value, str):
        units = value.encode("utf-16-le", "surrogatepass")[:240]
        head = units.decode("utf-16-le", "surrogatepass")
        text = json.dumps(head, ensure_ascii=False)
        return _LONE.sub(lambda m: "\\u%04x" % ord(m.group()), text)
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _rejection(field: Any, why: str, value: Any) -> RejectionError:
    return RejectionError(f"{_REJECTION_PREFIX}{field} {why} (got {_preview(value)})")


def _restore(original: str, result: str) -> str:
    """Puts the lone surrogates of ``original`` back in place of the U+FFFD the UTF-8
    path read them as (no operation drops, moves or adds U+FFFD), then joins halves
    brought together into one code point, as JavaScript's string would."""
    if "\ufffd" not in result:
        return result
    units = re.findall("\ufffd|[\ud800-\udfff]", original)
    it = iter(units)
    return _js_string(re.sub("\ufffd", lambda m: next(it, m.group()), result))


def _restore_message(message: str, value: Any) -> str:
    if isinstance(value, str) and not _well_formed(value):
        built = f" (got {_preview(_lossy(value))})"
        if message.endswith(built):
            return f"{message[: len(message) - len(built)]} (got {_preview(value)})"
    return message


def _lossy(value: str) -> str:
    """``value`` with each lone surrogate read as U+FFFD (the UTF-8 path's view)."""
    return _LONE.sub("\ufffd", _js_string(value))


def _check(call: Any, value: Any, *args: Any) -> None:
    try:
        call(value, *args)
    except RejectionError as err:
        if isinstance(value, str) and not _well_formed(value):
            raise RejectionError(_restore_message(str(err), value)) from None
        raise


def _max_bytes(max_bytes: Any) -> int:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise TypeError(f"airlock: max_bytes must be an int, not {type(max_bytes).__name__}")
    return max_bytes


def _text(value: Any, what: str = "text") -> str:
    if not isinstance(value, str):
        raise TypeError(f"airlock: {what} must be a str, not {type(value).__name__}")
    return value


# --- prose -------------------------------------------------------------------------


def sanitize_prose(text: str, *, field: str, max_bytes: int, profile: str = "reference") -> str:
    """``sanitizeProse(text, {field, maxBytes, profile})``.

    Strips dangerous invisibles, orphan variation selectors and controls (but TAB and
    LF), rejects a delivery-wrapper forgery, redacts the envelope's markers and cuts
    to ``max_bytes`` UTF-8 bytes on a code-point boundary, appending the reference's
    truncation note. ``profile="strict"`` applies docs/PROFILE-STRICT.md.

    Raises :class:`RejectionError` with the reference's message on a forgery,
    :class:`ValueError` for a negative ``max_bytes`` or an unknown profile, and
    :class:`TypeError` for a non-str ``text``.
    """
    cap = _max_bytes(max_bytes)
    if cap < 0:
        raise ValueError("airlock: max_bytes must be a non-negative int")
    return _airlock.sanitize_prose(_text(text), field, cap, profile)


def truncate_to_bytes(text: str, max_bytes: int) -> TruncateResult:
    """``truncateToBytes(text, maxBytes)``: the longest whole-code-point prefix of at
    most ``max_bytes`` UTF-8 bytes, whether it was cut, and the original length. A
    negative cap cuts everything, as the reference's comparison does."""
    cap = _max_bytes(max_bytes)
    text = _text(text)
    if _well_formed(text):
        prefix, truncated, total = _airlock.truncate_len(text, max(cap, 0))
        if not truncated and total <= cap:
            return TruncateResult(text, False, total)
        return TruncateResult(text.encode("utf-8")[:prefix].decode("utf-8"), True, total)
    # A lone surrogate counts three bytes (its U+FFFD), as Buffer.byteLength counts it.
    js = _js_string(text)
    total = len(js.encode("utf-8", "surrogatepass"))
    if total <= cap:
        return TruncateResult(text, False, total)
    used = 0
    end = 0
    for ch in js:
        width = len(ch.encode("utf-8", "surrogatepass"))
        if used + width > cap:
            break
        used += width
        end += 1
    return TruncateResult(js[:end], True, total)


def strip_dangerous_invisibles(text: Union[str, Iterable[str]], *, profile: str = "reference") -> str:
    """``stripDangerousInvisibles(text, {profile})``: drops dangerous invisibles and
    orphan variation selectors; keeps controls.

    Like the reference, it also walks an iterable of strings (each element one
    "character": its first code point decides, the whole element is kept or dropped);
    anything else (a number, ``None``, a mapping) raises :class:`TypeError`.
    """
    if isinstance(text, str):
        if profile == "strict" or _well_formed(text):
            return _airlock.strip_dangerous_invisibles(text, profile)
        return _restore(text, _airlock.strip_dangerous_invisibles(text, profile))
    if profile != "reference":
        raise TypeError("airlock: the strict profile takes a str")
    if isinstance(text, Mapping) or not isinstance(text, Iterable):
        raise TypeError(f"airlock: {type(text).__name__} object is not iterable")
    out: list[str] = []
    prev = ""
    for char in text:
        char = _text(char, "each element")
        cp = ord(char[0]) if char else None
        selector = cp is None or 0xFE00 <= cp <= 0xFE0F
        drop = cp is not None and _airlock.is_dangerous_invisible(cp)
        if not drop and selector:
            # Kept only as U+FE0F after an element holding a pictographic code point.
            drop = not (
                cp == 0xFE0F
                and prev != ""
                and any(not _airlock.is_stripped(0xFE0F, ord(p)) for p in prev)
            )
        if not drop:
            out.append(char)
        prev = char
    return "".join(out)


def is_dangerous_invisible_code_point(cp: int) -> bool:
    """``isDangerousInvisibleCodePoint(cp)``: whether the int ``cp`` is in the
    dangerous-invisible table (False outside 0..0x10FFFF). A non-int raises
    :class:`TypeError` (JavaScript converts it to a number instead)."""
    if isinstance(cp, bool) or not isinstance(cp, int):
        raise TypeError(f"airlock: cp must be an int, not {type(cp).__name__}")
    return 0 <= cp <= 0x10FFFF and _airlock.is_dangerous_invisible(cp)


def derive_fence_token(payload: str) -> str:
    """``deriveFenceToken(payload)``: 8 lower-case hex characters provably absent from
    ``payload`` (64 in the pathological fallback)."""
    return _airlock.derive_fence_token(_text(payload, "payload"))


# --- machine values ------------------------------------------------------------------


def assert_machine_token(value: Any, *, field: str, pattern: re.Pattern[str]) -> str:
    """``assertMachineToken(value, {field, pattern})``: returns ``value`` when it is a
    non-empty str matching ``pattern``; raises :class:`RejectionError` otherwise.

    One of the four exported patterns is checked in Rust exactly as the reference's
    JavaScript RegExp matches; any other pattern is the caller's own, tested with
    ``pattern.search(value)`` (Python's ``re``: its ``$`` also matches before a final
    newline)."""
    if not isinstance(value, str) or value == "":
        raise _rejection(field, "must be a non-empty string", value)
    source = _SHAPES.get(id(pattern))
    if source is None:
        if not pattern.search(value):
            raise _rejection(field, f"must match {pattern.pattern}", value)
        return value
    _check(_airlock.check_machine_token, value, field, source)
    return value


def assert_no_control_chars(value: Any, field: str, *, profile: str = "reference") -> str:
    """``assertNoControlChars(value, field, {profile})``: returns ``value`` when it is a
    str without controls or dangerous invisibles; raises :class:`RejectionError`."""
    if not isinstance(value, str):
        raise _rejection(field, "must be a string", value)
    _check(_airlock.check_no_control, value, field, profile)
    return value


def assert_safe_description(value: Any, *, profile: str = "reference") -> str:
    """``assertSafeDescription(value, {profile})``: returns ``value`` when it is a safe
    one-line description of at most 512 bytes; raises :class:`RejectionError`."""
    if not isinstance(value, str):
        raise _rejection("description", "must be a string", value)
    _check(_airlock.check_safe_description, value, profile)
    return value


def assert_safe_glob(glob: Any, *, profile: str = "reference") -> str:
    """``assertSafeGlob(glob, {profile})``: returns ``glob`` when it cannot break out of
    the renderer's quoting; raises :class:`RejectionError`."""
    if not isinstance(glob, str) or glob == "":
        raise _rejection("globs[]", "must be a non-empty string", glob)
    _check(_airlock.check_safe_glob, glob, profile)
    return glob


def assert_no_wrapper_forgery(text: str, field: str) -> None:
    """``assertNoWrapperForgery(text, field)``: raises :class:`RejectionError` when
    ``text`` contains a delivery-wrapper literal (ASCII-case-insensitively)."""
    _airlock.check_no_forgery(_text(text), field)


# --- frontmatter ---------------------------------------------------------------------


def parse_globs_frontmatter(document: str) -> ParsedFrontmatter:
    """``parseGlobsFrontmatter(document)``: rule-loader.mjs's parser. Raises
    :class:`FrontmatterError` (``Malformed frontmatter line: "…"``) on a malformed
    line and :class:`TypeError` for a non-str."""
    parsed = _airlock.parse_globs_frontmatter(_text(document, "document"))
    return ParsedFrontmatter(parsed["globs"], parsed["meta"])


def frontmatter_refusal_reason(document: str, *, gate: str = "3.20") -> Optional[str]:
    """``frontmatterRefusalReason(document, {gate})``: the writer's structural gate.
    Returns the refusal reason, or ``None`` when the document may be written.
    ``gate`` is ``"3.20"`` (the default) or ``"3.21"`` (a trailing ``.0`` is
    accepted); anything else raises :class:`ValueError`."""
    return _airlock.frontmatter_refusal_reason(_text(document, "document"), str(gate))


# --- batches -------------------------------------------------------------------------


def _arrow(column: Any) -> Any:
    """A pyarrow array when pyarrow is installed, else the column as it is (an object
    with ``__arrow_c_array__``, for Polars, nanoarrow or any PyCapsule consumer)."""
    try:
        import pyarrow as pa
    except ImportError:
        return column
    return pa.array(column)


_ERRORS = ("null", "raise")


def sanitize_batch(
    texts: Any,
    *,
    field: str,
    max_bytes: int,
    profile: str = "reference",
    errors: str = "null",
    threads: Optional[int] = None,
) -> SanitizeBatch:
    """:func:`sanitize_prose` over every row of ``texts``.

    ``texts`` is a list of ``str`` (or ``None``) or an Arrow ``string``,
    ``large_string`` or ``string_view`` array or stream (pyarrow, Polars, anything
    with ``__arrow_c_array__``/``__arrow_c_stream__``), read in place. The GIL is
    released and the rows are spread over ``threads`` threads (default: every core).

    Returns :class:`SanitizeBatch` ``(text, reason)``: a rejected row is null in
    ``text`` and carries its message in ``reason``. With ``errors="raise"`` the first
    rejected row raises :class:`RejectionError` instead (its ``row`` attribute is the
    row's index). A row that is not UTF-8 raises :class:`ValueError` naming it.
    """
    if errors not in _ERRORS:
        raise ValueError(f"airlock: errors must be 'null' or 'raise', not {errors!r}")
    cap = _max_bytes(max_bytes)
    if cap < 0:
        raise ValueError("airlock: max_bytes must be a non-negative int")
    text, reason = _airlock.sanitize_batch(texts, field, cap, profile, errors == "raise", threads)
    return SanitizeBatch(_arrow(text), _arrow(reason))


def strip_batch(texts: Any, *, profile: str = "reference", threads: Optional[int] = None) -> Any:
    """:func:`strip_dangerous_invisibles` over every row of ``texts`` (as for
    :func:`sanitize_batch`); returns the stripped Arrow array."""
    return _arrow(_airlock.strip_batch(texts, profile, threads))


def truncate_batch(texts: Any, max_bytes: int, *, threads: Optional[int] = None) -> TruncateBatch:
    """:func:`truncate_to_bytes` over every row of ``texts`` (as for
    :func:`sanitize_batch`, with a non-negative ``max_bytes``); returns
    :class:`TruncateBatch` ``(text, truncated, bytes)``."""
    cap = _max_bytes(max_bytes)
    if cap < 0:
        raise ValueError("airlock: max_bytes must be a non-negative int")
    text, truncated, nbytes = _airlock.truncate_batch(texts, cap, threads)
    return TruncateBatch(_arrow(text), _arrow(truncated), _arrow(nbytes))
