"""`env --facts` on environment facts stated in free text (doctor/facts/prose.py): the last-resort reader
for layouts no reader knows. Each fact is shown read where the text states it, and left unknown, with
the reason, where a close text does not state it unambiguously; the checks then judge what was read."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchdoctor.cli import env as cli_env
from torchdoctor.cli.common import UsageError
from torchdoctor.facts import pasted, prose
from torchdoctor.facts.model import Facts, known
from torchdoctor.model import Status
from torchdoctor.render.summary import closing_line
from torchdoctor.runner import run_env_checks


def load_text(text: str, tmp_path: Path) -> Facts:
    path = tmp_path / "paste.txt"
    path.write_text(text, encoding="utf-8")
    return cli_env.load_facts(path)


def verdicts(facts: Facts) -> dict[str, object]:
    return {f.code: f for f in run_env_checks(facts)}


def stated(text: str) -> dict:
    return prose.read(pasted._lines(text))


# --------------------------------------------------------------------------- read and judged

def test_a_sentence_with_gpu_torch_build_and_driver_is_read_and_judged(tmp_path):
    facts = load_text("I have a Tesla T4 and torch 1.7.1+cu110 on driver 418.87, and it says CUDA is unavailable.\n",
                      tmp_path)
    assert (facts.torch.version, facts.torch.cuda, facts.nvidia.driver_version) == ("1.7.1+cu110", "11.0", "418.87")
    assert [g.name for g in facts.nvidia.gpus] == ["Tesla T4"] and facts.nvidia.gpus[0].compute_capability == "7.5"
    found = verdicts(facts)
    assert found["TE201"].status is Status.ERROR and "418.87" in found["TE201"].message
    # The same sentence on a driver that runs CUDA 11.0: quiet.
    healthy = verdicts(load_text("I have a Tesla T4 and torch 1.7.1+cu110 on driver 455.32.00.\n", tmp_path))
    assert healthy["TE201"].status is Status.OK and healthy["TE202"].status is Status.OK


def test_gpu_and_driver_alone_are_read_and_the_torch_checks_say_not_checked(tmp_path):
    facts = load_text("My GPU is GeForce GTX 1080 Ti, driver 390.87\n", tmp_path)
    assert facts.nvidia.driver_version == "390.87" and [g.compute_capability for g in facts.nvidia.gpus] == ["6.1"]
    found = verdicts(facts)
    for code in ("TE201", "TE202", "TE203"):
        assert found[code].status is Status.SKIP and "torch" in found[code].message, code
    assert "No problems found" not in closing_line(list(found.values()))


@pytest.mark.parametrize("text,says", [
    ("The loss diverges after three epochs when I raise the learning rate.", "states no torch, GPU, driver"),
    ("Set CUDA_VISIBLE_DEVICES and run the cuda-aware build.", "states no torch, GPU, driver"),  # no version after cuda-
    ("| GPU | Batch | Time |\n|---|---|---|\n| RTX 4090 | 32 | 1.2 s |\n| A100 | 64 | 0.9 s |",  # only ambiguous
     r"ambiguous: the text names several GPUs \(A100, RTX 4090\)"),
])
def test_a_text_that_states_no_fact_is_refused_in_one_line(text, says, tmp_path):
    with pytest.raises(UsageError, match=says):
        load_text(text + "\n", tmp_path)


@pytest.mark.parametrize("text", [
    "It crashes with CUDA 11.3.",
    "I built it with pytorch/cuda-11.1 and system-wide cuda-11.2 and it works",  # a path's or module's name
])
def test_a_cuda_version_named_without_saying_whose_is_read_and_left_unknown_with_why(text, tmp_path):
    # Refusing it would say the text "states no ... CUDA ... version", which it does: it is read, and the
    # checks that need torch's CUDA say why they did not run.
    facts = load_text(text + "\n", tmp_path)
    assert not known(facts.get("torch.cuda")) and "without saying it is torch's build" in facts.get("torch.cuda").reason
    assert "No problems found" not in closing_line(list(verdicts(facts).values()))


@pytest.mark.parametrize(("text", "gpu"), [
    ("training on RTX 3090 is slow", "RTX 3090"),
    ("my card: GTX 1080Ti", "GTX 1080 Ti"),
    ("the old box has a Tesla K80", "Tesla K80"),
    ("running on A100-SXM4-40GB nodes", "A100-SXM4-40GB"),
    ("I use a 4090 显卡", "RTX 4090"),
    ("2x3090 in one machine", "RTX 3090"),
    ("GPU: 3090", "RTX 3090"),
    ("env: torch1.6, 2080Ti", "RTX 2080 Ti"),       # the suffix makes a model number a card
    ("my 4070 super", "RTX 4070 SUPER"),
    ("a T4 GPU on Colab", "NVIDIA T4"),               # a short datacenter name beside a word for a GPU
    ("GPU: A10G", "NVIDIA A10G"),
    # Chinese writes no space between words: a CJK character is no letter of the name (isat#12, pytorch#14681).
    ("我用的是RTX3060(12G),每次运行项目都显示是cpu", "RTX3060"),
    ("显卡是RTX 4090，驱动535", "RTX 4090"),
    ("GPU is GeForce GT 740M | 3.0", "GeForce GT 740M"),   # a laptop part's M suffix
    ("I'm not able to use the A100-80G GPU because", "A100-80G"),  # memory without its B; "not able to" is a failure here
    # A card named after "support": people ask whether their own card is supported.
    ("Had to change them to support a 5070 ti GPU.", "RTX 5070 Ti"),
    ("新版本能不能支持下 tesla k40m的显卡", "tesla k40m"),
    # A GeForce family named as a family: one compute capability for every card in it.
    ("buying an NVIDIA 50 series card and now i cant run it", "RTX 50 series"),
    ("已解决 30系显卡不支持11.0以下的CUDA版本了", "RTX 30 series"),
    ("on my RTX 40-series laptop", "RTX 40 series"),
])
def test_a_gpu_is_read_by_any_name_the_gpu_table_knows(text, gpu):
    assert [g["name"] for g in stated(text)["nvidia"]["gpus"]] == [gpu]


@pytest.mark.parametrize("text", [
    "listening on port 3090",                  # a model number without a word for a graphics card
    "see line 4090 of the log",
    "port 3060 timed out",
    "the T4 test case fails",                  # a short datacenter name alone
    "Tesla's stock fell 4090 points",
    "newer GPUs like the RTX 4090 need CUDA 11.8",   # an example, not this machine's
    "型号RTX30601的日志",                       # letters and digits run on past the name: no card of that name
    "this project requires an RTX 3090 GPU",    # a requirement stays one, "support" aside
    "需要30系显卡",
    "the v2.30 series of releases",             # a release series, not a GPU family
    "RTX 20 series cards",                      # a family whose cards differ (the RTX 2050 is Ampere): no one capability
])
def test_a_number_or_an_example_is_no_gpu(text):
    assert "gpus" not in stated(text).get("nvidia", {})


def test_two_gpus_named_leave_the_gpus_unknown_with_the_reason():
    gpus = stated("It works on an A100 but crashes on my GTX 1080.")["nvidia"]["gpus"]
    assert "unknown" in gpus and "several GPUs" in gpus["unknown"]
    # One GPU written two ways is one GPU.
    assert len(stated("NVIDIA GeForce RTX 3090 (rtx3090)")["nvidia"]["gpus"]) == 1


# --------------------------------------------------------------------------- torch and its CUDA build

@pytest.mark.parametrize(("text", "version", "cuda"), [
    ("The pytorch version is the 2.0.1", "2.0.1", None),   # fooocus#1984's article before the number
    ("torch 1.7.1", "1.7.1", None),
    ("pytorch=1.4.0", "1.4.0", None),
    ("PyTorch版本：2.1.0+cu121", "2.1.0+cu121", "12.1"),
    ("env: torch2.0.1, python3.10", "2.0.1", None),
    ("torch 2.1 cu121", "2.1", "12.1"),
    ("pytorch 1.8 with CUDA 11.1 build", "1.8", "11.1"),
    ("PyTorch 2.1.0 (CUDA 12.1)", "2.1.0", "12.1"),
    ("my torch 2.0.1 was built with CUDA 11.8", "2.0.1", "11.8"),
    ("I use torch 2.1.0+cu121.", "2.1.0+cu121", "12.1"),           # the sentence's full stop is no part of the tag
    ("falls back to torch-2.6.0+cpu", "2.6.0+cpu", None),         # as pip names what it installs
    ("so I installed torch==2.9.0+cu130 and pinned:", "2.9.0+cu130", "13.0"),   # comfyui#10517: the pin, installed
])
def test_torch_and_the_cuda_the_text_ties_to_it(text, version, cuda):
    torch = stated(text)["torch"]
    assert torch["version"] == version
    assert torch.get("cuda") == cuda


@pytest.mark.parametrize("text", [
    "torch 2.0.1, CUDA 11.0",                 # the toolkit's or the driver's: not said to be torch's
    "pytorch 1.8 with CUDA 11.1",
    "torch 2.0.1 and nvcc 11.8",
])
def test_a_cuda_named_on_its_own_is_never_torchs_build(text, tmp_path):
    facts = load_text(text + ", driver 440.33\n", tmp_path)
    assert not known(facts.torch.cuda)
    found = verdicts(facts)
    # Not judged as torch's CUDA: skipped, or (torch 2.0.1's builds all need driver >= 450.80.02) a warning from the
    # release's builds, whichever is installed.
    te201 = found["TE201"]
    assert te201.status is Status.SKIP or (te201.status is Status.WARNING
                                          and "every official CUDA build of torch 2.0.1" in te201.message)
    if "CUDA 11" in text:
        assert "without saying it is torch's build" in facts.torch.cuda.reason
    # Tied to torch, the same CUDA decides TE201.
    tied = verdicts(load_text("torch 2.0.1 built with CUDA 11.8, driver 440.33\n", tmp_path))
    assert tied["TE201"].status is Status.ERROR


def test_the_yolo_banners_cpu_is_the_device_chosen_not_a_cpu_build():
    assert "cuda" not in stated("YOLOv5 v4.0-14-gb75c432 torch 1.7.1 CPU")["torch"]
    assert stated("torch 1.7.1+cpu")["torch"]["cuda"] is None


def test_a_cpu_build_said_of_the_requirements_does_not_outweigh_the_cuda_build_installed(tmp_path):
    # comfyui#10517 (batch 29): "requirements.txt are configured for the cpu only versions of torch, so I installed
    # torch==2.9.0+cu130": the tag of what was installed contradicts the CPU words, so TE203 has no CPU build to report.
    facts = load_text("I saw that requirements.txt are configured for the cpu only versions of torch, so I installed "
                      "torch==2.9.0+cu130 and pinned torchvision==0.24.0. My GPU is an RTX 5090.\n", tmp_path)
    assert facts.torch.version == "2.9.0+cu130" and not known(facts.torch.cuda)
    assert verdicts(facts)["TE203"].status is not Status.WARNING and verdicts(facts)["TE203"].status is not Status.ERROR


def test_torchs_cuda_said_of_torch_itself():
    said = stated("PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8.")
    assert said["torch"] == {"cuda": "11.7"}


@pytest.mark.parametrize("text", [
    "please upgrade to torch 2.0",
    "this needs torch 1.8 or later",
    "fixed in pytorch 2.1",
    "torch>=1.7",
    "pip install torch==2.0.1",
    "it should be installed torch==2.0.1 for this repo",
    "it will install torch 2.9.0",
    "it was working fine with PyTorch 0.3.0",
])
def test_a_requirement_advice_or_history_is_not_the_torch_installed(text):
    assert "version" not in stated(text).get("torch", {})


@pytest.mark.parametrize(("text", "version"), [
    ("The extension does not work with torch 2.1.0", "2.1.0"),     # a failure is reported from where it happens
    ("it doesn't work on pytorch 1.13.1", "1.13.1"),
    ("worked before, now it crashes with torch 2.0.1", "2.0.1"),
])
def test_a_failure_is_stated_of_this_machine(text, version):
    assert stated(text)["torch"]["version"] == version


def test_what_works_elsewhere_is_not_this_machines():
    assert "torch" not in stated("It works with torch 1.6.")
    assert "unknown" in stated("It works with torch 1.6, but crashes with torch 1.7.1")["torch"]["version"]


def test_two_torch_versions_named_leave_it_unknown(tmp_path):
    facts = load_text("Works with torch 1.6 and 1.7, fails with torch 1.8.0 on my RTX 3090.\n", tmp_path)
    assert not known(facts.torch.version) and "torch" in facts.torch.version.reason
    # "1.7" and "1.7.1" are one version, written twice.
    assert stated("torch 1.7 (torch 1.7.1+cu110 exactly)")["torch"]["version"] == "1.7.1+cu110"


def test_numpy_beside_torch_is_a_partial_list_te104_judges(tmp_path):
    # NumPy's major told beside torch's release (EndoGSLAM#2 told it of an install command, env batch 38).
    found = verdicts(load_text("I have torch 1.13.1+cu117; numpy version is 2.0.0\n", tmp_path))
    assert found["TE104"].status is Status.ERROR
    quiet = verdicts(load_text("torch 2.5.1 with numpy 2.1.2 on Ubuntu 22.04\n", tmp_path))
    assert quiet["TE104"].status is Status.OK
    # The fix told as advice is no NumPy of this machine.
    assert "packages" not in stated("torch 2.1.0, specifying numpy==1.26 will fix it")


def test_torchvision_beside_torch_is_a_partial_list_tte103_judges(tmp_path):
    found = verdicts(load_text("torch 2.0.1 and torchvision 0.16.0 on Ubuntu 22.04\n", tmp_path))
    assert found["TE103"].status is Status.ERROR
    quiet = verdicts(load_text("torch 2.1.0 and torchvision 0.16.0 on Ubuntu 22.04\n", tmp_path))
    assert quiet["TE103"].status is Status.OK
    assert "torchaudio" not in str(stated("this installs torchaudio 2.11.x beside torch 2.10.0"))


def test_a_companion_version_alone_is_read_and_torch_checks_say_not_checked(tmp_path):
    # LibMTL#62's whole environment: one line naming torchvision's build. It is a fact of the machine, not nothing.
    facts = load_text("the Dependencies says torchvision >= 0.9.0\nmy torchvision Version: 0.13.1+cu113,  >= 0.9.0\n",
                      tmp_path)
    assert [(d.name, d.version) for d in facts.packages.distributions] == [("torchvision", "0.13.1+cu113")]
    found = verdicts(facts)
    assert found["TE103"].status is Status.SKIP and "torch is not named" in found["TE103"].message
    assert "No problems found" not in closing_line(list(found.values()))
    from rich.console import Console

    from torchdoctor.render.human import render_env
    console = Console(record=True, width=100)
    render_env(facts, list(found.values()), console)
    assert console.export_text().splitlines()[0] == "torchdoctor env · (from paste facts)"  # no torch, no Python named
    # The requirement alone is no torchvision of this machine: still refused with the one line.
    with pytest.raises(UsageError, match="states no torch, GPU, driver"):
        load_text("the Dependencies says torchvision >= 0.9.0\n", tmp_path)


# --------------------------------------------------------------------------- driver, Python, OS

@pytest.mark.parametrize(("text", "driver"), [
    ("driver 470.57", "470.57"), ("NVIDIA driver version: 450.80.02", "450.80.02"), ("驱动 535.54.03", "535.54.03"),
    ("with the 535.104.05 driver", "535.104.05"),
])
def test_the_driver_in_prose(text, driver):
    assert stated(text)["nvidia"]["driver_version"] == driver


def test_the_drivers_cuda_said_too_old_in_prose():
    # instantmesh#78 (a dev report): the driver's own CUDA, said of a driver that cannot be updated.
    said = stated("My server CUDA driver version is too old (11.4) and cannot be updated.")
    assert said["nvidia"]["cuda_driver_version"] == "11.4"
    assert "nvidia" not in stated("CUDA 11.4 is too old for this project")


def test_a_driver_branch_alone_is_unknown_with_the_reason():
    for text in ("驱动 535", "nvidia-driver-525 is what apt has"):
        driver = stated(text)["nvidia"]["driver_version"]
        assert "without its minor version" in driver["unknown"], text
    assert "nvidia" not in stated("torch 2.1 needs driver >= 525.60.13")
    assert "nvidia" not in stated("you need driver 525.60.13 or newer")
    assert stated("CUDA driver 11.4")["nvidia"] == {"cuda_driver_version": "11.4"}  # a CUDA version, not the driver's number


def test_a_driver_branch_alone_decides_te201_against_another_branchs_floor(tmp_path):
    assert stated("驱动 535")["nvidia"]["driver_branch"] == "535"
    # R470 is below the CUDA 12 family's floor (525.60.13): too old, and the CUDA 11.8 build runs on it.
    old = verdicts(load_text("PyTorch版本: 2.3.1+cu121，显卡 RTX 3090，驱动 470\n", tmp_path))["TE201"]
    assert old.status is Status.ERROR and "R470" in old.message and "+cu118" in old.message
    # R535 is above it; R525 is the floor's own branch, where only the minor version decides.
    new = verdicts(load_text("PyTorch版本: 2.3.1+cu121，显卡 RTX 3090，驱动 535\n", tmp_path))["TE201"]
    assert new.status is Status.OK and "R535" in new.message
    same = verdicts(load_text("PyTorch版本: 2.3.1+cu121，显卡 RTX 3090，驱动 525\n", tmp_path))["TE201"]
    assert same.status is Status.SKIP and "without its minor version" in same.message


def test_nvidia_smis_banner_line_gives_the_drivers_cuda():
    nvidia = stated("Driver Version: 535.54.03    CUDA Version: 12.2")["nvidia"]
    assert nvidia == {"driver_version": "535.54.03", "cuda_driver_version": "12.2"}
    assert stated("NVIDIA-SMI 535.104.05")["nvidia"] == {"driver_version": "535.104.05"}
    # The driver's CUDA said as such is the driver's, never torch's build.
    said = stated("my driver supports CUDA 12.2, torch 2.1.0")
    assert said["nvidia"] == {"cuda_driver_version": "12.2"} and "cuda" not in said["torch"]
    assert stated("CUDA driver version: 11.4")["nvidia"] == {"cuda_driver_version": "11.4"}
    # A CUDA alone beside the driver's number is not the driver's CUDA.
    assert stated("driver 470.57, CUDA 11.4")["nvidia"] == {"driver_version": "470.57"}


def test_chinese_copulas_join_a_key_to_its_value():
    said = stated("torch版本是2.0.1，显卡是3090，驱动版本是535.54.03，python版本为3.10")
    assert said["torch"] == {"version": "2.0.1"} and said["python"] == {"version": "3.10"}
    assert said["nvidia"]["driver_version"] == "535.54.03" and said["nvidia"]["gpus"][0]["name"] == "RTX 3090"


@pytest.mark.parametrize(("text", "cuda"), [("the cu118 build of torch", "11.8"), ("pytorch built with CUDA 11.8", "11.8"),
                                            ("the CUDA 12.1 wheel of PyTorch", "12.1")])
def test_the_build_named_of_torch_is_its_cuda(text, cuda):
    assert stated(text)["torch"] == {"cuda": cuda}


def test_python_and_system():
    said = stated("Ubuntu 20.04, python 3.8.10")["python"]
    assert said == {"version": "3.8.10", "system": "Linux"}
    assert stated("win11 + Python 3.11")["python"] == {"version": "3.11", "system": "Windows"}
    assert "python" not in stated('File "/usr/lib/python3.8/site-packages/torch/__init__.py", line 1')
    assert stated("works on Ubuntu, fails on Windows 10")["python"]["system"]["unknown"].startswith("the text names")
    # WSL is Linux on a Windows host: naming both names one system.
    assert stated("Windows 11, WSL2 Ubuntu 22.04")["python"] == {"system": "Linux", "wsl": True}
    assert stated("on my M1 Mac")["python"] == {"system": "Darwin"}
    assert "python" not in stated("the tf.keras window closes, MAC address 00:1a:2b")
    # A system named without a version or words saying the machine runs it is no fact.
    assert "python" not in stated("Windows rocks, linux is great")
    assert stated("OS: Ubuntu")["python"] == {"system": "Linux"}


# --------------------------------------------------------------------------- beside the layout readers

def test_prose_fills_what_a_layout_left_unknown_and_never_overrides_it(tmp_path):
    report = ("Collecting environment information...\nPyTorch version: 2.0.0+cpu\nIs debug build: False\n"
              "CUDA used to build PyTorch: None\nOS: Microsoft Windows 10 Pro\nPython version: 3.10.9\n"
              "Is CUDA available: False\nGPU models and configuration: Could not collect\n"
              "Nvidia driver version: 531.61\n")
    facts = load_text("I have an RTX 3080 and driver 470.57.\n\n" + report, tmp_path)
    assert facts.nvidia.driver_version == "531.61"  # the report's own field
    assert [g.name for g in facts.nvidia.gpus] == ["RTX 3080"]
    assert verdicts(facts)["TE203"].status is Status.ERROR
    # Without the GPU in the text, the report alone cannot name a GPU: a warning that says so, not an error.
    alone = verdicts(load_text(report, tmp_path))["TE203"]
    assert alone.status is Status.WARNING and "does not say whether" in alone.message


def test_another_torch_in_prose_lends_its_build_to_none():
    facts, kinds = pasted.read("torch 2.1.0\ntorchvision 0.16.0\n\nOn my laptop I had torch 2.0.1+cu118 before.\n")
    assert facts["torch"]["version"] == "2.1.0" and "cuda" not in facts["torch"]


def test_prose_beside_torchs_warning_naming_its_gpu_adds_no_gpu():
    text = ("UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
            "PyTorch installation.\nIt works on my other machine with an RTX 3090.\n")
    facts, _ = pasted.read(text)
    assert "gpus" not in facts.get("nvidia", {})


# --------------------------------------------------------------------------- cost

def test_a_long_paste_is_read_line_by_line_without_blowing_up():
    line = "torch " + " " * 5000 + "x driver" + " " * 5000 + "y python" + "1." * 2000 + "x"
    assert stated(line) == {}
    assert stated("\n".join(["torch 2.1.0 on an RTX 3090"] * 4000))["torch"]["version"] == "2.1.0"


def test_the_rtx_50_family_named_as_a_family_is_one_compute_capability(tmp_path):
    # lmcache#528 (a dev report): "RTX 50xx requires sm_120" beside a cu126 torch printed by a script.
    found = verdicts(load_text("The key point: RTX 50xx requires sm_120\nPyTorch version: 2.7.0+cu126\n", tmp_path))
    assert found["TE202"].status is Status.ERROR and "12.0" in found["TE202"].message
    # Another family beside it leaves the GPU unknown: which one this machine has is not said.
    both = verdicts(load_text("torch 2.7.0+cu126 works on my RTX 4090 but not on the RTX 50 series\n", tmp_path))
    assert both["TE202"].status is not Status.ERROR


def test_a_driver_branch_that_is_no_number_is_no_fact():
    # A hand-edited facts file may hold anything there: TE201 says "not checked" instead of failing.
    facts = Facts.from_json({"torch": {"version": "2.3.1+cu121", "cuda": "12.1"},
                             "nvidia": {"driver_version": {"unknown": "not in the report"}, "driver_branch": "R5xx"}})
    te201 = verdicts(facts)["TE201"]
    assert te201.status is Status.SKIP and "not checked" in te201.message


@pytest.mark.parametrize(("text", "torch"), [
    # An app's system page quoted: the tag makes a 1.x/2.x version torch's own.
    ('I have an RTX2060 6Gb, but in the "System Info" section it says "2.0.0+cpu Autocast half"',
     {"version": "2.0.0+cpu", "cuda": None}),  # https://github.com/vladmandic/automatic/issues/409
    ("'2.1.2+cu121'", {"version": "2.1.2+cu121", "cuda": "12.1"}),
])
def test_a_quoted_tagged_torch_version_alone_is_read(text, torch):
    assert stated(text)["torch"] == torch


@pytest.mark.parametrize("text", [
    "torchaudio '2.0.1+cu118' is installed",  # another package's
    "xformers (0.0.20+cu118) fails to build",  # 0.x: not a torch release
    "deepspeed=='2.1.0+cu118'",
    "I installed 2.1.0+cu118 yesterday",  # not quoted: which package is not said
])
def test_a_tagged_version_that_is_not_said_to_be_torch_is_not_read_as_torch(text):
    assert "torch" not in stated(text)


@pytest.mark.parametrize(("text", "cpu_build"), [
    ("* PyTorch version: 1.5.0 (CPU toolkit)", True),  # https://github.com/pyg-team/pytorch_geometric/issues/1330
    ("I installed torch 2.1.0 cpu-only from pip", True),
    ("pytorch 1.8 (cpuonly)", True),
    ("YOLOv5 v6.0 torch 1.10.0 CPU", False),  # the YOLOv5 banner names the device chosen, not the build
])
def test_a_cpu_build_said_in_words_after_the_version(text, cpu_build):
    torch = stated(text)["torch"]
    assert ("cuda" in torch and torch["cuda"] is None) is cpu_build


@pytest.mark.parametrize("text,version,cuda", [
    # pip's and conda's name-version pair for what is installed (voicecraft#32)
    ("the different version `pytorch-2.2.2` is forcibly installed over the initially installed version.", "2.2.2", None),
    # a bracket opening the value, a build tag joined by " + " (dgl#7157)
    ("This is my environment: pytorch(2.2 + cu118)", "2.2", "11.8"),
    # a bug template's placeholder in brackets before the value (DGL's template, dgl#5442)
    (" - Backend Library & Version (e.g., PyTorch 0.4.1, MXNet/Gluon 1.3): pytorch 1.9.0+cu111", "1.9.0+cu111", "11.1"),
])
def test_torch_written_as_a_distribution_a_bracket_or_after_a_templates_example(text, version, cuda):
    torch = stated(text)["torch"]
    assert torch["version"] == version and torch.get("cuda") == cuda


@pytest.mark.parametrize("text", [
    # a wheel's file name is a download, not what is installed; an sdist's too
    "Downloading torch-2.2.2-cp310-cp310-manylinux1_x86_64.whl (755.5 MB)",
    "Processing ./torch-1.4.0.tar.gz",
    # the template's example alone is no fact
    " - Backend Library & Version (e.g., PyTorch 0.4.1, MXNet/Gluon 1.3): ",
])
def test_a_file_name_or_a_templates_example_is_no_torch_version(text):
    assert "version" not in stated(text).get("torch", {})


def test_a_cpu_build_said_before_torch_is_read_and_judged_beside_the_gpu(tmp_path):
    text = ("  - OS: Windows 11\n  - GPU: NVIDIA T1000\n  - CUDA Driver: 12.0 (Driver 528.49)\n\n"
            "  The requirements.txt installs a CPU-only version of PyTorch on Python 3.14.\n")
    facts = load_text(text, tmp_path)
    assert facts.torch.cuda is None
    assert verdicts(facts)["TE203"].status is Status.ERROR
    # a CUDA build said the same way, and a CPU build that is only advice, are no CPU build here
    cuda = load_text(text.replace("a CPU-only version", "the CUDA 12.1 version"), tmp_path)
    assert cuda.torch.cuda == "12.1" and verdicts(cuda)["TE203"].status is not Status.ERROR
    advice = load_text(text.replace("The requirements.txt installs", "You should not install"), tmp_path)
    assert not known(advice.get("torch.cuda")) and verdicts(advice)["TE203"].status is not Status.ERROR


@pytest.mark.parametrize("text", [
    "When I run pip install, torch installed w/o gpu support.",
    "My torch was installed without CUDA support",
    "I have pytorch without gpu support on my laptop",
    "It installed a CPU-only torch",
    "torch (cpu only) is installed",
    "我的pytorch是cpu版本的",
    "装的是CPU版本的torch",
    # What an install ended with: the install's own words are not advice there (pytorch#168065, ComfyUI custom nodes).
    "noticing that trying to `pip install torch` resulted in the CPU version of torch stable.",
    "it broke my installation by forcing a non-CUDA version of Torch to be installed.",
    "pip install -r requirements.txt replaced it with the CPU build of torch",
    # A command quoted before it is what was run, not advice (chatterbox#95).
    "When installed with 'pip install chatterbox-tts' torch installed w/o gpu support.",
    # What an environment file's install gave, with torch as the subject (GASTON#8, FastFold#27).
    "I noticed that the torch is actually installed with the cpu version? (.cuda.is_available() = False).",
    "In current environment.yml conda not install cuda related package, that lead pytorch choose cpu version instead cuda version.",
])
def test_a_cpu_build_said_in_words(text):
    assert stated(text) == {"torch": {"cuda": None}}


@pytest.mark.parametrize("text", [
    "Can I use torch without GPU?",
    "you should install torch without cuda if you have no gpu",
    "torch runs without errors now",
    "you should install the CPU version of torch if you have no GPU",
    "I will install the CPU build of torch on the laptop",
    "run `pip install torch` to get the CPU build of torch",
    "Should torch be installed with the cpu version on a laptop?",
    "make sure pytorch picks the cuda version, not the cpu one",
])
def test_a_question_advice_or_another_without_is_no_cpu_build(text):
    assert "cuda" not in stated(text).get("torch", {})


def test_a_cpu_build_said_in_words_beside_a_gpu_is_te203(tmp_path):
    facts = load_text("Windows 11, python 3.11.9, GPU: RTX 4060 laptop.\nMy torch was installed without CUDA support.",
                      tmp_path)
    assert verdicts(facts)["TE203"].status is Status.ERROR


def test_the_version_a_change_went_to_is_this_machines():
    assert stated("Since it updated to using torch 2.8.0 the second sampler maxes out VRAM")["torch"] == {"version": "2.8.0"}
    assert stated("I upgraded to torch 2.1.0 yesterday")["torch"] == {"version": "2.1.0"}
    # The version it came from is another time's: beside the one it went to, neither is read as this machine's.
    assert "version" not in stated("after I upgraded from torch 1.13 to torch 2.0 it fails").get("torch", {}) or \
        not isinstance(stated("after I upgraded from torch 1.13 to torch 2.0 it fails")["torch"]["version"], str)


CONDA_UNSATISFIABLE = """Got this error with Python 3.9.7:

