"""Environment facts stated in free text, for `torchdoctor env --facts`: the last-resort reader.

The layout readers (pasted.py, collect_env_text, nvidia_smi_text, app_reports) know how programs
print an environment. People also just say it, in a sentence or a list of their own, in English or
Chinese: "I have an RTX 3090 and torch 1.7.1+cu110 on driver 450.80", "My GPU is GeForce GTX 1080
Ti, driver 390.87", "PyTorch版本: 2.1.0+cu121, 4090 显卡, 驱动 535.54". A new layout is, to this
reader, one more text that states facts. It reads, wherever the text says them:

* a GPU by any name the GPU table knows (doctor/data/gpu_names.json), with its brand or series
  ("RTX 3090", "GTX 1080Ti", "Tesla K80", "A100-SXM4-40GB"), a GeForce model number with its suffix
  ("2080Ti") or beside a word for a graphics card or a count ("3090 GPU", "4090 显卡", "2x3090"), a
  short datacenter name beside such a word ("a T4 GPU");
* torch's version ("torch 1.7.1", "pytorch=1.4.0", "torch2.0.1", "PyTorch 版本: 2.1.0+cu121"), and
  its CUDA build only where the text ties a CUDA to torch: a local tag ("+cu110", "+cpu"), a tag
  beside the version ("torch 2.1 cu121"), "built/compiled with CUDA 11.1", "with CUDA 11.1 build",
  "(CUDA 12.1)" right after it, torch as the subject ("PyTorch has CUDA Version=11.7", torchvision's
  mismatch error) or the object ("the cu118 build of torch"). A CUDA named on its own ("CUDA 11.0")
  may be the toolkit's or the driver's and is never torch's build;
* the driver ("driver 470.57", "驱动 535.54", "NVIDIA-SMI 535.104.05", "nvidia-driver-535"), and the
  CUDA the driver supports where the text says it is the driver's ("Driver Version: 535.54.03  CUDA
  Version: 12.2" as nvidia-smi prints it, "CUDA driver version: 11.4", "my driver supports CUDA 12.2");
* nvcc's version ("nvcc 11.8"), the Python version, the OS (with its version or words saying the
  machine runs it; WSL is Linux), torchvision's and torchaudio's versions.

Names, versions and key words are bounded by ASCII letters and digits only (the patterns are compiled
with re.ASCII): Chinese and Japanese write no space between words, and "我用的是RTX3060" or "在Windows 10上"
must read as they do with spaces.

Each family of patterns runs only on the lines that hold its key word (a substring test): a long log
is mostly other lines. pip's log lines are the pip log reader's.

A fact is set only when the text states it unambiguously: one value for it, not in a requirement
or a piece of advice ("needs driver >= 450", "upgrade to torch 2.0", "1.8 or later"), not in a
comparison ("works on torch 1.6 and 1.7"). Where the text names several values, the fact is
unknown with the reason, so the checks that need it say "not checked" instead of guessing. A driver
named by its branch alone ("驱动 535") is unknown too: the minor version decides against a floor of
the same branch (525 may be below 525.60.13 or above it).
"""

from __future__ import annotations

import re
from typing import Any

from ..data import tables
from . import collect_env_text

# Words before a value, within its clause (no ".", ";", "!", "?" or "," between) and a few words back, that say
# it is no fact of any machine: a requirement, advice, an example, a history ("fixed in torch 2.0"), a template's
# placeholder ("[e.g. 1080 Ti]", "(e.g., PyTorch 0.4.1 ...)": its own dot does not end the clause).
def _not_a_fact(support: bool) -> re.Pattern[str]:
    """Those words as one search of the text before a value; `support`: whether "support(ed)", "compatible" and 支持
    count among them (they do for versions, not for GPUs: below)."""
    said = r"support|supports|supported|compatible|" if support else ""
    return re.compile(
        r"(?:\b(?:install|installing|reinstall|will|would|could|going to|plan|planning|requires?|required|requirement|"
        r"need|needs|needed|must|should|recommend\w*|suggest\w*|" + said + r"fixed|"
        r"introduced|added|deprecated|removed|released|expects?|expected|like|such as|including|latest|newest|"
        r"newer|older|minimum|min|at least|to get|to obtain)\b|\be\.\s?g\.?,?\s|[<>~!]=?|\u5b89\u88c5|\u9700\u8981|\u8981\u6c42|"
        + (r"\u652f\u6301|" if support else "") + r"\u5efa\u8bae)"
        r"[^.;!?,\u3002\uff0c\uff1b]{0,24}$", re.I)


_NOT_A_FACT = _not_a_fact(support=True)
# ... but a GPU named after "support" is the writer's own ("had to change them to support a 5070 ti GPU", "新版本能不能
# 支持下 tesla k40m的显卡"): people ask whether their card is supported, not about cards they do not have.
_NOT_A_FACT_GPU = _not_a_fact(support=False)

# Words that say it is another machine's or another time's: a comparison, an attempt, what was there before.
# Such a value is real, so beside this machine's it makes the fact ambiguous ("works on torch 1.6, fails on 1.7").
_ELSEWHERE = re.compile(
    r"(?:\b(?:works?|worked|working|tried|try|trying|tested|not|vs\.?|versus|between|than|instead|other|another|"
    r"previous|previously|before|after|from|until|since|revert|roll back|rollback|go back|upgrade|upgraded|"
    r"upgrading|update|updated|updating|downgrade|downgraded|downgrading|switch|switched|switching|move|moved|"
    r"moving)\b|\u5347\u7ea7|\u964d\u7ea7|\u4e4b\u524d)"
    r"[^.;!?,\u3002\uff0c\uff1b]{0,24}$", re.I)
# ... except the value a change went to, said last in its clause: what the machine has now ("updated to torch 2.8.0").
_CHANGED_TO = re.compile(r"\b(?:updated|upgraded|downgraded|switched|moved|changed)\s+(?:it\s+|pytorch\s+|torch\s+)?to\s+"
                         r"(?:using\s+|use\s+)?(?:the\s+)?(?:version\s+)?$", re.I)
_QUOTED = re.compile(r"`[^`\n]*`|(?<!\w)'[^'\n]{1,80}'(?!\w)|\"[^\"\n]{1,80}\"")
# ... and what an install ended with, said right before it: what the machine got, however the install was asked
# for ("`pip install torch` resulted in the CPU version of torch", "forcing a non-CUDA version of Torch").
_INSTALL_GAVE = re.compile(r"\b(?:resulted\s+in|ended\s+up\s+with|left\s+me\s+with|gave\s+me|forc(?:ed|ing)|"
                           r"replaced\s+(?:it\s+|torch\s+|pytorch\s+)?with)\s+(?:the\s+|a\s+|an\s+)?$", re.I)
