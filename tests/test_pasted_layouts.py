"""`env --facts` on environment layouts that pastes use besides collect_env: `conda info`, fastai's
show_install, IPython sessions (and tuples typed at any prompt), markdown tables.

Each layout is shown read from a realistic paste copied verbatim from a public source (named above
it), and a close text is shown not read as that layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchdoctor.cli import env as cli_env
from torchdoctor.cli.common import UsageError
from torchdoctor.facts import pasted
from torchdoctor.facts.model import Facts, known
from torchdoctor.model import Status
from torchdoctor.runner import run_env_checks


def load_text(text: str, tmp_path: Path) -> Facts:
    path = tmp_path / "paste.txt"
    path.write_text(text, encoding="utf-8")
    return cli_env.load_facts(path)


def kinds(text: str) -> list[str]:
    read = pasted.read(text)
    return read[1] if read else []


# --------------------------------------------------------------------------- conda info

# https://github.com/torchmd/torchmd-net/issues/108 (comment by limin2021, 2022-07-28), verbatim.
CONDA_INFO_TORCHMD = """1. `conda info`

     active environment : torchmd-net
    active env location : /opt/conda/envs/torchmd-net
            shell level : 2
       user config file : /root/.condarc
 populated config files : /opt/conda/.condarc
          conda version : 4.12.0
    conda-build version : 3.21.8
         python version : 3.8.13.final.0
       virtual packages : __cuda=11.7=0
                          __linux=4.14.0=0
                          __glibc=2.31=0
                          __unix=0=0
                          __archspec=1=x86_64
       base environment : /opt/conda  (writable)
      conda av data dir : /opt/conda/etc/conda
  conda av metadata url : None
           channel URLs : https://conda.anaconda.org/conda-forge/linux-64
                          https://conda.anaconda.org/conda-forge/noarch
          package cache : /opt/conda/pkgs
                          /root/.conda/pkgs
       envs directories : /opt/conda/envs
                          /root/.conda/envs
               platform : linux-64
             user-agent : conda/4.12.0 requests/2.23.0 CPython/3.8.13 Linux/4.14.0_1-0-0-36 ubuntu/20.04.4 glibc/2.31
                UID:GID : 0:0
             netrc file : None
           offline mode : False
