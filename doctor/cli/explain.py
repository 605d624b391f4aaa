"""`torchdoctor explain` and the `kb` group: from an error text to the knowledge base's answer.
Neither imports torch."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from .common import CONTEXT, UsageError, stdout_console, write


class ExplainFormat(str, Enum):
    text = "text"
    json = "json"



def explain_command(
    text: Optional[str] = typer.Argument(None, help="The error or traceback; '-' reads standard input."),
    file: Optional[Path] = typer.Option(None, "--file", help="Read a log file (streamed; any size)."),
    format: ExplainFormat = typer.Option(ExplainFormat.text, "--format", "-f", help="text, or json (the torchdoctor.explain/v1 schema)."),
    env: bool = typer.Option(False, "--env", help="Also examine this machine and say which causes it confirms or rules out."),
) -> None:
    """Explain an error message, a traceback or a whole log: the cause and the fix."""
    import gc

    from ..kb import explain, load
    from ..kb.parse import parse

    # The modules and the knowledge base live as long as this process: frozen out of the cyclic
    # collector, which would otherwise walk their tens of thousands of objects again at every
    # older-generation collection (about 2 ms of a one-traceback run). The text's own objects are
    # collected as before.
    load()
    gc.freeze()

    if (text is None) == (file is None):
        raise UsageError("give the error text as an argument ('-' for standard input) or --file LOG, one of them")
    if file is not None:
        try:
            handle = open(file, "rb")
        except IsADirectoryError:
            raise UsageError(f"--file {file}: is a directory, not a file") from None
        except OSError as exc:
            raise UsageError(f"--file {file}: {exc.strerror or exc}") from None
        with handle:
            try:
                parsed = parse(handle)
            except OSError as exc:
                raise UsageError(f"--file {file}: cannot read: {exc.strerror or exc}") from None
    elif text == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:  # `torchdoctor explain - <&-`: Python leaves sys.stdin None
            raise UsageError("standard input is closed: pipe the log in, or give --file LOG")
        try:
            parsed = parse(stdin)
        except OSError as exc:
            raise UsageError(f"cannot read standard input: {exc.strerror or exc}") from None
    else:
        parsed = parse(text)
    if parsed.total_lines == 0 or not parsed.total_chars:
        raise UsageError("the text is empty")
    matches = explain(parsed)
    from ..kb.matcher import possible_causes

    # Guesses fill the list up to three: the answer first, then what else is worth a look.
    possible = possible_causes(parsed, matches, limit=3 - len(matches)) if len(matches) < 3 else []

    findings = None
    values = None  # what fills the fixes' <torch-version>, <cuda-tag> ... placeholders
    if env:
        from ..facts import Target, collect
        from ..kb.fill import values_from_facts
        from ..runner import run_env_checks

        facts = collect(Target(quick=True))
        findings = run_env_checks(facts)
        values = values_from_facts(facts)
        matches = weigh_with_env(matches, findings)

    if format is ExplainFormat.json:
        from ..render.explain import render_json

        write(render_json(parsed, matches, findings, possible, values))
    else:
        from ..render.explain import render_text

        console = stdout_console()
        with console:  # written once at the end, not line by line
            render_text(parsed, matches, console, findings, possible, values)
    raise typer.Exit(0 if matches else 1)


def weigh_with_env(matches, findings):
    """A cause this machine's checks confirm gains a little; one they find healthy loses some."""
    from dataclasses import replace

    from ..kb import CONFIDENT
    from ..render.explain import env_notes

    weighed = []
    for m in matches:
        verdicts = {n["verdict"] for n in env_notes(m, findings)}
        if "confirmed" in verdicts:
            m = replace(m, confidence=min(0.99, m.confidence + 0.05))
        elif verdicts == {"healthy"}:
            m = replace(m, confidence=m.confidence - 0.15)
        weighed.append(m)
    weighed.sort(key=lambda m: -m.confidence)
    return [m for m in weighed if m.confidence >= CONFIDENT]


kb_app = typer.Typer(help="Browse the knowledge base.", no_args_is_help=True, context_settings=CONTEXT)


def kb_list() -> None:
    """Every entry, by area."""
    from ..kb import load
    from ..kb.schema import AREAS
    from ..render.explain import render_list

    entries = sorted(load().entries.values(), key=lambda e: (AREAS.index(e.area), e.id))
    render_list(entries, stdout_console())


def kb_show(entry_id: str = typer.Argument(..., metavar="ID", help="An entry id, e.g. cuda-out-of-memory.")) -> None:
    """One entry: what it is, why, and the fixes."""
    import difflib

    from ..kb import load
    from ..render.explain import render_entry

    kb = load()
    key = entry_id.strip().lower()
    if key not in kb.heads:
        close = difflib.get_close_matches(entry_id, list(kb.heads), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else " (see `torchdoctor kb list`)"
        raise UsageError(f"no knowledge entry {entry_id!r}{hint}")
    render_entry(kb.entry(key), stdout_console())


def kb_search(words: List[str] = typer.Argument(..., help="Words from the message or the topic.")) -> None:
    """Entries that mention these words, best first."""
    from rich.text import Text

    from ..kb import load
    from ..kb.browse import search

    found = search(load(), " ".join(words))
    console = stdout_console()
    if not found:
        sys.stderr.write(f"torchdoctor: no knowledge entry mentions {' '.join(words)!r}\n")
        raise typer.Exit(1)
    width = max(len(entry.id) for entry, _ in found)
    for entry, _score in found:
        row = Text(f"{entry.id:<{width}}  ", style="cyan")
        row.append(entry.title)
        console.print(row, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("explain")(explain_command)
    kb_app.command("list")(kb_list)
    kb_app.command("show")(kb_show)
    kb_app.command("search")(kb_search)
    app.add_typer(kb_app, name="kb")
