"""The command line: one Typer app, one module per command group; data goes to stdout, errors to
stderr as one line.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 bad usage or an internal error.
Imports of the heavy parts (collectors, checks) happen inside the commands, so that commands
that never look at the machine stay fast.

    common    UsageError, the console, write(), run(): failures -> one line and a status
    env       torchdoctor env, and the facts plumbing (target, PendingFacts, load_facts)
    explain   torchdoctor explain, kb list/show/search
    check     torchdoctor check, rule, ci
    inspect   torchdoctor inspect, ckpt convert
    model     torchdoctor model
    runtime   torchdoctor dist, run
"""

from __future__ import annotations

from typing import List, Optional

import typer

from . import check, env, explain, inspect, model, runtime
from .common import CONTEXT, UsageError, write

__all__ = ["UsageError", "app", "main"]

app = typer.Typer(
    name="torchdoctor",
    help="Diagnostics for PyTorch: the machine, the traceback, the training code.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=CONTEXT,
)


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        write(f"torchdoctor {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the version and exit."),
) -> None:
    """Diagnostics for PyTorch: the machine, the traceback, the training code."""


for _group in (env, explain, check, inspect, model, runtime):  # the order of `torchdoctor --help`
    _group.register(app)


def main(argv: Optional[List[str]] = None) -> None:
    """Entry point of `torchdoctor` and `python -m torchdoctor`."""
    from .common import run

    run(typer.main.get_command(app), argv)