```
UnsatisfiableError: The following specifications were found
to be incompatible with the existing python installation in your environment:

Specifications:

  - pytorch=1.4.0 -> python[version='>=2.7,<2.8.0a0|>=3.6,<3.7.0a0|>=3.7,<3.8.0a0|>=3.8,<3.9.0a0|>=3.5,<3.6.0a0']
  - torchvision=0.5.0 -> python[version='>=2.7,<2.8.0a0|>=3.5,<3.6.0a0|>=3.6,<3.7.0a0|>=3.8,<3.9.0a0|>=3.7,<3.8.0a0']

Your python: python=3.9
```
"""


def test_a_cpu_build_said_without_a_version_is_warned_and_says_the_version_is_unknown(tmp_path):
    # pytorch#168065: "trying to `pip install torch` resulted in the CPU version of torch stable", no GPU listed.
    facts = load_text("Hi, noticing that trying to `pip install torch` resulted in the CPU version of torch stable.\n",
                      tmp_path)
    found = verdicts(facts)["TE203"]
    assert found.status is Status.WARNING
    assert found.evidence["torch"] == "version unknown"
    versioned = verdicts(load_text("`pip install torch` resulted in torch 2.9.1+cpu on my RTX 4090 box\n", tmp_path))["TE203"]
    assert versioned.status is Status.ERROR and versioned.evidence["torch"] == "torch 2.9.1+cpu"


# ---------------------------------------------------------------- batch 22's classes (fifteenth session)

UV_NO_CP314 = """\
```
uv sync --extra serve
Using CPython 3.14.0
Creating virtual environment at: .venv
Resolved 116 packages in 13ms
error: Distribution `torch==2.8.0 @ registry+https://pypi.org/simple` can't be installed because it doesn't have a source distribution or wheel for the current platform

