"""Facts from whatever people paste about their environment, for `torchdoctor env --facts`.

Besides `python -m torch.utils.collect_env` (collect_env_text), issues carry `nvidia-smi`
output, `pip list` / `pip freeze` / `conda list` tables, `python -m sglang.check_env` and
OpenMMLab's `collect_env` (the same "Key: value" lines), Lightning's bulleted environment,
`transformers-cli env` / `diffusers-cli env` / `accelerate env`, pip's install log (what it
installed, what its resolver found incompatible), what `print(torch.__version__)` and friends
printed, an issue template's environment list ("- **GPU:** NVIDIA ...", "PyTorch Version: 2.5.0"),
a traceback of `import torch` failing, `ldd` output (where the loader finds a library's dependencies), what applications print about torch (app_reports: xFormers,
Ultralytics, ComfyUI, launchers, extension builds), and torch's own warnings; last, for a layout none of these
knows and for the facts they left unknown, what the text states in prose (prose.py). `read(text)` finds each of
these in one text (alone or together), merges what they say into a partial `Facts` JSON dict and names
what it read; every field none of them shows stays unknown, with that list as the reason.

Precedence when two say the same thing: the collect_env report, then nvidia-smi (driver, GPUs),
then the package lists (torch's version and CUDA build from the `torch` row's local tag).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from .. import paste
from ..data import tables
from . import app_reports, collect_env_text, extensions, nvidia_smi_text, prose, torch_warnings

# `cat /proc/driver/nvidia/version`: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 ...",
# "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build ...": the loaded driver.
_NVRM = re.compile(r"NVRM version:\s*NVIDIA\b[^\n]*?Kernel Module(?:\s+for\s+\S+)?\s+(\d{3}\.\d+(?:\.\d+)?)\b")
# pip list ("torch   2.1.0+cu121"), pip freeze ("torch==2.1.0"), conda list ("pytorch 2.0.1 py3.10_cuda11.8_0 pytorch").
_PIP_HEADER = re.compile(r"^Package\s+Version\b")
_CONDA_HEADER = re.compile(r"^#\s*(?:Name\s+Version\s+Build|packages in environment at)")
_ROW = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9._-]*)\s+(\d[\w.+!-]*)(?:\s+(\S+))?(?:\s+(\S+))?\s*$")
_FREEZE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\d[\w.+!-]*)\s*$")
# A conda list row pasted without the table's header (a few rows picked out, or grep's): a build string
# and a conda channel after the version ("pytorch  2.5.1  py3.12_cpu_0  pytorch").
_CONDA_BARE_ROW = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*\s+\d[\w.+!-]*\s+(?:py\d[\w.]*|cpu\w*|cuda\w*|h[0-9a-f]{7}\w*|"
                             r"pypi_0|\w*_\d+)\s+(?:pytorch|pytorch-nightly|conda-forge|nvidia|defaults|anaconda|pypi|"
                             r"main|pkgs/main)\s*$")
# python -m sglang.check_env, and the same keys in other projects' env dumps.
_KV = {
    "torch": re.compile(r"(?:^|\s)PyTorch:\s*(\d+\.\d+[\w.+]*)"),
    "driver": re.compile(r"CUDA Driver Version:\s*(\d+(?:\.\d+)+)"),
    "available": re.compile(r"(?:^|\s)CUDA available:\s*(True|False)"),
}
# OpenMMLab's collect_env (mmcv, mmdet, mmdeploy) and sglang's: the toolchain and torch's CUDA build.
_KV_NVCC = re.compile(r"(?:^|\s)NVCC:\s*(?:Cuda compilation tools, release (\d+\.\d+)|Build cuda_(\d+\.\d+))", re.M)
_KV_GCC = re.compile(r"(?:^|\s)GCC:\s*(.+)$", re.M)
_KV_CUDA_HOME = re.compile(r"(?:^|\s)CUDA_HOME:\s*(/\S+|[A-Za-z]:\\\S+)", re.M)
# torch.__config__.show() ("PyTorch built with:"), inside OpenMMLab's and detectron2's reports or alone:
# the CUDA runtime torch was built with and its NVCC architecture flags, i.e. torch.cuda.get_arch_list().
_KV_RUNTIME = re.compile(r"^\s*-\s*CUDA Runtime (\d+\.\d+)", re.M)
_CONFIG_SHOW = re.compile(r"PyTorch built with:")
_CONFIG_ARCH_FLAGS = re.compile(r"^\s*-\s*NVCC architecture flags:\s*(\S+)", re.M)
# show() lists "CUDA Runtime", "NVCC architecture flags" and "CuDNN" (or "HIP Runtime" for ROCm) before its last
# item, "Build settings": a list that reaches it without them is a CPU-only build.
_CONFIG_SETTINGS = re.compile(r"^\s*-\s*Build settings:", re.M)
_CONFIG_GPU_ITEM = re.compile(r"^\s*-\s*(?:CUDA Runtime|NVCC architecture flags|CuDNN|HIP Runtime|MIOpen|ROCm)\b", re.M)
_GENCODE = re.compile(r"arch=compute_(\d+a?),code=(sm|compute)_(\d+a?)")
_KV_PACKAGES = {"torchvision": re.compile(r"(?:^|\s)TorchVision:\s*(\d[\w.+]*)", re.M),
                "mmcv": re.compile(r"(?:^|\s)MMCV:\s*(\d[\w.+]*)", re.M)}
_KV_GPU = re.compile(r"(?:^|\s)GPU ((?:\d+,)*\d+):\s*(.+?)(?=\s+GPU (?:\d+,)*\d+ Compute Capability|\s+CUDA_HOME|$)", re.M)
_KV_CC = re.compile(r"GPU ((?:\d+,)*\d+) Compute Capability:\s*(\d+\.\d+)")
# `transformers-cli env`, `diffusers-cli env`, `accelerate env` (what Hugging Face's templates ask for):
# "- PyTorch version (GPU?): 2.1.2+cu121 (True)", "- GPU type: NVIDIA A100-SXM4-80GB", "- Platform: Linux-...".
# From transformers 4.4x the torch line names the accelerator instead: "PyTorch version (accelerator?): 2.9.1+cu128
# (CUDA)" ("(NA)" with none, "(MPS)", "(XPU)"); values may sit in backticks ("* GPU type: `NVIDIA L4`").
_HF_TORCH = re.compile(r"^[-*]?\s*PyTorch version \((?:GPU|accelerator)\?\):\s*`?(\d+\.\d+[\w.+]*)\s*"
                       r"\((True|False|CUDA|NA|MPS|XPU|NPU|MLU|HPU|MUSA|ROCm|HIP)\)`?")
_HF_GPU = re.compile(r"^[-*]?\s*GPU type:\s*`?(\S[^`]*)`?$", re.I)
_HF_PLATFORM = re.compile(r"^[-*]?\s*Platform:\s*`?((?:Linux|Windows|macOS|Darwin)-[^\s`]+)")
_HF_PYTHON = re.compile(r"^[-*]?\s*Python version:\s*`?(\d+\.\d+(?:\.\d+)?)`?\s*$")
# Lightning's bug-report environment ("* CUDA:" / "- GPU:" / "- NVIDIA A100..." / "- torch: 2.1.0").
_LIT_SECTION = re.compile(r"^\*\s*(CUDA|Lightning|Packages|System):\s*$")
_LIT_ITEM = re.compile(r"^-\s*([A-Za-z0-9][\w.-]*):\s*(\S.*)?$")
_LIT_BARE = re.compile(r"^-\s*(\S.*)$")
_TORCH_FAMILY = {"torch", "torchvision", "torchaudio", "pytorch"}
# pip's install log: "Successfully installed torch-2.4.0 torchvision-0.19.0", "Requirement already
# satisfied: torch in /site-packages (2.0.1)", and its resolver's "torchvision 0.16.0+cu118 requires
# torch==2.1.0, but you have torch 2.2.0+cu118 which is incompatible."
_PIP_INSTALLED = re.compile(r"^Successfully installed (.+)$")
_PIP_WHEEL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._]*(?:-[A-Za-z][A-Za-z0-9._]*)*)-(\d[\w.+!]*)$")
# The requirement may carry its specifier and extras, and the package that asked for it: "Requirement already
# satisfied: torch==1.10.0 in /usr/local/lib/python3.7/dist-packages (from torchaudio) (1.10.0+cu111)".
_PIP_SATISFIED = re.compile(r"^Requirement already satisfied: ([A-Za-z0-9][\w.-]*)(?:\[[\w,.-]*\])?(?:\s*[<>=!~]=?[^\s,]*(?:,[<>=!~]=?[^\s,]*)*)?"
                            r" in \S+(?: \(from [^)]*\))? \((\d[\w.+!-]*)\)$")
# pip before 20.3 (the legacy resolver) said it in other words, on one "ERROR:" line: "ERROR: torchvision 0.6.0 has
# requirement torch==1.5.0, but you'll have torch 1.6.0.dev20200413 which is incompatible." Used as an issue's title or
# quoted, it keeps a markdown heading's or a quote's mark before it.
_PIP_CONFLICT = re.compile(
    r"^(?:#{1,6}\s+|>\s*)?(?:ERROR:\s+)?([A-Za-z0-9][\w.-]*) (\d[\w.+!-]*) (?:requires|has requirement) ([A-Za-z0-9][\w.-]*)\s*([<>=!~][^,]*?), "
    r"but you(?: have|'ll have) ([A-Za-z0-9][\w.-]*) (\d[\w.+!-]*) which is incompatible\.?$")
# What `print(torch.__version__)`, `torch.version.cuda` and `torch.cuda.is_available()` printed, in a
# REPL (">>> torch.__version__" then "'2.0.1+cu117'") or a `python -c "...; print(...); print(...)"`.
# `pip show torch`: "Name: torch", then "Version: 2.7.0+cpu".
# The command a pasted table came from: "pip list | grep torch", "$ conda list", "pip3 freeze".
# Jupyter and Colab run it as a shell escape or magic: "!pip list | grep torch", "%pip list".
_LIST_COMMAND = re.compile(r"^(?:(?:\([^()\n]{1,60}\)\s*)?(?:PS\s+)?\S*[$#>%!]\s*)?(?:python3?\s+-m\s+)?(?P<tool>pip3?|conda|mamba|micromamba)\s+"
                           r"(?P<verb>list|freeze)\b[^|]*(?P<filter>\|\s*(?:grep|findstr|select-string|rg)\b.*)?$", re.I)
_NAME_DASH_VERSION = re.compile(r"^([A-Za-z][A-Za-z0-9_.]*?(?:-[A-Za-z][A-Za-z0-9_]*)*)-(\d+(?:\.\d+)+(?:[a-z]+\d*)?(?:\+[\w.]+)?)$")
_SHOW_NAME = re.compile(r"^Name:\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*$")
_SHOW_VERSION = re.compile(r"^Version:\s*(\d[\w.+!-]*)\s*$")
# conda's package plan and specs: "pytorch-1.11.0 |cpu_py37h14e09b7_1  49.7 MB  conda-forge" (download
# table), "pytorch  pytorch/win-64::pytorch-1.10.0-py3.6_cpu_0" (NEW packages), "pytorch=1.9.0=py3.8_cpu_0".
_CONDA_FAMILY = r"(?P<name>pytorch|torchvision|torchaudio|cudatoolkit|pytorch-cuda|cpuonly)"
_CONDA_PLAN_ROW = re.compile(r"^" + _CONDA_FAMILY + r"-(?P<version>\d[\w.]*)\s*\|\s*(?P<build>\S+)")
_CONDA_NEW_ROW = re.compile(r"^\S+\s+(?:[\w.-]+/)*[\w-]+::" + _CONDA_FAMILY + r"-(?P<version>\d[\w.]*)-(?P<build>\S+)$")
_CONDA_SPEC = re.compile(r"(?<![\w-])" + _CONDA_FAMILY + r"=(?P<version>\d[\w.]*)=(?P<build>[\w.]+)")
# The result told in prose: "torch.cuda.is_available() returns False", "cuda.is_available() returned false".
_SAID_AVAILABLE = re.compile(r"(?:torch\.)?cuda\.is_available\(\)`?\s*(?:returns?|returned|gives|is)\s*[`*]*(True|False)\b",
                             re.I)
# The official pytorch/pytorch image a Dockerfile or `docker run` names: its tag is the torch release and the
# CUDA it was built for ("pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime", "...:1.6.0-cuda10.1-cudnn7-devel").
_PYTORCH_IMAGE = re.compile(r"(?<![\w.-])(?:docker\.io/)?pytorch/pytorch:(?P<torch>\d+\.\d+\.\d+)-cuda(?P<cuda>\d+\.\d+)"
                            r"-cudnn\d+-(?:runtime|devel)\b")
# What a conda install asked for: "conda install pytorch ... cudatoolkit=11.3 -c pytorch" and the
# plan's "added / updated specs:" lines ("- cudatoolkit=10.1"); conda installs a requested spec or fails.
_CONDA_COMMAND = re.compile(r"\b(?:conda|mamba|micromamba)\s+(?:install|create)\b(?P<args>.*)$")
# Its arguments written down without the command ("python=3.7 pytorch==1.7.0 cudatoolkit=10.1 -c pytorch"):
# a channel flag and a pinned pytorch say what they are.
_CONDA_ARGS = re.compile(r"(?P<args>(?<![\w-])pytorch==?\d.*\s-c\s+\S+.*)$")
_CONDA_CHANNEL = re.compile(r"(?:\s-c|--channel)\s+(?P<channel>\S+)")
_CONDA_FAILED = re.compile(r"PackagesNotFoundError|UnsatisfiableError|ResolvePackageNotFound|"
                           r"The following packages are not available|Solving environment: failed")
# conda's UnsatisfiableError names the environment's Python below the specs it rules out: "Your python: python=3.9".
_CONDA_YOUR_PYTHON = re.compile(r"^Your python:\s*python\s*==?\s*(?P<version>[23]\.\d{1,2}(?:\.\d{1,2})?)\s*$", re.I)
# uv naming the interpreter it resolved for: "Using CPython 3.14.0" (creating or syncing an environment) and its hint
# "You're using CPython 3.14 (`cp314`), but `torch` (v2.8.0) only has wheels with ...".
_UV_PYTHON = re.compile(r"^(?:Using CPython (?P<version>3\.\d{1,2}\.\d{1,2})\b|(?:hint:\s*)?You're using CPython (?P<short>3\.\d{1,2})\s+\(`cp3\d{1,2}t?`\))")
# A Dockerfile's base image names the torch, CUDA and Python it ships: the official images
# ("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime") and AWS's deep learning containers
# ("FROM 7633....amazonaws.com/pytorch-inference:2.3.0-gpu-py311-cu121-ubuntu20.04-ec2"; "-cpu-" for CPU images).
_DOCKER_FROM = re.compile(r"^\s*FROM\s+(?:--platform=\S+\s+)?(?:[\w.-]+(?::\d+)?/)*"
                          r"(?:pytorch:(?P<official>\d+\.\d+\.\d+)-cuda(?P<official_cuda>\d+\.\d+)-cudnn\d+-(?:runtime|devel)"
                          r"|pytorch-(?:training|inference):(?P<dlc>\d+\.\d+\.\d+)-(?P<device>gpu|cpu)-py(?P<py>3)(?P<py_minor>\d{1,2})"
                          r"(?:-cu(?P<cu>\d{3}))?)\b", re.I)
_CONDA_TORCH_REQUEST = re.compile(r"(?<![\w-])pytorch==?(?P<version>\d+\.\d+\.\d+)(?![\w.*])")
_CONDA_REQUEST = re.compile(r"(?<![\w-])(?P<name>cudatoolkit|pytorch-cuda)\s*=\s*(?P<version>\d+(?:\.\d+)*)")
_CONDA_SPEC_LINE = re.compile(r"^-\s+(?P<name>cudatoolkit|pytorch-cuda)\s*=\s*(?P<version>\d+(?:\.\d+)*)\s*$")
_PRINTED = re.compile(r"torch(?:vision|audio)?\.__version__|torch\.version\.cuda|torch\.version\.hip|torch\.cuda\.is_available\(\)"
                      r"|torch\.cuda\.get_device_name\(\s*\d*\s*\)|torch\.cuda\.get_device_capability\(\s*\d*\s*\)"
                      r"|torch\.cuda\.get_arch_list\(\)")
# A value written after its expression on the same line, as people summarise what they ran ("torch.__version__ →
# 2.9.1+cpu", "torch.version.cuda -> None", "torch.cuda.is_available() = False", "- torch.__version__: 2.1.0").
_EXPR_THEN_VALUE = re.compile(r"^[-*•]?\s*`?(?P<expr>" + _PRINTED.pattern + r")`?\s*(?:→|->|=>|==|=|:)\s*`?(?P<value>[^`\s]+)`?\s*$")
# A REPL's ">>> " is gone by now (_lines drops quote marks): an input line is the bare expression.
_SHOWS_OUTPUT = re.compile(r"^(?:>>>\s*)?(?:" + _PRINTED.pattern + r")$|print\s*\(|python3?(?:\.exe)?\s+-c\b")
_VALUE = {
    "torch.__version__": re.compile(r"^(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+[\w.]+)?)$"),
    # torch 1.2 and older printed the toolkit's full version ("10.0.130", "9.0.176"): its major.minor is the build.
    "torch.version.cuda": re.compile(r"^(None|\d+\.\d+)(?:\.\d+)?$"),
    "torch.cuda.is_available()": re.compile(r"^(True|False)$"),
    # ROCm's version as HIP reports it ("6.0.32830-d62f6a171", "7.1.25424"); None on CUDA and CPU builds.
    "torch.version.hip": re.compile(r"^(None|\d+\.\d+(?:\.\d+)?(?:-[0-9a-f]+)?)$"),
    # The current GPU's name and compute capability ("(8, 6)"), and the build's arch list
    # ("['sm_50', ..., 'sm_90']"; [] wherever no GPU is usable, so an empty list says nothing of the build).
    "torch.cuda.get_device_name()": re.compile(r"^((?:NVIDIA|Tesla|Quadro|GeForce|TITAN)\b[\w .-]{1,60})$"),
    "torch.cuda.get_device_capability()": re.compile(r"^\((\d{1,2}),\s*(\d)\)$"),
    "torch.cuda.get_arch_list()": re.compile(r"^\[((?:\s*'(?:sm|compute)_\d{2,3}[a-z]?'\s*,?)+)\]$"),
}
# torchvision's and torchaudio's versions print as torch's do ("0.14.0", "0.15.0.dev20221110+cu117").
_VALUE["torchvision.__version__"] = _VALUE["torchaudio.__version__"] = _VALUE["torch.__version__"]
_PRINTED_KEY = {"torch.__version__": "version", "torch.version.cuda": "cuda", "torch.version.hip": "hip", "torch.cuda.is_available()": "cuda_available",
                "torch.cuda.get_device_name()": "gpu_name", "torch.cuda.get_device_capability()": "gpu_cc",
                "torch.cuda.get_arch_list()": "arch_list", "torchvision.__version__": "torchvision",
                "torchaudio.__version__": "torchaudio"}


# What print(torch.cuda.get_device_properties(0)) shows, wherever it is pasted: torch's own repr.
_DEVICE_PROPERTIES = re.compile(r"_CudaDeviceProperties\(name='(?P<name>[^'\n]{1,80})',\s*major=(?P<major>\d{1,2}),"
                                r"\s*minor=(?P<minor>\d)\b")
# Values that never hold a space, so that print(a, b, c) shows them on one line: "2.0.1+cu117 11.7 True".
_ONE_WORD_VALUES = ("torch.__version__", "torch.version.cuda", "torch.cuda.is_available()", "torchvision.__version__",
                    "torchaudio.__version__")


def _values_on_one_line(exprs: list[str], line: str) -> list[Any]:
    """The values of the leading `exprs` that one print(a, b, ...) shows on `line`, in order; a label
    word may stand before each ("torch 2.0.1 cuda 11.7"). Fewer than two found: none."""
    words = [w.strip("'\",()[]") for w in line.split()]
    found: list[Any] = []
    at = 0
    for expr in exprs:
        if _printed_expr(expr) not in _ONE_WORD_VALUES:
            break
        for skip in (0, 1):
            if at + skip < len(words) and (value := _printed_value(expr, words[at + skip].rstrip(":="))) is not _NO:
                found.append(value)
                at += skip + 1
                break
        else:
            break
    return found if len(found) >= 2 and at == len(words) else []


def _printed_expr(expr: str) -> str:
    """ "torch.cuda.get_device_name(0)" -> "torch.cuda.get_device_name()": the value's form, whatever the device."""
    return re.sub(r"\(\s*\d*\s*\)$", "()", expr)