"""


def test_conda_info_gives_the_drivers_cuda_and_the_platform(tmp_path):
    facts = load_text(CONDA_INFO_TORCHMD, tmp_path)
    assert "conda info" in kinds(CONDA_INFO_TORCHMD)
    # __cuda is the CUDA version conda read from the driver, as nvidia-smi's "CUDA Version" is.
    assert facts.get("nvidia.cuda_driver_version") == "11.7"
    assert facts.get("python.system") == "Linux"
    # "python version" is the Python conda runs on (base's); the active environment is torchmd-net.
    assert not known(facts.python.version)


def test_conda_info_with_base_active_gives_its_python(tmp_path):
    text = CONDA_INFO_TORCHMD.replace("active environment : torchmd-net", "active environment : base")
    facts = load_text(text, tmp_path)
    assert facts.get("python.version") == "3.8.13"


def test_a_key_value_list_with_a_platform_line_is_not_conda_info():
    text = "python version : 3.8.13\nplatform : linux\ntorch version : 2.0.1\n"
    assert "conda info" not in kinds(text)
    assert "conda info" not in kinds(FASTAI_SHOW_INSTALL)


# --------------------------------------------------------------------------- fastai's show_install

# https://github.com/fastai/fastai/issues/1566 (issue body by tyoc213, 2019-02-04), verbatim from its start.
FASTAI_SHOW_INSTALL = """```text
=== Software === 
python version  : 3.7.0
fastai version  : 1.0.36
torch version   : 1.0.0
nvidia driver   : 415.25
torch cuda ver  : 9.0.176
torch cuda is   : available
torch cudnn ver : 7401
torch cudnn is  : enabled

=== Hardware === 
nvidia gpus     : 1
torch available : 1
  - gpu0        : 7949MB | GeForce RTX 2080

=== Environment === 
platform        : Linux-4.15.0-45-generic-x86_64-with-debian-buster-sid
distro          : Ubuntu 18.04 Bionic Beaver
conda env       : base
python          : /home/tyoc213/anaconda3/bin/python
sys.path        : 
/home/tyoc213/anaconda3/lib/python37.zip
"""


def test_fastai_show_install_gives_torchs_cuda_build_its_availability_and_the_gpu(tmp_path):
    facts = load_text(FASTAI_SHOW_INSTALL, tmp_path)
    assert facts.get("torch.version") == "1.0.0"
    assert facts.get("torch.cuda") == "9.0"  # torch.version.cuda printed as the toolkit's full version
    assert facts.get("torch.cuda_available") is True
    assert facts.get("nvidia.driver_version") == "415.25"
    assert [(g.name, g.compute_capability) for g in facts.nvidia.gpus] == [("GeForce RTX 2080", "7.5")]
    assert {f.code: f for f in run_env_checks(facts)}["TE202"].status is not Status.SKIP


@pytest.mark.parametrize("line, available", [("PyTorch CUDA       : Not Available", False),
                                             ("torch cuda       : True", True)])
def test_a_torch_cuda_label_holding_the_availability_is_not_the_build(line, available, tmp_path):
    facts = load_text(f"torch version    : 2.1.0\n{line}\n", tmp_path)
    assert facts.get("torch.cuda_available") is available
    assert not known(facts.torch.cuda)


def test_a_cpu_builds_torch_cuda_none_is_the_cpu_build(tmp_path):
    facts = load_text("PyTorch            : 2.1.0\nPyTorch CUDA       : None\n", tmp_path)
    assert facts.get("torch.cuda") is None


# --------------------------------------------------------------------------- IPython and tuples

# A public repository's README (found through the code index, id 29713579604; the index names no
# repository for it), "Veryfing PyTorch installation", verbatim.
IPYTHON_SESSION = """```bash
$ ipython
Python 3.11.3 (main, May 29 2023, 05:18:21) [GCC 13.1.1 20230520]
Type 'copyright', 'credits' or 'license' for more information
IPython 8.15.0 -- An enhanced Interactive Python. Type '?' for help.

In [1]: import torch

In [2]: torch.__version__
Out[2]: '2.0.1+cu118'

In [3]: torch.cuda.is_available()
Out[3]: True

In [4]: torch.cuda.device_count()
Out[4]: 1

In [5]: torch.cuda.current_device()
Out[5]: 0

In [6]: torch.cuda.device(0)
Out[6]: <torch.cuda.device at 0x7f3348ea1ed0>