hint: You're using CPython 3.14 (`cp314`), but `torch` (v2.8.0) only has wheels with the following Python ABI tags: `cp312`, `cp313`, `cp313t`
```
"""


# An installer naming this environment's Python and the torch it found no build of for it; then the same refusal
# where the Python is one that release has, where the conflict lies elsewhere (a channel, a platform, the index).
INSTALLER_REFUSALS = [
    # conda's UnsatisfiableError (Scene-Graph-Benchmark.pytorch#160).
    pytest.param(CONDA_UNSATISFIABLE, "3.9", "3.5–3.8", (("python=3.9", "python=3.8"), ("Python 3.9.7", "Python 3.8.5")),
                 "3.8", id="conda"),
    # uv's refusal and hint (kev#34: a project pinning torch<2.9 under uv on Python 3.14).
    pytest.param(UV_NO_CP314, "3.14.0", "torch 2.8 supports Python 3.9–3.13",
                 (("3.14.0", "3.12.4"), ("CPython 3.14 (`cp314`)", "CPython 3.12 (`cp312`)")), "3.12.4", id="uv"),
]


@pytest.mark.parametrize("text,python,says,fitting,fitting_python", INSTALLER_REFUSALS)
def test_an_installers_refusal_for_this_python_is_te105_and_not_for_one_the_release_has(
        text, python, says, fitting, fitting_python, tmp_path):
    facts = load_text(text, tmp_path)
    assert facts.python.version == python
    found = verdicts(facts)["TE105"]
    assert found.status is Status.ERROR and says in found.message
    for old, new in fitting:
        text = text.replace(old, new)
    facts = load_text(text, tmp_path)
    assert facts.python.version == fitting_python
    assert verdicts(facts)["TE105"].status is not Status.ERROR


def test_torchs_driver_verdict_shortened_in_a_sentence_keeps_its_number(tmp_path):
    # nvMolKit#209: "`torch._C._cuda_init()` raises *"NVIDIA driver too old (found 12070)"*" beside torch 2.12.0 + cu13.
    facts = load_text("The default `uv pip install nvmolkit` pulls torch 2.12.0 + `nvidia-*-cu13`.\n"
                      "`torch._C._cuda_init()` raises *\"NVIDIA driver too old (found 12070)\"*; all calls fail.\n", tmp_path)
    found = verdicts(facts)["TE201"]
    assert found.status is Status.ERROR and "supports CUDA 12.7" in found.message


CONTAINER_REFUSED = """\
Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown

> nvidia-smi
```
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.144.03             Driver Version: 550.144.03     CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
```
"""


def test_the_container_runtimes_cuda_requirement_is_te201_with_the_driver_to_install(tmp_path):
    # tabbyAPI#324: a CUDA 12.8 image on an R550 host.
    found = verdicts(load_text(CONTAINER_REFUSED, tmp_path))["TE201"]
    assert found.status is Status.ERROR and "needs CUDA 12.8 or newer; driver 550.144.03 supports CUDA 12.4" in found.message
    assert "570.26" in found.fix.summary


def test_a_dockerfiles_pytorch_base_image_gives_torch_cuda_and_python(tmp_path):
    # nnUNet#2557: an AWS deep learning container; and the official image's tag.
    aws = ("```Dockerfile\nFROM 763104351884.dkr.ecr.ca-central-1.amazonaws.com/pytorch-inference:2.3.0-gpu-py311-cu121-ubuntu20.04-ec2\n"
           "RUN pip install nnunetv2==2.5.1\n```\n")
    facts = load_text(aws, tmp_path)
    assert (facts.torch.version, facts.torch.cuda, facts.python.version) == ("2.3.0", "12.1", "3.11")
    official = load_text("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\nRUN pip install -r requirements.txt\n", tmp_path)
    assert (official.torch.version, official.torch.cuda) == ("2.1.0", "12.1")
    cpu = load_text("FROM 763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-cpu-py311-ubuntu20.04-sagemaker\n",
                    tmp_path)
    assert cpu.torch.version == "2.3.0" and cpu.torch.cuda is None
    # An older GPU tag without "-cuNNN": the CUDA is not stated, so it is unknown, never a CPU build.
    old_gpu = load_text("FROM 763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:1.5.1-gpu-py36-ubuntu16.04\n", tmp_path)
    assert old_gpu.torch.version == "1.5.1" and not known(old_gpu.get("torch.cuda"))