# ... except where the words say it fails there: a failure is reported from the machine it happens on ("does not work
# with torch 2.1.0", "crashes on my GTX 1080").
_FAILS = re.compile(r"(?:\b(?:not|never)\s+(?:\w+\s+)?work\w*|n't\s+(?:\w+\s+)?work\w*|\b(?:not able to|unable to)\b|"
                    r"\bcan(?:not|'t|\u2019t)\s+(?:use|run)\b|\b(?:fails?|failed|failing|"
                    r"crash\w*|breaks?|broke|errors?)\b)[^.;!?,\u3002\uff0c\uff1b]{0,24}$", re.I)
# What may follow a value and say it is a bound or one of several ("1.8 or later", "1.6 and 1.7", "1.7+").
_BOUND_AFTER = re.compile(r"^(?:\+(?![\w.])|\s*(?:or|and)\s+(?:later|newer|above|higher|greater|up|older|earlier|"
                          r"below|lower)\b|\s*(?:onwards|and up|is required|is needed|required|needed)\b|\s*\u53ca?\u4ee5\u4e0a)",
                          re.I)
_ANOTHER_VERSION = re.compile(r"^\s*(?:,|/|and|or|to|->|\u2192|~|vs\.?|versus|\u548c|\u6216)\s*v?\d+\.\d+", re.I)

_VERSION = r"[`'\"]?v?(?P<version>\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+\w+(?:\.\w+)*)?)(?![\w+]|\.\w)"
# The key and what joins it to its value: "torch 1.7.1", "torch: 1.7.1", "pytorch=1.4.0", "torch2.0.1",
# "PyTorch version is 1.9.0", "The pytorch version is the 2.0.1", "PyTorch 版本: 2.1.0". One whitespace run between
# them (no two adjacent \s*).
# "pytorch(2.2 + cu118)", "PyTorch (1.13.1)": a bracket opens the value.
_JOIN = r"(?:\s+version|\s*\u7248\u672c)?(?:\s+(?:is|was)(?:\s+the)?)?(?:\s*[:=(\u662f\u4e3a]\s*|\s+|)"  # (\u662f/\u4e3a: "is")
_TORCH = re.compile(r"(?<![\w/.=@-])(?:py)?torch(?![A-Za-z_./-])" + _JOIN + _VERSION, re.I | re.A)
# torch's version as something showed it: "checking the torch version reveals 2.0.0+cpu", "torch.__version__ gives
# 1.13.1", "pytorch version shows 2.1.0+cu121". Only a torch-shaped version (1.x/2.x): "torch reports 12.1" is no torch.
_TORCH_SHOWN = re.compile(r"(?<![\w/.=@-])(?:py)?torch(?:\.__version__|\s+version)?\s+(?:reveals?|shows?|gives?|says?|returns?|prints?"
                          r"|reports?|displays?|outputs?|reads?)\s*:?\s*[\"'`]?(?P<version>[12]\.\d{1,2}(?:\.\d{1,2})?"
                          r"(?:\+(?:cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*))?)(?![\w.])", re.I | re.A)
# How this machine's torch was installed, said with the pip command ("pytorch is installed using \"pip3 install
# torch==1.10.0+cu113 ...\""): the pinned version is the installed one. The match starts at "installed", so _whose
# reads only the words before it: told as advice ("should be installed using ..."), it is no fact.
# "so I installed torch==2.9.0+cu130": the pin written as the thing installed.
_TORCH_INSTALLED_BY = re.compile(r"\b(?:installed\s+(?:(?:it|them|torch|pytorch)\s+)?(?:using|with|via|by|from)\s*(?:(?:this|the\s+following|the)\s+)?"
                                 r"(?:comm[ae]nd\s*)?:?\s*[\"'`\u201c]?\s*(?:python3?\s+-m\s+)?pip3?\s+"
                                 r"install\b[^\n\"'`\u201d]{0,80}?|(?:re)?installed\s+`?)(?<![\w-])torch==(?P<version>\d+\.\d+(?:\.\d+)?"
                                 r"(?:\+\w+)?)(?![\w.])", re.I)
_INSTALL_INDEX = re.compile(r"[^\n\"'`\u201d]{0,200}?(?:--(?:extra-)?index-url|-f|--find-links)[\s=]+"
                            r"https?://download\.pytorch\.org/whl/(cu\d{2,3}|cpu)\b")
# torch named as pip names what it installs ("falls back to torch-2.6.0+cpu", "Downloading torch-2.1.0+cu121-cp311-...
# whl"): the dash joins the name to a version with its build tag (untagged, "torch-1.13.1" is also a file's name).
# Untagged, the name-version pair as pip and conda name a distribution ("`pytorch-2.2.2` is forcibly installed"), but
# not a file's name, which goes on with "-cp311-..." or ".tar.gz" (a download, not what is installed).
_TORCH_WHEEL = re.compile(r"(?<![\w/.-])torch-(?P<version>\d+\.\d+(?:\.\d+)?\+(?:cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*))"
                          r"(?![\w.+])"
                          r"|(?<![\w/.-])(?:py)?torch-(?P<plain>\d+\.\d+\.\d+)(?![\w.+-])")
# torch's version with its build tag, quoted alone as an app's system page shows it ('it says "2.0.0+cpu"'): only
# torch releases are 1.x/2.x with a +cpu/+cuXYZ tag (torchvision's are 0.x); a package name before it makes it that
# package's, so only a quote, a bracket or the line's start may precede it.
_BARE_TAGGED = re.compile(r"(?:^|(?<=[\"'`(\[]))(?P<version>[12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu))(?![\w.+])")
# ... where the key before it is another package's ("torchaudio '2.0.1+cu118'", "xformers==(...)").
_NAMED_BEFORE = re.compile(r"(?:\b(?!(?:py)?torch\b|version\b|__version__)[A-Za-z][\w.-]*\s*(?:==|=|:)|"
                           r"\b(?:torchvision|torchaudio|torchtext|torchdata|xformers)\b[^\n]{0,12}?)\s*[\"'`(\[]$", re.I)