# An issue template's environment list: "- **GPU:** NVIDIA GeForce RTX 4060", "PyTorch Version (e.g., 1.0): 1.3",
# "- **CUDA Version**: 12.8 (Driver 570.181)", and bare lines ("NVIDIA GeForce RTX 3080", "NVIDIA Driver 591.74").
# One whitespace run between the key and its unit: "\s*(?:\(...\))?\s*" split each run of spaces between two
# \s* in every way, for every length of the key (a line padded with spaces cost seconds).
_ITEM = re.compile(r"^(?:[-*+\u2022]\s*)?([A-Za-z\u4e00-\u9fff][\w ./?'-]{0,60}?)\s*(?:\([^)]*\)\s*)?[:\uff1a]\s*(\S.*)$")
# Chinese issue forms write the keys in Chinese, or in both ("Python\u7248\u672c\uff1a3.10.11", "Python \u7248\u672c / Python
# version: 3.10.12", "\u663e\u5361\uff1aRTX 3090"): their words, as the English keys below spell them.
_CJK_KEY_WORDS = {"\u64cd\u4f5c\u7cfb\u7edf": " operating system ", "\u7cfb\u7edf": " system ", "\u663e\u5361\u578b\u53f7": " gpu model ",
                  "\u663e\u5361": " graphics card ", "\u9a71\u52a8": " driver ", "\u7248\u672c": " version ", "\u578b\u53f7": " model "}
_ITEM_KEYS = {
    "torch": {"pytorch version", "pytorch", "torch version", "torch", "pytorch/torch version"},
    "gpu": {"gpu", "gpus", "gpu model", "gpu models", "gpu models and configuration", "gpu type", "graphics card",
            "video card", "graphics", "gpu name", "gpu device name", "device name", "cuda device", "cuda device name",
            "torch.cuda.get_device_name"},
    "driver": {"driver", "driver version", "nvidia driver", "nvidia driver version", "gpu driver", "nvidia-driver"},
    "cuda": {"cuda version", "cuda", "cuda/cudnn version", "cuda driver"},
    "python": {"python", "python version"},
    "os": {"os", "operating system", "system"},
    "available": {"is cuda available", "cuda available", "cuda is available", "torch.cuda.is_available()",
                  "torch cuda is", "torch cuda available", "pytorch cuda available", "pytorch detects cuda available",
                  "torch detects cuda available"},
    # Whether the build has CUDA at all (torch.backends.cuda.is_built(), a cluster's check script's "PyTorch built
    # with CUDA: False"): False is a CPU-only build; True says nothing of which CUDA.
    "cuda_built": {"pytorch built with cuda", "torch built with cuda", "built with cuda", "torch.backends.cuda.is_built()",
                   "cuda built", "pytorch cuda built"},
    # torch.version.cuda under a label ("torch cuda ver  : 9.0.176" in fastai's show_install, "PyTorch CUDA : 12.8",
    # "Torch CUDA: 12.8"); scripts print the availability under the same label ("PyTorch CUDA : Available").
    # conda's `cudatoolkit` package (one word, as `conda list` names it) is the CUDA runtime a conda torch build
    # was made for and runs with; NVIDIA's own toolkit is written "CUDA Toolkit" and is nvcc's.
    "torch_cuda": {"torch cuda", "pytorch cuda", "torch cuda ver", "torch cuda version", "pytorch cuda version",
                   "torch.version.cuda", "cudatoolkit"},
    "torchvision": {"torchvision", "torchvision version"},
    "torchaudio": {"torchaudio", "torchaudio version"},
    "index": {"pytorch index", "torch index", "pytorch index url", "torch index url", "index url", "index-url",
              "wheel index", "pip index", "extra-index-url", "extra index url"},
}
# The same list hand-written without colons, one bulleted "key value" per line ("* pytorch 1.7.0",
# "- gpu rtx 3060ti"): read for the keys whose value is a version or a GPU the name table knows.
_BULLET = re.compile(r"^[-*+\u2022]\s*(\S.*)$")
_BULLET_KINDS = ("torch", "gpu", "driver", "python")
# A GPU named by its GeForce model number alone ("GPU: 3090", "GPU3090", "gpu 1080 ti").
_MODEL_NUMBER = re.compile(r"^(?:GPU\s*[:\uff1a]?\s*)?(\d{4})(\s*(?:Ti|SUPER))?$", re.I)
_BARE_GPU = re.compile(r"^(?:NVIDIA\s+)?(?:GeForce|Tesla|Quadro|TITAN|RTX|GTX)\b[\w -]{1,40}$")
# A bare version carrying the build's local tag ("- 2.8.0+cu128", "1.13.1+cpu"): only torch's family
# tags its versions so, and from torch 2.1 torchaudio's is torch's own; torchvision's are 0.x.
_BARE_TAGGED_TORCH = re.compile(r"^(?:v)?([1-9]\d*\.\d+(?:\.\d+)?\+(?:cu\d{2,3}|cpu|rocm[\d.]+))$")
# A bare system line ("Windows 10", "Ubuntu 22.04 LTS", "macOS 14.5"): the name and its version alone.
_BARE_OS = re.compile(r"^(?P<name>Windows|Win|Ubuntu|Debian|CentOS|Fedora|Rocky Linux|Arch Linux|macOS|Mac OS X?|WSL2?)"
                      r"\s*(?:\d+(?:\.\d+)*|XP|Server \d{4})?(?:\s+(?:LTS|Pro|Home|x64|64-bit|arm64))*$", re.I)
_BARE_DRIVER = re.compile(r"^(?:NVIDIA\s+)?Driver(?:\s+Version)?:?\s+(\d{3}\.\d+(?:\.\d+)?)$", re.I)
_IN_VALUE_DRIVER = re.compile(r"\bDriver:?\s*(\d{3}\.\d+(?:\.\d+)?)", re.I)
# torch pinned as pip writes a requirement, on its own line of the list ("- `torch==2.5.1`"): pip installs
# exactly that release or fails, so in a list of what the stack is, it is the torch (prose naming a pin
# is only what was asked for, see prose._TORCH_WHEEL). pip's name only: conda's "- pytorch==1.7.0" bullets are
# also the specs of a PackagesNotFoundError.
_BARE_PIN = re.compile(r"^torch\s*==\s*v?(\d+\.\d+(?:\.\d+)?(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]+))?)$", re.I)
# The wheel index a list names ("PyTorch index: `cu121`", "index-url: https://download.pytorch.org/whl/cu118"):
# every torch on download.pytorch.org/whl/<tag> is built for that tag's CUDA (or none, for cpu).
_INDEX_TAG = re.compile(r"^(?:\S*download\.pytorch\.org/whl/(?:(?:nightly|test)/)?)?(cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*)/?$",
                        re.I)
# How a list says whether torch sees CUDA: "True", "yes", fastai's "available" / "**Not available**", "READY".
_SAID_AVAILABILITY = {"true": True, "yes": True, "available": True, "ready": True, "false": False, "no": False,
                      "not available": False, "unavailable": False, "not ready": False}
_PLACEHOLDER = re.compile(r"^(?:<.*>|\[.*\]|e\.g\..*|n/?a|none|no|yes|unknown|-+|_?no response_?)$", re.I)
# `echo $LD_LIBRARY_PATH` and the line it printed.
_ECHO_LD = re.compile(r"echo \$\{?LD_LIBRARY_PATH\}?\s*$")
# detectron2's collect_env: a two-column table ("PyTorch    1.5.1+cpu @/site-packages/torch",
# "GPU 0,1   Tesla K80", "GPU 0   GeForce GTX 1650 Ti (arch=7.5)", "GPU available   False").
_D2_ROW = re.compile(r"^(sys\.platform|PyTorch|GPU available|CUDA available|GPU [\d,]+|Driver version|CUDA_HOME|NVCC|"
                     r"CUDA compiler|Detectron2 CUDA Compiler|torchvision|detectron2)\s{2,}(\S.*?)\s*$")
# `import torch` failing: a frame in torch/__init__.py, then the exception it ended with.
# Only the import-time frames: torch.compile and others also live in torch/__init__.py.
_TORCH_INIT_FRAME = re.compile(
    r'File "[^"]*[/\\]torch[/\\]__init__\.py",\s+line\s+\d+,\s+in\s+(?:<module>|_load\w*|_preload\w*)')
_EXCEPTION = re.compile(r"^((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)): (\S.*)$")


def _lines(text: str) -> list[str]:
    out = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        while line.startswith(">"):
            line = line[1:].strip()
        out.append(paste.clean_line(line).strip().strip("`").strip())
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _cuda_from_tag(version: str) -> str | None | bool:
    """ "2.1.0+cu121" -> "12.1"; "+cpu" -> None; no tag -> False (unknown)."""
    m = re.search(r"\+cu(\d+)(\d)\b", version)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    if re.search(r"\+cpu\b", version):
        return None
    return False


# nvidia-smi's other outputs: `-L` ("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5a1c...)"), and
# `--query-gpu=name,driver_version,compute_cap --format=csv` (a header of field names, then rows).
_SMI_LIST = re.compile(r"^GPU (\d+): (.+?) \(UUID: GPU-[0-9a-fA-F-]+\)$")
_SMI_QUERY_FIELDS = {"index", "name", "driver_version", "compute_cap", "pci.bus_id", "uuid", "memory.total",
                     "memory.used", "memory.free", "temperature.gpu", "utilization.gpu", "count", "serial", "pstate",
                     "timestamp"}
# Any other field of `nvidia-smi --help-query-gpu` is dotted or snake_case ("power.limit", "vbios_version",
# "clocks.max.sm"); the CSV header writes units after it ("memory.total [MiB]"); "gpu_name" is "name".
_SMI_FIELD = re.compile(r"^[a-z][a-z0-9]*(?:[._][a-z0-9]+)+$")
_SMI_QUERY_COMMAND = re.compile(r"nvidia-smi\b.*--query-gpu[= ](?P<fields>[\w.,]+).*--format[= ]csv\S*noheader")
# `lspci | grep -i nvidia`: "01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)".
_LSPCI_GPU = re.compile(r"^[0-9a-fA-F]{2,4}:[0-9a-fA-F]{2}\.\d\s+(?:VGA compatible|3D) controller:\s+NVIDIA Corporation\s+"
                        r"[^\[\]\n]*\[(?P<name>[^\]\n]+)\]")
# CUDA's deviceQuery sample: 'Device 0: "NVIDIA GeForce RTX 3090"', its capability and the CUDA the driver supports.
_DQ_DEVICE = re.compile(r'^Device (\d+): "(.+)"$')
_DQ_CC = re.compile(r"^CUDA Capability Major/Minor version number:\s*(\d+)\.(\d+)$")
_DQ_DRIVER = re.compile(r"^CUDA Driver Version / Runtime Version\s+(\d+\.\d+)\s*/\s*\d+\.\d+$")