def test_a_base_image_without_torch_states_no_torch(tmp_path):
    with pytest.raises(UsageError):
        load_text("FROM nvidia/cuda-base-image-without-a-version\nRUN apt-get update\n", tmp_path)


WALK_THESE_WAYS = ("RuntimeError: The following operation failed in the TorchScript interpreter. Traceback of TorchScript "
                   "(most recent call last): RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)\n\n"
                   "I am getting this error.\nI am using RTX 4090\nCUDA 11.3\nNvidia driver 535 version\n"
                   "and pytorch is installed using \"pip3 install torch==1.10.0+cu113 torchvision==0.11.1+cu113 "
                   "torchaudio==0.10.0+cu113 -f https://download.pytorch.org/whl/cu113/torch_stable.html\"\n")


def test_the_pip_command_torch_was_installed_with_gives_its_version(tmp_path):
    # walk-these-ways#72: an RTX 4090 on torch 1.10.0+cu113, whose NVRTC predates sm_89.
    facts = load_text(WALK_THESE_WAYS, tmp_path)
    assert (facts.torch.version, facts.torch.cuda) == ("1.10.0+cu113", "11.3")
    found = verdicts(facts)["TE202"]
    assert found.status is Status.ERROR and "NVRTC" in found.message and "nvrtc: error" in found.evidence["the report's error"]


