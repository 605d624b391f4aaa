"""The `model` command group. `register(app)` adds its commands to the one Typer app; imports stay
light here (no torch at import), the work is imported inside the commands."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
