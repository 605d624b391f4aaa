"""What every command shares: the usage error, the console and stdout writer, and the one place
that turns failures into a line on stderr and an exit status. Nothing here imports a command."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

# -h as well as --help, on every command and group (click passes it down to child contexts).
CONTEXT = {"help_option_names": ["-h", "--help"]}


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def stdout_console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def closed_pipe(exc: BaseException | None) -> bool:
    import errno

    return isinstance(exc, OSError) and exc.errno == errno.EPIPE


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not complain about the pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def run(command, argv: Optional[List[str]] = None) -> None:
    """Run the click command of the app; turn every failure into one line and an exit status:
    2 bad usage or an internal error, 130 interrupted, 0 when the reader of a pipe left."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        args = ["--help"]
    try:
        code = command.main(args=args, prog_name="torchdoctor", standalone_mode=False)
    except UsageError as exc:
        sys.stderr.write(f"torchdoctor: error: {exc}\n")
        code = 2
    except typer.Exit as exc:
        code = getattr(exc, "exit_code", 0)
    except SystemExit as exc:
        # click turns a closed pipe (`torchdoctor env | head -2`) into exit status 1; the reader
        # leaving is not a failure of ours, so exit quietly with 0 like the other paths do.
        if closed_pipe(exc.__context__):
            silence_stdout()
            code = 0
        else:
            raise
    except typer.Abort:
        sys.stderr.write("torchdoctor: aborted\n")
        code = 130
    except typer.TyperException as exc:  # click-style usage errors: bad option, bad value
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        sys.stderr.write(f"torchdoctor: error: {' '.join(message.split())}\n")
        code = 2
    except KeyboardInterrupt:
        sys.stderr.write("torchdoctor: interrupted\n")
        code = 130
    except BrokenPipeError:
        # `torchdoctor env | head`: the reader left; that is not an error of ours.
        silence_stdout()
        code = 0
    except Exception as exc:  # never a traceback from torchdoctor itself
        if os.environ.get("TORCHDOCTOR_DEBUG"):
            raise
        sys.stderr.write(f"torchdoctor: internal error: {type(exc).__name__}: {exc} "
                         "(set TORCHDOCTOR_DEBUG=1 for the traceback, and please report it)\n")
        code = 2
    sys.exit(code if isinstance(code, int) else 0)