# NumPy beside them: its major decides TE104 against torch's release ("numpy 2.0.1 with torch 2.1.0", "numpy2.0").
_FAMILY = re.compile(r"(?<![\w/.=@-])(?P<name>torchvision|torchaudio|numpy)(?![A-Za-z_./-])" + _JOIN + _VERSION, re.I | re.A)
# torch's CUDA build said right after its version: " cu121", " (cu118)", " + cu118", "(CUDA 12.1)", " with CUDA 11.1 build",
# ", built with CUDA 10.2", " compiled for CUDA 11.3". A CPU build only by its "+cpu" tag: "torch 1.7.1 CPU" is
# also how the YOLOv5 banner says the CPU was selected; "(CPU toolkit)", "CPU-only", "cpu version" say the build.
_TIED_CUDA = re.compile(r"^(?:[\s,]*(?:\+\s+)?\(?(?P<tag>cu\d{2,3})\b\)?(?![\w.])"
                        r"|\s*\(\s*cuda\s*(?P<paren>\d+\.\d+)\s*\)"
                        r"|[\s,]*(?:(?:is|was)\s+)?(?:built|compiled|build)\s+(?:with|for|against|on)\s+cuda\s*(?P<built>\d+\.\d+)"
                        r"|\s+with\s+cuda\s*(?P<with>\d+\.\d+)\s+(?:build|wheel|version of (?:py)?torch))"
                        r"|[\s,]*[(\[]?\s*(?P<cpu>cpu[\s-]?(?:only|toolkit|build|version|wheel)|cpuonly)\b", re.I)
# A key's value as people write it after the key: "cuda: 12.1", "cuda=12.1", "cuda 12.1", "cuda12.1"; a
# major.minor version that is not the head of a longer dotted number.
_SAID_SEP = r"(?:\s*[:=]\s*|\s+|)"
_MAJOR_MINOR = r"v?(?P<version>\d+\.\d+)(?![\w]|\.\d+\.)"
# torch as the subject of its CUDA: "PyTorch has CUDA Version=11.7" (torchvision's mismatch error), "my torch was
# built with CUDA 11.8", "pytorch is compiled with cuda 10.2".
_TORCH_HAS_CUDA = re.compile(r"(?<![\w/.=@-])(?:py)?torch\s+(?:has|(?:(?:is|was)\s+)?(?:built|compiled)\s+(?:with|for|against))\s+"
                             r"cuda(?:\s+version)?" + _SAID_SEP + _MAJOR_MINOR, re.I | re.A)
# ... and with the build first: "the cu118 build of torch", "the CUDA 11.8 wheel of PyTorch", "CUDA 12.1 version of pytorch".
# A CPU build said the same way: "a CPU-only version of PyTorch", "the CPU build of torch", "a non-CUDA version of Torch".
_CUDA_OF_TORCH = re.compile(r"(?:\b(?P<tag>cu\d{2,3})|\bcuda\s*(?P<version>\d+\.\d+)|\b(?P<cpu>cpu|non-(?:cuda|gpu))(?:[\s-]?only)?)\s+"
                            r"(?:build|wheel|version)s?\s+of\s+(?:py)?torch\b", re.I)
# ... and the wheel's tag written before torch's name and version: "pinned the venv to cu130 torch 2.9.1", "cu128
# pytorch 2.7". Only the tag: "CUDA 11.8 torch 2.0" lists the toolkit beside torch as often as it names the build.
_TAG_BEFORE_TORCH = re.compile(r"(?<![\w/.=+-])(?P<tag>cu\d{2,3})\s+(?:py)?torch\s*(?:==|=|v)?\s*\d", re.I)
# A CPU build said in other words: "torch installed w/o gpu support", "a CPU-only torch", "torch is the cpu
# version", "pytorch (cpu)", "pytorch是cpu版本", "CPU版的torch".
_TORCH_CPU_SAID = re.compile(
    r"(?<![\w/.=@-])(?<!use )(?<!using )(?<!run )(?<!running )(?:py)?torch\b(?:\s+(?:is|was|got|gets|has\s+been|been))?"
    r"(?:\s+(?:installed|built|compiled|version|build|wheel))?\s+(?:w/o|without)\s+(?:the\s+)?(?:gpu|cuda)\b"
    # "the torch with cuda is removed and torch cpu is installed": what an install left, said as a fact.
    r"|(?<![\w/.=@-])(?:py)?torch\s+cpu\s+(?:is|was|got|gets|has\s+been)\s+installed\b"
    r"|\bcpu[\s-]?only\s+(?:py)?torch\b"
    # "the torch is actually installed with the cpu version", "pytorch choose cpu version instead cuda version": what
    # the install gave, said of torch as its subject.
    r"|(?<![\w/.=@-])(?:py)?torch\s+(?:is|was|got|gets|has\s+been)\s+(?:actually\s+|really\s+|now\s+)?installed\s+(?:with|as)\s+"
    r"(?:the\s+|a\s+)?cpu(?:[\s-]?only)?\s+(?:version|build|wheel)\b"
    r"|(?<![\w/.=@-])(?:py)?torch\s+(?:chooses?|chose|picks?|picked|selects?|selected)\s+(?:the\s+|a\s+)?cpu(?:[\s-]?only)?\s+"
    r"(?:version|build|wheel)\b"
    r"|(?<![\w/.=@-])(?:py)?torch\s+(?:is|was)\s+(?:the\s+|a\s+)?cpu(?:[\s-]?only)?\s+(?:build|version|wheel)\b"
    r"|(?<![\w/.=@-])(?:py)?torch\s*\(\s*cpu(?:[\s-]?only)?\s*\)"
    r"|(?<![\w/.=@-])(?:py)?torch\s*(?:\u662f|\u4e3a)?\s*cpu\s*\u7248"
    # "PyTorch安装的是CPU版本", "torch默认装成了cpu版": a few Chinese words between, none of them a negation or a
    # question (不 / 非 / 没 / 否: "not", "whether").
    r"|(?<![\w/.=@-])(?:py)?torch\s*(?:(?![\u4e0d\u975e\u6ca1\u5426])[\u4e00-\u9fff]){1,6}\s*cpu\s*\u7248"
    r"|(?<![a-z])cpu\s*\u7248(?:\u672c)?\s*\u7684?\s*(?:py)?torch\b", re.I | re.A)
