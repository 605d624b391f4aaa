"""`env --facts` on what applications print about torch (corpus batch 4): xFormers' load warning,
the Ultralytics banner, ComfyUI's System Information, a launcher's failure line, an extension
build's own lines, package tables under their command line, hand-written name-version lists.

Each firing case is a dev report of tests/fixtures/env_reports (copied from a public issue; the
manifest has its URL); each quiet case is the same layout with the environment fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchdoctor.cli import env as cli_env
from torchdoctor.facts import pasted
from torchdoctor.model import Status
from torchdoctor.runner import run_env_checks

REPORTS = Path(__file__).parent / "fixtures" / "env_reports"


def verdicts(text: str, tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "paste.txt"
    path.write_text(text, encoding="utf-8")
    return {f.code: f for f in run_env_checks(cli_env.load_facts(path))}


def report(name: str) -> str:
    return (REPORTS / name).read_text(encoding="utf-8")


def flagged(found: dict, code: str) -> bool:
    return found[code].status in (Status.ERROR, Status.WARNING)


# --------------------------------------------------------------------------- xFormers' warning

def test_xformers_built_for_another_torch_release_is_te103(tmp_path):
    found = verdicts(report("xformers874-almog-co-warning-built-201-have-210cu121-checklist.txt"), tmp_path)
    assert found["TE103"].status is Status.ERROR
    assert "built for torch 2.0.1" in found["TE103"].message and "2.1.0+cu121" in found["TE103"].message
    # The warning's "(you have ...)" is the running torch; the hand-filled checklist below it says 2.0.1.
    facts, _ = pasted.read(report("xformers874-almog-co-warning-built-201-have-210cu121-checklist.txt"))
    assert facts["torch"]["version"] == "2.1.0+cu121"


def test_xformers_built_for_the_cuda_build_beside_a_cpu_torch_says_swap_torch(tmp_path):
    found = verdicts(report("mistral59-russ22cox-quoted-xformers-built-cu121-have-cpu.txt"), tmp_path)
    assert found["TE103"].status is Status.ERROR
    assert "torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121" in " ".join(found["TE103"].fix.commands)


def test_xformers_listing_its_build_without_a_mismatch_is_quiet(tmp_path):
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu121)\n"
            "    Python  3.10.11 (you have 3.10.11)\n")
    found = verdicts(text, tmp_path)
    assert not flagged(found, "TE103")


# --------------------------------------------------------------------------- ComfyUI System Information

def test_comfyui_devices_are_the_gpus_a_cuda13_build_has_no_kernels_for(tmp_path):
    found = verdicts(report("comfy10468-hemn-debug-sysinfo-gtx1080-torch210-cu130-cut.txt"), tmp_path)
    assert found["TE202"].status is Status.ERROR
    assert "GTX 1080" in found["TE202"].message and "7.5" in found["TE202"].message


def test_comfyui_blackwell_on_a_cuda_126_build_is_te202(tmp_path):
    found = verdicts(report("comfy7126-makitatoki-quoted-sysinfo-5070ti-torch260-cu126-cut.txt"), tmp_path)
    assert found["TE202"].status is Status.ERROR and "12.8" in found["TE202"].message


def test_comfyui_with_a_build_that_covers_the_gpu_is_quiet(tmp_path):
    text = report("comfy7126-makitatoki-quoted-sysinfo-5070ti-torch260-cu126-cut.txt").replace(
        "2.6.0+cu126", "2.7.0+cu128")
    found = verdicts(text, tmp_path)
    assert found["TE202"].status is not Status.ERROR
    text = report("comfy10468-hemn-debug-sysinfo-gtx1080-torch210-cu130-cut.txt").replace("2.10.0+cu130", "2.10.0+cu126")
    assert verdicts(text, tmp_path)["TE202"].status is not Status.ERROR


# --------------------------------------------------------------------------- banners and launcher lines

def test_the_ultralytics_banner_gives_python_torch_and_its_cuda_devices(tmp_path):
    facts, kinds = pasted.read(report("rookieai33-lovefan-fan-log-3070ti-yolo-banner-torch220-cpu-cut.txt"))
    assert "Ultralytics banner" in kinds
    assert facts["torch"]["version"] == "2.2.0+cpu" and facts["torch"]["cuda"] is None
    assert facts["python"]["version"] == "3.9.13"
    assert "nvidia" not in facts  # "CPU (...)" or no device: the GPUs stay unknown, not absent
    banner = "Ultralytics YOLOv8.2.54 🚀 Python-3.9.13 torch-2.2.0+cpu CUDA:0 (NVIDIA GeForce RTX 3070 Ti, 8192MiB)\n"
    assert verdicts(banner, tmp_path)["TE203"].status is Status.ERROR
    healthy = banner.replace("torch-2.2.0+cpu", "torch-2.2.0+cu121")
    assert verdicts(healthy, tmp_path)["TE203"].status is Status.OK


def test_a_launchers_could_not_load_torch_is_an_import_failure(tmp_path):
    found = verdicts(report("sdscripts1597-andrer-kohya-banner-fbgemm-winerror126.txt"), tmp_path)
    assert found["TE101"].status is Status.ERROR and "fbgemm.dll" in found["TE101"].message
    text = report("sdscripts1597-andrer-kohya-banner-fbgemm-winerror126.txt")
    healthy = text[: text.index("02:54:18-197331 ERROR")]
    # The same banner without the failure line claims nothing about the import: the CUDA it names is read as
    # named without saying whose, and torch's import is not judged.
    quiet = healthy + "02:54:18-197331 INFO     Torch backend: nVidia CUDA 12.4 cuDNN 90100\n"
    data, _ = pasted.read(quiet)
    assert "import_status" not in data.get("torch", {}) and "unknown" in data["torch"]["cuda"]
    assert verdicts(quiet, tmp_path)["TE101"].status is not Status.ERROR


def test_a_windows_python_banner_with_pips_no_wheel_for_torch_is_te105(tmp_path):
    found = verdicts(report("a1111-9321-xiazixin-banner-py3112-torch1131-no-wheel.txt"), tmp_path)
    assert found["TE105"].status is Status.ERROR and "3.7–3.10" in found["TE105"].message
    healthy = report("a1111-9321-xiazixin-banner-py3112-torch1131-no-wheel.txt").replace(
        "Python 3.11.2 (tags/v3.11.2:878ead1", "Python 3.10.6 (tags/v3.10.6:9c7b4bd")
    assert verdicts(healthy, tmp_path)["TE105"].status is not Status.ERROR


# --------------------------------------------------------------------------- extension builds

def test_apexs_build_log_gives_cuda_home_and_torchs_cuda(tmp_path):
    found = verdicts(report("apex1171-aihaoc-torch160-cu102-nvcc90-build-log-cut.txt"), tmp_path)
    assert flagged(found, "TE208") and "/data/home/cuiaihao/cuda9" in found["TE208"].message
    healthy = (report("apex1171-aihaoc-torch160-cu102-nvcc90-build-log-cut.txt")
               .replace("release 9.0, V9.0.176", "release 10.2, V10.2.89").replace("cuda9/bin", "cuda10.2/bin")
               .split("Traceback")[0].replace("does not match", "matches"))
    assert not flagged(verdicts(healthy, tmp_path), "TE208")


def test_a_pasted_nvcc_of_another_major_than_torch_is_a_hedged_te208(tmp_path):
    found = verdicts(report("flashattn825-yubofeng2023-torch231-cu121-nvcc101.txt"), tmp_path)
    assert found["TE208"].status is Status.WARNING and "unless CUDA_HOME" in found["TE208"].message
    healthy = report("flashattn825-yubofeng2023-torch231-cu121-nvcc101.txt").replace(
        "release 10.1, V10.1.243", "release 12.1, V12.1.105")
    assert not flagged(verdicts(healthy, tmp_path), "TE208")


def test_flash_attns_own_toolkit_refusal_is_te208_and_a_bare_driver_line_lists_no_gpus(tmp_path):
    found = verdicts(report("glm4-235-washgo-nvsmi-line-flashattn-build-torch231-cu121.txt"), tmp_path)
    assert found["TE208"].status is Status.ERROR and "11.6" in found["TE208"].message
    # The nvidia-smi banner line alone names the driver, not the GPUs: no "lists no GPU" verdict.
    assert found["TE211"].status is Status.SKIP
    healthy = report("glm4-235-washgo-nvsmi-line-flashattn-build-torch231-cu121.txt").split("### Reproduction")[0]
    assert not flagged(verdicts(healthy, tmp_path), "TE208")


# --------------------------------------------------------------------------- package lists

def test_a_table_under_its_grep_command_is_read_and_partial(tmp_path):
    facts, kinds = pasted.read(report("audio3335-someonewating-piplist-torch1131-pypi-torchaudio-built-vs-condaforge.txt"))
    names = [d["name"] for d in facts["packages"]["distributions"]]
    assert {"torch", "torchaudio", "torchvision"} <= set(names)
    assert facts["packages"]["distributions_partial"] is True
    # Never "not installed" from a filtered list: numpy is simply not named.
    found = verdicts(report("audio3335-someonewating-piplist-torch1131-pypi-torchaudio-built-vs-condaforge.txt"), tmp_path)
    assert "not installed" not in found["TE104"].message


def test_an_unfiltered_table_under_its_command_is_whole():
    text = "$ pip list\ntorch                     2.5.1\ntorchvision               0.20.1\nnumpy                     2.1.3\n"
    facts, kinds = pasted.read(text)
    assert kinds == ["pip list"] and "distributions_partial" not in facts["packages"]


def test_conda_list_with_pytorch_and_pytorch_nightly_is_two_torches(tmp_path):
    found = verdicts(report("pt12031-yaroslavvb-conda-list-pytorch041-plus-nightly.txt"), tmp_path)
    assert found["TE102"].status is Status.WARNING and "1.0.0.dev20180921" in found["TE102"].message
    healthy = report("pt12031-yaroslavvb-conda-list-pytorch041-plus-nightly.txt").replace(
        "pytorch-nightly           1.0.0.dev20180921         py3.7_0    pytorch\n", "")
    assert verdicts(healthy, tmp_path)["TE102"].status is Status.OK


def test_hand_written_name_version_lines_are_a_partial_list(tmp_path):
    found = verdicts(report("tts3313-rkuo2000-kaggle-torch211-torchaudio201.txt"), tmp_path)
    assert found["TE103"].status is Status.ERROR and "torchaudio 2.0.1" in found["TE103"].message
    healthy = report("tts3313-rkuo2000-kaggle-torch211-torchaudio201.txt").replace("torchaudio-2.0.1", "torchaudio-2.1.1")
    assert verdicts(healthy, tmp_path)["TE103"].status is Status.OK


# The torch there is a 1.4.0a0 source build: the quiet case is a torchaudio 0.4 built from source beside
# it (an official 0.4.0 wheel would be built against the 1.4.0 release, TE103's other rule; an error there,
# where NVIDIA's Jetson torch gets a hedged warning).
@pytest.mark.parametrize("torchaudio,status", [("0.3.0", Status.ERROR), ("0.4.0a0+013ca32", Status.OK),
                                               ("0.4.0", Status.ERROR)])
def test_torchaudio_before_0_8_follows_its_pairing_table(tmp_path, torchaudio, status):
    text = report("audio307-sethhweidman-mac-torch140a0-src-torchaudio030-cut.txt").replace(
        "torchaudio==0.3.0", f"torchaudio=={torchaudio}")
    assert verdicts(text, tmp_path)["TE103"].status is status


# --------------------------------------------------------------------------- xformers.info and yolo checks
# No dev report has these two layouts; the text follows the projects' own print statements
# (xformers/info.py, ultralytics/utils/checks.py collect_system_info).

XFORMERS_INFO = """xFormers 0.0.23.post1
memory_efficient_attention.cutlassF:               unavailable
memory_efficient_attention.cutlassB:               unavailable
is_triton_available:                               False
pytorch.version:                                   2.1.0+cpu
pytorch.cuda:                                      not available
build.info:                                        available
build.cuda_version:                                1201
build.python_version:                              3.10.13
build.torch_version:                               2.1.2+cu121
source.privacy:                                    open source
"""


def test_xformers_info_built_against_another_torch_release_is_te103(tmp_path):
    found = verdicts(XFORMERS_INFO, tmp_path)
    assert found["TE103"].status is Status.ERROR and "torch==2.1.2" in found["TE103"].message
    facts, kinds = pasted.read(XFORMERS_INFO)
    assert kinds == ["xformers.info"] and facts["torch"]["cuda_available"] is False
    assert facts["packages"]["distributions_partial"] is True


def test_xformers_info_on_the_torch_it_was_built_for_is_quiet(tmp_path):
    healthy = (XFORMERS_INFO.replace("2.1.0+cpu", "2.1.2+cu121").replace("not available", "available")
               + "gpu.compute_capability:                            8.6\n"
               + "gpu.name:                                          NVIDIA GeForce RTX 3090\n")
    found = verdicts(healthy, tmp_path)
    assert found["TE103"].status is Status.OK and found["TE202"].status is not Status.ERROR
    facts, _ = pasted.read(healthy)
    assert facts["nvidia"]["gpus"][0]["compute_capability"] == "8.6"


YOLO_CHECKS = """Ultralytics 8.3.2 \U0001f680 Python-3.10.12 torch-2.4.1+cu121 CUDA:0 (Tesla T4, 15102MiB)
Setup complete \u2705 (2 CPUs, 12.7 GB RAM, 32.7/112.6 GB disk)

