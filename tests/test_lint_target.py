"""TD402's advice depends on the torch the checked code targets (torch.load's weights_only
default flipped in 2.6); the example harness runs with no target, so the wording for each
target is tested here."""

from __future__ import annotations

import textwrap

import pytest

from torchdoctor.lint import context
from torchdoctor.lint.engine import check_source

SOURCE = textwrap.dedent("""
    import torch
    state = torch.load("model.pt", map_location="cpu")
""")


@pytest.fixture
def target():
    saved = context.TARGET_TORCH

    def set_target(version):
        context.TARGET_TORCH = version

    yield set_target
    context.TARGET_TORCH = saved


def _finding(source=SOURCE):
    findings = check_source(source, select=("TD402",)).findings
    assert len(findings) == 1, findings
    return findings[0]


def test_unknown_target_names_both_defaults(target):
    target(None)
    f = _finding()
    assert "torch < 2.6" in f.message and "weights_only=False" in f.message
    assert "torch >= 2.6" in f.message and "Weights only load failed" in f.message
    assert f.severity == "warning"


@pytest.mark.parametrize("version", ["2.5", "2.5.1", "1.13", "2.0.0+cu118"])
def test_before_2_6_the_default_unpickles_anything(target, version):
    target(version)
    f = _finding()
    major_minor = ".".join(version.split("+")[0].split(".")[:2])
    assert f"torch {major_minor} the default is weights_only=False" in f.message
    assert "arbitrary code" in f.message
    assert "Weights only load failed" not in f.message
    assert "weights_only=True" in f.fix.summary


@pytest.mark.parametrize("version", ["2.6", "2.6.0", "2.13.0+cpu", "3.0"])
def test_from_2_6_the_default_refuses_full_pickles(target, version):
    target(version)
    f = _finding()
    assert "the default is weights_only=True" in f.message
    assert "Weights only load failed" in f.message
    assert "arbitrary code" not in f.message


def test_before_1_13_weights_only_does_not_exist(target):
    target("1.12.1")
    assert check_source(SOURCE, select=("TD402",)).findings == []


def test_unparseable_target_is_treated_as_unknown(target):
    target("nightly")
    assert "torch < 2.6" in _finding().message


@pytest.mark.parametrize("version", [None, "2.5", "2.6"])
def test_the_edit_adds_weights_only_true_and_is_never_safe(target, version):
    target(version)
    f = _finding()
    (edit,) = f.fix.edits
    assert edit.replacement == ", weights_only=True"
    line = SOURCE.splitlines()[edit.line - 1]
    fixed = line[:edit.column] + edit.replacement + line[edit.end_column:]
    assert fixed == 'state = torch.load("model.pt", map_location="cpu", weights_only=True)'
    assert f.fix.safe is False
    assert f.to_json()["fix"]["applicability"] == "unsafe"

