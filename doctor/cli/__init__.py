"""The command line: one Typer app, one module per command group; data goes to stdout, errors to
stderr as one line.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 bad usage or an internal error.
A group's module is imported only when one of its commands runs (or `--help` lists them all), and
the heavy parts (collectors, checks) only inside the commands, so that `torchdoctor explain` pays
for neither `check`'s nor `env`'s imports.

    common    UsageError, the console, write(), run(): failures -> one line and a status
    env       torchdoctor env, and the facts plumbing (target, PendingFacts, load_facts)
    explain   torchdoctor explain, kb list/show/search
    check     torchdoctor check, rule, ci
    inspect   torchdoctor inspect, ckpt convert
    model     torchdoctor model
    runtime   torchdoctor dist, run
"""

from __future__ import annotations

import importlib
from typing import List, Optional

import typer
from typer.core import TyperGroup

from .common import CONTEXT, UsageError, write

__all__ = ["COMMANDS", "UsageError", "app", "main"]

# Every command and the module that registers it, in the order of `torchdoctor --help` (commands
# first, then groups of commands, as Typer lists them). tests/test_cli_structure.py checks that
# each module registers exactly its names here.
COMMANDS = {
    "env": "env", "explain": "explain", "check": "check", "rule": "check", "ci": "check",
    "inspect": "inspect", "model": "model", "dist": "runtime", "run": "runtime",
    "kb": "explain", "ckpt": "inspect",
}
# The settings of the root app that Typer passes down to the commands it builds.
_SETTINGS = {"rich_markup_mode": None, "pretty_exceptions_enable": False}


class LazyCommands(TyperGroup):
    """The root group: a command's module is imported and turned into click commands the first
    time the command is looked up."""

    def list_commands(self, ctx) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx, cmd_name: str):
        if cmd_name not in self.commands:
            # An unknown name builds every command, so that a typo still gets its "did you mean".
            for name in [cmd_name] if cmd_name in COMMANDS else COMMANDS:
                self._build(name)
        return self.commands.get(cmd_name)

    def _build(self, name: str) -> None:
        """Turn one command of its module into a click command (Typer builds every command an app
        registers: the module's other commands are left out)."""
        if name in self.commands:
            return
        part = typer.Typer(**_SETTINGS)
        importlib.import_module(f"{__name__}.{COMMANDS[name]}").register(part)
        part.registered_commands = [c for c in part.registered_commands if c.name == name]
        part.registered_groups = [g for g in part.registered_groups if g.name == name]
        self.commands[name] = typer.main.get_group(part).commands[name]


app = typer.Typer(
    name="torchdoctor",
    help="Diagnostics for PyTorch: the machine, the traceback, the training code.",
    cls=LazyCommands,
    no_args_is_help=True,
    add_completion=False,
    context_settings=CONTEXT,
    **_SETTINGS,
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


def main(argv: Optional[List[str]] = None) -> None:
    """Entry point of `torchdoctor` and `python -m torchdoctor`."""
    from .common import run

    run(typer.main.get_command(app), argv)
