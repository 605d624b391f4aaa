"""The terminal report: grouped by area, one line per check, evidence and fix under problems."""

from __future__ import annotations

import textwrap

from typing import Any

from rich.console import Console
from rich.text import Text

from ..facts.model import Facts
from ..model import Finding, Status
from ..registry import AREAS
from .steps import _print_wrapped, print_steps  # noqa: F401 - print_steps is this module's API too
from .summary import closing_line, headline

SYMBOL = {
    Status.OK: ("✓", "green"),
    Status.WARNING: ("!", "yellow"),
    Status.ERROR: ("✗", "bold red"),
    Status.SKIP: ("-", "dim"),
    Status.CRASH: ("☠", "magenta"),
}


def _value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(v) for v in value) if value else "(none)"
    if isinstance(value, dict):
        return "; ".join(f"{k}={_value(v)}" for k, v in value.items()) if value else "(none)"
    if value is None:
        return "none"
    return str(value)


def render_env(facts: Facts, findings: list[Finding], console: Console, *, verbose: bool = False,
               interpreter: str | None = None) -> None:
    line = headline(facts)
    if interpreter:  # --python: say whose environment this is
        line = f"{interpreter} · {line}" if line else interpreter
    if facts.meta.source not in ("live", "example"):
        # A paste may state no torch and no Python (a companion package's version alone): the source is the line.
        line = f"{line} (from {facts.meta.source} facts)".lstrip()
    _print_wrapped(console, Text("torchdoctor env" + (" · " if line else ""), style="bold"), line, 2)

    by_area: dict[str, list[Finding]] = {}
    for f in findings:
        by_area.setdefault(f.area, []).append(f)
    for area in [a for a in AREAS if a in by_area] + [a for a in by_area if a not in AREAS]:
        console.print()
        console.print(Text(area, style="bold underline"))
        for f in by_area[area]:
            _finding(f, console, verbose)

    console.print()
    print_closing_line(findings, console)


def print_closing_line(findings: list[Finding], console: Console) -> None:
    """`1 error, 2 warnings` in the colour of the worst finding (green: no problems)."""
    last = closing_line(findings)
    worst = max((f.status.rank for f in findings), default=0)
    style = "bold red" if worst >= Status.ERROR.rank else ("bold yellow" if last != "No problems found." else "bold green")
    for line in textwrap.wrap(last, width=max(40, console.width), break_long_words=False, break_on_hyphens=False):
        console.print(Text(line, style=style), soft_wrap=True)


def _finding(f: Finding, console: Console, verbose: bool) -> None:
    symbol, style = SYMBOL[f.status]
    head = Text("  ")
    head.append(symbol, style=style)
    head.append(f" {f.code} ", style="bold" if f.status.rank >= Status.WARNING.rank else "")
    _print_wrapped(console, head, f.message, 10, "dim" if f.status is Status.SKIP else "")
    problem = f.status in (Status.WARNING, Status.ERROR, Status.CRASH)
    if (problem or verbose) and f.evidence and f.status is not Status.SKIP:
        for key, value in f.evidence.items():
            if key == "traceback" and not verbose:
                continue
            _print_wrapped(console, Text(f"        {key}: ", style="dim"), _value(value), 10)
    if f.fix and problem:
        _print_wrapped(console, Text("        fix: ", style="bold cyan"), f.fix.summary, 10)
        print_steps(console, f.fix.steps(), 10)
    if problem and f.related:
        _print_wrapped(console, Text("        more: ", style="dim"),
                       ", ".join(f"torchdoctor kb show {r}" for r in f.related), 14, "dim")
