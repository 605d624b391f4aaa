"""Launching the child `import torch` — kept tiny so the CLI can start it before loading anything.

Importing torch is the floor of `torchdoctor env` (seconds); everything else torchdoctor does fits
inside that time only if the child starts first. `prestart()` is called by the CLI as its very
first act for a plain `torchdoctor env`; `take()` hands the running child to the torch collector.
"""

from __future__ import annotations

import atexit
import os
import time

from ._run import Started, start

DEFAULT_TIMEOUT = 60.0
_CHILD = os.path.join(os.path.dirname(__file__), "_torch_child.py")
_prestarted: dict[tuple[str, float], tuple[Started, str, float]] = {}


def dump_after(timeout: float) -> float:
    """When the child prints its stacks: shortly before the parent gives up on it."""
    return round(max(0.2, timeout - min(5.0, max(0.5, timeout * 0.1))), 2)


def launch(python: str, timeout: float, environ: dict[str, str]) -> tuple[Started, str, float]:
    """Start the probe child; returns it with its output marker and start time."""
    marker = f"@@torchdoctor-{os.urandom(8).hex()}@@"
    with open(_CHILD, encoding="utf-8") as fh:
        code = fh.read() + f"\nmain({marker!r}, {dump_after(timeout)!r})\n"
    return start([python, "-X", "faulthandler", "-c", code], env=environ), marker, time.perf_counter()


def prestart(python: str, timeout: float = DEFAULT_TIMEOUT) -> None:
    key = (python, float(timeout))
    if key not in _prestarted:
        started = launch(python, float(timeout), dict(os.environ))
        _prestarted[key] = started
        # A usage error found later must not leave the child importing torch behind us.
        atexit.register(started[0].kill)


def take(python: str, timeout: float) -> tuple[Started, str, float] | None:
    return _prestarted.pop((python, float(timeout)), None)