def test_nvrtcs_gap_without_the_error_in_the_text_is_a_warning(tmp_path):
    quiet = WALK_THESE_WAYS.split("\n\n", 1)[1]
    assert verdicts(load_text(quiet, tmp_path))["TE202"].status is Status.WARNING


def test_a_pip_command_given_as_advice_is_not_the_installed_torch(tmp_path):
    text = ("I am using RTX 4090 with driver 535.\nThe README says it should be installed using "
            "\"pip install torch==1.10.0+cu113 -f https://download.pytorch.org/whl/cu113/torch_stable.html\"\n")
    facts = load_text(text, tmp_path)
    assert not known(facts.get("torch.version"))


def test_the_install_command_told_as_what_was_run_gives_the_build_its_index_names(tmp_path):
    # ultralytics#8869: "installed it with this commend pip install torch==2.2.0 ... --index-url .../whl/cpu".
    text = ("even tho i installed it with this commend pip install torch==2.2.0 torchvision==0.17.0 torchaudio==2.2.0 "
            "--index-url https://download.pytorch.org/whl/cpu\n")
    facts = load_text(text, tmp_path)
    assert (facts.torch.version, facts.torch.cuda) == ("2.2.0", None)
    assert verdicts(facts)["TE203"].status is Status.WARNING
    cuda = load_text("I installed torch with: pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121\n", tmp_path)
    assert (cuda.torch.version, cuda.torch.cuda) == ("2.1.0", "12.1")
    advice = "You should install with pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121\n"
    assert not known(load_text("I have an RTX 3090.\n" + advice, tmp_path).get("torch.version"))