def gpu_listings(lines: list[str]) -> dict[str, Any] | None:
    """nvidia facts from `nvidia-smi -L`, `nvidia-smi --query-gpu=... --format=csv`, lspci and deviceQuery."""
    nvidia: dict[str, Any] = {}
    gpus: dict[int, dict[str, Any]] = {}
    header: list[str] | None = None
    device = None
    for line in lines:
        m = _SMI_LIST.match(line)
        if m:
            gpus.setdefault(int(m.group(1)), collect_env_text.named_gpu(m.group(2).strip(), int(m.group(1))))
            continue
        fields = ["name" if f == "gpu_name" else f for f in (f.strip().split(" [")[0] for f in line.split(","))]
        if len(fields) >= 2 and all(f in _SMI_QUERY_FIELDS or _SMI_FIELD.match(f) for f in fields) and (
                "name" in fields or "driver_version" in fields):
            header = fields
            continue
        m = _SMI_QUERY_COMMAND.search(line)
        if m:  # "--format=csv,noheader": the rows below hold the fields the command asked for
            fields = ["name" if f == "gpu_name" else f for f in m.group("fields").strip(",").split(",")]
            header = fields if "name" in fields or "driver_version" in fields else None
            continue
        if header:
            values = [v.strip() for v in line.split(",")]
            if len(values) != len(header):
                header = None
                continue
            row = dict(zip(header, values))
            index = int(row["index"]) if row.get("index", "").isdigit() else len(gpus)
            if "name" in row:
                gpu = collect_env_text.named_gpu(row["name"], index)
                if re.fullmatch(r"\d{1,2}\.\d", row.get("compute_cap", "")):
                    gpu["compute_capability"] = row["compute_cap"]
                for field, key in (("memory.total", "memory_total_mib"), ("memory.used", "memory_used_mib")):
                    if m := re.fullmatch(r"(\d+)(?: MiB)?", row.get(field, "")):
                        gpu[key] = int(m.group(1))
                if re.fullmatch(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d", row.get("pci.bus_id", "")):
                    gpu["pci_bus_id"] = row["pci.bus_id"]
                if row.get("uuid", "").startswith("GPU-"):
                    gpu["uuid"] = row["uuid"]
                for field, key in (("power.limit", "power_limit_w"), ("power.draw", "power_draw_w")):
                    if m := re.fullmatch(r"(\d+(?:\.\d+)?)(?: W)?", row.get(field, "")):
                        gpu[key] = float(m.group(1))
                if m := re.fullmatch(r"(\d{1,3})(?: C)?", row.get("temperature.gpu", "")):
                    gpu["temperature_c"] = int(m.group(1))
                gpus.setdefault(index, gpu)
            if re.fullmatch(r"\d{3}\.\d+(?:\.\d+)?", row.get("driver_version", "")):
                nvidia.setdefault("driver_version", row["driver_version"])
            continue
        m = _LSPCI_GPU.match(line)
        if m and collect_env_text.compute_capability(m.group("name")):
            gpus.setdefault(len(gpus), collect_env_text.named_gpu(m.group("name").strip(), len(gpus)))
            continue
        m = _DQ_DEVICE.match(line)
        if m:
            device = int(m.group(1))
            gpus.setdefault(device, collect_env_text.named_gpu(m.group(2).strip(), device))
            continue
        m = _DQ_CC.match(line)
        if m and device is not None:
            gpus[device]["compute_capability"] = f"{m.group(1)}.{m.group(2)}"
            continue
        m = _DQ_DRIVER.match(line)
        if m:
            nvidia.setdefault("cuda_driver_version", m.group(1))
    if gpus:
        nvidia["gpus"] = [gpus[i] for i in sorted(gpus)]
    return nvidia or None


_BARE_NAME = re.compile(r"^[A-Za-z_][\w.-]*\s*$")
# pip's own notices printed into its listing ("DEPRECATION: Python 2.7 will reach the end of its life...",
# "WARNING: Ignoring invalid distribution -orch", "[notice] A new release of pip is available"): not the end of it.
_PIP_NOTICE = re.compile(r"^\s*(?:DEPRECATION:|WARNING:|\[notice\])")
# Anaconda's metapackage _pytorch_select (builds cpu_0 / gpu_0) as _norm names it: it chose the variant of its
# pytorch builds.
_PYTORCH_SELECT = "-pytorch-select"


def package_list(lines: list[str]) -> tuple[str, list[dict[str, Any]], bool] | None:
    """("pip list" | "pip freeze" | "conda list", distributions, partial) of a pasted package table.
    A table pasted under its command line ("pip list | grep torch", "conda list") needs no header;
    one filtered through grep/findstr is partial, and ends at the first line that is not a row."""
    kind = None
    rows: list[dict[str, Any]] = []
    partial = False
    under_command = False
    for line in lines:
        if _PIP_HEADER.match(line):
            kind = kind or "pip list"
            under_command = False
            continue
        if _CONDA_HEADER.match(line):
            kind = "conda list"
            under_command = False
            continue
        c = _LIST_COMMAND.match(line)
        if c:
            kind = "conda list" if c.group("tool") in ("conda", "mamba", "micromamba") else f"pip {c.group('verb')}"
            partial = partial or bool(c.group("filter"))
            under_command = True
            continue
        if under_command and line and not (_ROW.match(line) or _FREEZE.match(line)):
            if _PIP_HEADER.match(line) or line.startswith("#") or _PIP_NOTICE.match(line):
                continue
            under_command = False
            kind = None
            continue
        if kind is None and _CONDA_BARE_ROW.match(line):
            kind = "conda list"
            partial = True  # rows picked out of the table: the rest of the environment is not shown
        m = _FREEZE.match(line)
        if m:
            rows.append({"name": _norm(m.group(1)), "version": m.group(2), "location": "pip freeze"})
            continue
        if kind:
            m = _ROW.match(line)
            if m:
                name, version, build, channel = m.groups()
                row = {"name": "torch" if name in collect_env_text.TORCH_NAMES else _norm(name), "version": version,
                       "location": kind}
                if kind == "conda list" and (channel != "pypi" and build not in ("pypi_0", "<pip>")):
                    row["installer"] = "conda"
                    if build:
                        row["build"] = build
                    # "py3.7_cpu_0": the CPU build; _pytorch_select's "cpu_0" the CPU variant.
                    if row["name"] in ("torch", _PYTORCH_SELECT) and build and _conda_cuda(build) is not False:
                        row["cuda"] = _conda_cuda(build)
                rows.append(row)
            elif _BARE_NAME.match(line) and rows:
                partial = True  # a row cut after its name: the paste stops inside the table
    # One freeze line alone is a package list only where it is torch's: a report's "Versions" section that holds
    # nothing but "torch==2.6.0.dev20240919+cu124" (another package's pin alone says nothing of this install).
    if not rows or not (kind or len(rows) >= 2 or any(r["location"] != "pip freeze" for r in rows)
                        or rows[0]["name"] == "torch"):
        return None
    # Bare pins naming one package at two versions, with no command or table header: a requirements file before and
    # after an edit ("torch==2.1.2 ... Changed mine to: torch==2.9.0"), not one environment's packages.
    if kind is None:
        pinned: dict[str, str] = {}
        if any(pinned.setdefault(r["name"], r["version"]) != r["version"] for r in rows if r["location"] == "pip freeze"):
            return None
    return (kind or next((r["location"] for r in rows if r["location"] != "pip freeze"), "pip freeze"), rows,
            partial)


# The same list with the version after spaces, as pip list aligns it without its header ("torch
# 2.9.1+cu128", "pytorch 2.9.0+cu128"); the lines about the system between them ("Python 3.10",
# "CUDA 12.8") name no package and keep the list going.
_NAME_SPACE_VERSION = re.compile(r"^([A-Za-z][A-Za-z0-9_.-]*)\s+v?(\d+(?:\.\d+)+(?:(?:a|b|rc|\.dev|\.post)\d+)?"
                                 r"(?:\+[\w.]+)?)$")
_NOT_PACKAGES = {"python", "cuda", "cudnn", "driver", "nvcc", "gcc", "cmake", "ubuntu", "windows", "debian", "centos",
                 "macos", "os", "nvidia-driver", "rocm"}


def _known_torch_major(version: str) -> bool:
    """Whether `version` has a major version torch has released (0.x to the newest in the tables)."""
    newest = int(tables.releases()[-1]["torch"].split(".")[0])
    return int(version.split(".")[0]) <= newest


def name_version_lines(lines: list[str]) -> list[dict[str, Any]] | None:
    """A hand-written package list of "name-version" or "name   version" lines ("torch-2.1.1",
    "torchvision       0.24.1+cu128"): two or more packages in a row, one of them torch's family.
    Always partial: it names what the writer chose."""
    best: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    for line in lines + [""]:
        bare = line.lstrip("-*+ ").strip()
        m = _NAME_DASH_VERSION.match(bare) or _NAME_SPACE_VERSION.match(bare)
        if m and m.group(1).lower() in _NOT_PACKAGES:
            continue
        if m:
            name = "torch" if m.group(1).lower() in collect_env_text.TORCH_NAMES else _norm(m.group(1))
            if name == "torch" and not _known_torch_major(m.group(2)):
                continue  # "torch 7.0+cu118": a version no torch has had is a typo, not the install
            run.append({"name": name, "version": m.group(2), "location": "hand-written list"})
            continue
        if len(run) >= 2 and any(r["name"] in _TORCH_FAMILY for r in run):
            best += run
        run = []
    return best or None


# An issue form's environment section ("### Your current environment" of vLLM's form, "### Name and Version" of
# Bitnami's, "**Environment**", "## 环境") that holds nothing but the stack's name in a few words: "vllm0.8.1 docker",
# "pytorch". What it names is the report's whole environment; the rest is unknown, and says so.
_ENV_HEADING = re.compile(r"^(?:#{1,6}\s*)?(?:\*\*)?\s*(?:your\s+current\s+environment|environment|name\s+and\s+version|"
                          r"system\s+info(?:rmation)?|versions?|\u73af\u5883|\u8fd0\u884c\u73af\u5883)\s*[:\uff1a]?\s*(?:\*\*)?$", re.I)
_STACK_NAME = re.compile(r"(?<![\w.-])(?P<name>pytorch|torch|vllm|sglang|transformers|xformers|diffusers|deepspeed|"
                         r"accelerate|lightning|pytorch-lightning|torchvision|torchaudio|mmcv|mmdet|detectron2|"
                         r"ultralytics|bitsandbytes|flash-attn|triton|peft|trl)(?:\s*(?:==|=|:|\s)\s*v?|v?)"
                         r"(?P<version>\d+\.\d+(?:\.\d+)?(?:\+[\w.]+)?)?(?![\w-])", re.I)


def environment_section(lines: list[str]) -> tuple[list[dict[str, Any]], list[str]] | None:
    """(packages with their versions, stack names without one) that an issue form's environment section
    names, when it holds only a line or two of words; None when there is no such section or it names nothing."""
    for i, line in enumerate(lines):
        if not _ENV_HEADING.match(line.strip()):
            continue
        body: list[str] = []
        for below in lines[i + 1:]:
            if below.strip().startswith(("#", "**")) and body:
                break
            if below.strip():
                body.append(below.strip())
        if not body or len(body) > 3:
            continue
        rows, bare = [], []
        for m in (m for text in body for m in _STACK_NAME.finditer(text)):
            name = "torch" if m.group("name").lower() in collect_env_text.TORCH_NAMES else _norm(m.group("name"))
            if m.group("version"):
                rows.append({"name": name, "version": m.group("version"), "location": "environment section"})
            elif name not in bare:
                bare.append(name)
        if rows or bare:
            return rows, bare
    return None


def pip_show(lines: list[str]) -> list[dict[str, Any]] | None:
    """The distributions `pip show` printed: a "Name:" line and the "Version:" line below it."""
    rows: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        m = _SHOW_NAME.match(line)
        if not m or i + 1 >= len(lines):
            continue
        v = _SHOW_VERSION.match(lines[i + 1])
        if not v:
            continue
        # Its "Location:" is not kept: a path there would read as an install on the path, which
        # the multiple-installs check would then look for on disk.
        rows.append({"name": _norm(m.group(1)), "version": v.group(1), "location": "pip show"})
    return rows or None


# pipdeptree's tree: a top-level "torchvision==0.16.0", then indented children "├── torch [required: ==2.1.0,
# installed: 2.1.0]" ("installed: ?" where the requirement is missing); `-r` and plain ASCII trees use "- ".
_DEPTREE_TOP = re.compile(r"^([A-Za-z0-9][\w.-]*)==(\d[\w.+!-]*)$")
_DEPTREE_CHILD = re.compile(r"^(?P<indent>[\s\u2502\u251c\u2514\u2500|`*-]*?)(?:[\u251c\u2514]\u2500\u2500|-)\s*"
                            r"(?P<name>[A-Za-z0-9][\w.-]*) \[required: (?P<spec>[^,\]]+(?:,[^,\]]+)*?), "
                            r"installed: (?P<installed>[^\]\s]+)\]$")


def pipdeptree(raw_lines: list[str]) -> list[dict[str, Any]] | None:
    """The distributions a pasted `pipdeptree` shows installed, each with the requirements of its own
    that the tree shows under it (what TE103 compares with the installed torch). A child shown
    "installed: ?" is missing: no row for it."""
    rows: dict[str, dict[str, Any]] = {}
    parents: list[tuple[int, str]] = []  # (indent, name) of the branch above the current line
    children = 0
    for raw in raw_lines:
        line = raw.rstrip().lstrip("`")
        top = _DEPTREE_TOP.match(line.strip())
        if top and not line[:1].isspace():
            name = _norm(top.group(1))
            rows.setdefault(name, {"name": name, "version": top.group(2), "location": "pipdeptree"})
            parents = [(-1, name)]
            continue
        m = _DEPTREE_CHILD.match(line)
        if not m:
            if line.strip():
                parents = []
            continue
        children += 1
        depth = len(m.group("indent"))
        while parents and parents[-1][0] >= depth:
            parents.pop()
        name, spec = _norm(m.group("name")), m.group("spec").strip()
        if parents and spec.lower() != "any":
            parent = rows.get(parents[-1][1])
            if parent is not None:
                requirement = f"{name}{spec.replace(' ', '')}"
                if requirement not in parent.setdefault("requires", []):
                    parent["requires"].append(requirement)
        if m.group("installed") != "?":
            rows.setdefault(name, {"name": name, "version": m.group("installed"), "location": "pipdeptree"})
        parents.append((depth, name))
    return list(rows.values()) if children and rows else None


def _conda_cuda(build: str) -> str | None | bool:
    """A conda build string as torch.version.cuda: "py3.6_cpu_0" / "cpu_py37h..." -> None,
    "py3.8_cuda11.3_cudnn8_0" / "cuda112py39h..." -> "11.3" / "11.2"; else False (unknown)."""
    tag = tables.conda_build_flavour(build)
    if tag == "cpu":
        return None
    return (tables.tag_cuda(tag) or False) if tag else False


# `conda info`: "key : value" rows right-aligned on the colon, lists continued on the lines below
# ("virtual packages : __cuda=12.2=0" / "__glibc=2.35=0"). Its "python version" is the Python conda itself
# runs on (the base environment's), its "platform" the subdir conda installs for, and "__cuda" the CUDA
# version conda read from the driver (libcuda's cuDriverGetVersion), what nvidia-smi prints as "CUDA Version".
_CONDA_INFO_KEYS = {"active environment", "active env location", "shell level", "user config file",
                    "populated config files", "conda version", "conda-build version", "python version", "solver",
                    "virtual packages", "base environment", "conda av data dir", "conda av metadata url",
                    "channel urls", "package cache", "envs directories", "platform", "user-agent", "uid:gid",
                    "netrc file", "offline mode"}
_CONDA_INFO_ROW = re.compile(r"^(?P<key>[A-Za-z][\w :-]*?)\s+:\s*(?P<value>.*)$")
_CONDA_VIRTUAL_PACKAGE = re.compile(r"^(?P<name>__\w+)=(?P<version>[^=\s]+)(?:=\S*)?$")
_CONDA_PLATFORM_SYSTEM = {"linux": "Linux", "win": "Windows", "osx": "Darwin"}


def conda_info(lines: list[str]) -> tuple[dict[str, Any], set[int]] | None:
    """(facts, the indexes of its lines) of a pasted `conda info`: three or more of its own keys make one.
    Its Python is the environment's only where the active environment is base (conda runs on base's);
    otherwise the Python stays unknown, and the block is kept from the environment-list reader, which
    would take "python version : 3.8.13.final.0" for the environment's."""
    rows: dict[str, list[str]] = {}
    taken: set[int] = set()
    key = None
    for i, line in enumerate(lines):
        m = _CONDA_INFO_ROW.match(line)
        if m and m.group("key").strip().lower() in _CONDA_INFO_KEYS:
            key = m.group("key").strip().lower()
            rows.setdefault(key, []).append(m.group("value").strip())
            taken.add(i)
        elif key is not None and line and " " not in line.strip() and ":" not in line.replace("://", ""):
            rows[key].append(line.strip())  # a list continued: "__glibc=2.31=0", "/root/.conda/pkgs"
            taken.add(i)
        elif key is not None and line.startswith("http") and key == "channel urls":
            rows[key].append(line.strip())
            taken.add(i)
        else:
            key = None
    if len(rows) < 3:
        return None
    facts: dict[str, Any] = {}
    virtual = {m.group("name"): m.group("version") for v in rows.get("virtual packages", [])
               if (m := _CONDA_VIRTUAL_PACKAGE.match(v))}
    if re.fullmatch(r"\d+\.\d+", virtual.get("__cuda", "")):
        facts["nvidia"] = {"cuda_driver_version": virtual["__cuda"]}
    platform = (rows.get("platform") or [""])[0]
    system = _CONDA_PLATFORM_SYSTEM.get(platform.split("-", 1)[0])
    if system is None:
        system = next((s for name, s in (("__linux", "Linux"), ("__win", "Windows"), ("__osx", "Darwin"))
                       if name in virtual), None)
    python: dict[str, Any] = {}
    if system:
        python["system"] = system
    version = re.match(r"^(\d+\.\d+\.\d+)(?:\.(?:final|candidate|beta|alpha)\.\d+)?$",
                       (rows.get("python version") or [""])[0])
    if version and (rows.get("active environment") or [""])[0] == "base":
        python["version"] = version.group(1)
    if python:
        facts["python"] = python
    return facts, taken


def _with_continuations(lines: list[str]) -> list[str]:
    """Each line, with a conda command wrapped at a space joined to its next line ("conda install -c
    pytorch" / "pytorch=1.9.0 torchvision cudatoolkit=11.3")."""
    out = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _CONDA_COMMAND.search(line) and re.match(r"^(?:-c\s|--\w|[\w.-]+==?\d|[\w.-]+\s+-c\s)", nxt):
            line = f"{line} {nxt}"
        out.append(line)
    return out


def conda_plan(lines: list[str]) -> list[dict[str, Any]] | None:
    """torch-family packages conda's plan (or a `name=version=build` spec) says it installs, with the
    build's CUDA flavour: conda silently falls back to a CPU build when no CUDA build fits."""
    rows: dict[str, dict[str, Any]] = {}
    for line in lines:
        for m in [_CONDA_PLAN_ROW.match(line), _CONDA_NEW_ROW.match(line), *_CONDA_SPEC.finditer(line)]:
            if m is None:
                continue
            name = "torch" if m.group("name") == "pytorch" else m.group("name")
            row = {"name": name, "version": m.group("version"), "location": "conda plan", "installer": "conda"}
            cuda = _conda_cuda(m.group("build"))
            if cuda is not False:
                row["cuda"] = cuda
            rows.setdefault(name, row)
    commands = [m.group("args") for line in _with_continuations(lines)
                if (m := _CONDA_COMMAND.search(line) or _CONDA_ARGS.search(line))]
    # A pinned pytorch in the command is what conda installed: it installs the specs it is given or fails,
    # and a failure says so.
    failed = any(_CONDA_FAILED.search(line) for line in lines)
    for args in [] if failed else commands:
        m = _CONDA_TORCH_REQUEST.search(args)
        if m and "torch" not in rows:
            rows["torch"] = {"name": "torch", "version": m.group("version"), "location": "conda install command",
                             "installer": "conda"}
            toolkit = _CONDA_REQUEST.search(args)
            channels = [c.group("channel") for c in _CONDA_CHANNEL.finditer(args)]
            cuda = ".".join(toolkit.group("version").split(".")[:2]) if toolkit else None
            if cuda and channels[:1] == ["pytorch"] and cuda in {b["cuda"] for b in tables.builds(m.group("version"))}:
                # The pytorch channel's CUDA builds each pin the one cudatoolkit/pytorch-cuda they were
                # built with, so beside cudatoolkit=10.1 conda installs the CUDA 10.1 build. Where the
                # release has no build for that CUDA, conda falls back to a CPU build (pytorch#69202):
                # then the build is left unknown, and a plan or list above says which.
                rows["torch"]["cuda"] = cuda
    if rows:  # what was asked for beside it: a CUDA toolkit says the install meant to use CUDA
        for line in _with_continuations(lines):
            command = _CONDA_COMMAND.search(line) or _CONDA_ARGS.search(line)
            found = _CONDA_REQUEST.finditer(command.group("args")) if command else iter([_CONDA_SPEC_LINE.match(line)])
            for m in found:
                if m is not None:
                    rows.setdefault(m.group("name"), {"name": m.group("name"), "version": m.group("version"),
                                                      "location": "conda install command", "installer": "conda"})
    return list(rows.values()) or None


def _wrapped_rest(after: str) -> str:
    """The rest of the NVCC flags that a terminal wrapped onto the next lines ("...code=sm_6" /
    "1;-gencode;..."): the lines below made of flag characters only, joined without spaces."""
    rest = ""
    for line in after.split("\n")[1:]:
        line = line.strip()
        if not re.fullmatch(r"[\w;,=.\-]+", line) or line.startswith("- "):
            break
        rest += line
    return rest


def config_show(text: str) -> dict[str, Any] | None:
    """torch facts from torch.__config__.show(): the CUDA build and the arch list its NVCC flags give."""
    if not _CONFIG_SHOW.search(text):
        return None
    torch: dict[str, Any] = {}
    m = _KV_RUNTIME.search(text)
    if m:
        torch["cuda"] = m.group(1)
    elif ((settings := _CONFIG_SETTINGS.search(text)) and not _CONFIG_GPU_ITEM.search(text, 0, settings.start())
          and not re.search(r"\bUSE_CUDA=(?:ON|1)\b", text)):
        torch["cuda"] = None
    m = _CONFIG_ARCH_FLAGS.search(text)
    if m:
        flags = m.group(1) + _wrapped_rest(text[m.end():])
        archs = [f"{kind}_{code}" for _, kind, code in _GENCODE.findall(flags)]
        # A paste cut inside the flags would pass for a shorter list: keep only a list that ends whole.
        if archs and re.search(r"code=(?:sm|compute)_\d+a?\s*$", flags):
            torch["arch_list"] = list(dict.fromkeys(archs))
    return torch or None


def check_env(text: str) -> dict[str, Any] | None:
    """`python -m sglang.check_env` keys (also when the paste flattened its lines)."""
    found = {key: m.group(1) for key, pattern in _KV.items() if (m := pattern.search(text))}
    # Cut before its PyTorch line, "CUDA available:" above the "GPU 0,1: NAME" row is the report still.
    gpu_rows = "available" in found and any("Compute Capability" not in m.group(0) for m in _KV_GPU.finditer(text))
    if "torch" not in found and "driver" not in found and not gpu_rows:
        return None
    facts: dict[str, Any] = {}
    if "torch" in found:
        torch: dict[str, Any] = {"version": found["torch"], "import_status": "ok"}
        cuda = _cuda_from_tag(found["torch"])
        runtime = _KV_RUNTIME.search(text)
        if cuda is not False:
            torch["cuda"] = cuda
        elif runtime:
            torch["cuda"] = runtime.group(1)
        if "available" in found:
            torch["cuda_available"] = found["available"] == "True"
        facts["torch"] = torch
        dists = [{"name": "torch", "version": found["torch"], "location": "check_env"}]
        for name, pattern in _KV_PACKAGES.items():
            m = pattern.search(text)
            if m:
                dists.append({"name": name, "version": m.group(1), "location": "check_env"})
        if len(dists) > 1:
            facts["packages"] = {"distributions": dists}
    elif "available" in found:
        facts["torch"] = {"cuda_available": found["available"] == "True"}
    toolchain: dict[str, Any] = {}
    m = _KV_NVCC.search(text)
    if m:
        toolchain["nvcc_version"] = m.group(1) or m.group(2)
    m = _KV_GCC.search(text)
    gcc = collect_env_text.gcc_version(re.sub(r"^(?:gcc|g\+\+|c\+\+|cc)(?:-\d+)?\s+", "", m.group(1))) if m else None
    if gcc:  # "gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0": the program's name first, then what collect_env prints
        toolchain["gcc_version"] = gcc
    m = _KV_CUDA_HOME.search(text)
    if m:
        toolchain["cuda_home"] = m.group(1)
        toolchain["cuda_home_source"] = "the CUDA_HOME line of the report"
    if toolchain:
        facts["toolchain"] = toolchain
    nvidia: dict[str, Any] = {}
    if "driver" in found:
        nvidia["driver_version"] = found["driver"]
    ccs = {}
    for m in _KV_CC.finditer(text):
        for index in m.group(1).split(","):
            ccs[int(index)] = m.group(2)
    gpus = []
    for m in _KV_GPU.finditer(text):
        if "Compute Capability" in m.group(0):
            continue
        for index in m.group(1).split(","):
            gpu: dict[str, Any] = {"index": int(index), "name": m.group(2).strip()}
            cc = ccs.get(int(index)) or collect_env_text.compute_capability(gpu["name"])
            if cc:
                gpu["compute_capability"] = cc
            gpus.append(gpu)
    if gpus:
        nvidia["gpus"] = gpus
    if nvidia:
        facts["nvidia"] = nvidia
    return facts


def lightning(lines: list[str]) -> dict[str, Any] | None:
    """Lightning's bulleted environment: GPUs, CUDA build, and its package lists."""
    section = None
    in_gpu = False
    gpus, dists = [], []
    torch: dict[str, Any] = {}
    for line in lines:
        m = _LIT_SECTION.match(line)
        if m:
            section, in_gpu = m.group(1), False
            continue
        if section is None:
            continue
        item = _LIT_ITEM.match(line)
        if section == "CUDA":
            if item and item.group(1) == "GPU":
                in_gpu = True
                continue
            if item:
                in_gpu = False
                key, value = item.group(1), (item.group(2) or "").strip()
                if key == "available" and value in ("True", "False"):
                    torch["cuda_available"] = value == "True"
                elif key == "version":
                    torch["cuda"] = value if re.match(r"^\d+\.\d+", value) else None
                continue
            bare = _LIT_BARE.match(line)
            if in_gpu and bare and bare.group(1) != "None":
                gpus.append(collect_env_text.named_gpu(bare.group(1).strip(), len(gpus)))
        elif section in ("Lightning", "Packages") and item and item.group(2):
            version = item.group(2).strip()
            if re.match(r"^\d", version):
                dists.append({"name": _norm(item.group(1)), "version": version, "location": "lightning env"})
                if _norm(item.group(1)) == "torch":
                    torch.setdefault("version", version)
    if not gpus and not dists and not torch:
        return None
    facts: dict[str, Any] = {}
    if torch:
        if "version" in torch:
            torch["import_status"] = "ok"
        facts["torch"] = torch
    if section is not None and (gpus or "cuda_available" in torch):
        facts["nvidia"] = {"gpus": gpus}
    return facts



def hf_env(lines: list[str]) -> dict[str, Any] | None:
    """The environment block of `transformers-cli env` / `diffusers-cli env` / `accelerate env`."""
    torch: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    python: dict[str, Any] = {}
    for line in lines:
        m = _HF_TORCH.match(line)
        if m and "version" not in torch:
            # "(CUDA)" is torch.cuda.is_available(); ROCm builds answer it too, so "(ROCm)"/"(HIP)" do not say no.
            said = {"True": True, "CUDA": True, "False": False, "NA": False, "MPS": False}.get(m.group(2))
            torch = {"version": m.group(1), "import_status": "ok", **({"cuda_available": said} if said is not None else {})}
            cuda = _cuda_from_tag(m.group(1))
            if cuda is not False:
                torch["cuda"] = cuda
            continue
        m = _HF_GPU.match(line)
        if m and m.group(1).strip().lower() not in ("none", "n/a", "cpu"):
            gpus.append(collect_env_text.named_gpu(m.group(1).strip(), len(gpus)))
            continue
        m = _HF_PLATFORM.match(line)
        if m:
            python["platform"] = m.group(1)
            head = m.group(1).split("-", 1)[0].lower()
            if head == "linux":
                python["wsl"] = "microsoft" in m.group(1).lower()  # as collect_env's "Python platform" says it
            python["system"] = {"linux": "Linux", "windows": "Windows", "macos": "Darwin", "darwin": "Darwin"}[head]
            continue
        m = _HF_PYTHON.match(line)
        if m:
            python["version"] = m.group(1)
    if not torch:
        return None
    facts: dict[str, Any] = {"torch": torch}
    if python:
        facts["python"] = python
    if gpus:
        # Only the GPU torch runs on is named; the others, if any, are not in the text.
        facts["nvidia"] = {"gpus": gpus}
    return facts


def pip_log(lines: list[str]) -> list[dict[str, Any]] | None:
    """The distributions pip's install log shows installed, with the requirements its resolver
    reported broken (a "requires torch==X, but you have torch Y" line is the package's own pin)."""
    rows: dict[str, dict[str, Any]] = {}

    def put(name: str, version: str) -> dict[str, Any]:
        row = rows.setdefault(_norm(name), {"name": _norm(name), "version": version, "location": "pip install log"})
        row["version"] = version
        return row

    for i, line in enumerate(lines):
        if (" requires " in line or " has requirement " in line) and "incompatible" not in line:
            # The resolver's long line wrapped at a space: join up to the line that ends it.
            for j in range(i + 1, min(i + 4, len(lines))):
                if not lines[j]:
                    break
                line += " " + lines[j]
                if "incompatible" in lines[j]:
                    break
        m = _PIP_CONFLICT.match(line)
        if m:
            name, version, needed, spec, have, have_version = m.groups()
            row = put(name, version)
            row.setdefault("requires", []).append(f"{_norm(needed)}{spec.strip()}")
            put(have, have_version)
            continue
        m = _PIP_SATISFIED.match(line)
        if m:
            put(m.group(1), m.group(2))
            continue
        m = _PIP_INSTALLED.match(line)
        if m:
            for token in m.group(1).split():
                w = _PIP_WHEEL.match(token)
                if w:  # the last token of a paste cut mid-line is not a whole "name-version"
                    put(w.group(1), w.group(2))
    return list(rows.values()) or None


def _printed_value(expr: str, line: str) -> Any:
    """What `expr` printed on `line` ("2.4.0+cpu", "None", "True"; quoted by a REPL, or after a label
    as in "CUDA available: True"), or the sentinel `_NO` when the line is not such a value."""
    value = line.strip().strip("'\"")
    pattern = _VALUE[_printed_expr(expr)]
    m = pattern.match(value) or pattern.match(value.rsplit(": ", 1)[-1].strip("'\""))
    if not m:
        return _NO
    if m.lastindex == 2:  # a compute capability: (8, 6) -> "8.6"
        return f"{m.group(1)}.{m.group(2)}"
    text = m.group(1).strip()
    return {"None": None, "True": True, "False": False}.get(text, text)


_NO = object()


def _command_line(lines: list[str], i: int) -> tuple[str, int]:
    """A `python -c "..."` command the paste wrapped over lines, joined, and the index of its last
    line (its output starts below that); any other line as it is."""
    line = lines[i]
    m = re.search(r"python3?(?:\.exe)?\s+-c\s+(['\"])", line)
    if not m or line.count(m.group(1)) % 2 == 0:
        return line, i
    joined = line
    for j in range(i + 1, min(i + 6, len(lines))):
        joined += " " + lines[j]
        if lines[j].count(m.group(1)) % 2 == 1:
            return joined, j
    return line, i


def _values_below(exprs: list[str], below: list[str]) -> list[Any]:
    """The values `exprs` printed on the lines `below` their command, in order: one a line, or several
    on one line (print(a, b)); one prose line ("returned:") may stand before them."""
    values: list[Any] = []
    skipped = 0
    for after in below:
        if not after:
            continue
        value = _printed_value(exprs[len(values)], after)
        if value is _NO:
            several = _values_on_one_line(exprs[len(values):], after) if len(exprs) - len(values) >= 2 else []
            if several:
                values += several
                if len(values) == len(exprs):
                    break
                continue
            if values or skipped >= 1:
                break
            skipped += 1
            continue
        values.append(value)
        if len(values) == len(exprs):
            break
    return values


# IPython's prompts: "In [2]: torch.__version__", its result on "Out[2]: '2.0.1+cu118'", and "   ...: " before
# a continued input. Read as the plain REPL's lines: the input bare, the result on its own line.
_IPYTHON_IN = re.compile(r"^In\s?\[\d*\]:\s?")
_IPYTHON_OUT = re.compile(r"^Out\[\d+\]:\s?")
_IPYTHON_MORE = re.compile(r"^\.\.\.+:(?:\s|$)")
# "import torch; torch.__version__": the import typed on the same line as what it shows.
_IMPORT_FIRST = re.compile(r"^import torch(?:\s*,\s*\w+)*\s*;\s*")
# One repr item: a quoted string, or a bare word (True, None, a number).
_REPR_ITEM = re.compile(r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,()'"\s]+)\s*(?:,|$)""")


def _ipython_as_repl(line: str) -> str:
    """An IPython session line as the plain REPL shows it: without its In/Out prompt; a continuation
    prompt's line is left out (the values read here are one-line expressions)."""
    if _IPYTHON_MORE.match(line):
        return ""
    return _IPYTHON_OUT.sub("", _IPYTHON_IN.sub("", line, count=1), count=1)


def _tuple_parts(line: str) -> list[str] | None:
    """The expressions of a tuple typed at a prompt ("torch.__version__, torch.cuda.is_available()",
    also in parentheses), or None when the line is not a tuple of plain dotted names and calls."""
    body = line.strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    parts = [p.strip() for p in body.rstrip(",").split(",")]
    if len(parts) < 2 or not all(re.fullmatch(r"[A-Za-z_][\w.]*(?:\(\s*\d*\s*\))?", p) for p in parts):
        return None
    return parts


def _tuple_items(line: str) -> list[str] | None:
    """The items of a tuple's repr ("('1.12.0', True, 'NVIDIA GeForce RTX 4090')"), or None."""
    body = line.strip()
    if not (body.startswith("(") and body.endswith(")")):
        return None
    body = body[1:-1].strip()
    items, at = [], 0
    while at < len(body):
        m = _REPR_ITEM.match(body, at)
        if not m or m.end() == at:
            return None
        items.append(m.group(1))
        at = m.end()
    return items or None


def python_prints(lines: list[str]) -> dict[str, Any] | None:
    """torch facts from the output of print(torch.__version__) / torch.version.cuda /
    torch.cuda.is_available() pasted below the command that printed them."""
    torch: dict[str, Any] = {}
    gpu: dict[str, Any] = {}
    family: dict[str, str] = {}  # torchvision.__version__ / torchaudio.__version__ printed beside torch's
    lines = [_ipython_as_repl(line) for line in lines]
    for i, line in enumerate(lines):
        line, i = _command_line(lines, i)
        line = _IMPORT_FIRST.sub("", line)
        exprs = _PRINTED.findall(line)
        if not exprs:
            continue
        parts = _tuple_parts(line)
        written = None if parts else _EXPR_THEN_VALUE.match(line)
        if written:
            value = _printed_value(written.group("expr"), written.group("value"))
            if value is _NO:
                continue
            exprs, values = [written.group("expr")], [value]
        elif parts:
            # A tuple typed at the prompt ("torch.__version__, torch.cuda.is_available()") shows its values as
            # one repr below ("('1.12.0', True)"): each known expression takes the item at its place.
            exprs, values = [], []
            shown = next((_tuple_items(after) for after in lines[i + 1:i + 3] if after), None)
            for part, item in zip(parts, shown if shown and len(shown) == len(parts) else []):
                value = _printed_value(part, item) if _PRINTED.fullmatch(part) else _NO
                if value is not _NO:
                    exprs.append(part)
                    values.append(value)
        elif not _SHOWS_OUTPUT.search(line):
            continue
        else:
            values = _values_below(exprs, lines[i + 1:i + 1 + len(exprs) + 4])
        for expr, value in zip(exprs, values):
            key = _PRINTED_KEY[_printed_expr(expr)]
            if key == "version" and torch.get("version", value) != value:
                # Another torch printed later ("before: 2.2.0+cu121 ... after installing the
                # requirements: 2.3.0+cpu"): what was printed last is the install the paste is about.
                torch, gpu, family = {}, {}, {}
            if key in ("torchvision", "torchaudio"):
                if isinstance(value, str):
                    family.setdefault(key, value)
            elif key in ("gpu_name", "gpu_cc"):
                gpu.setdefault(key, value)
            elif key == "arch_list":
                torch.setdefault(key, re.findall(r"(?:sm|compute)_\d+[a-z]?", value))
            else:
                torch.setdefault(key, value)
    shown = next((m for line in lines for m in [_DEVICE_PROPERTIES.search(line)] if m), None)
    if shown and not gpu:
        gpu = {"gpu_name": shown.group("name"), "gpu_cc": f"{shown.group('major')}.{shown.group('minor')}"}
    nvidia = {}
    if gpu:
        named = collect_env_text.named_gpu(gpu["gpu_name"], 0) if "gpu_name" in gpu else {"index": 0}
        if "gpu_cc" in gpu:
            named["compute_capability"] = gpu["gpu_cc"]  # torch's own answer beats the name table
        nvidia = {"gpus": [named]}
    if "version" not in torch:
        # No printed version: the availability told in prose is still a fact of this torch.
        told = next((m for line in lines for m in [_SAID_AVAILABLE.search(line)] if m), None)
        said = {"torch": {"cuda_available": told.group(1).lower() == "true"}} if told else {}
        return {**said, **({"nvidia": nvidia} if nvidia else {})} or None
    torch["import_status"] = "ok"
    if "cuda" not in torch:
        cuda = _cuda_from_tag(torch["version"])
        if cuda is not False:
            torch["cuda"] = cuda
    # The versions printed are what the paste chose to show, a partial package list beside this torch.
    packages = {"distributions": [{"name": name, "version": version, "location": "printed values"}
                                  for name, version in (("torch", torch["version"]), *family.items())],
                "distributions_partial": True} if family else None
    return {"torch": torch, **({"nvidia": nvidia} if nvidia else {}), **({"packages": packages} if packages else {})}


def _add_distributions(facts: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """A list's packages into the facts, after those already there (the report's own lines come
    first). A row's CUDA tag is a fact of torch's build (`_torch_from_rows`), not a field of it."""
    have = facts.setdefault("packages", {}).setdefault("distributions", [])
    names = {d["name"]: d for d in have}
    for r in rows:
        same = names.get(r["name"])
        if same is not None and same["version"] == r["version"] and r.get("requires") and "requires" not in same:
            same["requires"] = r["requires"]  # pipdeptree's tree under a top-level line pip freeze's reader took
    have += [{k: v for k, v in r.items() if k != "cuda"} for r in rows if r["name"] not in names]


def _torch_from_rows(facts: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """torch's version, and its CUDA build where the row or its local tag says, from a list's torch row."""
    torch_row = next((r for r in rows if r["name"] == "torch"), None)
    selected = next((r for r in rows if r["name"] == _PYTORCH_SELECT and "cuda" in r), None)
    if torch_row is None and selected is not None:
        _fill(facts, "torch", {"cuda": selected["cuda"]})  # the variant chosen, where the torch row is cut away
    if torch_row:
        values: dict[str, Any] = {"version": torch_row["version"]}
        cuda = torch_row["cuda"] if "cuda" in torch_row else _cuda_from_tag(torch_row["version"])
        if cuda is not False:
            values["cuda"] = cuda
        _fill(facts, "torch", values)


def _bullet_item(line: str) -> tuple[str | None, str]:
    """(key, value) of a bulleted "key value" line without a colon ("* pytorch 1.7.0", "- GPU RTX 3090"),
    or (None, "") when the line is not one: the key must be a known one and the value a single
    version, or a short GPU name (prose such as "- pytorch 1.7 crashes on start" is not a value)."""
    m = _BULLET.match(line)
    if not m:
        return None, ""
    text = m.group(1).strip()
    low = text.lower()
    for kind in _BULLET_KINDS:
        for key in sorted(_ITEM_KEYS[kind], key=len, reverse=True):
            if not low.startswith(key + " "):
                continue
            value = text[len(key):].strip()
            if value.startswith("-") and value[1:2] != "-":
                value = value[1:].strip()  # "* PyTorch Version -1.5": a dash for the colon
            if kind == "gpu" and len(value.split()) <= 5:
                return key, value
            if kind != "gpu" and re.fullmatch(r"v?\d+(?:\.\d+)+(?:[\w.+]*)", value):
                return key, value.lstrip("v")
            return None, ""
    return None, ""


def _item_kind(key: str) -> str | None:
    """Which fact an environment list's key names ("torch version" -> "torch"), its Chinese words read as
    the English ones; in a bilingual key ("python \u7248\u672c / python version") either half."""
    for word, english in _CJK_KEY_WORDS.items():
        key = key.replace(word, english)
    for part in (key, *key.split(" / ")):
        part = " ".join(part.split())
        kind = next((k for k, names in _ITEM_KEYS.items() if part in names), None)
        if kind:
            return kind
    return None


def _model_number_name(name: str) -> str | None:
    """A GeForce card written as its model number alone ("3090", "GPU3090", "1080 Ti"), as the name
    the GPU table knows it by (RTX for 20xx and later, GTX before); None when it is not one."""
    m = _MODEL_NUMBER.match(name)
    if not m:
        return None
    for series in ("RTX", "GTX"):
        candidate = f"{series} {m.group(1)}{m.group(2) or ''}"
        if collect_env_text.compute_capability(candidate):
            return candidate
    return None


# A markdown table of the environment: "| PyTorch | 2.0.0+cu117 |" rows of two cells, with or without a
# "| Item | Version |" header; wider tables name the column that holds the value ("| Component | Version |
# Notes |"). Its separator row is "|---|:---:|".
_TABLE_SEPARATOR = re.compile(r"^:?-{2,}:?$")
_TABLE_VALUE_COLUMNS = {"version", "versions", "value", "values", "details", "installed", "installed version",
                        "configuration", "config", "setting", "baseline", "\u7248\u672c", "\u914d\u7f6e", "\u7248\u672c\u53f7"}


def _table_cells(line: str) -> list[str] | None:
    if not (line.startswith("|") and line.count("|") >= 3):
        return None
    return [cell.strip().strip("`").strip() for cell in line.strip().strip("|").split("|")]


def table_rows_as_items(lines: list[str]) -> list[str]:
    """`lines` with each markdown table row written as the "Key: value" line an environment list has,
    the key from the first cell and the value from the second (or the header's value column)."""
    out = list(lines)
    value_column: int | None = None  # the header's value column; None: no header, two-cell rows only
    for i, line in enumerate(lines):
        cells = _table_cells(line)
        if cells is None:
            value_column = None
            continue
        if all(_TABLE_SEPARATOR.match(c) for c in cells if c):
            out[i] = ""
            continue
        below = _table_cells(lines[i + 1]) if i + 1 < len(lines) else None
        if below and all(_TABLE_SEPARATOR.match(c) for c in below if c):  # this row is the header
            named = [j for j, c in enumerate(cells) if c.lower() in _TABLE_VALUE_COLUMNS]
            value_column = named[0] if named else (1 if len(cells) == 2 else -1)
            out[i] = ""
            continue
        column = 1 if value_column is None and len(cells) == 2 else value_column
        if column is None or not 0 < column < len(cells):
            continue
        key, value = cells[0], cells[column]
        if key and value and ":" not in key:
            out[i] = f"{key}: {value}"
    return out


# A GitHub issue form renders each field as a heading, a blank line and the answer ("### Python version" /
# "" / "3.10.12"; "_No response_" where the field was left empty).
_FORM_HEADING = re.compile(r"^#{2,4}\s+(\S.{0,60}?)\s*$")


def form_fields_as_items(lines: list[str]) -> list[str]:
    """`lines` with each issue-form field whose answer is one line written as "Label: answer"."""
    out = list(lines)
    for i, line in enumerate(lines):
        m = _FORM_HEADING.match(line)
        if not m or ":" in m.group(1):
            continue
        j = next((k for k in range(i + 1, min(i + 4, len(lines))) if lines[k]), None)
        if j is None or _FORM_HEADING.match(lines[j]) or lines[j].startswith(("- [", "* [")) or len(lines[j]) > 120:
            continue
        if j + 1 < len(lines) and lines[j + 1] and not _FORM_HEADING.match(lines[j + 1]):
            continue  # an answer of several lines (a log, a list) is read by the readers of its own kind
        out[i], out[j] = "", f"{m.group(1)}: {lines[j]}"
    return out


# A hand-written list without bullets or colons, one "key=value" ("pytorch=1.4.0", "Ubuntu=18.04"), "keyversion"
# ("pytorch1.7.1", "cuda10.1") or "key version" ("python 3.7") per line; one space: columns aligned with several
# are a tool's table, read by its own reader.
_PLAIN_ITEM = re.compile(r"^(?P<key>[A-Za-z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*)?)(?P<sep>\s*=\s*| |(?<=[A-Za-z])(?=\d))"
                         r"v?(?P<value>\d+\.\d+[\w.+-]*)$")  # (not "(?:\.\d+)+[\w.+-]*": both take ".1", quadratic on a long one)
# torch written with its conda build string glued on ("pytorch 0.4.1_cuda9.2_cudnn7.1.4"): the build it is.
_VERSION_CONDA_BUILD = re.compile(r"^(\d+\.\d+(?:\.\d+)?)_((?:py[\d.]+_)?(?:cuda\d+\.?\d[\w.]*|cpu\w*))$")


def plain_lines_as_items(lines: list[str]) -> list[str]:
    """`lines` with a hand-written list's un-bulleted "key=value", "keyversion" and "key version" lines
    written as "Key: value", where two or more lines of the paste read as list items (those, bare GPU
    names, systems, drivers): one such line alone is prose. torch's version counts in the "=" and glued
    forms, or with a conda build string: "torch 2.0.1" spaced is also a pip list row, which says only that
    it is installed (name_version_lines reads those)."""
    found: dict[int, str] = {}
    bare = 0
    for i, line in enumerate(lines):
        m = _PLAIN_ITEM.match(line)
        if m:
            key, value = m.group("key"), m.group("value")
            kind = _item_kind(key.lower())
            if _BARE_OS.match(f"{key} {value}"):
                found[i] = f"{key} {value}"
                continue
            if kind == "torch" and not m.group("sep").strip() and m.group("sep") and not _VERSION_CONDA_BUILD.match(value):
                continue
            if kind in ("torch", "python", "driver", "cuda"):
                found[i] = f"{key}: {value}"
                continue
        elif _BARE_GPU.match(line) or _BARE_OS.match(line) or _BARE_DRIVER.match(line):
            bare += 1
    if len(found) + bare < 2:
        return lines
    return [found.get(i, line) for i, line in enumerate(lines)]


def env_list(lines: list[str]) -> dict[str, Any] | None:
    """An issue template's environment list, "Key: value" lines, and the bare GPU-name and driver
    lines people write instead. A value counts only when it reads as one: a version for torch, a GPU
    the name table knows, a driver number."""
    torch: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    nvidia: dict[str, Any] = {}
    python: dict[str, Any] = {}
    listed: list[dict[str, Any]] = []  # "torchvision: 0.16.0": what the writer chose to name, a partial list
    indexes: set[str] = set()  # the wheel indexes named: "cu121"
    pinned = False  # torch's version is a requirement pin: what is installed, not that it imports
    torch_cuda = None  # torch.version.cuda under a label: "9.0", or "none" for a CPU build
    # A1111's/Forge's footer puts its items on one line: "version: v1.9.4  •  python: 3.10.6  •  torch: 2.1.2+cu121".
    lines = [part.strip() for line in lines for part in (line.split("\u2022") if line.count("\u2022") >= 2 else [line])]
    lines = plain_lines_as_items(form_fields_as_items(table_rows_as_items(lines)))
    for line in lines:
        line = line.rstrip(",;\uff0c\uff1b\u3002 ")  # a hand-written list's trailing commas, also full-width
        bare = line.lstrip("-*+\u2022 ").strip().strip("`").strip()
        if len(bare) > 2 and bare[0] == bare[-1] and bare[0] in "'\"":
            bare = bare[1:-1]  # a REPL's repr: torch.cuda.get_device_name(0) -> 'NVIDIA GeForce RTX 3090'
        m = _BARE_DRIVER.match(bare)
        if m:
            nvidia.setdefault("driver_version", m.group(1))
            continue
        m = _BARE_TAGGED_TORCH.match(bare)
        if m:
            torch.setdefault("version", m.group(1))
            continue
        m = _BARE_PIN.match(bare) if line[:1] in "-*+\u2022" else None  # bare, it is a pip freeze row
        if m:
            if "version" not in torch:
                torch["version"], pinned = m.group(1), True
            continue
        m = _BARE_OS.match(bare)
        if m:
            name = m.group("name").lower()
            python.setdefault("system", "Windows" if name.startswith("win") else
                              "Darwin" if name.startswith("mac") else "Linux")
            continue
        if _BARE_GPU.match(bare) and len(bare.split()) <= 6 and collect_env_text.compute_capability(bare):
            if not any(g["name"] == bare for g in gpus):
                gpus.append(collect_env_text.named_gpu(bare, len(gpus)))
            continue
        glued = _MODEL_NUMBER.match(bare) if bare[:3].upper() == "GPU" else None
        m = _ITEM.match(line)
        if glued:
            key, value = "gpu", bare
        elif m:
            key, value = m.group(1).strip().lower(), m.group(2).strip().strip("`").strip()
        else:
            key, value = _bullet_item(line)
            if key is None:
                continue
        kind = "gpu" if re.fullmatch(r"gpu\s?\d{1,2}", key) else _item_kind(key)  # fastai's "- gpu0 : ..."
        if kind == "cuda_built":
            if value.lower().strip("*") in ("false", "no"):
                torch_cuda = torch_cuda or "none"
            continue
        if kind in ("available", "torch_cuda"):
            said = value.lower().strip("*")
            available = _SAID_AVAILABILITY.get(said)
            if kind == "torch_cuda":
                built = re.match(r"^(\d+\.\d+)(?:\.\d+)*\s*(?:/\s*is\s+\**(not\s+)?available\b.*)?$", said)
                if built:  # fastai 1.0.5x: "torch cuda : 10.0.130 / is available"
                    torch_cuda = torch_cuda or built.group(1)
                    if "available" in said:
                        available = not built.group(2)
                elif said == "none":
                    torch_cuda = torch_cuda or "none"  # print(torch.version.cuda) of a CPU build
            if available is not None:
                torch.setdefault("cuda_available", available)
            continue
        if kind is None or _PLACEHOLDER.match(value):
            continue
        if kind == "torch":
            words = value.split()
            if len(words) > 1 and words[0].lower() in ("pytorch", "torch"):
                words = words[1:]  # "PyTorch 2.0.1+cu121"
            v = _VALUE["torch.__version__"].match(words[0])
            built = _VERSION_CONDA_BUILD.match(words[0])
            if v:
                torch.setdefault("version", v.group(1))
            elif built and "version" not in torch:
                torch["version"] = built.group(1)
                cuda = _conda_cuda(built.group(2))
                if cuda is not False:
                    torch_cuda = torch_cuda or ("none" if cuda is None else cuda)
        elif kind == "gpu":
            # fastai's show_install puts the memory first: "7949MB | GeForce RTX 2080".
            value = re.sub(r"^\d+\s*[MG]i?B\s*\|\s*", "", value)
            name = re.sub(r"\s*\([^)]*\)\s*$", "", value).strip()
            name = _model_number_name(name) or name
            if "," in name and collect_env_text.compute_capability(name.split(",")[0]):
                name = name.split(",")[0].strip()  # "NVIDIA GeForce RTX 2060 Super, 8 GB VRAM"
            if collect_env_text.compute_capability(name) and not any(g["name"] == name for g in gpus):
                gpus.append(collect_env_text.named_gpu(name, len(gpus)))
        elif kind in ("driver", "cuda"):
            d = _IN_VALUE_DRIVER.search(value) or (re.match(r"^(\d{3}\.\d+(?:\.\d+)?)\b", value) if kind == "driver" else None)
            if d:
                nvidia.setdefault("driver_version", d.group(1))
        elif kind == "index":
            t = _INDEX_TAG.match(value)
            if t:
                indexes.add(t.group(1).lower())
        elif kind in ("torchvision", "torchaudio"):
            v = _VALUE["torch.__version__"].match(value.split()[0])
            if v and not any(d["name"] == kind for d in listed):
                listed.append({"name": kind, "version": v.group(1), "location": "environment list"})
        elif kind == "python":
            v = re.match(r"^(?:python\s*)?(\d+\.\d+(?:\.\d+)?)\b", value, re.I)  # "python: Python 3.10.22"
            if v:
                python.setdefault("version", v.group(1))
        elif kind == "os":
            low = value.lower()
            # ComfyUI prints os.name / sys.platform: "nt", "win32", "posix", "linux", "darwin".
            system = ("Windows" if "windows" in low or low in ("nt", "win32") or re.match(r"win\s?(?:7|8|10|11)\b", low) else "Darwin" if re.search(r"mac ?os|darwin", low)
                      else "Linux" if re.search(r"linux|ubuntu|debian|centos|fedora|rhel|red hat|arch", low) else None)
            if system:
                python.setdefault("system", system)
    cpu_build = "version" not in torch and torch_cuda == "none"  # "PyTorch built with CUDA: False" alone
    if "version" not in torch and not gpus and "driver_version" not in nvidia and "version" not in python and not cpu_build:
        # "CUDA available: Yes" alone is no environment list; "python version: 3.7.9" is a fact on its own
        # (which Python pip installed into decides whether a torch wheel exists for it).
        return None
    facts: dict[str, Any] = {}
    if cpu_build:
        torch = {**torch, "cuda": None}  # the build has no CUDA, whichever torch it is
    elif "version" not in torch:
        torch = {}  # whether CUDA was available says little without the torch it was
    if torch.get("version"):
        if not pinned:
            torch["import_status"] = "ok"
        cuda = _cuda_from_tag(torch["version"])
        if cuda is False and torch_cuda:  # the build torch itself reported, where the version carries no tag
            cuda = None if torch_cuda == "none" else torch_cuda
        if cuda is False and len(indexes) == 1:  # an untagged release from the one index named: that index's build
            cuda = _cuda_from_tag(f"{torch['version']}+{next(iter(indexes))}")
        if cuda is not False:
            torch["cuda"] = cuda
    if torch:
        facts["torch"] = torch
    if gpus:
        nvidia["gpus"] = gpus
    if nvidia:
        facts["nvidia"] = nvidia
    if python:
        facts["python"] = python
    if listed and "version" in torch:
        facts["packages"] = {"distributions": [{"name": "torch", "version": torch["version"], "location": "environment list"},
                                               *listed], "distributions_partial": True}
    return facts


# `nvcc --version` / `nvcc -V` pasted on its own: its banner, then "Cuda compilation tools, release 9.1,
# V9.1.85"; `which nvcc` prints the binary that ran.
# The banner may follow the command on its line ("$ nvcc -V nvcc: NVIDIA ...", "nvcc-V:nvcc: NVIDIA ...").
_NVCC_BANNER = re.compile(r"(?:^|[\s:>$])nvcc: NVIDIA \(R\) Cuda compiler driver$")
_NVCC_RELEASE = re.compile(r"^Cuda compilation tools, release (\d+\.\d+), V\d")
_WHICH_NVCC = re.compile(r"which nvcc\s*$")


# A CUDA toolkit's version.txt (CUDA 10.x and older; later ones ship version.json): "CUDA Version 10.1.243"
# (nvidia-smi's "CUDA Version: 12.2" has a colon), and the `cat <dir>/version.txt` that showed it.
_TOOLKIT_VERSION_TXT = re.compile(r"^CUDA Version (\d+\.\d+)\.\d+$")
_CAT_VERSION_TXT = re.compile(r"\bcat\s+(/\S*?)/version\.txt\s*$")


def nvcc_version(lines: list[str]) -> dict[str, Any] | None:
    """The toolkit of a pasted `nvcc --version` (its banner must be there: other tools quote the
    release line), and where `which nvcc` found it."""
    toolchain: dict[str, Any] = {}
    for i, line in enumerate(lines):
        if _NVCC_BANNER.search(line):
            for after in lines[i + 1:i + 6]:
                m = _NVCC_RELEASE.match(after)
                if m:
                    toolchain.setdefault("nvcc_version", m.group(1))
                    break
        elif _WHICH_NVCC.search(line) and i + 1 < len(lines):
            path = lines[i + 1].strip()
            if re.fullmatch(r"/\S*/bin/nvcc", path):
                toolchain.setdefault("nvcc_path", path)
                home = path[: -len("/bin/nvcc")] or "/"
                toolchain.setdefault("cuda_home", home)
                toolchain.setdefault("cuda_home_source", "nvcc on PATH (`which nvcc` in the paste)")
                toolchain.setdefault("cuda_home_exists", True)
        m = _TOOLKIT_VERSION_TXT.match(line)
        if m and "nvcc_version" not in toolchain:
            # The toolkit's own version file: its nvcc is that release.
            toolchain["nvcc_version"] = m.group(1)
            shown = _CAT_VERSION_TXT.search(lines[i - 1]) if i else None
            if shown:
                toolchain.setdefault("cuda_home", shown.group(1))
                toolchain.setdefault("cuda_home_source", f"the toolkit's version file ({shown.group(1)}/version.txt in the paste)")
                toolchain.setdefault("cuda_home_exists", True)
    return toolchain if "nvcc_version" in toolchain else None


# `ldd FILE` and what it printed: "libnvJitLink.so.12 => /usr/local/cuda-12.1/lib64/libnvJitLink.so.12 (0x...)",
# "libcudart.so.12 => not found", "/lib64/ld-linux-x86-64.so.2 (0x...)". The command may carry a shell
# prompt and a filter ("(venv) me@box:~$ ldd .../libtorch_cuda.so | grep cuda").
_LDD_COMMAND = re.compile(r"(?:^|[\s$#>])ldd\s+(?:-\w+\s+)*(?P<file>[^\s|]+)\s*(?:\|.*)?$")
_LDD_ENTRY = re.compile(r"^(?P<name>[\w.+-]+\.so[\w.]*)\s*=>\s*(?:(?P<path>/\S+)\s*\(0x[0-9a-fA-F]+\)|(?P<missing>not found))$")
_LDD_DIRECT = re.compile(r"^(?:/\S+|linux-vdso\.so\.\d|linux-gate\.so\.\d)\s*\(0x[0-9a-fA-F]+\)$")


def ldd_output(lines: list[str]) -> list[dict[str, Any]] | None:
    """Each pasted `ldd` output: the file (when its command line is there) and where each library
    it needs was found. Without the command, two "=>" lines with a load address make one."""
    out: list[dict[str, Any]] = []
    block: dict[str, Any] | None = None
    for line in lines:
        command = _LDD_COMMAND.search(line)
        entry = _LDD_ENTRY.match(line)
        if command and not entry:
            block = {"file": posixpath.normpath(command.group("file")) if command.group("file").startswith("/")
                     else command.group("file"), "resolved": {}}
            out.append(block)
            continue
        if entry:
            if block is None:
                block = {"file": None, "resolved": {}}
                out.append(block)
            block["resolved"][entry.group("name")] = (None if entry.group("missing")
                                                      else posixpath.normpath(entry.group("path")))
            continue
        if _LDD_DIRECT.match(line) or (not line and block is not None and not block["resolved"]):
            continue
        block = None
    found = [b for b in out if len(b["resolved"]) >= (1 if b["file"] else 2)]
    return found or None


def ld_library_path(lines: list[str]) -> list[str] | None:
    """What `echo $LD_LIBRARY_PATH` printed on the line after it."""
    for i, line in enumerate(lines[:-1]):
        if _ECHO_LD.search(line):
            value = lines[i + 1].strip()
            if value.startswith("/") and " " not in value:
                return [d for d in value.split(":") if d]
    return None


def detectron2_env(lines: list[str]) -> dict[str, Any] | None:
    """detectron2's collect_env table (the rows torchdoctor's checks use)."""
    rows: dict[str, str] = {}
    gpus: list[dict[str, Any]] = []
    for line in lines:
        m = _D2_ROW.match(line)
        if not m:
            continue
        key, value = m.groups()
        if key.startswith("GPU ") and key != "GPU available":
            name, arch = re.match(r"^(.*?)(?:\s*\(arch=(\d+\.\d+)\))?$", value).groups()
            for index in filter(None, key[4:].split(",")):
                gpu = collect_env_text.named_gpu(name.strip(), int(index))
                if arch:
                    gpu["compute_capability"] = arch
                gpus.append(gpu)
        else:
            rows.setdefault(key, value)
    if "sys.platform" not in rows or "PyTorch" not in rows:
        return None
    facts: dict[str, Any] = {}
    version = rows["PyTorch"].split(" @", 1)[0].strip()
    torch: dict[str, Any] = {}
    if _VALUE["torch.__version__"].match(version):
        torch = {"version": version, "import_status": "ok"}
        cuda = _cuda_from_tag(version)
        if cuda is not False:
            torch["cuda"] = cuda
    available = rows.get("GPU available") or rows.get("CUDA available")
    if available in ("True", "Yes", "False", "No"):
        # Without CUDA detectron2 lists no GPU row: the GPUs then stay unknown, not "none".
        torch["cuda_available"] = available in ("True", "Yes")
    if torch:
        facts["torch"] = torch
    nvidia: dict[str, Any] = {}
    if gpus:
        nvidia["gpus"] = gpus
    driver = rows.get("Driver version", "")
    if re.match(r"^\d{3}\.\d+", driver):
        nvidia["driver_version"] = driver
    if nvidia:
        facts["nvidia"] = nvidia
    toolchain: dict[str, Any] = {}
    nvcc = rows.get("NVCC") or rows.get("CUDA compiler") or rows.get("Detectron2 CUDA Compiler") or ""
    # "Cuda compilation tools, release 11.0, V11.0.221" or, when only the last line of `nvcc --version`
    # was kept, its build tag "Build cuda_11.0_bu.TC445_37.28845127_0".
    m = re.search(r"(?:release|CUDA)\s+(\d+\.\d+)|\bcuda_(\d+\.\d+)(?:\.r\d+\.\d+)?_", nvcc)
    if m:
        toolchain["nvcc_version"] = m.group(1) or m.group(2)
    if rows.get("CUDA_HOME", "").startswith("/"):
        toolchain["cuda_home"] = rows["CUDA_HOME"]
        toolchain["cuda_home_source"] = "the CUDA_HOME row of the report"
    if toolchain:
        facts["toolchain"] = toolchain
    dists = [{"name": name, "version": rows[name].split(" @", 1)[0].strip(), "location": "detectron2 collect_env"}
             for name in ("torchvision", "detectron2") if re.match(r"^\d", rows.get(name, ""))]
    if dists and torch.get("version"):
        facts["packages"] = {"distributions": [{"name": "torch", "version": torch["version"],
                                                "location": "detectron2 collect_env"}] + dists}
    return facts or None


# The loader refusing one of torch's own libraries, pasted without the traceback: the library is named in the
# message ("Error loading \"...\\torch\\lib\\c10.dll\" or one of its dependencies", ".../torch/lib/libtorch_cuda.so:
# undefined symbol: ...", "(required by .../torch/lib/libtorch_cpu.so)"); only `import torch` loads them.
_TORCH_LIB_FAILURE = re.compile(r"^((?:[A-Za-z_]\w*\.)*(?:ImportError|OSError)): (\S.*(?:[/\\]torch[/\\]lib[/\\]|"
                                r"[/\\]torch[/\\]_C\.)[^/\\\s\"']+\.(?:so|dll|pyd|dylib)\b.*)$")


# torch/__init__.py's own words when Windows cannot load one of its DLLs (it appends them to the OSError): the
# line alone is the failure even where the "OSError: [WinError 1114] ..." before it was left out or sits on the
# line above, in the system's language ("OSError: [WinError 1114] 动态链接库(DLL)初始化例程失败。"), and where the
# path is elided to "torch\lib\c10.dll", or the paste was cut right after the DLL's name.
_TORCH_DLL_LOADING = re.compile(r'Error loading "(?:[^"\n]*[/\\])?torch[/\\]lib[/\\][^"/\\\n]+\.dll(?:" or one of its dependencies|"?\s*$)'
                                # ... or with the path elided by the reporter ('Error loading "[...]fbgem.dll" or one of its
                                # dependencies'), where the DLL is one torch\lib ships (other packages word their loader
                                # errors the same way: pyzbar's libzbar-64.dll is not torch's).
                                r'|Error loading "(?:[^"\n]{0,200}[/\\\]])?(?:c10(?:_cuda)?|fbgemm?|shm|torch_(?:cpu|cuda|python|global_deps)|'
                                r'asmjit|libiomp5md|caffe2_nvrtc|cudnn\w{0,30})\.dll" or one of its dependencies')
_WIN_ERROR_LINE = re.compile(r"^((?:[A-Za-z_]\w*\.)*OSError): (\[WinError \d+\].*)$")


# The same failure told in a sentence: "importing pytorch ... raises an `undefined symbol: iJIT_NotifyEvent` error".
_IMPORT_TORCH_SAID = re.compile(r"(?i)\bimport(?:ing|s|ed)?\s+`?(?:py)?torch\b`?[^\n]{0,80}?\b(?:raises?|gives?|throws?|fails?|"
                                r"error|results? in)\b[^\n]{0,30}?\bundefined symbol:?\s*`?(?P<symbol>[A-Za-z_]\w+)")


def torch_import_error(lines: list[str]) -> dict[str, Any] | None:
    """`import torch` failing in a pasted traceback: the exception raised below a torch/__init__.py frame,
    or the loader's error about one of torch's own libraries, which only that import loads; or that failure
    told in a sentence."""
    for line in lines:
        m = _IMPORT_TORCH_SAID.search(line)
        if m:
            return {"import_status": "import-error", "error_type": "ImportError",
                    "error_message": f"undefined symbol: {m.group('symbol')} (as the text tells it)"}
    for line in lines:
        m = _TORCH_LIB_FAILURE.match(line)
        if m:
            return {"import_status": "import-error", "error_type": m.group(1).rsplit(".", 1)[-1],
                    "error_message": m.group(2).strip()}
    for i, line in enumerate(lines):
        m = _TORCH_DLL_LOADING.search(line)
        if m:
            above = _WIN_ERROR_LINE.match(lines[i - 1].strip()) if i else None
            message = f"{above.group(2).strip()} {line.strip()}" if above else line.strip()
            return {"import_status": "import-error", "error_type": "OSError", "error_message": message}
    for i, line in enumerate(lines):
        # A long frame line wrapped at spaces: "File" / "\".../torch/__init__.py\"," / "line 199, in <module>".
        if not (_TORCH_INIT_FRAME.search(line) or _TORCH_INIT_FRAME.search(" ".join(lines[i:i + 3]))):
            continue
        for after in lines[i + 1:]:
            m = _EXCEPTION.match(after)
            if m:
                return {"import_status": "import-error", "error_type": m.group(1).rsplit(".", 1)[-1],
                        "error_message": m.group(2).strip()}
    return None


# The paths a paste shows (pip show's Location, traceback frames, a prompt) say which OS it came from.
_WINDOWS_PATH = re.compile(r"(?<![\w/])[A-Za-z]:\\(?:[^\\\s\"'<>|]+\\)*[^\\\s\"'<>|]*")
_DEBIAN_PACKAGES = re.compile(r"(?<![\w.])/(?:[\w.@+-]+/)*lib/python[23](?:\.\d+)?/dist-packages\b")
_POSIX_PACKAGES = re.compile(r"(?<![\w.])/(?:[\w.@+-]+/)*lib/python[23]\.\d+/site-packages\b")
_LINUX_ONLY = re.compile(r"(?<![\w.])/home/[\w.-]+/|(?<![\w.])/root/|\blinux-gnu\.so\b")
_MAC_ONLY = re.compile(r"(?<![\w.])/Users/[\w.-]+/|(?<![\w.])/opt/homebrew/|\bdarwin\.so\b")


def system_from_paths(text: str, torch_version: str | None) -> str | None:
    """The OS the paste's paths belong to, or None when they say nothing or disagree. Debian's
    dist-packages and /home/<user> are Linux; /Users/<user> and Homebrew are macOS; a drive letter is
    Windows. A plain .../lib/python3.X/site-packages is Linux or macOS: Linux when torch carries a
    local build tag (+cpu, +cu121, +rocm), which only Linux and Windows wheels have."""
    said = set()
    if _WINDOWS_PATH.search(text):
        said.add("Windows")
    if _DEBIAN_PACKAGES.search(text) or _LINUX_ONLY.search(text):
        said.add("Linux")
    if _MAC_ONLY.search(text):
        said.add("Darwin")
    # torch's version may be {"unknown": why} (a report naming two): no build tag to read then.
    tagged = isinstance(torch_version, str) and re.search(r"\+(?:cpu|cu\d+|rocm)", torch_version)
    if not said and _POSIX_PACKAGES.search(text) and tagged:
        said.add("Linux")
    return said.pop() if len(said) == 1 else None


# The Python a traceback's frames ran under, as its package paths name it: ".../lib/python3.8/dist-packages/torch/...",
# "C:\\Users\\me\\AppData\\Roaming\\Python\\Python312\\site-packages\\torch\\...".
_PATH_PYTHON = (re.compile(r"[/\\]python(3\.\d{1,2})[/\\](?:site|dist)-packages[/\\]"),
                re.compile(r"[/\\]Python3(\d{1,2})[/\\](?:Lib[/\\])?site-packages[/\\]", re.I))


def python_from_paths(text: str) -> str | None:
    """The Python version every package path of the paste names; None when none does or they differ."""
    found = {m.group(1) for m in _PATH_PYTHON[0].finditer(text)} | {f"3.{m.group(1)}" for m in _PATH_PYTHON[1].finditer(text)}
    return found.pop() if len(found) == 1 else None


def fact_set(facts: dict[str, Any], section: str, key: str) -> bool:
    return key in facts.get(section, {})


def _fill(into: dict[str, Any], section: str, values: dict[str, Any]) -> None:
    """Add what `into` lacks; never overwrite what an earlier source said."""
    target = into.setdefault(section, {})
    for key, value in values.items():
        if key == "gpus" and isinstance(target.get(key), list) and isinstance(value, list):
            _fill_gpus(target[key], value)
        else:
            target.setdefault(key, value)


def _fill_gpus(into: list[dict[str, Any]], more: list[dict[str, Any]]) -> None:
    """A second source's GPUs add to the first's fields, GPU by GPU (collect_env names them; nvidia-smi
    also gives memory, ECC, processes). Where the two name one index differently, the first is kept whole."""
    by_index = {g.get("index"): g for g in into}
    for gpu in more:
        have = by_index.get(gpu.get("index"))
        if have is None:
            continue
        if "name" in have and "name" in gpu and have["name"] != gpu["name"]:
            continue
        for key, value in gpu.items():
            have.setdefault(key, value)


# OpenMMLab's collect_env() printed as the dict it returns (`print(collect_env())`):
# {'sys.platform': 'linux', 'Python': '3.8.19 ...', 'CUDA available': True, 'GPU 0': 'NVIDIA A100', ...},
# its string values with their line breaks written as \n, often wrapped anywhere by the paste. mmengine's
# returns an OrderedDict, which Python before 3.12 prints as its pairs:
# OrderedDict([('sys.platform', 'linux'), ('Python', '3.9.17 ...'), ('CUDA available', False), ...]).
_DICT_ENV = re.compile(r"\{\s*'sys\.platform'\s*:|OrderedDict\(\[\s*\(\s*'sys\.platform'\s*,")
_DICT_ITEM = re.compile(r"'((?:[^'\\\n]|\\.){1,80})'\s*[:,]\s*('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|True|False|None|-?\d[\d.]*)")
_DICT_CUT = re.compile(r"[\s,)]*\(?\s*'((?:[^'\\\n]|\\.){1,80})'\s*[:,]\s*'((?:[^'\\]|\\.)*)\Z")


def _unescaped_literal(body: str) -> str:
    """A quoted Python/JSON string's body as the text it stands for: \\n and \\t as breaks and tabs, any other
    escaped character as itself."""
    return re.sub(r"\\(.)", lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), body)


def _undict(text: str) -> str:
    """The dict form of an environment dump as the "Key: value" lines its table form prints."""
    start = _DICT_ENV.search(text)
    if not start:
        return text
    lines, end = [], start.start()
    for m in _DICT_ITEM.finditer(text, start.start()):
        key, value = m.group(1), m.group(2)
        if value[:1] in "'\"":
            value = _unescaped_literal(value[1:-1])
        lines.append(f"{key}: {value}")
        end = m.end()
    # A paste cut inside the last value (the long 'PyTorch compiling details') leaves its quote open.
    cut = _DICT_CUT.match(text, end)
    if cut:
        lines.append(f"{cut.group(1)}: {_unescaped_literal(cut.group(2))}")
        end = len(text)
    return text[:start.start()] + "\n".join(lines) + "\n" + text[end:]


# collect_env's get_env_info() as data rather than its printout: the JSON that A1111's sysinfo nests as
# "Torch env info" ("torch_version": "2.1.2+cu121", ...), or the SystemEnv(torch_version='2.1.2+cu121', ...)
# that print(get_env_info()) shows. Its field names, and the lines collect_env prints for them.
_ENV_INFO_LINES = {"torch_version": "PyTorch version", "is_debug_build": "Is debug build",
                   "cuda_compiled_version": "CUDA used to build PyTorch", "hip_compiled_version": "ROCM used to build PyTorch",
                   "os": "OS", "gcc_version": "GCC version", "python_version": "Python version",
                   "python_platform": "Python platform", "is_cuda_available": "Is CUDA available",
                   "cuda_runtime_version": "CUDA runtime version", "nvidia_gpu_models": "GPU models and configuration",
                   "nvidia_driver_version": "Nvidia driver version", "cudnn_version": "cuDNN version"}
_ENV_INFO_ITEM = re.compile(r"""["']?(?P<key>[a-z_]+)["']?\s*[:=]\s*(?P<value>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"""
                            r"|\[[^\]]*\]|True|False|None|true|false|null)")


def _unfields(text: str) -> str:
    """get_env_info()'s fields, where a paste holds them as data, added as the lines collect_env prints."""
    if not re.search(r"""["']?torch_version["']?\s*[:=]""", text) or not re.search(
            r"""["']?(?:cuda_compiled_version|nvidia_driver_version|is_debug_build)["']?\s*[:=]""", text):
        return text
    out, packages = [], []
    for m in _ENV_INFO_ITEM.finditer(text):
        key, raw = m.group("key"), m.group("value")
        if raw.startswith("["):
            items = [re.sub(r"\\(.)", r"\1", x[1:-1]) for x in re.findall(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', raw)]
        elif raw[:1] in "'\"":
            items = [_unescaped_literal(raw[1:-1])]
        else:
            items = [{"true": "True", "false": "False", "null": "None"}.get(raw, raw)]
        if key in _ENV_INFO_LINES:
            out.append(f"{_ENV_INFO_LINES[key]}: {items[0] if items else 'None'}")
        elif key in ("pip_packages", "conda_packages"):
            tag = "[pip3]" if key == "pip_packages" else "[conda]"
            packages += [f"{tag} {row}" for item in items for row in item.split("\n") if row.strip()]
    if not out:
        return text
    return text + "\n\nCollecting environment information...\n" + "\n".join(out) + (
        "\n\nVersions of relevant libraries:\n" + "\n".join(packages) if packages else "") + "\n"


# What a log collector puts before every line of a program's output: Kaggle's notebook log ("  6.9s\t2\t"),
# journald/syslog ("Nov 26 02:00:01 box python3[1234]: "), docker compose ("app-1  | "), torchrun
# ("[rank0]: "), a logging timestamp ("2024-06-01 12:00:00,123 - INFO - "). The group named key must be the
# same on every line that counts, so a table's "|" or one prose line does not qualify.
_LOG_PREFIXES = (
    re.compile(r"^\s*\d+(?:\.\d+)?s\s+\d+\s+(?P<key>)"),
    re.compile(r"^[A-Z][a-z]{2}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}\s+(?P<key>\S+\s+[^\s:\[]+)(?:\[\d+\])?:\s?"),
    re.compile(r"^(?P<key>[A-Za-z][\w.-]{0,60})\s+\|\s?"),
    re.compile(r"^\[(?P<key>rank\d+|default\d+)\]:\s?"),
    # Python logging's "%(asctime)s - %(name)s - %(levelname)s - ": one space after the last separator, so that a
    # message's own indentation stays.
    re.compile(r"^\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s+(?:- )?"
               r"(?P<key>(?:[A-Za-z][\w.]{0,40} - )?(?:(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s*(?:- |: ?| ))?)"),
)


def _strip_log_prefixes(text: str) -> str:
    """The text without a log collector's per-line prefix, where at least three lines carry the same one:
    torch's multi-line warnings and nvidia-smi's table only read whole without it."""
    lines = text.split("\n")
    for pattern in _LOG_PREFIXES:
        keys: dict[str, int] = {}
        for line in lines:
            m = pattern.match(line)
            if m:
                keys[m.group("key")] = keys.get(m.group("key"), 0) + 1
        key, count = max(keys.items(), key=lambda kv: kv[1], default=("", 0))
        if count >= 3:
            lines = [line[m.end():] if (m := pattern.match(line)) and m.group("key") == key else line for line in lines]
    return "\n".join(lines)


STATED = "facts stated in the text"


def _add_stated(facts: dict[str, Any], stated: dict[str, Any], gpus_named_by_torch: bool) -> tuple[bool, bool]:
    """What the text states in prose (prose.read), for the facts no reader of a known layout found: (whether it
    added anything, a value or the reason one is unknown; whether it added a value). torch's CUDA build counts only
    beside the same torch version, the torchvision/torchaudio it names only where no package list was read."""
    added = valued = False
    torch = stated.get("torch", {})
    have = facts.get("torch", {}).get("version")
    if "version" in torch and have is not None and (not isinstance(torch["version"], str)
                                                    or have.split("+")[0] != torch["version"].split("+")[0]):
        torch = {}  # another torch than the one a layout gave: its build says nothing of that one
    driver_cuda = facts.get("nvidia", {}).get("cuda_driver_version")
    if isinstance(driver_cuda, str) and driver_cuda in torch.get("cuda_named", ()):
        # The CUDA version nvidia-smi printed is the driver's, said so by its layout: not one of unknown owner.
        torch = {**torch, "cuda_named": [c for c in torch["cuda_named"] if c != driver_cuda]}
        if not torch["cuda_named"]:
            del torch["cuda_named"]
    if "cuda" in torch and torch["cuda"] is None and isinstance(facts.get("torch", {}).get("cuda"), str) and any(
            d.get("name") == "torch" and d.get("location") == "conda install command"
            for d in facts.get("packages", {}).get("distributions", [])):
        # The build a conda command would get is inferred from what it asked for; "it installs the cpu version
        # instead" is what it got (conda falls back to a CPU build when no CUDA build resolves).
        del facts["torch"]["cuda"]
    if gpus_named_by_torch:
        # torch's own warning names its GPU (TE202 quotes it); a name in the text may be another machine's.
        stated.get("nvidia", {}).pop("gpus", None)
    for section, values in (("torch", torch), *((s, v) for s, v in stated.items() if s not in ("torch", "packages"))):
        for key, value in values.items():
            if not fact_set(facts, section, key):
                facts.setdefault(section, {})[key] = value
                added = True
                valued = valued or not (isinstance(value, dict) and "unknown" in value)
    if stated.get("packages") and not facts.get("packages", {}).get("distributions") and (
            "version" in torch or not fact_set(facts, "torch", "version")):
        _add_distributions(facts, stated["packages"]["distributions"])
        facts["packages"]["distributions_partial"] = True
        added = valued = True
    return added, valued


def _readable(text: str) -> str:
    """The paste as every reader reads it: the whole paste's decoration undone (HTML escaping, doubled line
    breaks), log prefixes taken off, a printed dict's and get_env_info()'s fields written out as lines."""
    return _unfields(_undict(_strip_log_prefixes(paste.report_text(text))))


def _loose_cuda_named(stated: dict[str, Any]) -> bool:
    """Whether prose named a CUDA version once without saying whose: unknown, but the user's own machine."""
    cuda = stated.get("torch", {}).get("cuda")
    return isinstance(cuda, dict) and prose.UNSAID_WHOSE in cuda.get("unknown", "")


def ambiguous(text: str) -> list[str]:
    """Why the facts a text names in prose could not be read (several of a kind, whose CUDA unsaid): for the
    refusal of a text no reader took, so that it does not claim the text names no version."""
    stated = prose.read(_lines(_readable(text)))
    return [value["unknown"] for section in stated.values() if isinstance(section, dict)
            for value in section.values() if isinstance(value, dict) and "unknown" in value]


def read(text: str) -> tuple[dict[str, Any], list[str]] | None:
    """(partial facts JSON dict, what was read: ["collect_env report", "nvidia-smi", ...]), or
    None when the text holds none of the known kinds."""
    text = _readable(text)
    lines = _lines(text)
    raw_lines = [re.sub(r"^\s{0,3}(?:>\s?)+", "", raw) for raw in text.replace("\r\n", "\n").split("\n")]
    # For the readers that match across the whole text: quotes, HTML, bold and full-width colons taken off
    # ("> " hides "  - CUDA Runtime 11.0", "NVCC\uff1a" is "NVCC:").
    unquoted = "\n".join(lines)
    partial = False  # a package source that shows only part of what is installed
    kinds: list[str] = []
    facts: dict[str, Any] = {}
    if collect_env_text.looks_like_collect_env(text):
        facts = collect_env_text.parse(text)
        facts.pop("meta", None)
        partial = facts.get("packages", {}).pop("distributions_partial", False)
        kinds.append("collect_env report")

    for kind, smi in (("nvidia-smi -q", nvidia_smi_text.query(raw_lines)), ("nvidia-smi", nvidia_smi_text.table(lines))):
        if smi:
            kinds.append(kind)
            _fill(facts, "nvidia", smi)
    failed_smi = None if fact_set(facts, "nvidia", "driver_version") else nvidia_smi_text.failure(lines)
    if failed_smi and not (fact_set(facts, "nvidia", "gpus") and "driver_version" in failed_smi):
        # A report or table that shows the driver working wins (the paste may show the failure, then the fix).
        kinds.append("nvidia-smi failure")
        _fill(facts, "nvidia", failed_smi)
    listed = gpu_listings(lines)
    if listed:
        kinds.append("GPU listing")
        _fill(facts, "nvidia", listed)
    module = next((m.group(1) for line in lines for m in [_NVRM.search(line)] if m), None)
    if module:
        kinds.append("/proc/driver/nvidia/version")
        _fill(facts, "nvidia", {"kernel_module_version": module, "driver_version": module})

    # Other projects' environment dumps, read section by section. Those that copy collect_env's
    # fields are read only when torch's own report is not there to say it first.
    own_report = "collect_env report" in kinds
    for kind, read, beside_report in (("check_env", lambda: check_env(unquoted), False),
                                      ("Hugging Face env", lambda: hf_env(lines), False),
                                      ("Lightning environment", lambda: lightning(lines), True),
                                      ("detectron2 collect_env", lambda: detectron2_env(lines), False)):
        sections = read() if beside_report or not own_report else None
        if sections:
            kinds.append(kind)
            for section, values in sections.items():
                _fill(facts, section, values)

    ld_path = ld_library_path(lines)
    printed = python_prints(lines)
    linked = ldd_output(lines)
    for kind, section, values in (("nvcc --version", "toolchain", nvcc_version(lines)),
                                  ("LD_LIBRARY_PATH", "toolchain", ld_path and {"ld_library_path": ld_path}),
                                  ("ldd output", "toolchain", linked and {"linked": linked}),
                                  ("torch config", "torch", config_show(unquoted)),
                                  ("printed torch values", "torch", printed and printed.get("torch")),
                                  ("printed torch values", "nvidia", printed and printed.get("nvidia"))):
        if values:
            if kind not in kinds:
                kinds.append(kind)
            _fill(facts, section, values)
    if printed and printed.get("packages"):
        partial = True
        _add_distributions(facts, printed["packages"]["distributions"])

    # Other projects' start-up and failure lines: machine output, so before a hand-written list.
    for kind, sections in (("xFormers load warning", app_reports.xformers_warning("\n".join(lines))),
                           ("Ultralytics banner", app_reports.ultralytics_banner(lines)),
                           ("yolo checks", app_reports.yolo_checks(lines)),
                           ("xformers.info", app_reports.xformers_info(lines)),
                           ("ComfyUI system information", app_reports.comfyui_devices(lines)),
                           ("installer torch check", app_reports.installer_torch_check(lines)),
                           ("Python banner", app_reports.python_banner(lines)),
                           ("extension build's torch version", app_reports.setup_torch_version(lines)),
                           ("apex build log", app_reports.apex_build_log(lines)),
                           ("torch load failure", None if fact_set(facts, "torch", "import_status")
                            else app_reports.could_not_load_torch(raw_lines))):
        if sections:
            kinds.append(kind)
            listed_here = sections.pop("packages", None)
            for section, values in sections.items():
                _fill(facts, section, values)
            if listed_here:
                partial = partial or listed_here.get("distributions_partial", False)
                _add_distributions(facts, listed_here["distributions"])

    # Read before the hand-written environment list: its "PyTorch Version: 1.1.0" only says which torch was
    # installed, while the traceback of `import torch` failing (an issue template puts both in one post) is
    # the import itself. What ran torch (collect_env, printed values, app banners) has said so above.
    failed = None if fact_set(facts, "torch", "import_status") else torch_import_error(lines)
    if failed:
        kinds.append("import torch traceback")
        _fill(facts, "torch", failed)

    images = {(m.group("torch"), m.group("cuda")) for line in lines for m in _PYTORCH_IMAGE.finditer(line)}
    if len(images) == 1:  # two images named (an upgrade, a comparison): neither is known to be the one
        version, cuda = images.pop()
        kinds.append("pytorch/pytorch image")
        _fill(facts, "torch", {"version": version, "cuda": cuda})
        _fill(facts, "python", {"system": "Linux"})  # the image is Ubuntu's

    conda = conda_info(lines)
    if conda:
        kinds.append("conda info")
        for section, values in conda[0].items():
            _fill(facts, section, values)
    listing = None if "collect_env report" in kinds else env_list(
        [("" if conda and i in conda[1] else line) for i, line in enumerate(lines)])
    if listing:
        kinds.append("environment list")
        listed_here = listing.pop("packages", None)
        for section, values in listing.items():
            _fill(facts, section, values)
        if listed_here:
            partial = True
            _add_distributions(facts, listed_here["distributions"])

    installed = pip_log(lines)
    if installed:
        partial = True
        kinds.append("pip install log")
        _add_distributions(facts, installed)
        _torch_from_rows(facts, installed)

    listed = package_list(lines)
    handwritten = name_version_lines(lines)
    if handwritten and not listed:
        listed = ("hand-written package list", handwritten, True)
    if listed:
        kind, rows, cut = listed
        partial = partial or cut
        kinds.append(kind)
        _add_distributions(facts, rows)
        _torch_from_rows(facts, rows)

    for kind, rows in (("pip show", pip_show(lines)), ("conda plan", conda_plan(lines)), ("pipdeptree", pipdeptree(raw_lines))):
        if not rows:
            continue
        partial = True  # `pip show` and a conda plan name only some packages
        kinds.append(kind)
        _add_distributions(facts, rows)
        _torch_from_rows(facts, rows)

    building = extensions.build_evidence_in_text("\n".join(lines))
    if building:
        kinds.append("extension build log")
        _fill(facts, "extensions", {"build_evidence": building})

    said = torch_warnings.find("\n".join(lines))
    if said:
        kinds.append("torch warnings")
        torch = facts.setdefault("torch", {})
        torch["warnings"] = said
        if any(torch_warnings.NO_DRIVER.search(w) for w in said) and not fact_set(facts, "nvidia", "driver_version"):
            _fill(facts, "nvidia", {"driver_version": None})  # torch found no driver library in that process

    # An installer's refusal names the environment's Python: conda's "Your python: python=3.9", uv's "Using CPython 3.14.0".
    for pattern, source in ((_CONDA_YOUR_PYTHON, "conda's unsatisfiable specs"), (_UV_PYTHON, "uv's resolution")):
        python = next((m["version"] or m.groupdict().get("short") for line in lines for m in [pattern.match(line.strip())]
                       if m), None)
        if python and not fact_set(facts, "python", "version"):
            kinds.append(source)
            _fill(facts, "python", {"version": python})
    base = next((m for line in lines for m in [_DOCKER_FROM.match(line)] if m), None)
    if base and not fact_set(facts, "torch", "version"):
        kinds.append("Dockerfile's base image")
        if base.group("official"):
            _fill(facts, "torch", {"version": base.group("official"), "cuda": base.group("official_cuda")})
        else:
            cu = base.group("cu")
            # A CPU image is a CPU build (cuda None); a GPU tag without its "-cuNNN" leaves the CUDA unknown.
            built = {"cuda": None} if base.group("device") == "cpu" else {"cuda": f"{cu[:2]}.{cu[2:]}"} if cu else {}
            _fill(facts, "torch", {"version": base.group("dlc"), **built})
            if not fact_set(facts, "python", "version"):
                _fill(facts, "python", {"version": f"{base.group('py')}.{base.group('py_minor')}"})

    # Last, what the text states in prose, for the facts no layout gave (torch's warning names its GPU itself: TE202
    # quotes it). The system the paths show (C:\, /home/) comes before the one a sentence names.
    warned_gpu = any(prose.names_a_gpu(w) for w in facts.get("torch", {}).get("warnings", []))
    stated = prose.read(lines)
    stated_system, stated_wsl = (stated.get("python", {}).pop(key, None) for key in ("system", "wsl"))
    added, valued = _add_stated(facts, stated, gpus_named_by_torch=warned_gpu)
    if not fact_set(facts, "python", "system"):
        system = system_from_paths(text, facts.get("torch", {}).get("version"))
        if system:
            _fill(facts, "python", {"system": system})
            # A sentence naming the system ("I am running Windows") beside versions it leaves ambiguous still
            # describes the user's machine; a launcher's log whose only system is its paths does not.
            valued = valued or (added and stated_system is not None)
        elif stated_system is not None:
            _fill(facts, "python", {"system": stated_system, **({"wsl": stated_wsl} if stated_wsl else {})})
            added, valued = True, valued or isinstance(stated_system, str)
    # A text whose only facts are ambiguous (a benchmark's GPUs, two torch builds compared) states none; a CUDA
    # version named once without saying whose ("I have cuda 11.0") is the user's machine: read, unknown with why.
    if valued or (added and (kinds or _loose_cuda_named(stated))):
        kinds.append(STATED)
    if not fact_set(facts, "python", "version"):
        from_paths = python_from_paths(text)
        if from_paths:  # the OS the same paths show was read above (system_from_paths)
            _fill(facts, "python", {"version": from_paths})
            kinds.append("traceback paths")
    if not kinds:
        section = environment_section(lines)
        if section is None:
            return None
        rows, bare = section
        kinds.append("environment section")
        if rows:
            _add_distributions(facts, rows)
            _torch_from_rows(facts, rows)
            partial = True
        if not fact_set(facts, "torch", "version"):
            named = ", ".join(f"{r['name']} {r['version']}" for r in rows) or " and ".join(bare)
            _fill(facts, "torch", {"version": {"unknown": f"the environment section names {named} but not torch's version"}})
    rocm = re.search(r"\+rocm(\d+(?:\.\d+)*)", str(facts.get("torch", {}).get("version", "")))
    if rocm:
        # A ROCm wheel ("2.3.0+rocm6.0") reports torch.version.cuda None and torch.version.hip its ROCm.
        _fill(facts, "torch", {"cuda": None, "hip": rocm.group(1)})
    if partial and facts.get("packages", {}).get("distributions"):
        facts["packages"]["distributions_partial"] = True
    facts["meta"] = {"source": collect_env_text.SOURCE if kinds == ["collect_env report"] else "paste"}
    return facts, kinds