# What an install gave, the install its subject: "when installing pytorch it installs the cpu only version" (torch
# named before it on the line), "This command installs cpu version instead of cuda" (the CUDA build it should have been).
_INSTALLS_CPU = re.compile(r"\binstall(?:s|ed)\s+(?:the\s+|a\s+)?cpu(?:[\s-]?only)?\s+(?:version|build|wheel)\b"
                           r"(?:\s+(?:instead\s+of|rather\s+than)\s+(?:the\s+|a\s+)?(?P<instead>cuda|gpu)\b)?", re.I)
# The driver's CUDA said as such ("CUDA driver version: 11.4", "CUDA driver version is too old (11.4)", "the driver
# supports CUDA 12.2"): the newest CUDA the driver runs, what nvidia-smi prints as CUDA Version.
_DRIVER_CUDA = re.compile(r"\b(?:cuda\s+driver(?:\s+version)?(?:\s+(?:is|was))?(?:\s+too\s+old)?|driver\s+supports\s+(?:up\s+to\s+)?cuda)"
                          r"(?:\s*[:=(]\s*|\s+)v?(?P<version>\d{1,2}\.\d)(?![\w]|\.\d)", re.I)
# nvidia-smi's version is the driver's ("NVIDIA-SMI 535.104.05", its banner's first field).
_SMI_VERSION = re.compile(r"\bNVIDIA-SMI\s+(?P<version>[1-9]\d{2}\.\d{1,3}(?:\.\d{1,3})?)(?![\w.]*\d)", re.I)
# ... and as a path or module name writes it ("cuda-11.2", "/usr/local/cuda-11.2"): still a CUDA version, whose unsaid.
_CUDA_SAID = re.compile(r"\bcuda(?:\s+(?:toolkit|version))?(?:" + _SAID_SEP + "|-)" + _MAJOR_MINOR, re.I | re.A)
_DRIVER = re.compile(r"(?:\bdriver|\u9a71\u52a8)(?:\s+version|\s*\u7248\u672c)?(?:\s+(?:is|was))?(?:\s*[:=\u662f\u4e3a]\s*|\s+|)"
                     r"v?(?P<version>[1-9]\d{2}(?:\.\d{1,3}){0,2})(?![\w.]*\d)", re.I | re.A)
_DRIVER_AFTER = re.compile(r"(?<![\w.])(?P<version>[1-9]\d{2}\.\d{1,3}(?:\.\d{1,3})?)\s+(?:nvidia\s+)?driver\b", re.I | re.A)
_DRIVER_PACKAGE = re.compile(r"(?<![\w-])nvidia-driver-(?P<version>[1-9]\d{2})(?![\w.])", re.I)
# nvidia-smi's banner line, also pasted alone: the CUDA here is the newest the driver supports.
_SMI_BANNER = re.compile(r"Driver Version:\s*(?P<driver>[1-9]\d{2}\.\d+(?:\.\d+)?)\s+(?:\|\s*)?CUDA Version:\s*"
                         r"(?P<cuda>\d+\.\d+)\b", re.I)
_NVCC = re.compile(r"\bnvcc(?:\s+(?:-V|--version))?(?:\s+version)?(?:\s+(?:is|was))?(?:\s*[:=]\s*|\s+)" + _MAJOR_MINOR,
                   re.I | re.A)
_PYTHON = re.compile(r"(?<![\w/.\\-])python(?:\s+version|\s*\u7248\u672c)?(?:\s+(?:is|was))?(?:\s*[:=\u662f\u4e3a]\s*|\s+|)"
                     r"v?(?P<version>[23]\.\d{1,2}(?:\.\d{1,2})?)(?![\w/\\-]|\.[\w./\\-])", re.I | re.A)
# An app's check retold: "This program is tested with 3.10.6 Python, but you have 3.13.1." (A1111's and its forks'
# INCOMPATIBLE PYTHON VERSION banner): the version after "you have" is this machine's.
_PYTHON_YOU_HAVE = re.compile(r"(?i)\bpython\b[^\n]{0,60}?\byou\s+have\s+(?:python\s+)?v?(?P<version>[23]\.\d{1,2}(?:\.\d{1,2})?)"
                              r"(?![\w/\\-]|\.\d)")
# A 32-bit interpreter or system stated in words ("Windows10 32bit", "Python 3.13 (32-bit)", "32-bit version of
# Python"): no torch release has ever shipped wheels for one.
_BITS32 = re.compile(r"(?:\b(?:windows|win)\s?(?:7|8(?:\.1)?|10|11)?|\bpython\s?(?:v?[23]\.\d{1,2}(?:\.\d{1,2})?)?)\s*[(,\uff08]?\s*"
                     r"32[\s-]?bits?\b|\b32[\s-]?bits?\s+(?:version\s+of\s+)?(?:python|windows|os|interpreter)\b", re.I)
# The system torch runs on. WSL is Linux (its torch is a Linux wheel) on a Windows host, so a text naming both
# Windows and WSL names one system; collect_env says the same with "microsoft" in its Linux platform.
_SYSTEM = re.compile(r"\b(?:(?P<wsl>WSL2?|Windows Subsystem for Linux)|(?P<windows>Windows|Win\s?(?:7|8|10|11))|"
                     r"(?P<linux>Linux|Ubuntu|Debian|CentOS|Fedora|RHEL|Red Hat|Rocky Linux|Arch Linux|openSUSE)|"
                     r"(?P<mac>macOS|Mac OS X?|OS X|M[1-4](?: Pro| Max| Ultra)? Mac(?:Book(?: Pro| Air)?| ?mini| Studio)?|"
                     r"(?-i:Mac)(?! address)|MacBook(?: Pro| Air)?|Mac ?mini|Mac Studio|Apple M[1-4]))(?![a-z])", re.I | re.A)

# A system counts with its version ("Windows 10", "Ubuntu 22.04", "win11") or where the words before it say the machine
# runs it ("on Linux", "OS: Windows", "running macOS").
_SYSTEM_VERSION = re.compile(r"[\s-]?v?\d")
_SYSTEM_SAID = re.compile(r"(?:\b(?:on|under|using|use|uses|running|runs|run|with|in|os|system|platform|distro)|[:=]|"
                          r"\u7cfb\u7edf)\s*(?:an?\s+|my\s+|the\s+)?$", re.I)
