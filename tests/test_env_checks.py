"""Every environment check runs over its own examples: the examples are the tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torchdoctor.facts.model import Facts
from torchdoctor.registry import env_checks
from torchdoctor.runner import run_check

CASES = [(check, i, ex) for check in env_checks() for i, ex in enumerate(check.examples)]


@pytest.mark.parametrize("check,index,example", CASES,
                         ids=[f"{c.code}-{e.expect}-{i}" for c, i, e in CASES])
def test_example(check, index, example):
    facts = Facts.partial(**example.facts)
    finding = run_check(check, facts)
    assert finding.status.value == example.expect, f"{check.code} example {index} ({example.note}): {finding.message}"
    if example.contains:
        blob = finding.message + "\n" + (finding.fix.summary + "\n" + "\n".join(finding.fix.commands) if finding.fix else "")
        assert example.contains in blob, f"{example.contains!r} not in:\n{blob}"
    if finding.status.value in ("warning", "error"):
        assert finding.fix is not None and finding.fix.summary, f"{check.code}: a problem without a fix"


@pytest.mark.parametrize("check", env_checks(), ids=lambda c: c.code)
def test_check_is_documented_and_has_firing_and_quiet_examples(check):
    statuses = {e.expect for e in check.examples}
    assert statuses & {"warning", "error"}, f"{check.code} never shows it can fire"
    assert "ok" in statuses, f"{check.code} never shows it stays quiet on a healthy machine"
    for section in ("## What it checks", "## Why it matters", "## How to fix"):
        assert section in check.doc, f"{check.code} docstring lacks {section}"
    module_file = Path(__import__(check.func.__module__, fromlist=["_"]).__file__)
    assert module_file.stem == check.name.replace("-", "_"), "file name must be the snake_case of the check name"
    assert re.match(r"^[A-Z]", check.title)


def _h100_node_with(compute_capability):
    import json

    data = json.loads((Path(__file__).parent / "fixtures" / "facts" / "healthy-8xh100-server.json").read_text())
    data["facts"]["nvidia"]["gpus"][5]["compute_capability"] = compute_capability
    return Facts.from_json(data["facts"])


@pytest.mark.parametrize("written", [":", "sm_90", {"unknown": "not recorded"}])
def test_a_gpu_whose_compute_capability_cannot_be_read_is_named_as_not_checked(written):
    # A hand-edited facts file may hold anything there: no crash, and no claim about "every GPU".
    te202 = run_check(next(c for c in env_checks() if c.code == "TE202"), _h100_node_with(written))
    assert te202.status.name == "OK"
    assert "every GPU" not in te202.message and "not checked: GPU 5" in te202.message


def test_every_gpu_read_is_every_gpu_checked():
    te202 = run_check(next(c for c in env_checks() if c.code == "TE202"), _h100_node_with("9.0"))
    assert te202.status.name == "OK" and "has kernels for every GPU" in te202.message


def test_two_torch_builds_mixed_quote_the_loader_as_it_printed_on_macos():
    # macOS's dlopen says "Symbol not found" with one more leading underscore; the evidence is what was printed.
    said = ("dlopen(/Users/ada/venv/lib/python3.9/site-packages/torch/_C.cpython-39-darwin.so, 2): "
            "Symbol not found: __ZN3c1019UndefinedTensorImpl10_singletonE")
    facts = Facts.partial(torch={"import_status": "import-error", "error_type": "ImportError", "error_message": said})
    finding = run_check(next(c for c in env_checks() if c.name == "multiple-torch-installs"), facts)
    assert finding.status.value == "error", finding.message
    assert "_C.cpython-39-darwin.so lacks _ZN3c1019UndefinedTensorImpl10_singletonE" in finding.message
    assert finding.evidence["import error"] == said