def test_my_gpus_drivers_upgraded_still_name_this_machines_gpu():
    # pytorch#95121: the driver was upgraded, not the GPU; a GPU upgraded away from is still another machine's.
    assert prose.read(["I upgraded my RTX 3070 Laptop drivers and now I have cuda 12."])["nvidia"]["gpus"][0]["name"] == "RTX 3070 Laptop"
    assert "nvidia" not in prose.read(["I upgraded my GTX 1080 to an RTX 3090"])


def test_a_version_named_as_the_setting_of_the_report_is_this_machines():
    # torchinfo#238: "I got this warning ... while working with pytorch2.0"; "it was working with 1.7" stays another time.
    assert prose.read(["I got this warning while working with pytorch2.0"])["torch"]["version"] == "2.0"
    assert prose.read(["I see this while running on torch 2.1.0"])["torch"]["version"] == "2.1.0"
    assert "torch" not in prose.read(["It was working with pytorch 1.7 but not now"])


HUNYUAN3D_WHEEL = ("Python 3.13.6\nTorch: 2.8.0+cu129\nTorch.version.cuda: 12.9\n\nRunning this:\n"
                   "**python_embeded\\python.exe -m pip install ComfyUI\\custom_nodes\\ComfyUI-Hunyuan3DWrapper\\wheels\\"
                   "custom_rasterizer-0.1.0+torch260.cuda126-cp312-cp312-win_amd64.whl**\nGives me this problem:\n"
                   "**ERROR: custom_rasterizer-0.1.0+torch260.cuda126-cp312-cp312-win_amd64.whl is not a supported wheel on "
                   "this platform.**\n")


