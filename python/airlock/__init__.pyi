# Types of `airlock`, the Node drop-in's API in Python's spelling (docs/PYTHON.md).
import re
from collections.abc import Iterable
from typing import Any, Literal, NamedTuple, Optional, Union

VERSION: str
UNICODE_VERSION: str
INSIGHT_MAX_BYTES: Literal[2000]
EVIDENCE_ITEM_MAX_BYTES: Literal[2000]
EVIDENCE_MAX_BYTES: Literal[5000]
TITLE_MAX_BYTES: Literal[256]
DESCRIPTION_MAX_BYTES: int
UNTRUSTED_BEGIN: str
UNTRUSTED_END: str
WRAPPER_FORGERY_LITERALS: tuple[str, ...]
HOST_CLASS_RE: re.Pattern[str]
LEARNING_KEY_RE: re.Pattern[str]
EXPIRES_AT_RE: re.Pattern[str]
PROVENANCE_TOKEN_RE: re.Pattern[str]

Profile = Literal["reference", "strict"]
Gate = Literal["3.20", "3.21", "3.20.0", "3.21.0"]
Errors = Literal["null", "raise"]

class RejectionError(ValueError):
    """A record airlock rejects; ``str(err)`` is the reference's message. From a batch
    in ``errors="raise"`` mode, ``row`` is the rejected row's index."""

    row: int

class FrontmatterError(ValueError):
    """``Malformed frontmatter line: "…"``, the reference parser's throw."""

class TruncateResult(NamedTuple):
    text: str
    truncated: bool
    bytes: int

class ParsedFrontmatter(NamedTuple):
    globs: Optional[list[str]]
    meta: dict[str, Union[str, bool, float]]

class SanitizeBatch(NamedTuple):
    text: Any
    reason: Any

class TruncateBatch(NamedTuple):
    text: Any
    truncated: Any
    bytes: Any

def sanitize_prose(text: str, *, field: str, max_bytes: int, profile: Profile = ...) -> str: ...
def truncate_to_bytes(text: str, max_bytes: int) -> TruncateResult: ...
def strip_dangerous_invisibles(text: Union[str, Iterable[str]], *, profile: Profile = ...) -> str: ...
def is_dangerous_invisible_code_point(cp: int) -> bool: ...
def derive_fence_token(payload: str) -> str: ...
def assert_machine_token(value: object, *, field: str, pattern: re.Pattern[str]) -> str: ...
def assert_no_control_chars(value: object, field: str, *, profile: Profile = ...) -> str: ...
def assert_safe_description(value: object, *, profile: Profile = ...) -> str: ...
def assert_safe_glob(glob: object, *, profile: Profile = ...) -> str: ...
def assert_no_wrapper_forgery(text: str, field: str) -> None: ...
def parse_globs_frontmatter(document: str) -> ParsedFrontmatter: ...
def frontmatter_refusal_reason(document: str, *, gate: Gate = ...) -> Optional[str]: ...

# `texts`: a list of str/None, or an Arrow string/large_string/string_view array or
# stream (pyarrow, Polars, anything with __arrow_c_array__ / __arrow_c_stream__).
# Results are pyarrow arrays when pyarrow is installed, else objects with
# __arrow_c_array__.
def sanitize_batch(
    texts: Any,
    *,
    field: str,
    max_bytes: int,
    profile: Profile = ...,
    errors: Errors = ...,
    threads: Optional[int] = ...,
) -> SanitizeBatch: ...
def strip_batch(texts: Any, *, profile: Profile = ..., threads: Optional[int] = ...) -> Any: ...
def truncate_batch(texts: Any, max_bytes: int, *, threads: Optional[int] = ...) -> TruncateBatch: ...
