"""Collecting facts: the only code in torchdoctor that touches the machine.

`collect()` learns the target interpreter first (cheap), then runs every other collector
concurrently, each with a time limit. A collector that fails or runs out of time leaves its
section Unknown with the reason; it never takes the report down. No collector creates a CUDA
context in this process: torch is imported only in a child process of the target interpreter.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from typing import TYPE_CHECKING

from . import _probe_launch

if TYPE_CHECKING:
    from .model import Facts

# The model is imported on first use (PEP 562), so that launching the torch probe, which lives
# in this package, does not wait for the model's dataclasses to be built.
_REEXPORTED = ("Facts", "FactsError", "Meta", "PythonFacts", "Unknown", "known")


def __getattr__(name: str) -> Any:
    if name in _REEXPORTED:
        from . import model

        return getattr(model, name)
    raise AttributeError(name)


@dataclass(frozen=True)
class Target:
    """What is being diagnosed: an interpreter and the environment it runs in."""

    python: str = sys.executable
    is_current: bool = True
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    probe_timeout: float = _probe_launch.DEFAULT_TIMEOUT  # the child `import torch`; a hang is a finding, not a wait
    quick: bool = False  # skip the import; facts from metadata, version.py, NVML and ctypes
    home: str = field(default_factory=lambda: os.path.expanduser("~"))


# section -> (module, function). Each function is `collect(target, python_facts) -> section`.
COLLECTORS: dict[str, tuple[str, str]] = {
    "packages": ("packages", "collect"),
    "torch": ("torch_probe", "collect"),
    "nvidia": ("nvidia", "collect"),
    "toolchain": ("toolchain", "collect"),
    "host": ("host", "collect"),
    "extensions": ("extensions", "collect"),
    "nv_cache": ("nv_cache", "collect"),
    "env": ("env_vars", "collect"),
    "network": ("network", "collect"),
}

# Wall-clock limits per collector (the torch probe has its own, Target.probe_timeout).
LIMITS = {"nvidia": 20.0, "toolchain": 15.0, "extensions": 10.0, "network": 5.0}
DEFAULT_LIMIT = 10.0


def _collector(section: str) -> Callable[..., Any]:
    module, func = COLLECTORS[section]
    return getattr(importlib.import_module(f"{__name__}.{module}"), func)


def _run_with_limit(func: Callable[[], Any], limit: float) -> tuple[Any, float]:
    """Run in a daemon thread so a wedged driver call cannot keep torchdoctor waiting or alive."""
    from .model import Unknown
    box: dict[str, Any] = {}
    start = time.perf_counter()

    def work() -> None:
        try:
            box["value"] = func()
        except Exception as exc:  # a collector bug or an unexpected machine: record, go on
            box["value"] = Unknown(f"collector failed: {type(exc).__name__}: {exc}")

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(limit)
    elapsed = time.perf_counter() - start
    if thread.is_alive():
        return Unknown(f"timed out after {limit:g}s"), elapsed
    return box["value"], elapsed


def collect(target: Target | None = None, sections: tuple[str, ...] | None = None) -> "Facts":
    from . import python_env
    from .model import Facts, FactsError, Meta, known

    target = target or Target()
    durations: dict[str, float] = {}
    python, durations["python"] = _run_with_limit(lambda: python_env.collect(target), target.probe_timeout)
    if not known(python):
        # Without the interpreter nothing else about it can be known; callers validate --python
        # before this, so this is a broken interpreter found mid-way.
        raise FactsError(f"could not examine the interpreter {target.python}: {python.reason}")

    wanted = [s for s in COLLECTORS if sections is None or s in sections]
    results: dict[str, Any] = {}
    threads = []
    for section in wanted:
        limit = target.probe_timeout + 5 if section == "torch" else LIMITS.get(section, DEFAULT_LIMIT)

        def job(section: str = section, limit: float = limit) -> None:
            results[section], durations[section] = _run_with_limit(
                lambda: _collector(section)(target, python), limit)

        t = threading.Thread(target=job, daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join()

    meta = Meta(
        torchdoctor_version=_version(),
        source="live",
        collected_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        quick=target.quick,
        durations_s={k: round(v, 3) for k, v in durations.items()},
    )
    return Facts(python=python, meta=meta, **results)


def _version() -> str:
    from .. import __version__

    return __version__
