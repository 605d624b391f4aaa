"""The `model` command group. `register(app)` adds its commands to the one Typer app; imports stay
light here (no torch at import), the work is imported inside the commands."""

from __future__ import annotations

import sys
from enum import Enum

import typer


class ModelFormat(str, Enum):
    text = "text"
    json = "json"


class ModelFailOn(str, Enum):
    error = "error"
    warning = "warning"


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""

    @app.command("model")
    def model_command(
        factory: str | None = typer.Argument(None, metavar="FACTORY", help="pkg.module:factory or path/to/file.py:factory; called with no arguments, returns the nn.Module."),
        input: str | None = typer.Option(None, "--input", "-i", help="Example input, e.g. \"randn(8,3,224,224)\"; a tuple is the positional arguments, a dict the keyword arguments. Grammar: randn/rand/zeros/ones/randint/full/tensor, dtype=, device=."),
        device: str | None = typer.Option(None, "--device", help="Move the model and the input here (default: cpu; the model stays where the factory put it)."),
        loss: str | None = typer.Option(None, "--loss", help="pkg.module:fn called as fn(outputs) -> scalar tensor (default: the sum of the mean of every output)."),
        dataset_size: int | None = typer.Option(None, "--dataset-size", min=1, help="Samples in the training set: finds the batch sizes whose last batch is 1."),
        world_size: int = typer.Option(1, "--world-size", min=1, help="Ranks sharing the dataset (DistributedSampler)."),
        drop_last: bool = typer.Option(False, "--drop-last", help="The DataLoader drops the short last batch."),
        timeout: float = typer.Option(120.0, "--timeout", min=1.0, help="Seconds the whole probe (build, step, exports) may take."),
        export: bool = typer.Option(True, "--export/--no-export", help="Try jit.trace, jit.script, torch.export (and ONNX when installed)."),
        format: ModelFormat = typer.Option(ModelFormat.text, "--format", "-f", help="text, or json (the torchdoctor.model/v1 schema)."),  # noqa: B008
        fail_on: ModelFailOn = typer.Option(ModelFailOn.error, "--fail-on", help="Exit 1 when a finding is at least this severe."),  # noqa: B008
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the evidence of passing checks too."),
        list_rules: bool = typer.Option(False, "--list", help="List the model rules and exit."),
    ) -> None:
        """Run one training step of a model (forward, loss, backward) and report what would break at scale."""
        from .common import UsageError

        if list_rules:
            from ..registry import model_rules

            for r in model_rules():
                sys.stdout.write(f"{r.code}  {r.name:<28} {r.title}\n")
            return
        if factory is None:
            raise UsageError("give the model factory, e.g. torchdoctor model mypkg.models:build --input \"randn(8,3,224,224)\"")
        if input is None:
            raise UsageError("give an example input with --input, e.g. --input \"randn(8,3,224,224)\"")
        if world_size > 1 and dataset_size is None:
            raise UsageError("--world-size needs --dataset-size (the batch arithmetic needs both)")
        from ..runtime.model_spec import SpecError, batch_size, parse_input_spec

        if ":" not in factory or factory.startswith(":") or factory.endswith(":"):
            raise UsageError(f"factory {factory!r} must look like pkg.module:name or path/to/file.py:name")
        if loss is not None and (":" not in loss or loss.startswith(":") or loss.endswith(":")):
            raise UsageError(f"--loss {loss!r} must look like pkg.module:fn or path/to/file.py:fn")
        try:
            spec = parse_input_spec(input)
        except SpecError as exc:
            raise UsageError(f"--input: {exc}") from None
        from ..runtime.model_probe import run_isolated

        from ..progress import status

        with status(f"torchdoctor model: building {factory} and running one training step in a child process",
                    enabled=format is not ModelFormat.json):
            record = run_isolated(factory, spec, loss=loss, device=device, timeout=timeout, export=export)
        if record.get("usage_error"):
            raise UsageError(record["usage_error"])
        if dataset_size is not None:
            record["dataset"] = {"size": dataset_size, "world_size": world_size, "drop_last": drop_last,
                                 "batch_size": batch_size(spec)}
        from ..runner import exit_code
        from ..runtime.model_report import render_json, render_text, run_model_rules

        findings = run_model_rules(record)
        if format is ModelFormat.json:
            sys.stdout.write(render_json(factory, record, findings))
            sys.stdout.flush()
        else:
            from .common import stdout_console

            render_text(factory, record, findings, stdout_console(), verbose=verbose)
        raise typer.Exit(exit_code(findings, fail_on.value))
