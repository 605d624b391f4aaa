"""Reading `python -m torch.utils.collect_env` reports pasted into GitHub issues.

The fixtures are real reports (tests/fixtures/collect_env/SOURCES.md says where each comes from);
the short inline texts further down are single lines of such reports, combined to pin one rule.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from torchdoctor.data import load
from torchdoctor.facts.collect_env_text import (
    compute_capability,
    gcc_version,
    looks_like_collect_env,
    parse,
    report_variables,
)
from torchdoctor.facts.model import Facts, Unknown
from torchdoctor.runner import run_env_checks

HERE = Path(__file__).parent / "fixtures" / "collect_env"
FIXTURES = sorted(HERE.glob("*.txt"))
REASON = "not in the collect_env report"
ABSENT = object()  # the fact must stay unknown


def read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def dig(facts: dict, dotted: str):
    value = facts
    for part in dotted.split("."):
        if isinstance(value, list) and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return ABSENT
    return value


def test_there_are_enough_fixtures_and_each_has_a_source():
    assert len(FIXTURES) >= 6
    sources = (HERE / "SOURCES.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^- ([\w.-]+\.txt):", sources, re.M))
    assert listed == {p.name for p in FIXTURES}
    for line in sources.splitlines():
        if line.startswith("- ") and not line.startswith("- local-cpu.txt"):
            assert "https://github.com/" in line, line


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_parses_into_facts(path):
    text = path.read_text(encoding="utf-8")
    assert looks_like_collect_env(text)
    data = parse(text)
    assert data["meta"] == {"source": "collect_env"}
    json.dumps(data)  # plain JSON
    facts = Facts.from_json(data, strict=True, default_reason=REASON)
    assert facts.meta.source == "collect_env"
    # Whatever the report does not say is unknown with the reason given, never a default.
    assert isinstance(facts.host, Unknown) and facts.host.reason == REASON


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_windows_line_endings_and_flattened_newlines_read_the_same(path):
    text = path.read_text(encoding="utf-8")
    assert parse(text.replace("\n", "\r\n")) == parse(text)
    # Some archives and chat tools turn the report into one line.
    assert parse(" ".join(text.split("\n"))) == parse(text)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_the_env_checks_run_over_every_report_without_crashing(path):
    facts = Facts.from_json(parse(path.read_text(encoding="utf-8")), default_reason=REASON)
    findings = run_env_checks(facts)
    crashed = [f"{f.code}: {f.message}" for f in findings if f.status.value == "crash"]
    assert not crashed, crashed


# --------------------------------------------------------------------------- spot checks

EXPECTED = {
    "local-cpu.txt": {
        "torch.import_status": "ok", "torch.version": "2.13.0+cpu", "torch.cuda": None, "torch.hip": None,
        "torch.debug": False, "torch.cuda_available": False, "torch.cudnn_runtime": ABSENT,
        "python.version": "3.11.7", "python.system": "Linux", "python.machine": "x86_64",
        "python.os_release": "Debian GNU/Linux 12 (bookworm)", "python.glibc": "2.36", "python.wsl": False,
        "toolchain.gcc_version": "12.2.0", "toolchain.nvcc_version": "13.0",
        # "Could not collect" beside the driver and GPUs: nvidia-smi found nothing, which is all it says
        # (the GPUs and the driver stay unknown: a container without the GPU runtime reads the same).
        "nvidia.smi_found_nothing": True, "nvidia.gpus": ABSENT, "nvidia.driver_version": ABSENT, "env": ABSENT,
        "packages.distributions.0.name": "torch", "packages.distributions.0.version": "2.13.0+cpu",
        "packages.distributions.0.location": "collect_env report",
    },
    "torch17-colab-t4-template-truncated.txt": {
        "torch.version": "1.7.0+cu101", "torch.cuda": "10.1", "torch.hip": None, "torch.debug": True,
        "torch.cuda_available": True, "toolchain.nvcc_version": "10.1", "toolchain.gcc_version": "7.5.0",
        "nvidia.driver_version": "418.67", "nvidia.gpus.0.name": "Tesla T4",
        "nvidia.gpus.0.compute_capability": "7.5", "python.version": "3.6", "python.machine": "x86_64",
        "python.os_release": "Ubuntu 18.04.5 LTS",
        "torch.cudnn_runtime": ABSENT, "packages": ABSENT,  # cut off before the cuDNN line
    },
    "torch16-rhel-2xv100-driver-too-old.txt": {
        "torch.version": "1.6.0", "torch.cuda": "10.2", "torch.debug": False, "torch.cuda_available": False,
        "torch.hip": None,  # no ROCM line in 1.6, but a CUDA build is not a ROCm build
        "nvidia.driver_version": "418.67", "nvidia.gpus.1.index": 1,
        "nvidia.gpus.1.name": "Tesla V100-PCIE-16GB", "nvidia.gpus.1.compute_capability": "7.0",
        "toolchain.gcc_version": "4.8.5", "toolchain.nvcc_version": ABSENT,
        "python.os_release": "Red Hat Enterprise Linux Server 7.6 (Maipo)",
        # the conda rows marked <pip> are the [pip3] lines again
        "packages.distributions": [
            {"name": "numpy", "version": "1.19.1", "location": "collect_env report"},
            {"name": "torch", "version": "1.6.0", "location": "collect_env report"},
        ],
    },
    "torch131-8x-titanxp-driver-too-old-truncated.txt": {
        "torch.version": "1.3.1", "torch.cuda": "10.1.243", "toolchain.nvcc_version": "10.0",
        "nvidia.driver_version": "410.48", "nvidia.gpus.7.index": 7, "nvidia.gpus.7.name": "TITAN Xp",
        "nvidia.gpus.7.compute_capability": "6.1",
        # the pip list is cut off at "[pip3] to": the whole rows are kept, the list is marked partial
        "packages.distributions": [{"name": "numpy", "version": "1.17.4", "location": "collect_env report"}],
        "packages.distributions_partial": True,
    },
    "windows11-torch201-cu117-gtx1050ti-truncated.txt": {
        "torch.version": "2.0.1+cu117", "torch.cuda": "11.7", "python.system": "Windows",
        "python.platform": "Windows-10-10.0.22621-SP0", "python.os_release": "Microsoft Windows 11 Pro",
        "python.glibc": None, "python.machine": ABSENT, "python.implementation": "CPython",
        "python.version": "3.9.16", "nvidia.driver_version": "535.98",
        "nvidia.gpus.0.name": "NVIDIA GeForce GTX 1050 Ti", "nvidia.gpus.0.compute_capability": "6.1",
        "torch.cudnn_runtime": ABSENT,  # cudnn_ops_train64_8.dll: a major version only
        "toolchain.gcc_version": ABSENT, "packages.distributions.3.name": "torchvision",
    },
    "windows-server-torch15-quoted-2xtitanrtx-truncated.txt": {
        "torch.version": "1.5.0+cu101", "torch.cuda_available": True, "toolchain.gcc_version": "9.2.0",
        "nvidia.gpus.1.name": "TITAN RTX", "nvidia.gpus.1.compute_capability": "7.5",
        "nvidia.driver_version": "442.92", "python.system": "Windows",
        "packages.distributions.4": {"name": "blas", "version": "1.0", "location": "collect_env report (conda list)",
                                     "installer": "conda", "build": "mkl"},
        "packages.distributions.7.name": "mkl-fft",
    },
    "windows10-torch15-os-not-collected.txt": {
        "torch.version": "1.5.0+cu101", "python.os_release": ABSENT, "python.system": ABSENT,
        "nvidia.gpus.0.name": "Quadro P1000", "nvidia.gpus.0.compute_capability": "6.1",
        "packages": ABSENT,  # "[pip] Could not collect"
    },
    "macos-x86-torch222-mail-wrapped.txt": {
        "torch.version": "2.2.2", "torch.cuda": None, "python.version": "3.10.13",
        "python.system": "Darwin", "python.machine": "x86_64", "python.os_release": "macOS 14.5",
        "python.glibc": None, "toolchain.gcc_version": ABSENT, "toolchain.nvcc_version": ABSENT,
        "nvidia.driver_version": None, "nvidia.gpus": [],
        "packages.distributions.3": {"name": "torch", "version": "2.2.2", "location": "collect_env report"},
    },
    "macos-arm64-torch18-source-backticks.txt": {
        "torch.version": "1.8.0a0+c068180", "torch.cuda": None, "python.machine": "arm64",
        "python.system": "Darwin", "python.os_release": "macOS 11.1", "nvidia.gpus": [],
        # numpy from conda-forge is the same 1.19.4 pip lists; pypi_0 rows are pip's own
        "packages.distributions.2.name": "torchvision", "packages.distributions.3": ABSENT,
    },
    "rtx5090d-torch26-cu126-gpu-too-new-truncated.txt": {
        "torch.version": "2.6.0+cu126", "torch.cuda": "12.6", "torch.cuda_available": True,
        "nvidia.gpus.0.name": "NVIDIA GeForce RTX 5090 D", "nvidia.gpus.0.compute_capability": "12.0",
        "nvidia.driver_version": "570.124.04", "toolchain.nvcc_version": ABSENT,
        "python.glibc": "2.40", "python.version": "3.12.9",
        "torch.cudnn_runtime": ABSENT,  # a pip wheel does not load the system libcudnn 9.8.0
    },
    "h100x8-torch26-cu124-mixed-cudnn-truncated.txt": {
        "torch.version": "2.6.0+cu124", "torch.cuda": "12.4", "nvidia.gpus.7.name": "NVIDIA H100",
        "nvidia.gpus.7.compute_capability": "9.0", "nvidia.gpus.8": ABSENT,
        "nvidia.driver_version": "535.154.05", "toolchain.gcc_version": "11.5.0",
        "python.os_release": "CentOS Stream 9", "torch.cudnn_runtime": ABSENT,
    },
    "rocm-torch17-source-truncated.txt": {
        "torch.version": "1.7.0a0+9ddd3df", "torch.cuda": None, "torch.hip": "3.7.20315-077bcfa0",
        "torch.cuda_available": True,
        "nvidia": ABSENT,  # "Device 66a1" is an AMD GPU; the driver line says nothing
        "toolchain.nvcc_version": ABSENT,
    },
    "wsl2-rtx4070-laptop-torch24-vllm-truncated.txt": {
        "python.wsl": True, "python.system": "Linux", "torch.cuda": "12.1",
        "nvidia.gpus.0.compute_capability": "8.9", "nvidia.driver_version": "551.88",
        "toolchain.nvcc_version": "12.4",
    },
    "windows11-cpu-torch28-dev-truncated.txt": {
        "torch.version": "2.8.0.dev20250528+cpu", "torch.cuda": None, "torch.cuda_available": False,
        "python.os_release": "Microsoft Windows 11 Enterprise (10.0.22631 64-bit)", "python.system": "Windows",
        # "No CUDA" on Windows: nvidia-smi found nothing, the driver is not proven absent
        "nvidia.smi_found_nothing": True, "nvidia.driver_version": ABSENT, "nvidia.gpus": ABSENT,
    },
    "rtx3080-torch17-nightly-mixed-cudnn-truncated.txt": {
        "nvidia.gpus.0.name": "GeForce RTX 3080", "nvidia.gpus.0.compute_capability": "8.6",
        "torch.cuda": "11.0", "torch.cudnn_runtime": ABSENT,
    },
    "amd-gpu-box-torch251-cuda-wheel-no-version-line.txt": {
        "torch": ABSENT,  # the paste starts at "OS:"; the [pip3] line says installed, not imported
        "packages.distributions.5": {"name": "nvidia-cudnn-cu12", "version": "9.1.0.70",
                                     "location": "collect_env report"},
        "packages.distributions.13.name": "torch", "nvidia.gpus": ABSENT, "nvidia.driver_version": ABSENT,
        "nvidia.smi_found_nothing": True, "python.glibc": "2.35",
    },
}


def test_every_fixture_has_spot_checks():
    assert set(EXPECTED) == {p.name for p in FIXTURES}


@pytest.mark.parametrize("name,field,expected",
                         [(n, f, e) for n, fields in EXPECTED.items() for f, e in fields.items()],
                         ids=lambda v: v if isinstance(v, str) else None)
def test_spot_check(name, field, expected):
    assert dig(parse(read(name)), field) == expected


# --------------------------------------------------------------------------- not a report

@pytest.mark.parametrize("text", [
    "",
    "   \n\r\n",
    json.dumps({"meta": {"source": "live"}, "torch": {"version": "2.5.1"}}),
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
    "RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
    "I installed torch 2.1 and the GPU is not found, any idea?\nOS: Ubuntu\n",
], ids=["empty", "blank", "json", "traceback", "prose"])
def test_other_text_is_not_a_report(text):
    assert not looks_like_collect_env(text)


def test_a_recorded_facts_file_is_not_a_report():
    for path in (Path(__file__).parent / "fixtures").rglob("*.json"):
        assert not looks_like_collect_env(path.read_text(encoding="utf-8")), path


# --------------------------------------------------------------------------- truncation

def test_a_report_cut_anywhere_keeps_what_came_before():
    lines = read("local-cpu.txt").split("\n")
    for cut in range(len(lines) + 1):
        data = parse("\n".join(lines[:cut]))
        Facts.from_json(data, strict=True, default_reason=REASON)
    cut = next(i for i, line in enumerate(lines) if line.startswith("Libc version")) + 1
    data = parse("\n".join(lines[:cut]))
    assert dig(data, "torch.version") == "2.13.0+cpu"
    assert dig(data, "python.glibc") == "2.36"
    assert dig(data, "python.version") is ABSENT and dig(data, "toolchain.nvcc_version") is ABSENT
    assert "packages" not in data


def test_a_cut_inside_the_pip_list_keeps_its_rows_and_marks_the_list_partial():
    # The lead's decision: the rows that are there are facts; what the list lacks is unknown.
    text = read("local-cpu.txt")
    head = text[: text.index("[conda]")]
    cut = parse(head)["packages"]
    assert cut["distributions_partial"] is True
    assert [d["name"] for d in cut["distributions"]] == [d["name"] for d in parse(text)["packages"]["distributions"]
                                                         if d["location"] == "collect_env report"]
    whole = parse(text)["packages"]
    assert "distributions_partial" not in whole and whole["distributions"][0]["name"] == "torch"


def test_a_partial_list_without_torch_never_says_torch_is_not_installed():
    from torchdoctor.facts.model import Facts
    from torchdoctor.runner import run_env_checks
    text = read("local-cpu.txt")
    head = text[: text.index("[pip3] torch")] + "[pip3] numpy==2.1.0\n"  # cut after numpy's row
    data = parse(head)
    assert data["packages"]["distributions_partial"] is True and data["packages"]["distributions"]
    data["torch"] = {}
    messages = [f.message for f in run_env_checks(Facts.from_json(data))]
    assert not [m for m in messages if "torch is not installed" in m]
    assert any("partial" in m for m in messages)


# torch's own sample of the then-new layout (pytorch/pytorch#42887, malfet), run under Python 2.7.
PY2_WITH_PIP3 = """Collecting environment information...
PyTorch version: N/A
Is debug build: N/A
CUDA used to build PyTorch: N/A

