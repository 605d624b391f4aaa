"""A spinner while slow work runs (the model probe's child import, a check over thousands of
files, the env probe): on stderr, and only when both stdout and stderr are terminals, so a pipe,
a redirect, JSON or CI logs get no control characters at all."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import IO, Iterator


def interactive(stream: IO[str] | None = None) -> bool:
    stream = stream if stream is not None else sys.stderr
    try:
        return bool(stream.isatty() and sys.stdout.isatty()) and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


@contextmanager
def status(message: str, *, enabled: bool = True, stream: IO[str] | None = None) -> Iterator[None]:
    """`with status("importing the model's code"):` shows a spinner with the message, then erases it."""
    stream = stream if stream is not None else sys.stderr
    if not enabled or not interactive(stream):
        yield
        return
    from rich.console import Console

    with Console(file=stream, force_terminal=True, highlight=False).status(message, spinner="dots"):
        yield
