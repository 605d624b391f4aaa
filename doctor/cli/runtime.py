"""The `runtime` command group: `torchdoctor dist` and `torchdoctor run`. `register(app)` adds its
commands to the one Typer app; imports stay light here (no torch at import), the work is imported
inside the commands."""

from __future__ import annotations

import os
import sys
from enum import Enum

import typer


class DistFormat(str, Enum):
    text = "text"
    json = "json"


class Backend(str, Enum):
    gloo = "gloo"
    nccl = "nccl"


_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
          "MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30}


def parse_sizes(text: str) -> tuple[int, ...]:
    import re

    from .common import UsageError

    sizes = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", part)
        if not m or m.group(2).upper() not in _UNITS:
            raise UsageError(f"--sizes: {part.strip()!r} is not a size (examples: 4096, 1K, 16M, 1G)")
        sizes.append(int(m.group(1)) * _UNITS[m.group(2).upper()])
    if not sizes or any(s <= 0 for s in sizes):
        raise UsageError("--sizes: give at least one positive size")
    return tuple(sizes)


def dist_command(
    nproc: int | None = typer.Option(None, "--nproc", min=1, max=64, help="Start this many local ranks (gloo on CPU, NCCL when GPUs are present). Without it, run as one rank under torchrun."),
    backend: Backend | None = typer.Option(None, "--backend", help="Force the backend (default: nccl when CUDA is available, else gloo)."),
    timeout: float = typer.Option(30.0, "--timeout", min=1.0, help="Seconds each phase may take before the ranks that did not arrive are named."),
    sizes: str = typer.Option("1K,1M,16M", "--sizes", help="Buffer sizes for the bandwidth table (comma-separated: 1K,1M,256M)."),
    iters: int = typer.Option(5, "--iters", min=1, help="Timed iterations per size (after 2 warm-up ones)."),
    no_bandwidth: bool = typer.Option(False, "--no-bandwidth", help="Check correctness only; skip the bandwidth table."),
    format: DistFormat = typer.Option(DistFormat.text, "--format", "-f", help="text, or json (the torchdoctor.dist/v1 schema)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show passing findings too."),
) -> None:
    """Distributed sanity test: launch env, versions on every rank, collectives, bandwidth, stalled ranks."""
    from .common import UsageError
    from ..runtime import dist

    opts = dist.Options(backend=backend.value if backend else None, timeout=timeout, sizes=parse_sizes(sizes),
                        iters=iters, bandwidth=not no_bandwidth)
    if nproc is None and not dist.under_launcher():
        raise UsageError("not started by a launcher (RANK and WORLD_SIZE are unset): run "
                         "`torchdoctor dist --nproc 2`, or `torchrun --nproc_per_node 2 -m torchdoctor dist`")
    if nproc is not None:
        if os.environ.get(dist.REPORT_FILE):
            raise UsageError("--nproc inside a rank started by torchdoctor dist")
        worker_args = ["--timeout", str(timeout), "--sizes", sizes, "--iters", str(iters)]
        if backend:
            worker_args += ["--backend", backend.value]
        if no_bandwidth:
            worker_args.append("--no-bandwidth")
        report = dist.spawn(nproc, opts, worker_args)
        code = 1 if report.failed() else 0
    else:
        code, report = dist.rank_main(opts)
        target = os.environ.get(dist.REPORT_FILE)
        if report is None:
            raise typer.Exit(code)
        if target:  # spawn mode: the parent prints
            with open(target + ".tmp", "w") as fh:
                fh.write(dist.render_json(report))
            os.replace(target + ".tmp", target)
            raise typer.Exit(code)
    if format is DistFormat.json:
        sys.stdout.write(dist.render_json(report))
        sys.stdout.flush()
    else:
        from .common import stdout_console

        dist.render_text(report, stdout_console(), verbose=verbose)
    raise typer.Exit(code)


def run_command(
    ctx: typer.Context,
    command: list[str] = typer.Argument(..., metavar="-- COMMAND [ARGS]...", help="The command to supervise, after `--`."),
    tail_lines: int = typer.Option(400, "--tail-lines", min=10, help="Lines of output kept for the explanation."),
    no_hook: bool = typer.Option(False, "--no-hook", help="Do not install torchdoctor's exception hook in the Python processes of a torchrun job."),
) -> None:
    """Run a training command; stream its output unchanged and, if it fails, explain why (per rank under torchrun)."""
    from .common import UsageError
    from ..runtime import supervise

    argv = list(command) + list(ctx.args)
    if not argv:
        raise UsageError("give the command to run after `--`, e.g. torchdoctor run -- python train.py")
    for stream, name in ((sys.stdout, "output"), (sys.stderr, "error")):
        if getattr(stream, "buffer", None) is None:  # `torchdoctor run ... >&-`: Python leaves it None
            raise UsageError(f"standard {name} is closed, so the command's output would be lost; "
                             "redirect it (e.g. >/dev/null) instead of closing it")
    try:
        code = supervise.run(argv, tail_lines=tail_lines, hook=not no_hook)
    except FileNotFoundError:
        raise UsageError(f"{argv[0]}: command not found") from None
    except PermissionError:
        raise UsageError(f"{argv[0]}: permission denied") from None
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
    app.command("dist")(dist_command)
    app.command("run", context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                         "allow_interspersed_args": False})(run_command)
