"""The `inspect` command group. `register(app)` adds its commands to the one Typer app; imports stay
light here (no torch at import), the work is imported inside the commands.

    torchdoctor inspect FILE [--tree] [--tensors] [--against OTHER|pkg.module:factory] [--format json]
    torchdoctor ckpt convert IN OUT [--strip-prefix module.] [--to-cpu] [--legacy-format] [--safetensors] [--trust]
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer


class InspectFormat(str, Enum):
    text = "text"
    json = "json"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"


ckpt_app = typer.Typer(help="Repair checkpoints: strip prefixes, move to CPU, change the format.", no_args_is_help=True,
                       context_settings={"help_option_names": ["-h", "--help"]})


def inspect_command(
    path: Path = typer.Argument(..., metavar="FILE", help="A checkpoint: .pt .pth .bin .ckpt .tar (zip or legacy) or .safetensors."),
    tree: bool = typer.Option(False, "--tree", help="Print the nested structure."),
    tensors: bool = typer.Option(False, "--tensors", help="Read the tensor bytes (memory-mapped): NaN/Inf counts, min/max/mean."),
    against: str | None = typer.Option(None, "--against", help="Compare keys and shapes with another checkpoint, or with pkg.module:factory (imports torch, runs the factory)."),
    format: InspectFormat = typer.Option(InspectFormat.text, "--format", "-f", help="text, or json (the torchdoctor.inspect/v1 schema)."),
    fail_on: FailOn = typer.Option(FailOn.error, "--fail-on", help="Exit 1 when a finding is at least this severe."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show passing checks and every tensor."),
) -> None:
    """Inspect a checkpoint without running its code: format, structure, devices, safety, prefixes."""
    from .common import UsageError
    from ..inspect import document, inspect_path, run_ckpt_rules
    from ..runner import exit_code

    try:
        report = inspect_path(path, tensors=tensors, tree=tree)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a checkpoint file") from None
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    except Exception as exc:  # noqa: BLE001 - an archive the reader chokes on (encrypted entries): one line
        raise UsageError(f"{path}: cannot be read as a checkpoint ({type(exc).__name__}: {exc})") from None
    if against is not None:
        from ..inspect.against import compare, reference_shapes

        try:
            ref, name = reference_shapes(against)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - the user's factory raised: their code, reported in one line
            raise UsageError(f"--against {against}: {type(exc).__name__}: {exc}") from None
        if report.readable:
            report.against = compare(report, ref, name)
    findings = run_ckpt_rules(report)
    if format is InspectFormat.json:
        import json

        sys.stdout.write(json.dumps(document(report, findings), indent=2) + "\n")
    else:
        from .common import stdout_console
        from ..inspect.render import render_text

        render_text(report, findings, stdout_console(), verbose=verbose, tree=tree, tensors=tensors)
    raise typer.Exit(exit_code(findings, fail_on.value))


@ckpt_app.command("convert")
def convert_command(
    src: Path = typer.Argument(..., metavar="IN", help="The checkpoint to read (never modified)."),
    dst: Path = typer.Argument(..., metavar="OUT", help="Where to write the converted checkpoint."),
    strip_prefix: str | None = typer.Option(None, "--strip-prefix", help="Remove this prefix from state-dict keys (e.g. 'module.')."),
    to_cpu: bool = typer.Option(False, "--to-cpu", help="Save every tensor on the CPU (no cuda:N device tags)."),
    legacy_format: bool = typer.Option(False, "--legacy-format", help="Write the pre-1.6 format, readable by torch < 1.6."),
    safetensors: bool = typer.Option(False, "--safetensors", help="Write safetensors (tensors only; nested dicts flattened with '.')."),
    trust: bool = typer.Option(False, "--trust", help="Load a file whose pickle needs non-allowlisted globals (runs its code: trusted files only)."),
    force: bool = typer.Option(False, "--force", help="Overwrite OUT if it exists."),
) -> None:
    """Rewrite a checkpoint with the usual fixes applied, then verify it tensor for tensor."""
    from .common import UsageError
    from ..inspect.convert import ConvertError, convert

    if legacy_format and safetensors:
        raise UsageError("--legacy-format and --safetensors are two output formats; give one")
    try:
        lines = convert(src, dst, strip_prefix=strip_prefix, to_cpu=to_cpu, legacy_format=legacy_format,
                        safetensors=safetensors, trust=trust, force=force)
    except ConvertError as exc:
        if exc.usage:
            raise UsageError(str(exc)) from None
        sys.stderr.write(f"torchdoctor: ckpt convert: {exc}\n")
        raise typer.Exit(1) from None
    for line in lines:
        sys.stdout.write(line + "\n")


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
    app.command("inspect")(inspect_command)
    app.add_typer(ckpt_app, name="ckpt")
