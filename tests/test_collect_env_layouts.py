"""Every layout `python -m torch.utils.collect_env` printed, torch 1.0 to 2.15, is read the same way.

tests/fixtures/collect_env_layouts/ holds the output of each release's own collect_env.py (README
there says how it was made): the facts must come out the same whichever year's layout holds them, and
the verdict with them (a CPU torch on a machine with NVIDIA GPUs), and a report without a GPU must
not get it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torchdoctor.cli import env as cli_env
from torchdoctor.facts.model import known
from torchdoctor.model import Status
from torchdoctor.runner import run_env_checks

HERE = Path(__file__).parent / "fixtures" / "collect_env_layouts"
GPU = sorted(HERE.glob("*-script-gpu.txt"))
NO_GPU = sorted(HERE.glob("*-script-nogpu.txt"))


def _minor(path: Path) -> tuple[int, int]:
    major, minor = re.match(r"torch(\d+)\.(\d+)-", path.name).groups()
    return int(major), int(minor)


def test_every_minor_release_from_1_0_to_2_15_is_there():
    want = {(1, n) for n in range(14)} | {(2, n) for n in range(16)}
    assert {_minor(p) for p in GPU} == want
    assert {_minor(p) for p in NO_GPU} == want


@pytest.mark.parametrize("path", GPU, ids=lambda p: p.name)
def test_each_layout_gives_the_same_facts_and_verdict(path):
    facts = cli_env.load_facts(path)
    assert facts.get("torch.version") == "2.13.0+cpu"
    assert facts.get("torch.cuda_available") is False
    assert facts.get("nvidia.driver_version") == "470.82.01"
    gpus = facts.get("nvidia.gpus")
    assert [(g.name, g.compute_capability) for g in gpus] == [("NVIDIA GeForce RTX 3090", "8.6")] * 2
    assert facts.get("python.version").startswith("3.11")
    if _minor(path) >= (1, 9):  # older scripts did not find nvcc on PATH ("CUDA runtime version: Could not collect")
        assert facts.get("toolchain.nvcc_version") == "11.4"
    cpu_build = next(f for f in run_env_checks(facts) if f.code == "TE203")
    assert cpu_build.status is Status.ERROR, cpu_build.message


@pytest.mark.parametrize("path", NO_GPU, ids=lambda p: p.name)
def test_without_a_gpu_the_cpu_build_is_no_problem(path):
    facts = cli_env.load_facts(path)
    assert facts.get("torch.version") == "2.13.0+cpu"
    assert not known(facts.get("nvidia.gpus")) or not facts.get("nvidia.gpus")
    cpu_build = next(f for f in run_env_checks(facts) if f.code == "TE203")
    assert cpu_build.status is not Status.ERROR and cpu_build.status is not Status.WARNING, cpu_build.message
