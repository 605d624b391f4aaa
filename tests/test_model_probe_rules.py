"""Every model rule (TI2xx) runs over its own examples: the examples are the tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from torchdoctor.registry import model_rules
from torchdoctor.runtime.model_report import run_model_rules

CASES = [(rule, i, ex) for rule in model_rules() for i, ex in enumerate(rule.examples)]
KNOWLEDGE = Path(__file__).resolve().parents[1] / "knowledge"


def _blob(finding) -> str:
    parts = [finding.message, *(f"{k}: {v}" for k, v in finding.evidence.items())]
    if finding.fix:
        parts += [finding.fix.summary, *finding.fix.commands]
    return "\n".join(parts)


@pytest.mark.parametrize("rule,index,example", CASES, ids=[f"{r.code}-{e.expect}-{i}" for r, i, e in CASES])
def test_example(rule, index, example):
    (finding,) = run_model_rules(example.record, [rule])
    assert finding.status.value == example.expect, f"{rule.code} example {index} ({example.note}): {finding.message}"
    if example.contains:
        assert example.contains in _blob(finding), f"{example.contains!r} not in:\n{_blob(finding)}"
    if finding.status.value in ("warning", "error"):
        assert finding.fix is not None and finding.fix.summary, f"{rule.code}: a problem without a fix"
    for kb_id in finding.related:
        assert (KNOWLEDGE / f"{kb_id}.toml").exists(), f"{rule.code} links to unknown knowledge entry {kb_id}"


def test_codes_are_the_documented_set():
    assert [r.code for r in model_rules()] == [f"TI2{n:02d}" for n in range(1, 11)]
    names = [r.name for r in model_rules()]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("rule", model_rules(), ids=lambda r: r.code)
def test_rule_is_documented_and_has_firing_and_quiet_examples(rule):
    statuses = {e.expect for e in rule.examples}
    assert statuses & {"warning", "error"} or rule.name == "parameter-memory", f"{rule.code} never shows it can fire"
    assert "ok" in statuses, f"{rule.code} never shows it stays quiet on a healthy model"
    for section in ("## What it checks", "## Why it matters", "## How to fix"):
        assert section in rule.doc, f"{rule.code} docstring lacks {section}"
    module_file = Path(__import__(rule.func.__module__, fromlist=["_"]).__file__)
    assert module_file.stem == rule.name.replace("-", "_")
    assert re.match(r"^[A-Z]", rule.title)


def test_a_rule_that_raises_becomes_a_crash_finding():
    from torchdoctor.registry import ModelRule

    def broken(record):
        raise KeyError("x")

    (finding,) = run_model_rules({}, [ModelRule("TI299", "broken", "Broken", (), broken)])
    assert finding.status.value == "crash" and "KeyError" in finding.message


def test_readme_documents_every_model_rule():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    for rule in model_rules():
        assert f"| {rule.code} | {rule.name} |" in readme, f"README's model rule table lacks {rule.code}"


def test_batch_arithmetic_matches_distributed_sampler():
    from torchdoctor.checks.model.batchnorm_batch_of_one import (
        bad_batch_sizes,
        last_batches,
    )

    # Verified with DistributedSampler + DataLoader: N=1001, W=2, bs=100 -> 501 per rank, last batch 1.
    assert last_batches(1001, 2, 100, False) == (501, 1)
    assert last_batches(1001, 2, 100, True) == (501, 0)
    assert last_batches(1000, 2, 100, False) == (500, 100)
    assert 100 in bad_batch_sizes(501) and 64 not in bad_batch_sizes(501)


def test_inplace_rewrite():
    from torchdoctor.checks.model.inplace_breaks_autograd import out_of_place

    assert out_of_place("y.mul_(2)  # note") == "y = y.mul(2)"
    assert out_of_place("x += self.bias") == "x = x + self.bias"
    assert out_of_place("return self.act(x)") is None
