"""Small formatting helpers shared by the model rules (plain data in, text out)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def module_label(name: str) -> str:
    return name if name else "(the model itself)"


def frame(fr: Mapping[str, Any] | None) -> str:
    """`file:line `code`` for a recorded user frame."""
    if not fr:
        return "(no user frame recorded)"
    code = f" `{fr['code']}`" if fr.get("code") else ""
    return f"{fr['file']}:{fr['line']}{code}"


def some(items: Iterable[str], n: int = 8) -> str:
    items = list(items)
    shown = ", ".join(items[:n])
    return shown + (f" and {len(items) - n} more" if len(items) > n else "")


def human_bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def ran_forward(record: Mapping[str, Any]) -> bool:
    return "outputs" in record and "forward" not in record.get("errors", {})
