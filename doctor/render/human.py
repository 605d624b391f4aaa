"""The terminal report: grouped by area, one line per check, evidence and fix under problems."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..facts.model import Facts
from ..model import Finding, Status
from ..registry import AREAS
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


def render_env(facts: Facts, findings: list[Finding], console: Console, *, verbose: bool = False) -> None:
    head = Text("torchdoctor env", style="bold")
    line = headline(facts)
    if line:
        head.append(" · " + line, style="")
    if facts.meta.source not in ("live", "example"):
        head.append(f"  (from {facts.meta.source} facts)", style="dim")
    console.print(head)

    by_area: dict[str, list[Finding]] = {}
    for f in findings:
        by_area.setdefault(f.area, []).append(f)
    for area in [a for a in AREAS if a in by_area] + [a for a in by_area if a not in AREAS]:
        console.print()
        console.print(Text(area, style="bold underline"))
        for f in by_area[area]:
            _finding(f, console, verbose)

    console.print()
    last = closing_line(findings)
    worst = max((f.status.rank for f in findings), default=0)
    style = "bold red" if worst >= Status.ERROR.rank else ("bold yellow" if last != "No problems found." else "bold green")
    console.print(Text(last, style=style))


def _finding(f: Finding, console: Console, verbose: bool) -> None:
    symbol, style = SYMBOL[f.status]
    row = Text("  ")
    row.append(symbol, style=style)
    row.append(f" {f.code} ", style="bold" if f.status.rank >= Status.WARNING.rank else "")
    row.append(f.message, style="dim" if f.status is Status.SKIP else "")
    console.print(row)
    problem = f.status in (Status.WARNING, Status.ERROR, Status.CRASH)
    if (problem or verbose) and f.evidence and f.status is not Status.SKIP:
        for key, value in f.evidence.items():
            if key == "traceback" and not verbose:
                continue
            ev = Text("      ")
            ev.append(f"{key}: ", style="dim")
            ev.append(_value(value))
            console.print(ev)
    if f.fix and problem:
        fix = Text("      fix: ", style="bold cyan")
        fix.append(f.fix.summary)
        console.print(fix)
        for cmd in f.fix.commands:
            console.print(Text("        $ " + cmd, style="cyan"))
        for action in f.fix.actions:
            console.print(Text(f"        (torchdoctor env --fix can {action.kind.replace('-', ' ')}: {action.path})", style="dim"))
    if problem and f.related:
        console.print(Text("      more: " + ", ".join(f"torchdoctor kb show {r}" for r in f.related), style="dim"))