# A GPU with its brand or series: what the GPU table then confirms by name.
_GPU = re.compile(
    r"(?<![\w-])(?:"
    r"(?:NVIDIA\s+)?(?:GeForce\s+)?(?:RTX|GTX|GT|MX)\s?-?\d{3,4}M?(?:\s?(?:Ti|SUPER))?(?:\s+Laptop(?:\s+GPU)?)?"
    r"|(?:NVIDIA\s+)?RTX\s+(?:A\d{3,4}|PRO\s+\d{4}(?:\s+Blackwell)?|\d{4}\s+Ada)"
    r"|(?:NVIDIA\s+)?Tesla\s+[KMPVTA]\d{1,3}[a-z]?(?:[- ](?:SXM\d?|PCIE|\d+\s?GB?)[\w-]*)?"
    r"|(?:NVIDIA\s+)?Quadro\s+(?:RTX\s+)?[A-Z]{0,2}\d{3,5}[a-z]?"
    r"|(?:NVIDIA\s+)?(?:GeForce\s+)?(?:GTX\s+)?TITAN\s+(?:Xp|X|V|RTX|Black|Z)"
    r"|NVIDIA\s+(?:[ABHLT]\d{1,4}[a-z]?|GB\d{2,3})(?:[- ](?:SXM\d?|PCIE|NVL|\d+\s?GB?)[\w-]*)?"
    r"|(?:A100|A800|H100|H800|H200|V100S?|P100|A6000|A5000|A4000|B200|GB200|K80)(?:[- ](?:SXM\d?|PCIE|NVL|\d+\s?GB?)[\w-]*)?"
    r")(?![\w-])", re.I | re.A)
# A GeForce card by its model number alone, beside a word for a graphics card or a count ("3090 GPU",
# "4090 显卡", "GPU: 3090", "2x3090"): alone, "3090" is as likely a port or a line number.
_MODEL = r"(?P<model>(?:[1-5]0[5-9]0|16[56]0)(?:\s?(?:Ti|SUPER))?)"
# A GeForce model number with its suffix glued or spaced ("2080Ti", "3060 ti", "4070 SUPER") is a card wherever it
# stands; so are the short datacenter names (T4, L4, A10G ...) beside a word for a GPU ("a T4 GPU", "GPU: L4").
_SHORT = r"(?P<short>T4|L4|L40S?|L20|A10G?|A30|A40|A2|H20|P4|P40|M40|M60|K40m?)"
_GPU_SHORT = (re.compile(r"(?<![\w.:/-])(?P<model>(?:[1-5]0[5-9]0|16[56]0)\s?(?:Ti|SUPER))(?![\w.])", re.I | re.A),
              re.compile(r"(?<![\w.:/-])" + _SHORT + r"(?=\s?(?:(?:GPUs?|cards?|graphics)\b|\u663e\u5361))", re.I | re.A),
              re.compile(r"(?:\bGPUs?(?:\s*[:=]\s*|\s?)|\u663e\u5361(?:\s*[:=]\s*|\s?))" + _SHORT + r"(?![\w.])", re.I | re.A))
_GPU_NUMBER = (re.compile(r"(?<![\w.:/-])" + _MODEL + r"(?=\s?(?:(?:GPUs?|cards?|graphics)\b|\u663e\u5361)|s\b)", re.I | re.A),
               re.compile(r"(?:\bGPUs?(?:\s*[:=]\s*|\s?)|\u663e\u5361(?:\s*[:=\u662f\u4e3a]\s*|\s?)|(?<![\w.])\d\s?[x\u00d7*]\s?)"
                          + _MODEL + r"(?![\w.])", re.I | re.A))
# A GPU the name table does not know (a typo, a rare mobile part), with the compute capability the writer states
# for it: "my old graphics card (GeForce GM630m => cuda capability 2.1)", "Quadro K1100M, compute capability 3.0".
_STATED_CC = re.compile(r"(?P<name>\b(?:NVIDIA\s+)?(?:GeForce|Quadro|Tesla|GTX|RTX|GT|MX)\s?[\w -]{1,20}?)\s*(?:[(,:]\s*|=>?\s*|-+>\s*|\s)"
                        r"(?:with\s+|has\s+|is\s+|of\s+)?(?:cuda|compute)\s+capability\s*(?:of\s+|is\s+|[:=]\s*)?"
                        r"(?P<cc>[1-9]\d?\.\d)(?![\d.])", re.I | re.A)
# The RTX 30, 40 and 50 families named as families ("RTX 50 series", "NVIDIA 50 series card", "30系显卡"): one compute
# capability for every GeForce card in each, so the family stands for a card; read as "RTX 50 series".
_GPU_FAMILY = re.compile(r"(?:(?<![\w-])(?:NVIDIA\s+)?(?:GeForce\s+)?RTX\s?|(?<![\w-])NVIDIA\s+(?:GeForce\s+)?)(?P<family>[345])0"
                         r"(?:xx|[- ]?series)(?![\w-])|(?<![\w.-])(?:RTX\s?)?(?P<zh>[345])0\s?\u7cfb\u5217?(?=\s?(?:\u663e\u5361|N?\u5361|GPU))",
                         re.I | re.A)
_SUFFIX = re.compile(r"\s?(ti|super)$", re.I)  # as the driver spells it: "2080ti" is "2080 Ti"
_WHILE_USING = re.compile(r"\bwhile\s+(?:working|running|training|using)\s+(?:with|on|under)\s+$", re.I)
_MY_BEFORE = re.compile(r"\bmy\s+$", re.I)
_DRIVERS_NEXT = re.compile(r"\s+drivers?\b", re.I)
_GPU_NOISE = re.compile(r"^(?:NVIDIA|GeForce|Tesla)\s+|\s+Laptop(?:\s+GPU)?$|[- ](?:SXM\d?|PCIE|NVL|\d+\s?GB?)[\w-]*$", re.I)


def names_a_gpu(text: str) -> bool:
    """Whether `text` (torch's own warning, say) names a GPU the GPU table knows."""
    return any(collect_env_text.compute_capability(name) for _, _, name in _gpu_names(text, text.lower()))


def _released_major(version: str) -> bool:
    """Whether torch has had a release of this major (0.x to the newest in the tables): "torch 7.0" is a typo."""
    return int(version.split(".")[0]) <= int(tables.releases()[-1]["torch"].split(".")[0])


MINE, ELSEWHERE = "mine", "elsewhere"


