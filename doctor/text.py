"""Wording helpers every renderer shares: counts with the right noun, and text shortened at a word
boundary with an ellipsis, so no message is cut mid-word."""

from __future__ import annotations

_IRREGULAR = {"process": "processes", "match": "matches", "entry": "entries", "index": "indexes"}


def plural(n: int, noun: str, many: str | None = None) -> str:
    """`plural(1, "key")` -> "1 key"; `plural(3, "key")` -> "3 keys"; `plural(2, "process")` -> "2 processes"."""
    if n == 1:
        return f"{n} {noun}"
    if many is None:
        head, _, last = noun.rpartition(" ")
        many = (head + " " if head else "") + _IRREGULAR.get(last, last + "s")
    return f"{n} {many}"


def shorten(text: str, limit: int) -> str:
    """Whitespace collapsed; cut at the last word boundary within `limit` characters, with "…"."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: max(1, limit - 1)]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
