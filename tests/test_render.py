"""Renderers decide nothing: the same findings always give the same text. Exact output at a fixed
width, compared with a reviewed copy. After an intended wording change, regenerate with
TORCHDOCTOR_REGENERATE=1 and review the diff."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from rich.console import Console

from torchdoctor.facts.model import Facts
from torchdoctor.render import human, markdown
from torchdoctor.runner import run_env_checks

HERE = Path(__file__).parent / "fixtures"
SCENARIOS = ["container-old-driver-stale-lock-small-shm", "laptop-no-gpu"]


def _facts(name: str) -> Facts:
    return Facts.from_json(json.loads((HERE / "facts" / f"{name}.json").read_text())["facts"])


def _compare(rendered: str, golden: Path) -> None:
    if os.environ.get("TORCHDOCTOR_REGENERATE"):
        golden.write_text(rendered)
    assert rendered == golden.read_text()


@pytest.mark.parametrize("name", SCENARIOS)
def test_text_report_is_exact(name):
    facts = _facts(name)
    out = io.StringIO()
    human.render_env(facts, run_env_checks(facts), Console(file=out, width=100, color_system=None, highlight=False))
    _compare(out.getvalue(), HERE / "render" / f"{name}.txt")


@pytest.mark.parametrize("name", SCENARIOS)
def test_markdown_report_is_exact(name):
    facts = _facts(name)
    _compare(markdown.render_env(facts, run_env_checks(facts)), HERE / "render" / f"{name}.md")
