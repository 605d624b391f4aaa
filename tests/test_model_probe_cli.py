"""`torchdoctor model` end to end: a child process per run, its timeout, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run(*args: str, cwd: Path = FIXTURES, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchdoctor", "model", *args], cwd=cwd, capture_output=True,  # noqa: PLW1510
                          text=True, timeout=timeout)


def test_json_report_names_unused_modules_and_outputs():
    # `models:two_heads` imports from the current directory, as `python -m` would.
    p = run("models:two_heads", "--input", "randn(8, 4)", "--loss", "models.py:loss_a_only", "--no-export",
            "--format", "json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    assert doc["schema"] == "torchdoctor.model/v1"
    by = {f["code"]: f for f in doc["findings"]}
    assert by["TI201"]["status"] == "error" and "ddp-unused-parameters" in by["TI201"]["related"]
    assert by["TI202"]["evidence"]["outputs not in the loss"] == ["['b']"]
    assert by["TI210"]["status"] == "ok"
    assert {p["name"] for p in doc["record"]["params"] if p["grad"] == "none"} == {
        "head_b.weight", "head_b.bias", "unused.weight", "unused.bias"}


def test_a_model_that_never_returns_is_a_finding_within_the_timeout():
    start = time.monotonic()
    p = run("models.py:sleeper", "--input", "randn(2, 4)", "--timeout", "8", "--no-export")
    assert time.monotonic() - start < 40
    assert p.returncode == 1
    assert "TI210 the model did not return within 8 s" in p.stdout


def test_bad_input_is_one_line_and_status_2():
    cases = [
        (("models.py:raises", "--input", "randn(2, 4)"), "factory 'models.py:raises' raised ValueError: config file missing"),
        (("nosuch.pkg:build", "--input", "randn(2, 4)"), "no module named 'nosuch'"),
        (("models.py:two_heads", "--input", "randn(2, 4"), "--input: the input spec 'randn(2, 4' does not parse"),
        (("models.py:two_heads", "--input", "os.system('x')"), "is not allowed in an input spec"),
        (("models.py:two_heads", "--input", "randn(2, 4)", "--world-size", "2"), "--world-size needs --dataset-size"),
        (("two_heads", "--input", "randn(2, 4)"), "must look like pkg.module:name"),
    ]
    for args, says in cases:
        p = run(*args)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert lines[-1].startswith("torchdoctor: error: ") and says in lines[-1], (args, p.stderr)
        assert "Traceback" not in p.stderr


def test_list_rules():
    p = run("--list")
    assert p.returncode == 0 and "TI201  unused-parameters" in p.stdout
