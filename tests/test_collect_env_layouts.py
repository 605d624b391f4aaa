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
GPU = sorted(HERE.glob("torch*-script-gpu.txt"))
NO_GPU = sorted(HERE.glob("torch*-script-nogpu.txt"))
VLLM_GPU = sorted(HERE.glob("vllm*-script-gpu.txt"))
VLLM_NO_GPU = sorted(HERE.glob("vllm*-script-nogpu.txt"))


def _minor(path: Path) -> tuple[int, int]:
    major, minor = re.match(r"(?:torch|vllm)(\d+)\.(\d+)-", path.name).groups()
    return int(major), int(minor)


def test_every_minor_release_from_1_0_to_2_15_is_there():
    want = {(1, n) for n in range(14)} | {(2, n) for n in range(16)}
    assert {_minor(p) for p in GPU} == want
    assert {_minor(p) for p in NO_GPU} == want
    assert {_minor(p) for p in VLLM_GPU} == {_minor(p) for p in VLLM_NO_GPU} == {(0, n) for n in (9, 10, 11, 15, 16, 20, 28)}


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


@pytest.mark.parametrize("path", VLLM_GPU, ids=lambda p: p.name)
def test_vllm_copies_give_the_verdict_even_without_their_gpu_section(path):
    # From vLLM 0.20 the report leaves out "CUDA / GPU Info" when torch has no CUDA: the GPUs are only in the
    # `nvidia-smi topo -m` matrix, by index, with no model and no driver.
    facts = cli_env.load_facts(path)
    assert facts.get("torch.version") == "2.13.0+cpu"
    assert [g.index for g in facts.get("nvidia.gpus")] == [0, 1]
    cpu_build = next(f for f in run_env_checks(facts) if f.code == "TE203")
    assert cpu_build.status is Status.ERROR, cpu_build.message
    if _minor(path) >= (0, 20):
        assert not known(facts.get("nvidia.driver_version"))
        assert "the report does not show the driver and the GPU models" in cpu_build.fix.summary
        assert "which this driver and GPU support" not in cpu_build.fix.summary
    else:
        assert "which this driver and GPU support" in cpu_build.fix.summary


@pytest.mark.parametrize("path", VLLM_NO_GPU, ids=lambda p: p.name)
def test_vllm_copies_without_a_gpu(path):
    facts = cli_env.load_facts(path)
    assert not known(facts.get("nvidia.gpus")) or not facts.get("nvidia.gpus")
    cpu_build = next(f for f in run_env_checks(facts) if f.code == "TE203")
    assert cpu_build.status is Status.OK, cpu_build.message


# vllm-project/vllm#13855 (simon-mo, 2025-02-25): `nvidia-smi topo -m` of a DGX, the first rows verbatim, under
# the label vLLM's report prints it with; the header names the columns, each GPU row has its "X".
DGX_TOPOLOGY = """==============================
         vLLM Info
==============================
ROCM Version                 : Could not collect
vLLM Version                 : 0.10.1
GPU Topology:
  \tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tPXB\tNODE\t0-55,112-167\t0\t\tN/A
GPU1\tNV18\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNODE\tNODE\t0-55,112-167\t0\t\tN/A
GPU2\tNV18\tNV18\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNODE\tNODE\t0-55,112-167\t0\t\tN/A
NIC0\tPXB\tNODE\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t X \tNODE
"""


def test_topology_rows_are_gpus_and_the_header_and_nics_are_not(tmp_path):
    text = (HERE / "vllm0.28-script-gpu.txt").read_text()
    start = text.index("==============================\n         vLLM Info")
    end = text.index("==============================\n     Environment Variables")
    path = tmp_path / "report.txt"
    path.write_text(text[:start] + DGX_TOPOLOGY + "\n" + text[end:])
    facts = cli_env.load_facts(path)
    assert [g.index for g in facts.get("nvidia.gpus")] == [0, 1, 2]