# The classes of the fifteenth and sixteenth sessions, each on its real text: (text, check, status, words of the message, words of the fix).
FIRING_CASES = [
    # deltaforce-market-bot#46: the localized OSError on one line, torch's "Error loading ..." on the next.
    pytest.param("程序运行时直接报错：\nOSError: [WinError 1114] 动态链接库(DLL)初始化例程失败。 \n"
                 'Error loading "E:\\python\\py_jsq\\Python310\\lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.\n'
                 "Python 3.10\nPyTorch 2.9.0 + CPU-only wheel\n", "TE101", Status.ERROR,
                 "Windows could not load c10.dll (WinError 1114)", "VCRedist", id="dll-loading-line"),
    # QualityScaler#9: elided to torch\lib and without the exception's name.
    pytest.param('The specified module could not be found. Error loading "torch\\lib\\caffe2_detectron_ops.dll" or one of its '
                 "dependencies.\n", "TE101", Status.ERROR, "caffe2_detectron_ops.dll", "Visual C++", id="dll-loading-elided"),
    # VideoMamba#63: building mamba's extension against torch 2.1.2 stops in c10's C++17.h.
    pytest.param("I met the following problems when `pip install -e mamba-1p1p1`\n\n #error You need C++17 to compile PyTorch\n\n"
                 "My environment is as follows:\ntorch==2.1.2  torchvision==0.16.2  torchaudio==2.1.2. Cuda==11.8  gcc==6.1.0  "
                 "python==3.9\n", "TE208", Status.ERROR, "need C++17", "-std=c++17", id="cxx17"),
    # Speech-AI-Forge#50: NumPy 2.0.0's message, then the requirements file the user changed to numpy==1.26.4.
    pytest.param("在 `Numpy 2.0.0` 下出现诡异的问题：\n```\nA module that was compiled using NumPy 1.x cannot be run in\n"
                 "NumPy 2.0.0 as it may crash. To support both 1.x and 2.x\nversions of NumPy, modules must be compiled with "
                 "NumPy 2.0.\n```\n将 `requirements.txt` 修改如下：\n```\nnumpy==1.26.4\nscipy\nlxml\n```\n",
                 "TE104", Status.ERROR, "NumPy 1.x", "numpy<2", id="numpy-refusal-without-torch-version"),
    # pytranscriber#56: "The openai-whisper package installed Torch without the CUDA version".
    pytest.param("The openai-whisper package installed Torch without the CUDA version.\n - OS: windows\n", "TE203",
                 Status.WARNING, "CPU-only build", "", id="installed-without-the-cuda-version"),
    # ComfyUI-Hunyuan3DWrapper#181: the node's wheel is for torch 2.6 / CUDA 12.6 / cp312, the machine has 2.8.0+cu129.
    pytest.param(HUNYUAN3D_WHEEL, "TE103", Status.ERROR, "built for torch 2.6 (cu126)", "custom-rasterizer", id="bundled-wheel"),
    # pepper#184: torch 1.10 supports Python 3.6-3.9; pip lists from 1.11.0, the first release with Python 3.10 wheels.
    pytest.param("Trying to install locally, hitting the following error:\n`ERROR: Could not find a version that satisfies "
                 "the requirement torch==1.10.0 (from versions: 1.11.0, 1.12.0, 1.12.1, 1.13.0, 1.13.1, 2.0.0)\n"
                 "ERROR: No matching distribution found for torch==1.10.0\n`\n", "TE105", Status.WARNING,
                 "most likely Python 3.10 or newer", "python -VV", id="pip-listing"),
    # transcribe-anything#16: "python version 3.10.10" stated, yet pip lists only 2.2.0 (the first release with Python
    # 3.12 wheels) for torch==2.1.2: the pip that ran is another interpreter's.
    pytest.param("Here is the error I get:\n\n```\nRunning: pip install torch==2.1.2\nERROR: Could not find a version that "
                 "satisfies the requirement torch==2.1.2 (from versions: 2.2.0)\nERROR: No matching distribution found for "
                 "torch==2.1.2\n```\n\nI'm on MacOS on a M2 mac, with python version 3.10.10\n", "TE105", Status.WARNING,
                 "another interpreter's (Python 3.12 or newer)", "python -m pip -V", id="pip-of-another-python"),
    # pytorch#29090: Python 3.8 on Windows before torch 1.4; pip settles for the 2017 sdist.
    pytest.param("Python version: 3.8\nGPU models and configuration: GPU 0: GeForce GTX 980 Ti\n\n"
                 "C:\\Windows\\system32>pip install torch torchvision -f https://download.pytorch.org/whl/torch_stable.html\n"
                 "Looking in links: https://download.pytorch.org/whl/torch_stable.html\nCollecting torch\n  Using cached "
                 "https://files.pythonhosted.org/packages/f8/02/880b468bd382dc79896eaecbeb8ce95e9c4b99a24902874a2cef0b562cea/"
                 "torch-0.1.2.post2.tar.gz\n", "TE105", Status.WARNING, "no torch wheel at all", "64-bit", id="pip-settles-for-the-2017-sdist"),
    # Langchain-Chatchat#294: requirements installed a CPU PyTorch on a Windows VM with an A10.
    pytest.param("如题目，使用requirements安装，PyTorch安装的是CPU版本，运行程序的时候，也是使用CPU在工作。\n"
                 "解决办法：卸载torch包，重新安装GPU版本的PyTorch。\n", "TE203", Status.WARNING, "CPU-only build", "index-url",
                 id="chinese-installed-the-cpu-version"),
    # TensorRT-LLM#23: an NGC container's banner on a host with driver 510.
    pytest.param("```text\nERROR: This container was built for NVIDIA Driver Release 535.86 or later, but\n       version "
                 "510.85.02 was detected and compatibility mode is UNAVAILABLE.\n```\n\nI build docker image on this machine:\n"
                 "```\n NVIDIA-SMI 510.85.02    Driver Version: 510.85.02    CUDA Version: 11.6\n```\n", "TE201", Status.ERROR,
                 "built for NVIDIA driver 535.86 or later", "535.86 or newer", id="ngc-container-banner"),
    # pytorch#14681: a Kepler laptop GPU (3.0) and no torch version; no release in the tables has kernels for it.
    pytest.param("1. pytorch for old CUDA : NVIDIA GeForce GT 740M CUDA \nGPU is GeForce GT 740M | 3.0\n", "TE202",
                 Status.WARNING, "no kernels in any official CUDA build of torch 0.4 to", "TORCH_CUDA_ARCH_LIST=\"3.0\"",
                 id="old-gpu-torch-unknown"),
    # dgl#7809: DGL 2.2.1's Windows wheel has no graphbolt library for torch 2.4.1, said in the reporter's words.
    pytest.param("There is no such file `graphbolt_pytorch_2.4.1.dll`.\n\n - DGL 2.2.1:\n - PyTorch 2.4.1\n - Windows 10\n"
                 " - Installed via PIP:\n - Python 3.9.19;\n", "TE103", Status.ERROR, "no compiled library for torch 2.4.1",
                 "torch-2.4", id="dgl-library-file-missing"),
    # tensorrt-llm#331 (batch 30): the driver's refusal retold as a prompt, "too low" for "too old".
    pytest.param("the cluster GPU driver is version 470.82. When compiling the model, it prompts that the driver version "
                 "is too low.\n", "TE201", Status.WARNING, "driver too old", "driver", id="driver-too-low-prompted"),
    # text-generation-webui-docker#37 (batch 30): CUDA's error number alone beside a GeForce's nvidia-smi.
    pytest.param("After a docker-compose up the messages with the error 804 are there.\n NVIDIA-SMI 525.125.06   Driver "
                 "Version: 525.125.06   CUDA Version: 12.0\n|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0 Off |\n",
                 "TE204", Status.ERROR, "Error 804", "compat", id="error-804-told"),
    # bytetrack#54 (batch 29's class): the only CUDA named, whoever's it is, predates the GPU's architecture family.
    pytest.param("When I use RTX 3090, the PyTorch installation will come to an error. 3090 is only adapted to the Cuda "
                 "version above 11.0 while the requirements bring Cuda version 10.2.\n", "TE202", Status.WARNING,
                 "newer than CUDA 10.2: CUDA 11.0 is the first", "CUDA 11.0", id="named-cuda-predates-gpu"),
    # An H100 beside CUDA 11.7 only: Hopper's code needs CUDA 11.8.
    pytest.param("We run on an H100 80GB with CUDA 11.7 and get errors on the GPU.\n", "TE202", Status.WARNING,
                 "newer than CUDA 11.7: CUDA 11.8 is the first", "CUDA 11.8", id="named-cuda-predates-hopper"),
]


