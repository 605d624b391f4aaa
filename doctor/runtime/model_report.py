"""From a probe record to findings, and from findings to the report (text, or JSON with the
`torchdoctor.model/v1` schema). No torch here: the record is plain data."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..model import Finding, summarize

MODEL_SCHEMA = "torchdoctor.model/v1"
AREA = "model"


def run_model_rules(record: Mapping[str, Any], rules: Any = None) -> list[Finding]:
    """Every model rule over the record; a rule that raises becomes a `crash` finding."""
    from ..registry import model_rules
    from ..runner import run_isolated

    return [run_isolated(rule, record, AREA) for rule in (model_rules() if rules is None else rules)]


def document(target: str, record: Mapping[str, Any], findings: list[Finding]) -> dict[str, Any]:
    from .. import __version__

    return {
        "schema": MODEL_SCHEMA,
        "torchdoctor_version": __version__,
        "target": target,
        "torch": record.get("torch"),
        "model_class": record.get("model_class"),
        "record": dict(record),
        "findings": [f.to_json() for f in findings],
        "summary": summarize(findings),
    }


def render_json(target: str, record: Mapping[str, Any], findings: list[Finding]) -> str:
    return json.dumps(document(target, record, findings), indent=2, default=str) + "\n"


def render_text(target: str, record: Mapping[str, Any], findings: list[Finding], console: Any, *,
                verbose: bool = False) -> None:
    from rich.text import Text

    from ..render.human import _finding, _print_wrapped, print_closing_line

    head = f"{record.get('model_class', '?')} · torch {record.get('torch', '?')}"
    if record.get("inputs"):
        head += " · input " + ", ".join(f"{i['path']} {i['dtype']}{i['shape']} on {i['device']}" for i in record["inputs"][:3])
    _print_wrapped(console, Text(f"torchdoctor model {target} · ", style="bold"), head, 2)
    console.print()
    for f in findings:
        _finding(f, console, verbose)
    console.print()
    print_closing_line(findings, console)
