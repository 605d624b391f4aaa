"""Issue 14 item 2: a CUDA build in a container started without --gpus. Before, TE203 said ✓, TE201
skipped and the report ended "No problems found"."""

from __future__ import annotations

from torchdoctor.facts.model import Facts
from torchdoctor.render.summary import closing_line
from torchdoctor.runner import run_env_checks

NO_GPU_CONTAINER = {
    "torch": {"import_status": "ok", "version": "2.13.0+cu130", "cuda": "13.0", "hip": None,
              "cuda_available": False, "device_count": 0, "warnings": []},
    "nvidia": {"driver_version": None, "cuda_driver_version": None, "kernel_module_version": None,
               "nvml_error": "NVML Shared Library Not Found", "gpus": []},
    "python": {"container": "docker", "wsl": False, "system": "Linux", "executable": "/usr/bin/python3"},
}


def test_cuda_build_without_driver_is_not_no_problems():
    findings = run_env_checks(Facts.partial(**NO_GPU_CONTAINER))
    by = {f.code: f for f in findings}
    assert by["TE211"].status.value == "warning"
    assert "CUDA cannot initialise here" in by["TE211"].message
    assert "docker container" in by["TE211"].message
    assert by["TE211"].evidence["NVML"] == "NVML Shared Library Not Found"
    assert "docker run --gpus all <image> <command>" in by["TE211"].fix.commands
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in by["TE211"].fix.commands[1]
    assert closing_line(findings) != "No problems found."


def test_the_same_container_with_its_gpu_is_quiet():
    facts = {**NO_GPU_CONTAINER,
             "torch": {**NO_GPU_CONTAINER["torch"], "cuda_available": True, "device_count": 1},
             "nvidia": {"driver_version": "580.95.05", "cuda_driver_version": "13.0", "nvml_error": None,
                        "gpus": [{"index": 0, "name": "NVIDIA L4", "compute_capability": "8.9"}]}}
    by = {f.code: f for f in run_env_checks(Facts.partial(**facts))}
    assert by["TE211"].status.value == "ok"
