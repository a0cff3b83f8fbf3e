"""A drop-in for llm-guard's ``InvisibleText`` input scanner (llm-guard was archived in
July 2026), computed by airlock.

``InvisibleText().scan(prompt)`` returns ``(sanitized_prompt, is_valid, risk_score)``
with llm-guard's conventions:

* a prompt of ASCII only: ``(prompt, True, -1.0)`` (nothing to look at);
* something removed: ``(sanitized, False, 1.0)``;
* nothing removed: ``(prompt, True, 0.0)``.

What is removed differs by design (docs/PYTHON.md, "llm-guard's InvisibleText"):
llm-guard drops every code point of the general categories Cf, Co and Cn, which
breaks emoji ZWJ sequences, drops soft hyphens and the Arabic letter mark, removes
private-use glyphs (icon fonts) and any code point newer than the interpreter's
Unicode tables. airlock drops the dangerous invisibles of its table (tags, zero-width
characters, bidi controls, invisible operators, orphan variation selectors; strict
profile: every Default_Ignorable_Code_Point that does not spell an emoji sequence or
shape a script), deterministically across Python versions.
"""

from __future__ import annotations

from typing import Any

import airlock


class InvisibleText:
    """Scans a prompt for invisible text and removes it.

    ``profile`` is airlock's: ``"strict"`` (the default here, the closest to
    llm-guard's intent: every invisible that does not spell something) or
    ``"reference"`` (sanitize.mjs's table).
    """

    def __init__(self, *, profile: str = "strict") -> None:
        if profile not in ("reference", "strict"):
            raise ValueError(f"airlock: unknown profile {profile!r} (reference or strict)")
        self._profile = profile

    @staticmethod
    def contains_unicode(text: str) -> bool:
        """Whether ``text`` has a code point above U+007F (llm-guard's shortcut)."""
        return not text.isascii()

    def scan(self, prompt: str) -> tuple[str, bool, float]:
        """``(sanitized_prompt, is_valid, risk_score)``, as llm-guard's scanner returns."""
        if not isinstance(prompt, str):
            raise TypeError(f"airlock: prompt must be a str, not {type(prompt).__name__}")
        if prompt.isascii():
            return prompt, True, -1.0
        sanitized = airlock.strip_dangerous_invisibles(prompt, profile=self._profile)
        if sanitized != prompt:
            return sanitized, False, 1.0
        return prompt, True, 0.0

    def scan_batch(self, prompts: Any) -> Any:
        """The sanitized prompts of a batch (a list or an Arrow string array), as
        :func:`airlock.strip_batch` returns them."""
        return airlock.strip_batch(prompts, profile=self._profile)


__all__ = ["InvisibleText"]
