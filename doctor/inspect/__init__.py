"""Checkpoint reading without executing it: zip and legacy torch.save files walked as pickle opcodes,
safetensors headers, and the things that are not checkpoints at all (LFS pointers, HTML pages).

The API other commands use (`torchdoctor ci --checkpoint FILE`):

    from torchdoctor.inspect import inspect_path, inspect_findings, run_ckpt_rules
    report = inspect_path("model.pth", tensors=False)   # InspectReport (never imports torch)
    findings = run_ckpt_rules(report)                    # list[Finding], TI1xx
    findings = inspect_findings("model.pth")             # both in one call; OSError if unopenable
"""

from __future__ import annotations

import os
from typing import Any

from ..model import Finding
from .pickle_vm import Limits
from .reader import inspect_path
from .report import SCHEMA, InspectReport

__all__ = ["SCHEMA", "InspectReport", "Limits", "document", "inspect_findings", "inspect_path", "run_ckpt_rules"]


def run_ckpt_rules(report: InspectReport, rules: Any = None) -> list[Finding]:
    """Every TI1xx rule over one report; a rule that raises becomes a `crash` finding."""
    from ..registry import ckpt_rules
    from ..runner import run_isolated

    return [run_isolated(rule, report, rule.area) for rule in (ckpt_rules() if rules is None else rules)]


def inspect_findings(path: str | os.PathLike, *, tensors: bool = False) -> list[Finding]:
    """Inspect a checkpoint and run the TI1xx rules: the one call `torchdoctor ci --checkpoint` needs."""
    return run_ckpt_rules(inspect_path(path, tensors=tensors))


def document(report: InspectReport, findings: list[Finding]) -> dict[str, Any]:
    """The `torchdoctor.inspect/v1` JSON document."""
    from .. import __version__
    from ..model import summarize

    return {"schema": SCHEMA, "torchdoctor_version": __version__, "report": report.to_json(),
            "findings": [f.to_json() for f in findings], "summary": summarize(findings)}
