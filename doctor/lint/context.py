"""Run-wide settings a rule may consult (set by the CLI before checking; plain data)."""

from __future__ import annotations

# The torch version the checked code targets ("2.6"); None when unknown. Rules whose advice
# depends on it (torch.load's weights_only default flipped in 2.6) read it through target().
TARGET_TORCH: str | None = None


def target() -> tuple[int, int] | None:
    if not TARGET_TORCH:
        return None
    parts = TARGET_TORCH.split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return None
