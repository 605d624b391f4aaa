"""Every checkpoint rule's examples are its tests; the registry stays tidy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from torchdoctor.inspect import run_ckpt_rules
from torchdoctor.inspect.report import InspectReport
from torchdoctor.registry import ckpt_rules, find_ckpt_rule

ROOT = Path(__file__).resolve().parents[1]
CASES = [(rule, i, ex) for rule in ckpt_rules() for i, ex in enumerate(rule.examples)]


@pytest.mark.parametrize("rule,index,example", CASES, ids=[f"{r.code}-{i}" for r, i, _ in CASES])
def test_rule_examples(rule, index, example):
    report = InspectReport.from_json(example.report)
    (finding,) = run_ckpt_rules(report, [rule])
    assert finding.status.value == example.expect, f"{rule.code} example {index} ({example.note}): {finding.message}"
    if example.contains:
        text = " ".join([finding.message, *(finding.fix.commands if finding.fix else ()),
                         finding.fix.summary if finding.fix else "", str(finding.evidence)])
        assert example.contains in text, f"{rule.code} example {index}: {example.contains!r} not in {text!r}"
    if finding.status.value in ("warning", "error"):
        assert finding.fix is not None and finding.fix.summary, f"{rule.code}: a problem must carry its fix"
        assert set(finding.related) <= set(rule.related), f"{rule.code}: related ids must be declared on the rule"


@pytest.mark.parametrize("rule", ckpt_rules(), ids=lambda r: r.code)
def test_rule_shape(rule):
    for section in ("## What it checks", "## Why it matters", "## How to fix"):
        assert section in rule.doc, f"{rule.code} lacks {section}"
    statuses = {ex.expect for ex in rule.examples}
    assert statuses & {"warning", "error"}, f"{rule.code} needs an example that fires"
    assert statuses & {"ok", "skip"}, f"{rule.code} needs a near miss that stays quiet"
    module = rule.func.__module__.rsplit(".", 1)[-1]
    assert module == rule.name.replace("-", "_"), f"{rule.code}: file {module}.py should be named after {rule.name}"


def test_codes_unique_and_findable():
    rules = ckpt_rules()
    assert len({r.code for r in rules}) == len(rules) == len({r.name for r in rules})
    assert find_ckpt_rule("ti103").name == "pickle-runs-code"
    assert find_ckpt_rule("pickle-runs-code").code == "TI103"


def test_related_ids_exist():
    ids = {p.stem for p in (ROOT / "knowledge").glob("*.toml")}
    for rule in ckpt_rules():
        assert set(rule.related) <= ids, f"{rule.code}: {set(rule.related) - ids} are not knowledge ids"


def test_readme_documents_every_rule():
    readme = (ROOT / "README.md").read_text()
    for rule in ckpt_rules():
        assert f"| {rule.code} | {rule.name} |" in readme, f"README's inspect table lacks {rule.code}"


def test_a_crashing_rule_is_a_crash_finding():
    rule = ckpt_rules()[0]
    broken = type(rule)(rule.code, rule.name, rule.title, (), lambda r: 1 / 0)
    (finding,) = run_ckpt_rules(InspectReport(), [broken])
    assert finding.status.value == "crash" and "ZeroDivisionError" in finding.message


def test_checks_import_nothing_heavy():
    for path in (ROOT / "checks" / "inspect").glob("*.py"):
        assert not re.search(r"^\s*(import torch|from torch\b)", path.read_text(), re.MULTILINE), path
