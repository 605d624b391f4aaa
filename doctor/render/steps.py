"""Wrapped lines and typed fix steps for the terminal: shared by the env report and `explain`,
kept apart from the env renderer so `explain` does not import the facts model to print a fix."""

from __future__ import annotations

import textwrap
from typing import Any

from rich.console import Console
from rich.text import Text


def _print_wrapped(console: Console, prefix: Text, body: str, indent: int, style: str = "") -> None:
    """`prefix` then `body`, wrapped to the console with every further line indented by `indent`,
    so a long path or command stays readable as one block (and no line ends in padding)."""
    width = max(40, console.width - indent)
    first = max(20, console.width - len(prefix.plain))
    lines = textwrap.wrap(body, width=first, break_long_words=False, break_on_hyphens=False) or [""]
    rest = textwrap.wrap(" ".join(lines[1:]), width=width, break_long_words=False, break_on_hyphens=False)
    head = prefix.copy()
    head.append(lines[0], style=style)
    console.print(head, soft_wrap=True)
    for line in rest:
        console.print(Text(" " * indent + line, style=style), soft_wrap=True)


def print_steps(console: Console, steps: list[Any], indent: int) -> None:
    """Each fix step as what it is: `$ command`, Python after `>>>` / `...` (as a REPL shows it),
    prose as a wrapped sentence. Commands and code keep their lines so they paste unchanged."""
    from ..fix_steps import COMMAND, PYTHON

    pad = " " * indent
    for step in steps:
        if step.kind == COMMAND:  # never re-wrapped: it must paste as it is
            for i, line in enumerate(step.text.rstrip().splitlines()):
                console.print(Text(f"{pad}{'$ ' if i == 0 else '  '}{line}".rstrip(), style="cyan"), soft_wrap=True)
        elif step.kind == PYTHON:
            for i, line in enumerate(step.text.rstrip().splitlines()):
                prompt = ">>> " if i == 0 or not line.startswith((" ", "\t")) and not line.startswith(("else", "elif", "except", "finally")) else "... "
                console.print(Text(f"{pad}{prompt}{line}".rstrip(), style="green"), soft_wrap=True)
        elif step.kind == "text":
            for line in step.text.rstrip().splitlines():
                console.print(Text(f"{pad}  {line}".rstrip(), style="cyan"), soft_wrap=True)
        else:
            _print_wrapped(console, Text(f"{pad}- "), step.text.strip().lstrip("#").strip(), indent + 2)
