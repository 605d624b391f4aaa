"""Whole machines as saved facts: every check runs over each, and the verdicts are the ones a
person who knows these machines would give."""

from __future__ import annotations

import re

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchdoctor.facts.model import Facts
from torchdoctor.runner import exit_code, run_env_checks

FACTS = Path(__file__).parent / "fixtures" / "facts"

# Only the verdicts named here may be warnings or errors; every other check must be ok or skip.
EXPECTED = {
    "healthy-8xh100-server": {},
    "laptop-no-gpu": {"TE403": "warning"},
    "container-old-driver-stale-lock-small-shm": {
        "TE201": "error",  # torch 2.13.0+cu130 on an R535 driver
        "TE401": "error",  # fused_adam's lock, no builder alive
        "TE402": "error",  # Docker's 64 MiB /dev/shm
        "TE206": "warning",  # 30 GiB held by a pid this container cannot see
        "TE208": "warning",  # extensions are built here, but there is no CUDA toolkit
    },
    "broken-install": {
        "TE101": "error",  # undefined symbol __nvJitLinkComplete_12_4
        "TE103": "error",  # torchvision 0.19.1 pins torch==2.4.1
        "TE204": "error",  # LD_LIBRARY_PATH's CUDA 12.1 libnvJitLink shadows pip's 12.4
    },
}
MUST_BE_OK = {
    "healthy-8xh100-server": {"TE101", "TE103", "TE201", "TE202", "TE203", "TE206", "TE207", "TE208"},
    "laptop-no-gpu": {"TE101", "TE203"},
    "container-old-driver-stale-lock-small-shm": {"TE202", "TE203"},
    "broken-install": {"TE102", "TE104"},
}


def load(name: str) -> Facts:
    return Facts.from_json(json.loads((FACTS / f"{name}.json").read_text())["facts"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_scenario_verdicts(name):
    findings = {f.code: f for f in run_env_checks(load(name))}
    problems = {code: f.status.value for code, f in findings.items() if f.status.value in ("warning", "error", "crash")}
    assert problems == EXPECTED[name], {c: findings[c].message for c in problems}
    for code in MUST_BE_OK[name]:
        assert findings[code].status.value == "ok", findings[code].message


def test_a_cpu_laptop_says_so_once_and_skips_the_gpu_checks():
    findings = {f.code: f for f in run_env_checks(load("laptop-no-gpu"))}
    assert "without NVIDIA GPU" in findings["TE203"].message
    for code in ("TE201", "TE202", "TE204", "TE206", "TE207"):
        assert findings[code].status.value == "skip", findings[code].message


def test_the_container_report_names_the_driver_it_needs_and_the_fixes():
    findings = {f.code: f for f in run_env_checks(load("container-old-driver-stale-lock-small-shm"))}
    assert "580.65.06" in findings["TE201"].message and "535.104.05" in findings["TE201"].message
    assert any("--shm-size" in c or "--ipc=host" in c for c in findings["TE402"].fix.commands)
    actions = findings["TE401"].fix.actions
    assert [a.path for a in actions] == ["/root/.cache/torch_extensions/py311_cu130/fused_adam/lock"]
    assert exit_code(list(findings.values())) == 1


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchdoctor", *args], capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}, timeout=60)


def test_exit_status_follows_the_worst_finding_and_fail_on():
    laptop = str(FACTS / "laptop-no-gpu.json")
    assert cli("env", "--facts", laptop).returncode == 0  # warnings only
    assert cli("env", "--facts", laptop, "--fail-on", "warning").returncode == 1
    healthy = cli("env", "--facts", str(FACTS / "healthy-8xh100-server.json"))
    assert healthy.returncode == 0 and healthy.stdout.rstrip().endswith("No problems found.")
    broken = cli("env", "--facts", str(FACTS / "broken-install.json"))
    # Saved facts without some sections: the verdict says how many checks it could not run.
    assert broken.returncode == 1 and (
        broken.stdout.rstrip().splitlines()[-1]
        == "3 errors; 5 checks not run for missing facts (TE201, TE202, TE203, TE208, TE211).")


def test_markdown_report_redacts_user_and_host():
    proc = cli("env", "--facts", str(FACTS / "laptop-no-gpu.json"), "--format", "markdown")
    assert proc.returncode == 0
    assert "ada-thinkpad" not in proc.stdout and "/home/ada/" not in proc.stdout
    assert "/home/<user>/projects/demo/.venv" in proc.stdout
    assert "open-files-limit-low" in proc.stdout and "ulimit -n 524288" in proc.stdout
