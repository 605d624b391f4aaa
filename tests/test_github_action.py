"""Issue 14 item 11: the composite GitHub Action (action.yml) and its script, run locally.

GitHub itself cannot run here; what can: the action's structure (composite, every input it uses
declared and passed to the script, the SARIF upload wired to the script's output) and the script,
run with the same environment the runner gives it, on a repository with and without findings."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "action" / "run.sh"


def test_action_yml_is_a_composite_action_wired_to_its_script():
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    text = (ROOT / "action.yml").read_text()
    assert set(re.findall(r"inputs\.([\w-]+)", text)) <= inputs
    gate, upload, fail = action["runs"]["steps"]
    assert "action/run.sh" in gate["run"] and gate["id"] == "gate"
    used = set(re.findall(r"\$\{?(TORCHDOCTOR_\w+)", SCRIPT.read_text()))
    assert used <= set(gate["env"]), f"the script reads variables the action does not pass: {used - set(gate['env'])}"
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert "steps.gate.outputs.sarif-file" in upload["with"]["sarif_file"] and upload["if"].startswith("always()")
    assert "exit 1" in fail["run"] and "steps.gate.outputs.exit-code" in fail["if"]


def _run(repo: Path, **env: str) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    out = repo / "github_output"
    out.write_text("")
    proc = subprocess.run(["bash", str(SCRIPT)], cwd=repo, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GITHUB_OUTPUT": str(out), "TORCHDOCTOR_PYTHON": sys.executable,
                               "TORCHDOCTOR_INSTALL": "false", "NO_COLOR": "1", **env})
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    return proc, outputs


def test_the_script_gates_and_writes_sarif_without_failing_the_step(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n")
    (tmp_path / "weights.pt").write_bytes(b"<html>404 Not Found</html>")
    proc, outputs = _run(tmp_path, TORCHDOCTOR_PATHS="train.py", TORCHDOCTOR_CHECKPOINTS="weights.pt\n")
    assert proc.returncode == 0, proc.stderr  # the upload step must still run
    assert outputs["exit-code"] == "1" and outputs["sarif-file"] == "torchdoctor.sarif"
    assert "torchdoctor ci --sarif torchdoctor.sarif --quick --checkpoint weights.pt train.py" in proc.stdout
    doc = json.loads((tmp_path / "torchdoctor.sarif").read_text())
    results = doc["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"TD202"} and any(r["ruleId"].startswith("TI") for r in results)
    located = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert located == {"train.py", "weights.pt"}
    schema = os.environ.get("TORCHDOCTOR_SARIF_SCHEMA")
    if schema and os.path.exists(schema):
        import jsonschema

        jsonschema.validate(doc, json.loads(Path(schema).read_text()))


def test_a_clean_repository_passes(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nx = torch.ones(2)\n")
    proc, outputs = _run(tmp_path)
    assert proc.returncode == 0 and outputs["exit-code"] == "0", proc.stdout + proc.stderr
    assert json.loads((tmp_path / "torchdoctor.sarif").read_text())["runs"][0]["results"] == []


def test_an_install_failure_is_reported_not_hidden(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    proc, outputs = _run(tmp_path, TORCHDOCTOR_INSTALL="true", TORCHDOCTOR_PYTHON=str(fake),
                         TORCHDOCTOR_ACTION_PATH=str(ROOT))
    assert proc.returncode == 0 and outputs == {"exit-code": "2", "sarif-file": ""}
    assert "::error title=torchdoctor::could not install torchdoctor" in proc.stdout