def _whose(line: str, start: int, end: int, gpu: bool = False) -> str | None:
    """Whom the value at line[start:end] is stated of: MINE, ELSEWHERE (another machine or time, by the words
    before it), or None when it is no fact at all (a requirement, advice, a bound such as "1.8 or later")."""
    before = line[max(0, start - 60):start]
    if _BOUND_AFTER.match(line[end:end + 20]):
        return None
    if _INSTALL_GAVE.search(before):
        return MINE  # "`pip install torch` resulted in the CPU version": the install's words are not advice here
    # A command quoted before the value ("When installed with 'pip install chatterbox-tts' torch installed w/o gpu
    # support") is what was run, not advice: its words do not make the value a requirement.
    if (_NOT_A_FACT_GPU if gpu else _NOT_A_FACT).search(_QUOTED.sub(" ", before)):
        return None
    if _CHANGED_TO.search(before):
        return MINE  # "since it updated to torch 2.8.0": what it is now
    if _WHILE_USING.search(before):
        return MINE  # "I got this warning while working with pytorch2.0": the setting of the report, not another one
    return ELSEWHERE if _ELSEWHERE.search(before) and not _FAILS.search(before) else MINE


def _gpu_key(name: str) -> str:
    """One key per model, however it is written: "NVIDIA GeForce RTX 3090" and "rtx3090" are one GPU,
    "Tesla V100-SXM2-32GB" and "V100" too."""
    core = name
    while (stripped := _GPU_NOISE.sub("", core)) != core:
        core = stripped
    return re.sub(r"[\s-]+", "", core).lower()


# The key words each family of facts starts from, in lower case: a line is tried with a family's patterns only where
# one is in it (a long log is mostly other lines, and the patterns' alternations, tried at every position, cost far
# more than a substring test). A GeForce model number alone needs a word for a card, a count ("2x3090", "3090s") or
# its suffix ("2080Ti").
_SYSTEM_WORDS = ("win", "wsl", "linux", "ubuntu", "debian", "centos", "fedora", "rhel", "red hat", "rocky", "suse", "mac",
                 "os x", "apple m")
_GPU_WORDS = ("rtx", "gtx", "gt", "mx", "tesla", "quadro", "titan", "nvidia", "geforce", "a100", "a800", "h100", "h800",
              "h200", "v100", "p100", "a6000", "a5000", "a4000", "b200", "k80")
_NUMBER_WORDS = ("gpu", "\u663e\u5361", "card", "graphic")
_KEY_WORDS = ("torch", "numpy", "driver", "\u9a71\u52a8", "cuda", "nvcc", "python", "+cpu", "+cu", *_SYSTEM_WORDS, *_GPU_WORDS,
              *_NUMBER_WORDS)
_COUNT_HINT = re.compile(r"\d ?[x\u00d7*] ?\d|\d{4}(?:s| ?ti| ?super)\b")
# The same tests as compiled searches of the lower-case line (faster than a loop of `in` in Python).
_SYSTEM_KEY, _GPU_KEY, _NUMBER_KEY = (re.compile("|".join(map(re.escape, words)))
                                      for words in (_SYSTEM_WORDS, _GPU_WORDS, _NUMBER_WORDS))
_COUNT_CHEAP = re.compile(r"[x\u00d7*] ?\d|ti\b|super\b")  # what _COUNT_HINT needs, found faster (more lines pass)
# (Two searches: one alternation of both loses the engine's literal-prefix shortcuts and costs three times more.)
_ANY_KEY = re.compile("|".join(map(re.escape, _KEY_WORDS)))


# pip's own log lines: what it collects, downloads or removes is read by the pip log reader, and "Found existing
# installation: torch 2.7.0+cu128" names the torch being replaced.
_PIP_LOG = re.compile(r"Found existing installation:|Uninstalling |Successfully uninstalled |Attempting uninstall:|"
                      r"^Requirement already satisfied:|^Successfully installed ")


# torch's C++ ABI as a text states it: torch's own answer ("print(torch._C._GLIBCXX_USE_CXX11_ABI)  # False",
# "torch._C._GLIBCXX_USE_CXX11_ABI = True", "CXX11 ABI: False"), or the flag torch passes to what is compiled against it
# (torch.__config__.show()'s CXX_FLAGS, a cpp_extension compile line: "-D_GLIBCXX_USE_CXX11_ABI=0").
_CXX11_ABI = re.compile(r"_GLIBCXX_USE_CXX11_ABI\)?\s*(?:[#:=]|->|returns?|is)\s*(?P<said>True|False)\b"
                        r"|\bC(?:XX|\+\+)11[ _]ABI\s*[:=]\s*(?P<field>True|False)\b"
                        r"|-D_GLIBCXX_USE_CXX11_ABI=(?P<flag>[01])\b", re.I)


def _cxx11_abi(lines: list[str]) -> bool | None:
    """torch's C++ ABI where the text states one (True: the C++11 one); None where it states none or both (two
    builds of torch, whose is which not said)."""
    said = set()
    for line in lines:
        if "ABI" in line or "abi" in line:
            for m in _CXX11_ABI.finditer(line):
                value = m.group("said") or m.group("field")
                said.add(value.lower() == "true" if value else m.group("flag") == "1")
    return next(iter(said)) if len(said) == 1 else None


def _candidates(lines: list[str]) -> list[tuple[str, str]]:
    """(line, its lower case) for the lines that hold a key word, without those too long to be a sentence and
    pip's log lines."""
    out = []
    for line in lines:
        if not line or len(line) > 2000:  # a blob, not a sentence
            continue
        low = line.lower()
        if (_ANY_KEY.search(low) or _COUNT_CHEAP.search(low)) and not _PIP_LOG.search(line):
            out.append((line, low))
    return out


def _geforce(model: str) -> str | None:
    """A GeForce model number ("3090", "2080ti") as the name the GPU table knows it by (RTX for 20xx and later, GTX
    before), its suffix spelled as the driver spells it; None when no such card is known."""
    model = _SUFFIX.sub(lambda x: " Ti" if x.group(1).lower() == "ti" else " SUPER", model)
    return next((name for series in ("RTX", "GTX") if collect_env_text.compute_capability(name := f"{series} {model}")),
                None)


