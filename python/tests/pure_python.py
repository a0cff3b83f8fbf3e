"""llm-guard's InvisibleText algorithm, written out in plain Python (not its code): the
baseline the compat tests compare with and the bench measures against.

The algorithm: a prompt of ASCII only is returned as valid with score -1; otherwise
every code point whose Unicode general category is Cf, Co or Cn is removed, and the
prompt is invalid (score 1) when anything was removed, valid (score 0) when not.
"""

from __future__ import annotations

import unicodedata

BANNED = frozenset({"Cf", "Co", "Cn"})


def strip(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) not in BANNED)


def scan(prompt: str) -> tuple[str, bool, float]:
    if prompt.isascii():
        return prompt, True, -1.0
    out = strip(prompt)
    if out != prompt:
        return out, False, 1.0
    return prompt, True, 0.0


def scan_as_written(prompt: str) -> tuple[str, bool, float]:
    """The same result, computed the way llm-guard's scanner does it: every banned
    code point met while walking the prompt is removed from the whole prompt with
    ``str.replace`` (one pass over the prompt per banned code point met), and the
    scanner logs a warning listing them (left out here)."""
    if not any(ord(c) > 127 for c in prompt):
        return prompt, True, -1.0
    found = []
    out = prompt
    for c in prompt:
        if unicodedata.category(c) in BANNED:
            found.append(c)
            out = out.replace(c, "")
    if found:
        return out, False, 1.0
    return out, True, 0.0