@pytest.mark.parametrize("text,code,status,says,fix_says", FIRING_CASES)
def test_a_prose_class_fires_on_its_real_text(text, code, status, says, fix_says, tmp_path):
    found = verdicts(load_text(text, tmp_path))[code]
    assert found.status is status and says in found.message, found.message
    assert fix_says in " ".join((found.fix.summary, *found.fix.commands)), found.fix


# The close healthy cases of those classes: each reads like one above and must stay quiet.
QUIET_CLOSE_CASES = [
    pytest.param("torch 2.12.0 works here; the NVIDIA driver is not too old (nvidia-smi shows 580.65.06).\n", "TE201",
                 id="driver-said-not-too-old"),
    pytest.param(CONTAINER_REFUSED.replace(CONTAINER_REFUSED.splitlines()[0] + "\n", "").replace(
                 CONTAINER_REFUSED.splitlines()[1], "tabbyapi-1  | INFO:     Started server process [1]"), "TE201",
                 id="container-that-starts"),
    pytest.param('OSError: [WinError 126] The specified module could not be found. Error loading '
                 '"C:\\venv\\lib\\site-packages\\pyzbar\\libzbar-64.dll" or one of its dependencies.\nPython 3.10, torch 2.5.1\n',
                 "TE101", id="another-packages-dll"),
    # The stated Python with a listing of releases it fits (a mirror that lacks the one asked for): not another pip.
    pytest.param("ERROR: Could not find a version that satisfies the requirement torch==2.1.2 (from versions: 2.0.0, "
                 "2.0.1, 2.1.0, 2.1.1)\npython version 3.10.10\n", "TE105", id="listing-fits-the-stated-python"),
    pytest.param("building 'selective_scan_cuda' extension\ng++ -std=c++17 -O3 -c csrc/selective_scan.cpp -o "
                 "build/selective_scan.o\ntorch 2.1.2+cu118, nvcc 11.8, gcc 11.4\n", "TE208", id="extension-built-as-cxx17"),
    pytest.param("My requirements:\n```\nnumpy==2.0.0\nscipy==1.13.1\n```\nTraining is slow on the GPU.\n", "TE104",
                 id="requirements-without-numpys-refusal"),
    pytest.param("Could you make requirements.txt install torch without the CUDA version for Mac users? I have torch 2.5.1.\n",
                 "TE203", id="asking-for-a-cpu-torch"),
    pytest.param(HUNYUAN3D_WHEEL.replace("torch260.cuda126", "torch280.cuda129"), "TE103", id="bundled-wheel-for-this-torch"),
    # torch 2.1.1 supports no newer Python than 2.1.0 (up to 3.11): a listing from 2.1.1 points at the platform or the
    # index, not at Python.
    pytest.param("ERROR: Could not find a version that satisfies the requirement torch==2.1.0 (from versions: 2.1.1, 2.1.2)\n"
                 "ERROR: No matching distribution found for torch==2.1.0\n", "TE105", id="listing-from-a-release-for-the-same-pythons"),
    pytest.param("Python version: 3.8\nCollecting torch\n  Using cached https://files.pythonhosted.org/packages/torch-1.4.0-cp38-"
                 "cp38-win_amd64.whl\nCollecting torch-0.1.2-docs\n", "TE105", id="pip-takes-a-wheel"),
    pytest.param("我的PyTorch安装的不是CPU版本，nvidia-smi 也正常，但训练很慢。\ntorch 2.1.0, Python 3.10\n", "TE203", id="chinese-not-the-cpu-version"),
    pytest.param("请问torch是否是cpu版本？怎么查看\ntorch 2.1.0, Python 3.10\n", "TE203", id="chinese-asking-whether-cpu"),
    # The same image on a datacenter GPU where forward compatibility works: CUDA starts.
    pytest.param("NOTE: CUDA Forward Compatibility mode ENABLED.\n  Using CUDA 12.2 driver version 535.86.10 with kernel driver "
                 "version 510.85.02.\n  See https://docs.nvidia.com/deploy/cuda-compatibility/ for details.\n"
                 " NVIDIA-SMI 510.85.02    Driver Version: 510.85.02    CUDA Version: 11.6\n", "TE201", id="ngc-forward-compat-enabled"),
    # A GPU every recent release has kernels for, or that only the newest release lacks: no claim without torch's version.
    pytest.param("My GPU is a GeForce GTX 1080, driver 535.54.03, on Ubuntu 22.04.\n", "TE202", id="pascal-torch-unknown"),
    pytest.param("I have an RTX 5090 and Python 3.12 on Windows 11.\n", "TE202", id="blackwell-torch-unknown"),
    # A driver said to be fine, and an error number that is not CUDA's 804.
    pytest.param("nvidia-smi says driver 535.54; the driver version is not too low for torch 2.1.\n", "TE201",
                 id="driver-not-too-low"),
    pytest.param("HTTP error 8040 from the proxy while pip downloads torch 2.1.0; nvidia-smi shows driver 535.54.03.\n",
                 "TE204", id="not-cuda-error-804"),
    # A CUDA named that knows the GPU, or two of which one does: which is torch's decides, and is not said.
    pytest.param("RTX 3090 with CUDA 11.3 installed; training is slow.\n", "TE202", id="named-cuda-knows-gpu"),
    pytest.param("RTX 3090; nvcc says CUDA 10.2 but the driver shows CUDA 11.4.\n", "TE202", id="one-named-cuda-knows-gpu"),
    # A CUDA newer than an old GPU's toolkits: normal for the driver's CUDA (nvidia-smi), so no claim either way.
    pytest.param("GeForce GTX 1080 here, CUDA 13.0, training fails on the GPU.\n", "TE202", id="named-cuda-newer-than-gpu"),
    pytest.param("Loaded graphbolt_pytorch_2.4.1.so from the dgl folder.\n - DGL 2.4.0\n - PyTorch 2.4.1\n", "TE103",
                 id="dgl-library-file-loaded"),
]


@pytest.mark.parametrize("text,code", QUIET_CLOSE_CASES)
def test_a_close_healthy_case_stays_quiet(text, code, tmp_path):
    assert verdicts(load_text(text, tmp_path))[code].status not in (Status.ERROR, Status.WARNING)