def _gpu_names(line: str, low: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each GPU `line` names, by any of the ways above; `low` is the line in lower case."""
    named, counted = _GPU_KEY.search(low), _NUMBER_KEY.search(low)
    found = [(m.start(), m.end(), " ".join(m.group(0).split())) for m in (_GPU.finditer(line) if named else ())]
    numbers = list(_GPU_SHORT[0].finditer(line)) if ("ti" in low or "super" in low) else []
    if counted:
        found += [(m.start("short"), m.end("short"), f"NVIDIA {m.group('short').upper()}")
                  for pattern in _GPU_SHORT[1:] for m in pattern.finditer(line)]
        numbers += [m for pattern in _GPU_NUMBER for m in pattern.finditer(line)]
    elif _COUNT_CHEAP.search(low) and _COUNT_HINT.search(low):
        numbers += [m for pattern in _GPU_NUMBER for m in pattern.finditer(line)]
    found += [(m.start("model"), m.end("model"), name) for m in numbers if (name := _geforce(m.group("model")))]
    if named or counted:
        found += [(m.start(), m.end(), f"RTX {m.group('family') or m.group('zh')}0 series") for m in _GPU_FAMILY.finditer(line)]
    return found


class _Said:
    """The values the text states for one fact: of this machine, and of another machine or time."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.mine: dict[str, str] = {}   # a key ("1.7.1", "rtx3090") -> the fullest spelling written
        self.elsewhere: dict[str, str] = {}

    def add(self, whose: str | None, key: str, value: str | None = None) -> None:
        if whose is None:
            return
        into = self.mine if whose == MINE else self.elsewhere
        value = value or key
        if len(value) > len(into.get(key, "")):
            into[key] = value

    def value(self) -> Any:
        """The one value stated of this machine; {"unknown": reason} where the text names several (another one
        as another machine's counts: "works on torch 1.6, fails on torch 1.7" says which is which only to a
        reader of the thread); None where it states none. "1.7", "1.7.1" and "1.7.1+cu110" are one, the fullest."""
        if not self.mine:
            return None
        named = {**self.elsewhere, **self.mine}
        keys = [k for k in named if not any(o != k and o.startswith((k + ".", k + "+")) for o in named)]
        if len(keys) == 1:
            return named[keys[0]]
        return {"unknown": f"the text names several {self.what} ({', '.join(sorted(named[k] for k in keys))}) without "
                           "saying which is this machine's; not read"}


# The reason given for a CUDA version the text names once without saying whose it is: one value the user stated
# of their machine (unlike several of a kind, a comparison), so a text naming it describes a machine.
UNSAID_WHOSE = "without saying it is torch's build"


def read(lines: list[str]) -> dict[str, Any]:
    """Facts sections for what `lines` state in prose: a value where one is stated, {"unknown": reason}
    where several are. Empty when the text states none."""
    torch, family = _Said("torch versions"), {"torchvision": _Said("torchvision versions"),
                                              "torchaudio": _Said("torchaudio versions"),
                                              "numpy": _Said("NumPy versions")}
    builds: dict[str, set[Any]] = {}  # torch's version without its tag -> the CUDA builds tied to it (None: CPU)
    said_cuda: set[str | None] = set()  # torch's CUDA said of torch itself ("PyTorch has CUDA Version=11.7"; None: CPU)
    loose_cuda: set[str] = set()      # CUDA versions named without saying whose
    drivers, branches, nvcc, python = (_Said("driver versions"), _Said("driver branches"), _Said("nvcc versions"),
                                       _Said("Python versions"))
    systems, gpus = _Said("systems"), _Said("GPUs")
    stated_cc: dict[str, str] = {}  # a GPU the name table does not know -> the capability the text states for it
    wsl = False
    bits32 = False  # a 32-bit Python or system said of this machine
    driver_cuda: set[str] = set()     # beside the driver in nvidia-smi's banner
    driver_cuda_said: set[str] = set()  # "CUDA driver version: 11.4"

    for line, low in _candidates(lines):  # and each family of patterns only where its own key word is
        has_torch, has_driver = "torch" in low, "driver" in low or "\u9a71\u52a8" in line
        patterns = ((_TORCH, _TORCH_WHEEL, _TORCH_INSTALLED_BY, _TORCH_SHOWN) if has_torch else ()) + ((_BARE_TAGGED,) if "+c" in low else ())
        for m in (m for pattern in patterns for m in pattern.finditer(line)):
            version = m.group("version") or m.groupdict().get("plain")
            if not _released_major(version) or (m.re is _BARE_TAGGED and _NAMED_BEFORE.search(line, 0, m.start())):
                continue
            whose = _whose(line, m.start(), m.end())
            base = version.split("+")[0]
            if _ANOTHER_VERSION.match(line[m.end():m.end() + 20]):
                whose = whose and ELSEWHERE  # "torch 1.6 and 1.7", "pytorch 1.4, 10.1": which is which is not said
            torch.add(whose, version)  # "2.6.0+cpu" and "2.6.0+cu124" are two builds; "2.6.0" is either
            if whose != MINE:
                continue
            tag = re.search(r"\+(cu\d{2,3}|cpu)\b", version) or (
                # the install command's own index: "pip install torch==2.2.0 ... --index-url .../whl/cpu"
                _INSTALL_INDEX.match(line, m.end()) if m.re is _TORCH_INSTALLED_BY else None)
            tied = _TIED_CUDA.match(line[m.end():m.end() + 60])
            said = tag.group(1) if tag else tied and (tied.group("tag") or tied.group("paren") or tied.group("built")
                                                      or tied.group("with") or (tied.group("cpu") and "cpu"))
            if said:
                said = said.lower()
                builds.setdefault(base, set()).add(None if said == "cpu" else
                                                   f"{said[2:-1]}.{said[-1]}" if said.startswith("cu") else said)
        for m in _TORCH_HAS_CUDA.finditer(line) if has_torch else ():
            if _whose(line, m.start(), m.end()) == MINE:
                said_cuda.add(m.group("version"))
        for m in _TORCH_CPU_SAID.finditer(line) if has_torch else ():
            if _whose(line, m.start(), m.end()) == MINE:
                said_cuda.add(None)
        for m in _INSTALLS_CPU.finditer(line) if "cpu" in low else ():
            if (m.group("instead") or "torch" in low[:m.start()]) and _whose(line, m.start(), m.end()) == MINE:
                said_cuda.add(None)
        for m in (m for p in ((_CUDA_OF_TORCH, _TAG_BEFORE_TORCH) if has_torch else ()) for m in p.finditer(line)):
            if _whose(line, m.start(), m.end()) == MINE:
                groups = m.groupdict()
                said_cuda.add(None if groups.get("cpu") else tables.tag_cuda((groups["tag"] or "").lower())
                              or groups.get("version"))
        drivers_cuda = list(_DRIVER_CUDA.finditer(line)) if has_driver else []
        for m in drivers_cuda:
            if _whose(line, m.start(), m.end()) == MINE:
                driver_cuda_said.add(m.group("version"))
        for m in _FAMILY.finditer(line) if has_torch or "numpy" in low else ():
            if not _ANOTHER_VERSION.match(line[m.end():m.end() + 20]):
                family[m.group("name").lower()].add(_whose(line, m.start(), m.end()), m.group("version"))
        for m in _SMI_BANNER.finditer(line) if has_driver else ():
            drivers.add(MINE, m.group("driver"))
            driver_cuda.add(m.group("cuda"))
        for pattern in ((_DRIVER, _DRIVER_AFTER, _DRIVER_PACKAGE) if has_driver else ()) + (
                (_SMI_VERSION,) if "nvidia-smi" in low else ()):
            for m in pattern.finditer(line):
                version = m.group("version")
                (drivers if "." in version else branches).add(_whose(line, m.start(), m.end()), version)
        for m in _CUDA_SAID.finditer(line) if "cuda" in low else ():
            if not re.search(r"driver version:?\s*\S+\s+(?:\|\s*)?$", line[:m.start()], re.I) and not any(
                    d.start() <= m.start() < d.end() for d in drivers_cuda):  # the driver's, said so
                loose_cuda.add(m.group("version"))
        for m in _NVCC.finditer(line) if "nvcc" in low else ():
            nvcc.add(_whose(line, m.start(), m.end()), m.group("version"))
        for m in _PYTHON_YOU_HAVE.finditer(line) if "you have" in low else ():
            python.add(MINE, m.group("version"))
        for m in _PYTHON.finditer(line) if "python" in low else ():
            whose = _whose(line, m.start(), m.end())
            python.add(whose and (ELSEWHERE if _ANOTHER_VERSION.match(line[m.end():m.end() + 20]) else whose),
                       m.group("version"))
        for m in _BITS32.finditer(line) if "32" in low and "bit" in low else ():
            # A system put in parentheses after a sentence ("please support python 3.13! (Windows10 32bit)") says
            # what the writer runs, whatever the sentence asked for.
            aside = line[:m.start()].rstrip().endswith(("(", "\uff08"))
            bits32 = bits32 or aside or _whose(line, m.start(), m.end()) == MINE
        for m in _SYSTEM.finditer(line) if _SYSTEM_KEY.search(low) else ():
            if not (m.group("wsl") or re.search(r"\d", m.group(0)) or _SYSTEM_VERSION.match(line, m.end())
                    or _SYSTEM_SAID.search(line[max(0, m.start() - 40):m.start()])):
                continue  # "Windows rocks" names a system without saying this machine runs it
            whose = _whose(line, m.start(), m.start())
            systems.add(whose, "Windows" if m.group("windows") else "Darwin" if m.group("mac") else "Linux")
            wsl = wsl or (whose == MINE and bool(m.group("wsl")))
        for start, end, name in _gpu_names(line, low):
            if collect_env_text.compute_capability(name):
                # "I upgraded my RTX 3070 Laptop drivers": what was upgraded is the driver of the GPU this machine has.
                owned = _MY_BEFORE.search(line, 0, start) and _DRIVERS_NEXT.match(line, end)
                gpus.add(MINE if owned else _whose(line, start, end, gpu=True), _gpu_key(name), name)
        for m in _STATED_CC.finditer(line) if "capabilit" in low else ():
            name = m.group("name").strip()
            if not collect_env_text.compute_capability(name):
                stated_cc[name] = m.group("cc")
                gpus.add(_whose(line, m.start(), m.end()), _gpu_key(name), name)

    facts: dict[str, Any] = {}
    section: dict[str, Any] = {}
    version = torch.value()
    if version is not None:
        section["version"] = version
    built = builds.get(version.split("+")[0], set()) if isinstance(version, str) else set()
    if not torch.mine or isinstance(version, str):
        built = built | said_cuda  # "torch has CUDA 11.7" is of the one torch the text names, if any
    if len(built) == 1:
        section["cuda"] = next(iter(built))
    elif len(built) > 1:
        section["cuda"] = {"unknown": "the text ties several CUDA builds to torch; not read"}
    elif loose_cuda:
        named = ", ".join(f"CUDA {c}" for c in sorted(loose_cuda))
        section["cuda"] = {"unknown": f"the text names {named} {UNSAID_WHOSE} (it may be the toolkit's or the driver's); "
                                      "torch's own CUDA is not stated"}
        section["cuda_named"] = sorted(loose_cuda, key=tables.major_minor)
    if section and (abi := _cxx11_abi(lines)) is not None:  # of the torch the text states, never a machine alone
        section["cxx11_abi"] = abi
    if section:
        facts["torch"] = section
    nvidia: dict[str, Any] = {}
    driver = drivers.value()
    if driver is not None:
        nvidia["driver_version"] = driver
        if len(driver_cuda) == 1 and isinstance(driver, str):
            nvidia["cuda_driver_version"] = next(iter(driver_cuda))
    elif branches.mine:
        nvidia["driver_version"] = {"unknown": f"the text names driver {'/'.join(sorted(branches.mine))} without its "
                                               "minor version, which decides against a floor of the same branch"}
        if isinstance(branch := branches.value(), str):
            nvidia["driver_branch"] = branch
    if "cuda_driver_version" not in nvidia and len(driver_cuda_said) == 1:
        nvidia["cuda_driver_version"] = next(iter(driver_cuda_said))
    gpu = gpus.value()
    if gpu is not None:
        nvidia["gpus"] = [collect_env_text.named_gpu(gpu, 0)] if isinstance(gpu, str) else gpu
        if isinstance(gpu, str) and gpu in stated_cc:
            nvidia["gpus"][0]["compute_capability"] = stated_cc[gpu]
    if nvidia:
        facts["nvidia"] = nvidia
    if (said := nvcc.value()) is not None:
        facts["toolchain"] = {"nvcc_version": said}
    if wsl:  # the Windows named is WSL's host
        systems.mine.pop("Windows", None)
        systems.elsewhere.pop("Windows", None)
    py = {key: value for key, value in (("version", python.value()), ("system", systems.value())) if value is not None}
    if wsl and py.get("system") == "Linux":
        py["wsl"] = True
    if bits32:
        py["machine"] = "x86"
    if py:
        facts["python"] = py
    listed = [{"name": name, "version": value, "location": "stated in the text"}
              for name, said in family.items() if isinstance(value := said.value(), str)]
    if listed:  # a companion's version alone is a fact too; torch joins it where the text states torch's
        mine = [{"name": "torch", "version": version, "location": "stated in the text"}] if isinstance(version, str) else []
        facts["packages"] = {"distributions": [*mine, *listed], "distributions_partial": True}
    return facts