OS: Mac OSX 10.15.5 (x86_64)
GCC version: Could not collect
Clang version: 12.0.0 (clang-1200.0.26.2)
CMake version: version 3.17.3

Python version: 2.7 (64-bit runtime)
Is CUDA available: N/A
CUDA runtime version: Could not collect
GPU models and configuration: Could not collect
Nvidia driver version: Could not collect
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] numpy==1.19.1
[pip3] torch==1.7.0.dev20200803
[pip3] torchvision==0.8.0.dev20200804
[conda] Could not collect
"""


def test_pip3_lines_under_python_2_are_another_interpreters_packages():
    facts = parse(PY2_WITH_PIP3)
    assert facts["python"]["version"] == "2.7" and "packages" not in facts
    assert "TE105" not in {f.code for f in run_env_checks(Facts.from_json(facts)) if f.status.name == "ERROR"}
    # Under Python 3 the same lines are this interpreter's.
    facts = parse(PY2_WITH_PIP3.replace("Python version: 2.7", "Python version: 3.8"))
    assert [d["name"] for d in facts["packages"]["distributions"]] == ["numpy", "torch", "torchvision"]


def test_torch_that_did_not_import_leaves_the_torch_facts_unknown():
    text = read("local-cpu.txt")
    for line in ("PyTorch version: 2.13.0+cpu", "Is debug build: False", "CUDA used to build PyTorch: Could not collect",
                 "Is CUDA available: False"):
        assert line in text
        text = text.replace(line, line.split(":")[0] + ": N/A")
    data = parse(text)
    # only that the import failed (or torch is missing there): no version, no build
    assert data["torch"] == {"import_status": "not-importable"}
    assert dig(data, "python.version") == "3.11.7"


def test_only_the_first_of_two_pasted_reports_is_read():
    first, second = read("local-cpu.txt"), read("torch16-rhel-2xv100-driver-too-old.txt")
    assert parse(first + "\n\nand on the cluster:\n\n" + second) == parse(first)


def test_a_handwritten_line_above_the_report_is_prose():
    text = "Python version: 3.12 I think\n" + read("torch16-rhel-2xv100-driver-too-old.txt")
    assert dig(parse(text), "python.version") == "3.7"


def test_details_blocks_and_indentation_are_unwrapped():
    body = read("torch16-rhel-2xv100-driver-too-old.txt")
    wrapped = ("<details>\n<summary>The output of <code>python collect_env.py</code></summary>\n\n```text\n"
               + "\n".join("    " + line for line in body.split("\n")) + "\n```\n</details>\n")
    assert parse(wrapped) == parse(body)


# --------------------------------------------------------------------------- single rules

def test_gcc_versions():
    assert gcc_version("(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0") == "11.4.0"
    assert gcc_version("(GCC) 11.5.0 20240719 (Red Hat 11.5.0-5)") == "11.5.0"
    assert gcc_version("(MinGW.org GCC Build-20200227-1) 9.2.0") == "9.2.0"
    assert gcc_version("(conda-forge gcc 12.1.0-17) 12.1.0") == "12.1.0"
    assert gcc_version("Could not collect") is None


REPORT_HEAD = """PyTorch version: {torch}
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