In [7]: torch.cuda.get_device_name(0)
Out[7]: 'NVIDIA GeForce RTX 4090'
```
"""

# A public repository's notes (code index id 3679050915, no repository named), verbatim: a tuple typed at IPython's prompt.
IPYTHON_TUPLE = """(softgym) enyuzhao@blackcoffee:~/code/zero-shot-fabric-manipulation$ ipython
Python 3.8.18 (default, Sep 11 2023, 13:40:15) 
Type 'copyright', 'credits' or 'license' for more information
IPython 8.12.2 -- An enhanced Interactive Python. Type '?' for help.

In [1]: import torch

In [2]: torch.__version__, torch.cuda.is_available(),torch.cuda.get_device_name(0)
Out[2]: ('1.12.0', True, 'NVIDIA GeForce RTX 4090')

In [3]: exit
"""


def test_an_ipython_session_is_read_as_the_repl_is(tmp_path):
    facts = load_text(IPYTHON_SESSION, tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda"), facts.get("torch.cuda_available")) == (
        "2.0.1+cu118", "11.8", True)
    assert [(g.name, g.compute_capability) for g in facts.nvidia.gpus] == [("NVIDIA GeForce RTX 4090", "8.9")]
    assert {f.code: f for f in run_env_checks(facts)}["TE202"].status is Status.OK


def test_a_tuple_typed_at_the_prompt_gives_each_value_its_place(tmp_path):
    facts = load_text(IPYTHON_TUPLE, tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda_available")) == ("1.12.0", True)
    assert facts.nvidia.gpus[0].name == "NVIDIA GeForce RTX 4090"
    # The same tuple at the plain REPL, one of its items another library's version.
    facts = load_text(">>> torch.__version__, torch_geometric.__version__, torch.version.cuda\n"
                      "('1.10.0', '2.0.4', '10.2')\n", tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda")) == ("1.10.0", "10.2")


def test_a_tuple_whose_repr_does_not_match_its_expressions_is_not_read(tmp_path):
    # Two expressions, three items (a paste that lost a line): no item can be placed.
    with pytest.raises(UsageError):
        load_text("In [2]: torch.__version__, torch.version.cuda\nOut[2]: ('1.10.0', '2.0.4', '10.2')\n", tmp_path)
    # An IPython session that shows no torch value.
    with pytest.raises(UsageError):
        load_text("In [1]: import torch\n\nIn [2]: torch.cuda.device(0)\nOut[2]: <torch.cuda.device at 0x7f33>\n",
                  tmp_path)


# --------------------------------------------------------------------------- markdown tables

# A public repository's README (code index id 56692303406, no repository named), "训练环境", verbatim.
MARKDOWN_TABLE = """训练环境：

| 项目 | 配置 |
| --- | --- |
| 系统 | Ubuntu WSL2 |
| Conda 环境 | `ai_trading` |
| Python | 3.10.20 |
| PyTorch | 2.0.0+cu117 |
| Ultralytics | 8.4.46 |
| GPU | NVIDIA GeForce RTX 4060 Laptop GPU |
| CUDA | 11.7 |
"""

# Another (code index id 71616287096), verbatim: a "Component | Details" table, then "Item | Version".
MARKDOWN_TABLES = """## Hardware
| Component | Details |
|---|---|
| GPU | NVIDIA GeForce RTX 2060 Super, 8 GB VRAM |
| GPU driver | 595.91.07 (CUDA up to 13.2) |
| CPU | Intel Core i5-12600K (10 cores / 16 threads) |
| RAM | 32 GB + 8 GB swap |
| Disk | 256 GB NVMe SSD |
| OS | Ubuntu 24.04.5 LTS, kernel 7.0.0-34 |

## Training environment (`.venv`)
| Item | Version |
|---|---|
| Python | 3.12.3 |
| PyTorch | 2.12.1+cu130 (CUDA 13.0) |
"""


def test_a_markdown_table_of_the_environment_is_read_as_its_list(tmp_path):
    facts = load_text(MARKDOWN_TABLE, tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda")) == ("2.0.0+cu117", "11.7")
    assert facts.get("python.version") == "3.10.20" and facts.get("python.system") == "Linux"
    assert [(g.name, g.compute_capability) for g in facts.nvidia.gpus] == [("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9")]
    facts = load_text(MARKDOWN_TABLES, tmp_path)
    assert facts.get("nvidia.driver_version") == "595.91.07"
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA GeForce RTX 2060 Super"]
    assert facts.get("torch.cuda") == "13.0"


# nvidia-smi 418 on a V100, as both tests below paste it.
SMI_V100 = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.87.01    Driver Version: 418.87.01    CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla V100-PCIE...  On   | 0000EC50:00:00.0 Off |                    0 |
| N/A   33C    P0    35W / 250W |   5416MiB / 16130MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_a_results_table_naming_a_gpu_is_not_an_environment_list(tmp_path):
    # A benchmark's table: the GPU is a row's subject, no column holds a value of the environment.
    with pytest.raises(UsageError):
        load_text("| GPU | Batch | Time |\n|---|---|---|\n| RTX 4090 | 32 | 1.2 s |\n| A100 | 64 | 0.9 s |\n", tmp_path)
    # nvidia-smi's own table keeps being read as nvidia-smi's (three cells a row, no markdown separator).
    assert load_text(SMI_V100, tmp_path).get("nvidia.driver_version") == "418.87.01"
    assert kinds(SMI_V100) == ["nvidia-smi"]


# --------------------------------------------------------------------------- lists and prose without a layout

# https://github.com/kzhang2/aoneus/issues/2 (issue body by mn-pang, 2026-01-28), verbatim: pip list's rows without
# its header, then the driver and toolkit in words.
NAME_VERSION_ROWS = """torch             2.9.1+cu128
torchvision       0.24.1+cu128
Driver 13.0
CUDA toolkit 12.8
"""

# https://github.com/zhaohengyin/lightning-grasp/issues/7 (issue body by GaoLon, 2025-11-23), verbatim.
NAME_VERSION_LIST = """I would like to inquire if my environment supports configuring this project:

Ubuntu22.04
NVIDIA GeForce 5080
CUDA12.8
Python 3.10
pytorch 2.9.0+cu128
torchvision 0.24.0+cu128
"""

# https://github.com/jiepengwang/NeuRIS/issues/12 (issue body by ashj9, 2022-10-06), verbatim from its error line on.
PROSE = """`    self.intrinsics_all_inv = torch.inverse(self.intrinsics_all) # n, 4, 4
RuntimeError: CUDA error: no kernel image is available for execution on the device
`

I am using NVIDIA GeForce RTX 3080 Ti Laptop GPU and I have cuda 11.1 installed. 
The Pytorch version 1.8.0+cu111. 
"""


@pytest.mark.parametrize("text, version", [(NAME_VERSION_ROWS, "2.9.1+cu128"), (NAME_VERSION_LIST, "2.9.0+cu128")])
def test_name_and_version_rows_without_a_header_are_a_package_list(text, version, tmp_path):
    facts = load_text(text, tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda")) == (version, "12.8")
    assert [d.name for d in facts.packages.distributions] == ["torch", "torchvision"]
    assert facts.packages.distributions_partial is True
    # "Python 3.10" and "CUDA12.8" are not packages.
    assert {f.code: f for f in run_env_checks(facts)}["TE103"].status is Status.OK


def test_a_torch_version_no_release_has_is_not_read_from_a_list(tmp_path):
    # A typo for 2.7.0 (pytorch#153944's list): torch has had no 7.x, so the row says nothing of the install.
    facts = load_text("torch                   7.0+cu118\ntorchaudio          2.7.0+cu118\n"
                      "torchvision 0.22.0+cu118\n", tmp_path)
    assert not known(facts.torch)


def test_torchs_tagged_version_and_one_gpu_told_in_prose_are_facts(tmp_path):
    facts = load_text(PROSE, tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda")) == ("1.8.0+cu111", "11.1")
    assert [(g.name, g.compute_capability) for g in facts.nvidia.gpus] == [("NVIDIA GeForce RTX 3080 Ti Laptop GPU", "8.6")]
    assert {f.code: f for f in run_env_checks(facts)}["TE202"].status is Status.OK  # cu111 1.8.0 has sm_86


@pytest.mark.parametrize("text", [
    "I run `pip install torch==2.0.1+cu118` and it fails\n",  # a pin is what was asked for
    "works on the NVIDIA A100 but fails on the NVIDIA GeForce GTX 1080 Ti\n",  # two GPUs: neither is known to be this one
    "torch 2.0.1+cu118 on one box, torch 2.1.0+cu121 on the other\n",  # two builds
])
def test_prose_naming_a_pin_or_two_of_a_kind_is_not_read(text, tmp_path):
    with pytest.raises(UsageError):
        load_text(text, tmp_path)


def test_a_refusal_says_what_was_ambiguous_rather_than_that_no_version_was_named(tmp_path):
    with pytest.raises(UsageError, match=r"ambiguous: the text names several torch versions \(2\.0\.1\+cu118, 2\.1\.0\+cu121\)"):
        load_text("torch 2.0.1+cu118 on one box, torch 2.1.0+cu121 on the other\n", tmp_path)
    with pytest.raises(UsageError, match="states no torch, GPU, driver"):
        load_text("The loss diverges after three epochs.\n", tmp_path)


def test_collect_env_on_macos_names_the_gpu_without_its_index():
    # A dev report: macOS's collect_env prints torch.cuda.get_device_name() alone.
    facts = cli_env.load_facts(Path(__file__).parent / "fixtures" / "env_reports" /
                               "pt16999-pearu-macos-gtx1060-source-build.txt")
    assert [(g.name, g.compute_capability) for g in facts.nvidia.gpus] == [("GeForce GTX 1060 with Max-Q Design", "6.1")]


# --------------------------------------------------------------------------- nvidia-smi --query-gpu, any fields

# A public repository's run notes (code index id 62703382477, no repository named), verbatim.
SMI_QUERY_MORE_FIELDS = """$ nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,temperature.gpu --format=csv
name, driver_version, memory.total [MiB], power.limit [W], temperature.gpu
NVIDIA L4, 550.90.07, 24564 MiB, 72.00 W, 33
"""

# Another (code index id 70512769051), verbatim: clocks fields, then torch's version printed by a script.
SMI_QUERY_CLOCKS = """python: Python 3.10.22
index, name, driver_version, memory.total [MiB], clocks.max.sm [MHz], clocks.max.memory [MHz]
0, NVIDIA L40S, 575.51.03, 46068 MiB, 2520 MHz, 9001 MHz
1, NVIDIA L40S, 575.51.03, 46068 MiB, 2520 MHz, 9001 MHz
torch 2.6.0+cu124 cuda 12.4
flash_attn 2.7.4.post1
"""


def test_nvidia_smi_query_csv_with_any_fields_is_read(tmp_path):
    facts = load_text(SMI_QUERY_MORE_FIELDS, tmp_path)
    gpu = facts.nvidia.gpus[0]
    assert (gpu.name, gpu.memory_total_mib, gpu.power_limit_w, gpu.temperature_c) == ("NVIDIA L4", 24564, 72.0, 33)
    assert facts.get("nvidia.driver_version") == "550.90.07"
    facts = load_text(SMI_QUERY_CLOCKS, tmp_path)
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA L40S", "NVIDIA L40S"]
    assert (facts.get("torch.version"), facts.get("python.version")) == ("2.6.0+cu124", "3.10.22")
    assert {f.code: f for f in run_env_checks(facts)}["TE201"].status is Status.OK


def test_noheader_query_rows_take_their_fields_from_the_command(tmp_path):
    facts = load_text("$ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader\n"
                      "NVIDIA GeForce RTX 4090, 550.54.14\n", tmp_path)
    assert facts.get("nvidia.driver_version") == "550.54.14"
    assert kinds("$ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader\n"
                 "NVIDIA GeForce RTX 4090, 550.54.14\n")[:1] == ["GPU listing"]


def test_a_csv_of_other_fields_is_not_nvidia_smis():
    # A package table exported as CSV: "name, version" are no nvidia-smi fields.
    assert "GPU listing" not in kinds("name, version\ntorch, 2.1.0\nnumpy, 1.26.0\n")


# --------------------------------------------------------------------------- GitHub issue forms

def test_an_issue_forms_one_line_answers_are_its_environment_list():
    # A dev report (exllamav2#786): "### Python version" / "" / "3.12" and "### Pytorch version" / "" / "2.7.0+cu128".
    facts = cli_env.load_facts(Path(__file__).parent / "fixtures" / "env_reports" /
                               "exllamav2-786-neko-box-coder-form-torch270cu128-1080ti-p100-warnings-cut.txt")
    assert (facts.get("python.version"), facts.get("python.system")) == ("3.12", "Linux")
    assert facts.get("torch.version") == "2.7.0+cu128"


# https://github.com/invoke-ai/InvokeAI/issues/7146 (issue body by max-maag, 2024-10-18), verbatim to its pip output.
INVOKEAI_FORM = """### Is there an existing issue for this problem?

- [X] I have searched the existing issues

### Operating system

Linux

### GPU vendor

AMD (ROCm)

### GPU model

RX 6650 XT

### GPU VRAM

8GB

### Version number

5.1.1, 5.2.0

### Browser

n/a
"""


def test_an_untagged_torch_answer_is_read_and_an_empty_or_long_answer_is_not(tmp_path):
    form = INVOKEAI_FORM + "\n### PyTorch version\n\n2.4.1\n\n### Python version\n\n_No response_\n"
    facts = load_text(form, tmp_path)
    assert (facts.get("torch.version"), facts.get("python.system")) == ("2.4.1", "Linux")
    assert not known(facts.python.version)  # "_No response_"
    # A heading over a log of several lines is no field: its first line is not the answer.
    with pytest.raises(UsageError):
        load_text("### Python version\n\n3.10.12\nin base; the venv runs another one\n", tmp_path)


def test_the_torch_pip_is_replacing_is_not_the_install(tmp_path):
    # A pip log cut before "Successfully installed": the torch it names is the one being removed.
    with pytest.raises(UsageError):
        load_text("Installing collected packages: torch, torchvision, torchaudio\n  Attempting uninstall: torch\n"
                  "    Found existing installation: torch 2.7.0+cu128\n    Uninstalling torch-2.7.0+cu128:\n", tmp_path)


# --------------------------------------------------------------------------- nvidia-smi failing

# https://github.com/mattshma/bigdata/issues/108, verbatim (also a knowledge-base example of nvidia-driver-not-found).
SMI_NO_DRIVER = """$ nvidia-smi
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.
"""

# https://github.com/tinygrad/open-gpu-kernel-modules/issues/47 (issue body by lionelman450, 2025-10-15), its terminal output.
SMI_MISMATCH = """nvidia-smi 
Failed to initialize NVML: Driver/library version mismatch
NVML library version: 570.124
"""


def test_nvidia_smi_failing_to_reach_the_driver_is_no_driver_as_nvml_reports_it(tmp_path):
    facts = load_text(SMI_NO_DRIVER, tmp_path)
    assert facts.nvidia.driver_version is None and facts.nvidia.gpus == []
    assert "couldn't communicate" in facts.nvidia.nvml_error
    # Beside a CUDA build of torch (a line of the same thread's kind added), TE211 names the missing driver.
    te211 = {f.code: f for f in run_env_checks(load_text(SMI_NO_DRIVER + ">>> torch.__version__\n'2.1.0+cu121'\n",
                                                         tmp_path))}["TE211"]
    assert te211.status is Status.WARNING and "there is no NVIDIA driver" in te211.message
    # The same torch alone: nothing says whether a driver is there.
    te211 = {f.code: f for f in run_env_checks(load_text(">>> torch.__version__\n'2.1.0+cu121'\n", tmp_path))}["TE211"]
    assert te211.status is Status.SKIP


def test_a_driver_library_mismatch_keeps_the_driver_unknown_with_nvmls_text(tmp_path):
    facts = load_text(SMI_MISMATCH, tmp_path)
    assert not known(facts.nvidia.driver_version)
    assert facts.nvidia.nvml_error == "Driver/library version mismatch (NVML library version: 570.124)"


def test_a_table_after_the_failure_wins(tmp_path):
    # The paste shows the failure, then nvidia-smi working after a reboot: the working table is the machine now.
    facts = load_text(SMI_NO_DRIVER + "\n" + SMI_V100, tmp_path)
    assert facts.nvidia.driver_version == "418.87.01" and len(facts.nvidia.gpus) == 1


# --------------------------------------------------------------------------- pipdeptree

# A public repository's notes (code index id 55893253249, no repository named), verbatim.
DEPTREE_UNICODE = """**Evidence**:
```bash
$ pipdeptree -p realtimetts
realtimetts==0.4.47
├── stream2sentence [required: ==0.3.0, installed: 0.3.0]
│   └── stanza [required: ==1.9.2, installed: 1.9.2]
│       └── torch [required: >=1.3.0, installed: 2.6.0+cu124]
```
"""

# Another (code index id 30485820630), verbatim: the ASCII tree of older pipdeptree.
DEPTREE_ASCII = """skipthoughts==0.0.1
  - numpy [required: Any, installed: 1.16.5]
  - torch [required: Any, installed: 1.3.0]
    - future [required: Any, installed: 0.18.0]
    - numpy [required: Any, installed: 1.16.5]
"""


def test_pipdeptree_gives_the_installed_versions(tmp_path):
    facts = load_text(DEPTREE_UNICODE, tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda")) == ("2.6.0+cu124", "12.4")
    assert facts.packages.distributions_partial is True
    stanza = next(d for d in facts.packages.distributions if d.name == "stanza")
    assert stanza.requires == ["torch>=1.3.0"]
    facts = load_text(DEPTREE_ASCII, tmp_path)
    assert facts.get("torch.version") == "1.3.0"
    assert {d.name for d in facts.packages.distributions} == {"skipthoughts", "numpy", "torch", "future"}


def test_a_tree_under_a_top_level_pin_gives_the_pins_requirements_to_te103(tmp_path):
    facts = load_text("torchvision==0.16.0\n  - numpy [required: Any, installed: 1.26.4]\n"
                      "  - torch [required: ==2.1.0, installed: 2.2.0]\n", tmp_path)
    assert {f.code: f for f in run_env_checks(facts)}["TE103"].status is Status.ERROR
    facts = load_text("torchvision==0.16.0\n  - torch [required: ==2.1.0, installed: 2.1.0]\n", tmp_path)
    assert {f.code: f for f in run_env_checks(facts)}["TE103"].status is Status.OK


def test_a_requirement_pipdeptree_shows_missing_is_not_installed(tmp_path):
    # pipdeptree's warning block: "installed: ?" is a requirement with nothing installed for it.
    facts = load_text("Warning!!! Possibly conflicting dependencies found:\n* accelerate==0.32.1\n"
                      " - numpy [required: >=1.17,<2.0.0, installed: 2.4.2]\n"
                      " - torch [required: >=1.10.0, installed: ?]\n", tmp_path)
    assert "torch" not in {d.name for d in facts.packages.distributions}
    assert not known(facts.torch)


# --------------------------------------------------------------------------- transformers env, 4.4x and later

# A transformers issue's "System Info" as copied into a public repository (code index id 61080004452; the index
# names no repository), verbatim: values in backticks, the torch line naming the accelerator.
HF_ACCELERATOR = """### System Info

* `transformers` version: `5.0.0.dev0`
* Platform: `Linux-5.15.167.4-microsoft-standard-WSL2-x86_64-with-glibc2.39`
* Python version: `3.12.3`
* `huggingface_hub` version: `1.3.2`
* `safetensors` version: `0.7.0`
* `accelerate` version: `1.12.0`
* Accelerate config: `not installed`
* DeepSpeed version: `not installed`
* PyTorch version (accelerator?): `2.9.1+cu128 (CUDA)`
* GPU type: `NVIDIA L4`
* NVIDIA driver version: `550.90.07`
* CUDA version: `12.4`
"""


def test_transformers_env_naming_the_accelerator_gives_availability_and_the_platform(tmp_path):
    facts = load_text(HF_ACCELERATOR, tmp_path)
    assert (facts.get("torch.version"), facts.get("torch.cuda_available")) == ("2.9.1+cu128", True)
    assert (facts.get("python.system"), facts.get("python.wsl")) == ("Linux", True)
    assert facts.nvidia.gpus[0].name == "NVIDIA L4" and facts.get("nvidia.driver_version") == "550.90.07"


@pytest.mark.parametrize("accelerator, available", [("NA", False), ("MPS", False), ("ROCm", None)])
def test_an_accelerator_other_than_cuda(accelerator, available, tmp_path):
    facts = load_text(f"- PyTorch version (accelerator?): 2.5.1 ({accelerator})\n- Platform: macOS-14.5-arm64-arm-64bit\n",
                      tmp_path)
    assert facts.get("torch.version") == "2.5.1"
    assert (facts.get("torch.cuda_available") if available is not None else known(facts.torch.cuda_available)) is (
        available if available is not None else False)


# --------------------------------------------------------------------------- ROCm builds

def test_a_rocm_wheel_is_no_cuda_build_and_names_its_rocm(tmp_path):
    facts = load_text("torch             2.3.0+rocm6.0\ntorchvision       0.18.0+rocm6.0\n", tmp_path)
    assert (facts.torch.cuda, facts.torch.hip) == (None, "6.0")
    # A public repository's notes (code index id 57015597461, no repository named), its IPython session, verbatim.
    facts = load_text("In [1]: import torch\n\nIn [2]: torch.__version__\nOut[2]: '2.2.0.dev20231010+rocm5.7'\n\n"
                      "In [3]: torch.cuda.is_available()\nOut[3]: True\n", tmp_path)
    assert (facts.torch.cuda, facts.torch.hip, facts.torch.cuda_available) == (None, "5.7", True)


def test_hip_printed_by_torch_is_taken_as_printed_and_a_cuda_tag_names_no_rocm(tmp_path):
    facts = load_text(">>> torch.__version__\n'2.5.1'\n>>> torch.version.hip\n'6.2.41133-dd7f95766'\n", tmp_path)
    assert facts.torch.hip == "6.2.41133-dd7f95766"
    facts = load_text("torch             2.3.0+cu121\ntorchvision       0.18.0+cu121\n", tmp_path)
    assert facts.torch.cuda == "12.1" and not known(facts.torch.hip)


def test_a_notebooks_shell_escape_is_the_list_command(tmp_path):
    # Colab/Jupyter: "!pip list | grep torch" - a filtered pip list, not a hand-written one.
    facts = load_text("!pip list | grep torch\ntorch                            2.1.0+cu121\n"
                      "torchvision                      0.16.0+cu121\n", tmp_path)
    assert [d.location for d in facts.packages.distributions] == ["pip list", "pip list"]
    assert facts.packages.distributions_partial is True
    # The same rows without the command are a hand-written list.
    facts = load_text("torch                            2.1.0+cu121\ntorchvision                      0.16.0+cu121\n", tmp_path)
    assert [d.location for d in facts.packages.distributions] == ["hand-written list", "hand-written list"]


# pytorch/examples#657: pip's Python 2.7 deprecation notice printed between the command and its row.
def test_pips_own_notice_inside_a_listing_does_not_end_it(tmp_path):
    text = ("$ pip list  | grep torch\n"
            "DEPRECATION: Python 2.7 will reach the end of its life on January 1st, 2020. Please upgrade your Python "
            "as Python 2.7 won't be maintained after that date.\n"
            "torch                              1.4.0a0+f2a35db\n")
    facts = load_text(text, tmp_path)
    assert [d.version for d in facts.packages.distributions if d.name == "torch"] == ["1.4.0a0+f2a35db"]


def test_a_sentence_after_the_command_still_ends_the_listing(tmp_path):
    # A line that is neither a row nor pip's notice: what follows is not the listing's.
    facts = load_text("$ pip list | grep torch\nI think it is fine.\ntorch 2.1.0 is what I want\n", tmp_path)
    assert not known(facts.get("packages.distributions")) or not any(
        d.name == "torch" and d.location == "pip list" for d in facts.packages.distributions)