OS                  Linux-6.1.85+-x86_64-with-glibc2.35
Environment         Colab
Python              3.10.12
Install             pip
GPU                 Tesla T4, 15102MiB
GPU count           1
CUDA                12.1

numpy               \u2705 1.26.4>=1.23.0
torch               \u2705 2.4.1+cu121>=1.8.0
torchvision         \u2705 0.19.1+cu121>=0.9.0
"""


def test_yolo_checks_rows_are_the_system_and_a_partial_package_list(tmp_path):
    facts, kinds = pasted.read(YOLO_CHECKS)
    assert kinds == ["Ultralytics banner", "yolo checks"]
    assert facts["python"]["system"] == "Linux" and facts["nvidia"]["gpus"][0]["name"] == "Tesla T4"
    assert {d["name"] for d in facts["packages"]["distributions"]} == {"numpy", "torch", "torchvision"}
    assert facts["packages"]["distributions_partial"] is True
    assert verdicts(YOLO_CHECKS, tmp_path)["TE103"].status is Status.OK


def test_yolo_checks_with_a_torchvision_of_another_torch_is_te103(tmp_path):
    broken = YOLO_CHECKS.replace("0.19.1+cu121>=0.9.0", "0.20.1+cu121>=0.9.0")
    found = verdicts(broken, tmp_path)
    assert found["TE103"].status is Status.ERROR and "torchvision 0.20.1" in found["TE103"].message


def test_the_interactive_python_banner_names_the_system_and_decides_te103():
    # `pip list | grep -i torch` then `python` on Linux (tt-forge#890): PyPI's CUDA torchvision beside +cpu torch.
    name = "ttforge890-vzeljkovictt-pip-list-grep-torch290cpu-torchvision0240.txt"
    facts = cli_env.load_facts(REPORTS / name)
    assert facts.python.system == "Linux"
    assert {f.code: f for f in run_env_checks(facts)}["TE103"].status is Status.ERROR


def test_the_same_list_under_a_windows_banner_is_quiet(tmp_path):
    # PyPI's untagged torchvision for Windows is a CPU build: it matches torch+cpu.
    text = ((REPORTS / "ttforge890-vzeljkovictt-pip-list-grep-torch290cpu-torchvision0240.txt").read_text()
            .replace("[GCC 11.4.0] on linux", "[MSC v.1944 64 bit (AMD64)] on win32"))
    path = tmp_path / "paste.txt"
    path.write_text(text, encoding="utf-8")
    facts = cli_env.load_facts(path)
    assert facts.python.system == "Windows"
    assert {f.code: f for f in run_env_checks(facts)}["TE103"].status is Status.OK
