"""Issue 14 item 5: no fix pins a version it did not derive from the user's facts.

Every knowledge-base fix is rendered without facts (only placeholders may stand where a version
goes) and with a realistic machine's facts (every version in the output comes from those facts);
every env check's fix, for every example, pins only versions found in its facts or computed from
the release tables.
"""

from __future__ import annotations

import json
import re

import pytest

from torchdoctor.data import load
from torchdoctor.facts.model import Facts
from torchdoctor.kb import load as load_kb
from torchdoctor.kb.fill import PLACEHOLDERS, fill, placeholders, values_from_facts
from torchdoctor.registry import env_checks
from torchdoctor.runner import run_check

KB = load_kb()

# A version where a command expects one: a package pin, a wheel index or local tag, a PyG wheel
# page, a CUDA image or toolkit folder.
PINNED = re.compile(r"[A-Za-z][\w.\-]*(?:\[[\w,]+\])?===?v?\d[\w.*+]*"
                    r"|whl/(?:cu|rocm)\d[\w.]*|\+cu\d{3}\b|torch-\d+\.\d+|nvidia/cuda:\d\S*|/cuda-\d+\.\d+")
VERSIONISH = re.compile(r"\d+\.\d+(?:\.\d+)*|cu\d{3}")

MACHINE = Facts.partial(
    python={"system": "Linux", "version": "3.12.4", "executable": "/home/ada/venv/bin/python"},
    packages={"distributions": [{"name": "torch", "version": "2.9.1", "location": "/site"}],
              "torch_version_file": {"path": "/site/torch/version.py", "version": "2.9.1+cu128", "cuda": "12.8"}},
    nvidia={"driver_version": "570.172.08", "cuda_driver_version": "12.8",
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}]},
)


def _steps():
    for entry in KB.entries.values():
        for i, fix in enumerate(entry.fixes):
            for text in (*fix.commands, fix.code):
                if text:
                    yield pytest.param(entry.id, text, id=f"{entry.id}-{i}")


def test_the_old_hard_coded_pins_are_gone():
    """The issue's examples, as they were: they fail this module's checks."""
    assert PINNED.search("pip install --force-reinstall torch==2.5.1 torchvision==0.20.1 --index-url "
                         "https://download.pytorch.org/whl/cu124")
    assert PINNED.search("pip install torch --index-url https://download.pytorch.org/whl/cu124")


@pytest.mark.parametrize("entry_id,text", list(_steps()))
def test_kb_fix_pins_nothing_without_facts(entry_id, text):
    assert not PINNED.search(text), f"{entry_id}: a hard-coded version; use a placeholder: {text!r}"


@pytest.mark.parametrize("entry_id,text", list(_steps()))
def test_kb_fix_filled_from_facts_uses_only_their_versions(entry_id, text):
    values = values_from_facts(MACHINE)
    filled = fill(text, values)
    assert not set(placeholders(filled)) & set(values), "a placeholder the facts answer was left unfilled"
    derived = " ".join(values.values())
    for m in PINNED.finditer(filled):
        for v in VERSIONISH.findall(m.group(0)):
            assert v in derived, f"{entry_id}: {v} in {m.group(0)!r} does not come from the facts"


def test_values_from_facts_for_the_issue_machine():
    """torch 2.13.0+cpu: the torchvision fix must keep torch 2.13 and its CPU index."""
    facts = Facts.partial(packages={
        "distributions": [{"name": "torch", "version": "2.13.0+cpu", "location": "/site"}],
        "torch_version_file": {"path": "/site/torch/version.py", "version": "2.13.0+cpu", "cuda": None}})
    values = values_from_facts(facts)
    assert values["torch-version"] == "2.13.0" and values["cuda-tag"] == "cpu"
    entry = KB.entry("torchvision-torch-mismatch")
    commands = [fill(c, values) for f in entry.fixes for c in f.commands]
    assert any("torch==2.13.0 " in c and c.endswith("whl/cpu   # pip picks the releases that pair with this torch")
               for c in commands), commands
    assert "torchvision==0.28.*" in fill(entry.fixes[3].code, values)
    assert values_from_facts(Facts.partial()) == {}  # nothing known: every placeholder stays


def _release_versions() -> str:
    return json.dumps([load("torch_releases"), load("cuda_driver"), load("companion_pins")])


@pytest.mark.parametrize("check", env_checks(), ids=lambda c: c.code)
def test_env_fix_pins_only_derived_versions(check):
    tables = _release_versions()
    for example in check.examples:
        facts_text = json.dumps(example.facts)
        finding = run_check(check, Facts.partial(**example.facts))
        for command in finding.fix.commands if finding.fix else ():
            for m in PINNED.finditer(command):
                for v in VERSIONISH.findall(m.group(0)):
                    assert v in facts_text or v in tables, (
                        f"{check.code} ({example.note}): {v} in {command!r} is neither in the facts nor in the tables")