Python platform: Linux-5.15.0-60-generic-x86_64-with-glibc2.35
cuDNN version: {cudnn}
"""
SYSTEM_CUDNN_892 = """Probably one of the following:
/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2
/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.8.9.2
/usr/lib/x86_64-linux-gnu/libcudnn_ops_train.so.8.9.2"""


def _cudnn(torch: str, cudnn: str, tail: str = "") -> object:
    return dig(parse(REPORT_HEAD.format(torch=torch, cudnn=cudnn) + tail), "torch.cudnn_runtime")


def test_cudnn_runtime_comes_from_the_pip_wheel_torch_loads():
    pip = "\nVersions of relevant libraries:\n[pip3] nvidia-cudnn-cu12==8.9.2.26\n[pip3] torch==2.1.2\n[conda] Could not collect\n"
    assert _cudnn("2.1.2+cu121", "Could not collect", pip) == "8.9.2"
    assert _cudnn("2.1.2+cu121", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.7.1", pip) == "8.9.2"


def test_cudnn_runtime_from_a_conda_pytorch_build_string():
    conda = ("\nVersions of relevant libraries:\n[pip3] numpy==1.26.4\n"
             "[conda] pytorch                   2.1.2           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n")
    assert _cudnn("2.1.2", "Could not collect", conda) == "8.9.2"


def test_the_system_cudnn_counts_only_for_builds_that_link_it():
    assert _cudnn("2.1.0a0+32f93b1", SYSTEM_CUDNN_892) == "8.9.2"  # NGC-style source build
    assert _cudnn("2.1.2+cu121", SYSTEM_CUDNN_892) is ABSENT  # an official wheel brings its own
    assert _cudnn("2.1.0a0+32f93b1", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2") == "8.9.2"
    mixed = SYSTEM_CUDNN_892 + "\n/usr/lib/x86_64-linux-gnu/libcudnn.so.9.7.1"
    assert _cudnn("2.1.0a0+32f93b1", mixed) is ABSENT
    major_only = SYSTEM_CUDNN_892 + "\n/usr/local/cuda-11.2/targets/x86_64-linux/lib/libcudnn.so.8"
    assert _cudnn("2.1.0a0+32f93b1", major_only) is ABSENT


def test_environment_variables_are_read_but_not_claimed_as_the_whole_environment():
    assert report_variables(read("wsl2-rtx4070-laptop-torch24-vllm-truncated.txt")) == {"CUDA_MODULE_LOADING": "LAZY"}
    assert report_variables("PyTorch version: 2.1.2\nCaching allocator config: expandable_segments:True\n") == {
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    assert report_variables("PyTorch version: 2.7.0\nCaching allocator config: "
                            "{'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True'}\n") == {
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    assert report_variables(read("local-cpu.txt")) == {}
    assert "env" not in parse(read("wsl2-rtx4070-laptop-torch24-vllm-truncated.txt"))


# --------------------------------------------------------------------------- GPU names

def test_every_listed_gpu_name_maps_to_its_own_row():
    table = load("gpu_names")
    assert table["source"] and table["provenance"]
    for row in table["patterns"]:
        for example in row["examples"]:
            assert compute_capability(example) == row["cc"], (example, row["pattern"])


@pytest.mark.parametrize("name,cc", [
    ("NVIDIA GeForce GTX 1080", "6.1"), ("Tesla V100-SXM2-32GB", "7.0"), ("NVIDIA A100-SXM4-80GB", "8.0"),
    ("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA GeForce RTX 4090", "8.9"), ("NVIDIA GeForce RTX 5090", "12.0"),
    ("Tesla K80", "3.7"), ("Tesla T4", "7.5"), ("NVIDIA L4", "8.9"), ("NVIDIA B200", "10.0"),
    ("Quadro RTX 5000", "7.5"), ("NVIDIA RTX 5000 Ada Generation", "8.9"), ("GeForce GTX TITAN X", "5.2"),
    ("NVIDIA TITAN X (Pascal)", "6.1"), ("NVIDIA RTX A2000 12GB", "8.6"), ("Quadro M2000M", "5.0"),
    # Common names the table lacked (issue 13's review): laptop, entry and China-market parts.
    ("NVIDIA GeForce MX450", "7.5"), ("NVIDIA GeForce GT 1030", "6.1"), ("NVIDIA L20", "8.9"),
    ("NVIDIA GeForce MX250", "6.1"), ("NVIDIA GeForce GTX 1630", "7.5"), ("GeForce GTX 960M", "5.0"),
    ("GeForce GTX 980M", "5.2"), ("NVIDIA GeForce RTX 2050", "8.6"), ("GeForce 210", "1.2"),
    # Cards too old for the wheels, the commonest TE202 problem on real reports: Kepler, Maxwell, Fermi.
    ("GeForce GTX 660", "3.0"), ("GeForce GTX 760", "3.0"), ("NVIDIA GeForce GT 730", "3.5"), ("GeForce GT 710", "3.5"),
    ("GeForce GT 640", "3.0"), ("GeForce GT 750M", "3.0"), ("Quadro K4000", "3.0"), ("Quadro K1100M", "3.0"),
    ("GRID K520", "3.0"), ("GeForce 910M", "3.5"), ("GeForce 940MX", "5.0"), ("NVIDIA GeForce MX130", "5.0"),
    ("GeForce GTX 745", "5.0"), ("GeForce GTX 860M", "5.0"), ("Tesla M10", "5.0"), ("Tesla M4", "5.2"),
    ("Quadro M5000M", "5.2"), ("Quadro M1200", "5.0"), ("Quadro K2200M", "5.0"), ("Tesla C2050", "2.0"),
    ("Tesla M2090", "2.0"), ("GeForce GTX 580", "2.0"), ("GeForce GT 630", "2.1"), ("GeForce GTX 670M", "2.1"),
    ("Quadro RTX 3000", "7.5"), ("NVIDIA RTX 3500 Ada Generation Laptop GPU", "8.9"), ("NVIDIA GeForce MX570", "8.6"),
    ("NVIDIA CMP 170HX", "8.0"), ("GRID T4-16Q", "7.5"),
    # Near misses: a name that contains, or is contained in, an old card's name keeps its own row.
    ("NVIDIA GeForce GTX 1660", "7.5"), ("NVIDIA GeForce GT 1030", "6.1"), ("NVIDIA RTX A4000", "8.6"),
    ("Quadro M2000", "5.2"), ("Quadro K1200", "5.0"), ("Quadro K2200", "5.0"), ("Quadro K5200", "3.5"),
    ("Quadro RTX 6000", "7.5"), ("Quadro 6000", "2.0"), ("NVIDIA GeForce MX150", "6.1"), ("GeForce 940M", "5.0"),
    ("GeForce GT 730M", "3.0"), ("GeForce GT 720M", "2.1"), ("GeForce GTX 675MX", "3.0"), ("GeForce GTX 470M", "2.1"),
    ("GeForce GTX 480M", "2.0"), ("GeForce GTX 560 Ti", "2.1"), ("Tesla M40", "5.2"), ("Quadro K610M", "3.5"),
    ("NVIDIA GeForce RTX 3050 A Laptop GPU", "8.9"), ("NVIDIA GeForce RTX 3050 Laptop GPU", "8.6"),
])
def test_gpu_names_from_the_table(name, cc):
    assert compute_capability(name) == cc


@pytest.mark.parametrize("name", ["Device 66a1", "AMD Instinct MI300X (gfx942:sramecc+:xnack-)",
                                  "Apple M2 Max", "Orin", "GeForce 9800 GT",
                                  # no such product: a suffix the table does not know is not its neighbour's
                                  "GeForce GTX 980MX"])
def test_unknown_gpus_get_no_compute_capability(name):
    assert compute_capability(name) is None
