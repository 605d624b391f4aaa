"""Facts from the text of `python -m torch.utils.collect_env`, as people paste it into bug reports.

`torchdoctor env --facts report.txt` runs the environment checks on a machine the maintainer has
never seen: every field the report prints becomes a fact, and everything it lacks stays Unknown,
so the checks that need it are skipped instead of guessing.

`parse(text)` returns a PARTIAL facts dict in the JSON shape of `Facts` (sections as dicts, only
the fields the text supports, `meta.source == "collect_env"`), ready for
`Facts.from_json(d, default_reason="not in the collect_env report")`.

What the report's lines mean (torch/utils/collect_env.py, 1.0 to 2.13; see
shared/anchors/env-anchors.md section 1):

* "CUDA used to build PyTorch" is `torch.version.cuda`; when torch imported, "None" and
  "Could not collect" both mean it is None (a CPU or ROCm build); "N/A" everywhere means torch
  did not import (or is not installed), so the torch fields stay unknown.
* "CUDA runtime version" is NOT the runtime torch loads: it is `nvcc --version` on PATH.
* "cuDNN version" is the SYSTEM libcudnn (`ldconfig -p`), not necessarily the one torch loads
  (pytorch#78489, #104808). torch.cudnn_runtime is therefore taken, in order, from the pip
  nvidia-cudnn-cuNN wheel that Linux wheels load, from the cuDNN in a conda `pytorch` build
  string, and only for source or container builds (which link the system library) from the
  system list, when every file there names the same full version. Otherwise it stays unknown.
* "Could not collect" next to the driver or GPUs says nvidia-smi did not run; that is not proof
  that there is no driver, so those facts stay unknown (on macOS, where there is no NVIDIA
  driver to find, they are recorded as absent).
* The [pip3] lines are `pip list` filtered to torch, numpy, triton and the NVIDIA wheels; they
  become packages.distributions; a list cut off (collect_env always prints the [conda] lines
  after it, so pip lines with nothing after them were cut) keeps its whole rows and is marked
  partial (packages.distributions_partial), so no check reads a missing name as not installed.
  conda rows that pip did not install are added with installer "conda".
* env.variables stays unknown: the report shows only CUDA_MODULE_LOADING and the allocator
  config (see report_variables()); a partial dict would make every env-variable check say
  "not set" about variables the report never mentions.

Robust to what issue trackers do to the text: ``` fences, <details>, "> " quoting, CRLF,
indentation, lines wrapped by mail clients, warnings printed before the report, a report cut
off half way, and a report whose newlines were flattened into one line.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from typing import Any

from .. import paste

SOURCE = "collect_env"
LOCATION = "collect_env report"
CONDA_LOCATION = "collect_env report (conda list)"

# Top-level lines of the report, oldest and newest spellings. A line is read as a field only
# when it starts with one of these; everything else (CPU block, warnings, prose) is ignored.
LABELS = (
    "PyTorch version",
    "Is debug build",
    "CUDA used to build PyTorch",
    "ROCM used to build PyTorch",
    "XPU used to build PyTorch",
    "OS",
    "GCC version",
    "Clang version",
    "CMake version",
    "Libc version",
    "Python version",
    "Python platform",
    "Is CUDA available",
    "CUDA runtime version",
    "CUDA_MODULE_LOADING set to",
    "GPU models and configuration",
    "Nvidia driver version",
    "cuDNN version",
    "Is XPU available",
    "HIP runtime version",
    "MIOpen runtime version",
    "Is XNNPACK available",
    "Caching allocator config",
    "CPU",
    "Versions of relevant libraries",
    "GPU Topology",  # vLLM's copy: `nvidia-smi topo -m`
)
# Fields whose value may continue on the following lines.
_MULTILINE = {"GPU models and configuration", "cuDNN version", "CPU", "GPU Topology"}
# Labels that identify the report (CPU, OS and the version lines of other tools are too generic).
_SIGNATURE = set(LABELS) - {"OS", "CPU", "GCC version", "Clang version", "CMake version", "GPU Topology"}

# "Label: value", and the sectioned layout of torch 2.8+ and vLLM ("Label      : value").
_LABEL_RE = re.compile(r"^(" + "|".join(re.escape(label) for label in sorted(LABELS, key=len, reverse=True))
                       + r")[ \t]*:(?:\s+|$)(.*)$")
# The first field retyped or pasted without its colon ("PyTorch version 1.5.0"): only with a version
# after it, so prose ("PyTorch version is wrong") is not a field.
_NO_COLON_RE = re.compile(r"^(PyTorch version)[ \t]+(\d+\.\d+\S*)$")
# For text whose newlines were flattened: a label preceded by whitespace starts a new line.
_FLAT_SPLIT = re.compile(r"\s+(?=(?:" + "|".join(re.escape(label) for label in sorted(
    LABELS, key=len, reverse=True)) + r")[ \t]*:\s|\[pip3?\]\s|\[conda\]\s)")
# The first line collect_env prints (its first letter is sometimes lost to a fence on the same line).
_HEADER = re.compile(r"(?:^|\s)C?ollecting environment information")
# The banners of the sectioned layout ("==============================" around "System Info").
_BANNER = re.compile(r"^={5,}$")

_NOT_COLLECTED = {"could not collect", "", "n/a", "no cuda", "none"}
_TRUE = {"true", "yes"}
_FALSE = {"false", "no"}
_ARCHES = {"x86_64", "amd64", "aarch64", "arm64", "ppc64le", "s390x", "i386", "i686", "armv7l", "riscv64"}
_VERSION = re.compile(r"^(\d+(?:\.\d+)+)")
_GPU_LINE = re.compile(r"^GPU (\d+):\s*(.+?)\s*(?:\(UUID: [^)]*\))?\s*$")
_LIBCUDNN = re.compile(r"cudnn[\w]*\.so\.(\d+\.\d+\.\d+)\b")
_PIP_FREEZE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\S+)$")
_PIP_OLD = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*\((\S+)\)$")  # "[pip] numpy (1.15.4)"
_CONDA_CUDNN = re.compile(r"cudnn(\d+\.\d+\.\d+)")
# conda list rows for packages pip installed (already among the [pip3] lines) or in develop mode.
_CONDA_SKIP_BUILDS = {"<pip>", "<develop>", "pypi_0"}


# --------------------------------------------------------------------------- text clean-up

def _lines(text: str) -> list[str]:
    """The report's lines with the issue-tracker wrapping taken off."""
    text = text.replace("\ufeff", "").replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    for raw in text.split("\n"):
        line = raw.strip()
        while line.startswith(">"):  # markdown quoting, possibly nested
            line = line[1:].strip()
        if line.startswith(("```", "~~~")):
            line = line.lstrip("`~").strip()  # a fence, maybe with the report flattened after it
            if ":" not in line:
                continue
        # "<details>", "<pre>PyTorch version: 2.1.0": the tags go, what follows them on the line stays.
        line = re.sub(r"^(?:</?(?:details|summary|pre|code)\b[^>]*>\s*)+", "", line, flags=re.I)
        if not line:
            continue
        line = line.strip("`").strip()  # a report wrapped in single backticks
        line = paste.clean_line(line).strip()  # HTML entities and tags, **bold**, full-width colons
        if _BANNER.match(line):
            out.append("=====")  # a section boundary: ends a multi-line field
            continue
        if line.count(":") >= 2 or line.count("[pip") + line.count("[conda]") >= 2:
            # Newlines flattened into spaces: split before every label.
            parts = [re.sub(r"(\s+>)+\s*$", "", p).strip() for p in _FLAT_SPLIT.split(line)]
            if sum(1 for p in parts if _LABEL_RE.match(p) or p.startswith("[")) >= 2:
                for part in parts:  # "[pip3] triton==3.1.0 ### Reproduction": the entry, then the rest
                    m = re.match(r"^(\[pip3?\]\s+(?:\S+==\S+|\S+\s+\([^)]*\)))\s+(.+)$", part)
                    out.extend(m.groups() if m else (part,))
                continue
        out.append(line)
    return out


def _split(text: str) -> tuple[dict[str, str], dict[str, list[str]], list[str], bool]:
    """Of the FIRST report in `text`: field -> first-line value, field -> continuation lines,
    the [pip3]/[conda] lines, and whether the pip list is whole. collect_env always prints the
    conda lines after the pip ones, so a pip list with nothing after it was cut off."""
    values: dict[str, str] = {}
    extra: dict[str, list[str]] = {}
    packages: list[str] = []
    current: str | None = None
    pip_seen = pip_closed = False
    lines = _lines(text)
    # The report starts at its header, or else at "PyTorch version:"; a manual "Python version: 3.8"
    # above it is prose. (The sectioned layout prints OS and compilers before PyTorch version.)
    start = next((i for i, line in enumerate(lines) if _HEADER.search(line)), None)
    if start is None:
        start = next((i for i, line in enumerate(lines) if _label(line) == "PyTorch version"), 0)
    for line in lines[start:]:
        if line == "=====":
            current = None
            continue
        if pip_seen and line and not line.startswith("[pip"):
            pip_closed = True
        m = _LABEL_RE.match(line) or _NO_COLON_RE.match(line)
        if m:
            label, value = m.group(1), m.group(2).strip()
            if label in values:
                if label == "CPU":  # "Familia de CPU: 25" in a flattened, localised lscpu block
                    continue
                break  # a second report pasted below the first: read the first only
            values[label] = value
            extra[label] = []
            current = label
            continue
        if line.startswith(("[pip", "[conda]")):
            packages.append(line)
            pip_seen = pip_seen or line.startswith("[pip")
            current = None
            continue
        if current in _MULTILINE and line:
            extra[current].append(line)
    return values, extra, packages, pip_closed


def _label(line: str) -> str | None:
    m = _LABEL_RE.match(line) or _NO_COLON_RE.match(line)
    return m.group(1) if m else None


def looks_like_collect_env(text: str) -> bool:
    """True when `text` is (part of) a collect_env report, so `--facts` knows how to read it."""
    if not text or not text.strip():
        return False
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] in "{[" and not stripped.startswith(("[pip", "[conda]")):
        try:
            json.loads(stripped)
            return False
        except ValueError:
            pass
    values, _, packages, _ = _split(text)
    found = _SIGNATURE & set(values)
    if len(found) >= 3 or (len(found) >= 1 and len(packages) >= 1):
        return True
    # Cut short after a line or two: the header and "PyTorch version:" still say what it is.
    return "PyTorch version" in found and (len(found) >= 2 or bool(_HEADER.search(text)))


# --------------------------------------------------------------------------- small readers

def _given(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in _NOT_COLLECTED


def _bool(value: str | None) -> bool | None:
    if value is None:
        return None
    v = value.strip().lower()
    return True if v in _TRUE else False if v in _FALSE else None


def _major_minor(value: str) -> str | None:
    m = re.match(r"^(\d+)\.(\d+)", value.strip())
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _three(version: str) -> str | None:
    m = re.match(r"^(\d+\.\d+\.\d+)", version)
    return m.group(1) if m else None


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _base(version: str) -> str:
    return version.split("+", 1)[0]


def gcc_version(value: str) -> str | None:
    """'(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0' -> '11.4.0'; '(GCC) 8.5.0 20210514 (Red Hat ...)' -> '8.5.0'."""
    rest = value.strip()
    if rest.startswith("("):
        depth = 0
        for i, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                rest = rest[i + 1:]
                break
    m = re.match(r"\s*(\d+\.\d+(?:\.\d+)?)", rest)
    return m.group(1) if m else None


# --------------------------------------------------------------------------- GPU names

@lru_cache(maxsize=1)
def _gpu_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    from ..data import load

    return tuple((re.compile(p["pattern"], re.I), p["cc"]) for p in load("gpu_names")["patterns"])


def truncated_compute_capability(shown: str) -> str | None:
    """The compute capability of a name nvidia-smi cut short ("GeForce RTX 208..."), when every model
    the shown part can still be (RTX 2080, 2080 Ti, 2080 SUPER) has the same one; None otherwise."""
    stem = shown[:-3].rstrip() if shown.endswith("...") else None
    if not stem:
        return None
    for pattern, cc in _gpu_patterns():
        m = pattern.search(stem)
        if m and m.end() < len(stem):  # the model is whole, something follows it ("Tesla V100-SXM2...")
            return cc
    if not re.search(r"\d{2,3}$", stem):
        return None
    digits = len(re.search(r"\d+$", stem).group(0))
    ccs = {cc for tail in range(10 ** (4 - digits)) if 4 - digits > 0
           for cc in [compute_capability(f"{stem}{tail:0{4 - digits}d}")] if cc}
    return ccs.pop() if len(ccs) == 1 else None


def named_gpu(name: str, index: int) -> dict[str, Any]:
    """A GPU named in a paste, with its compute capability where the name tells it."""
    gpu: dict[str, Any] = {"index": index, "name": name}
    cc = compute_capability(name)
    if cc:
        gpu["compute_capability"] = cc
    return gpu


# Hand-typed names glue the series to the number and the number to its suffix ("rtx3090", "RTX 3060ti");
# nvidia-smi and torch spell them apart, as the name table does.
_GLUED_SERIES = re.compile(r"\b(RTX|GTX|GT|MX)(?=\d{3,4}\b|\d{3,4}(?:ti|super)\b)", re.I)
_GLUED_SUFFIX = re.compile(r"(?<=\d)(Ti|SUPER)\b", re.I)


def compute_capability(name: str) -> str | None:
    """'NVIDIA H100 80GB HBM3' -> '9.0', from doctor/data/gpu_names.json; None when not listed."""
    spaced = _GLUED_SUFFIX.sub(r" \1", _GLUED_SERIES.sub(r"\1 ", name))
    for pattern, cc in _gpu_patterns():
        if pattern.search(name) or (spaced != name and pattern.search(spaced)):
            return cc
    return None


# --------------------------------------------------------------------------- sections

def _packages(lines: list[str], python: str | None = None) -> tuple[list[dict[str, Any]] | None, list[tuple[str, str, str, str]]]:
    """(pip distributions or None when pip could not be read, conda rows (name, version, build, channel)).

    A report run under Python 2 whose list is `[pip3]` shows what Python 3's pip has installed:
    another interpreter's packages, not this one's (torch's own sample report, pytorch#42887)."""
    pip: list[dict[str, Any]] | None = None
    conda: list[tuple[str, str, str, str]] = []
    python2 = bool(python) and python.split(".")[0] == "2"
    for line in lines:
        m = re.match(r"^\[(pip3?|conda)\]\s*(.*)$", line)
        if not m:
            continue
        tool, rest = m.group(1), m.group(2).strip()
        if tool == "pip3" and python2:
            continue
        if tool.startswith("pip"):
            if rest.lower() in ("could not collect", ""):
                continue
            pip = pip if pip is not None else []
            if rest.lower() == "no relevant packages":
                continue
            pm = _PIP_FREEZE.match(rest) or _PIP_OLD.match(rest)
            if pm:
                name = _norm(pm.group(1))
                pip.append({"name": "torch" if name in _TORCH_NAMES else name, "version": pm.group(2), "location": LOCATION})
        else:
            tokens = rest.split()
            if len(tokens) >= 2 and re.match(r"^\d", tokens[1]):
                conda.append((tokens[0], tokens[1], tokens[2] if len(tokens) > 2 else "",
                              tokens[3] if len(tokens) > 3 else ""))
    return pip, conda


# The names torch was published under: conda's pytorch, and the 2018 nightlies' torch-nightly /
# pytorch-nightly (both import as torch).
TORCH_NAMES = _TORCH_NAMES = {"pytorch", "torch-nightly", "pytorch-nightly"}


def _conda_distributions(conda: list[tuple[str, str, str, str]], pip: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Packages conda itself installed, and the ones pip installed into the conda env (build pypi_0 or
    <pip>) that the [pip3] lines do not show: where pip could not be read they are the only record,
    and a version the pip list does not have is a second copy (pytorch#29301: conda's pytorch 1.3.0
    under a pip torch 1.3.1)."""
    seen = {(d["name"], _base(d["version"])) for d in pip or []}
    out = []
    for name, version, build, channel in conda:
        if name.startswith("_") or build == "<develop>":
            continue
        by_pip = build in _CONDA_SKIP_BUILDS or channel == "pypi"
        pname = "torch" if name in _TORCH_NAMES else _norm(name)
        if (pname, _base(version)) in seen:
            same = next((d for d in pip or [] if d["name"] == pname and _base(d["version"]) == _base(version)), None)
            if same is not None and not by_pip and build:
                # pip lists what conda installed too; conda's row says which build it is ("py37_cpu").
                same.update(installer="conda", build=build)
            continue
        seen.add((pname, _base(version)))
        out.append({"name": pname, "version": version, "location": CONDA_LOCATION,
                    "installer": "pip" if by_pip else "conda", **({"build": build} if build and not by_pip else {})})
    return out


def _python(values: dict[str, str]) -> dict[str, Any]:
    py: dict[str, Any] = {}
    version = values.get("Python version")
    if _given(version):
        m = _VERSION.match(version.strip())
        if m:
            py["version"] = m.group(1)
        if "[" in version:  # the full sys.version, not the "3.7" of old reports
            py["free_threaded"] = "free-threading build" in version
            if "[PyPy" in version:
                py["implementation"] = "PyPy"
            elif re.search(r"\[(GCC|Clang|MSC|clang)", version):
                py["implementation"] = "CPython"

    platform = values.get("Python platform")
    if _given(platform):
        platform = platform.strip()
        py["platform"] = platform
        head = platform.split("-", 1)[0].lower()
        system = {"linux": "Linux", "windows": "Windows", "macos": "Darwin", "darwin": "Darwin"}.get(head)
        if system:
            py["system"] = system
        tokens = re.split(r"[-\s]", platform)
        arch = next((t for t in tokens if t.lower() in _ARCHES), None)
        if arch:
            py["machine"] = arch
        if system == "Linux":
            py["wsl"] = "microsoft" in platform.lower()
        elif system:
            py["wsl"] = False

    os_line = values.get("OS")
    if _given(os_line):
        os_line = os_line.strip()
        m = re.match(r"^(.*\S)\s*\(([A-Za-z0-9_]+)\)$", os_line)
        if m and m.group(2).lower() in _ARCHES:
            os_line = m.group(1)
            py.setdefault("machine", m.group(2))
        py["os_release"] = os_line
        low = os_line.lower()
        if "system" not in py:
            if low.startswith("microsoft windows"):
                py["system"] = "Windows"
            elif low.startswith(("macos", "mac osx", "mac os x")):
                py["system"] = "Darwin"

    libc = values.get("Libc version")
    if libc is not None:
        m = re.match(r"^glibc-(\d+\.\d+)", libc.strip())
        if m:
            py["glibc"] = m.group(1)
        elif libc.strip().upper() == "N/A" or libc.strip() == "-":
            # collect_env prints N/A off Linux; '-' is libc_ver() finding no glibc (musl).
            py["glibc"] = None
    if "glibc" not in py and _given(platform):
        m = re.search(r"-with-glibc(\d+\.\d+)", platform)
        if m:
            py["glibc"] = m.group(1)
    if "glibc" not in py and py.get("system") in ("Windows", "Darwin"):
        py["glibc"] = None
    return py


def _cudnn_from_system(first: str | None, more: list[str]) -> str | None:
    """The one cuDNN version the system list names; None when it names several, or a file
    without a full version ('libcudnn.so.8', 'cudnn64_8.dll') that could be another."""
    if not _given(first):
        return None
    versions = set()
    for line in [first, *more]:
        for entry in line.split():
            if "cudnn" not in entry.lower():
                continue
            m = _LIBCUDNN.search(entry)
            if not m:
                return None
            versions.add(m.group(1))
    return versions.pop() if len(versions) == 1 else None


def _own_build(version: str) -> bool:
    """A source or container build (1.8.0a0+c068180, 2.7.0a0+7c8ec84dab.nv25.03): it links the
    system cuDNN. Official wheels and conda packages bring their own."""
    return bool(re.search(r"a0(\+|$)|\+git|\.nv\d", version))


def parse(text: str) -> dict[str, Any]:
    """The facts a collect_env report supports, as a partial `Facts` JSON dict."""
    values, extra, package_lines, pip_closed = _split(text)
    facts: dict[str, Any] = {}

    py = _python(values)
    system = py.get("system")

    # ------------------------------------------------------------------ packages
    pip, conda = _packages(package_lines, py.get("version"))
    if pip_closed and (pip is not None or conda):
        facts["packages"] = {"distributions": (pip or []) + _conda_distributions(conda, pip)}
    elif pip:
        # Cut off inside the pip list: the rows there are facts, what it lacks is unknown, not absent.
        facts["packages"] = {"distributions": pip, "distributions_partial": True}

    # ------------------------------------------------------------------ torch
    torch: dict[str, Any] = {}
    version = values.get("PyTorch version")
    imported = _given(version)
    if version is not None and version.strip().upper() == "N/A":
        # collect_env's `import torch` raised: torch is missing from that Python, or its import fails there.
        torch["import_status"] = "not-importable"
    if imported:
        torch["import_status"] = "ok"
        torch["version"] = version.strip()
        debug = _bool(values.get("Is debug build"))
        if debug is not None:
            torch["debug"] = debug
        available = _bool(values.get("Is CUDA available"))
        if available is not None:
            torch["cuda_available"] = available
        cuda = values.get("CUDA used to build PyTorch")
        if cuda is not None:
            torch["cuda"] = cuda.strip() if _given(cuda) else None
        else:
            # Cut before its CUDA line: the version's local tag names the build ("2.0.0+cpu", "2.1.0+cu121").
            tag = re.search(r"\+(?:cu(\d+)(\d)|(cpu))\b", version)
            if tag:
                torch["cuda"] = None if tag.group(3) else f"{tag.group(1)}.{tag.group(2)}"
        hip = values.get("ROCM used to build PyTorch")
        if hip is not None:
            torch["hip"] = hip.strip() if _given(hip) else None
        elif torch.get("cuda"):
            torch["hip"] = None  # a build targets CUDA or ROCm, never both
        cudnn = _cudnn_runtime(torch, system, pip, conda, values, extra)
        if cudnn is not None:
            torch["cudnn_runtime"] = cudnn
    if set(values) <= {"Versions of relevant libraries"}:
        # Pasted from the library lines on, as a package list is: what pip lists is the torch there. A
        # report that shows its other fields but not "PyTorch version" keeps torch unknown (cut at the
        # top, or "N/A": torch did not import).
        torch.update(_torch_from_library_lines(pip, conda))
    if torch:
        facts["torch"] = torch

    if py:
        facts["python"] = py

    # ------------------------------------------------------------------ toolchain
    toolchain: dict[str, Any] = {}
    gcc = values.get("GCC version")
    if _given(gcc) and gcc_version(gcc):
        toolchain["gcc_version"] = gcc_version(gcc)
    nvcc = values.get("CUDA runtime version")  # `nvcc --version` on PATH, whatever its label says
    if _given(nvcc) and _major_minor(nvcc):
        toolchain["nvcc_version"] = _major_minor(nvcc)
    if toolchain:
        facts["toolchain"] = toolchain

    # ------------------------------------------------------------------ nvidia
    nvidia = _nvidia(values, extra, system)
    if nvidia:
        facts["nvidia"] = nvidia

    # env.variables stays unknown: the report shows at most CUDA_MODULE_LOADING and the
    # allocator config, and a known-but-partial dict would let every env-variable check say
    # "not set" about variables the report never mentions. report_variables() has the two.

    facts["meta"] = {"source": SOURCE}
    return facts


def _torch_from_library_lines(pip: list[dict[str, Any]] | None, conda: list[tuple[str, str, str, str]]) -> dict[str, Any]:
    """torch's version and CUDA build from the [pip3]/[conda] lines, for a report pasted from
    "Versions of relevant libraries" on (its first fields cut off): the pip row's local tag
    ("2.1.0.dev20230731+cu118"), else conda's build string ("py3.7_cuda10.2_cudnn7.6.5_0", "cpu_py38h...")."""
    found: dict[str, Any] = {}
    row = next((d for d in pip or [] if d["name"] == "torch"), None)
    if row:
        found["version"] = row["version"]
        tag = re.search(r"\+(?:cu(\d+)(\d)|(cpu))\b", row["version"])
        if tag:
            found["cuda"] = None if tag.group(3) else f"{tag.group(1)}.{tag.group(2)}"
            return found
    for name, version, build, _channel in conda:
        if name not in _TORCH_NAMES | {"torch"} or build in _CONDA_SKIP_BUILDS:
            continue
        if row and _base(version) != _base(row["version"]):
            continue  # another torch than the one pip lists
        found.setdefault("version", version)
        cuda = re.search(r"cuda(\d+)\.?(\d)", build)
        if cuda and cuda.group(1) != "0":
            found["cuda"] = f"{cuda.group(1)}.{cuda.group(2)}"
        elif re.search(r"(?:^|_)cpu(?:_|$)", build):
            found["cuda"] = None
        break
    return found


def _cudnn_runtime(torch: dict[str, Any], system: str | None, pip: list[dict[str, Any]] | None,
                   conda: list[tuple[str, str, str, str]], values: dict[str, str],
                   extra: dict[str, list[str]]) -> str | None:
    if not torch.get("cuda"):
        return None
    # 1. Linux pip wheels load the cuDNN of the nvidia-cudnn-cuNN wheel, not the system one.
    if system in (None, "Linux"):
        for dist in pip or []:
            if re.fullmatch(r"nvidia-cudnn-cu\d+", dist["name"]):
                return _three(dist["version"])
    # 2. conda's pytorch package names the cuDNN it was built with and ships.
    base = _base(torch.get("version", ""))
    for name, version, build, _channel in conda:
        if name == "pytorch" and _base(version) == base:
            m = _CONDA_CUDNN.search(build)
            if m:
                return m.group(1)
    # 3. The system libcudnn, for builds that link it, when the report names exactly one version.
    if _own_build(torch.get("version", "")):
        return _cudnn_from_system(values.get("cuDNN version"), extra.get("cuDNN version", []))
    return None


def _nvidia(values: dict[str, str], extra: dict[str, list[str]], system: str | None) -> dict[str, Any]:
    nvidia: dict[str, Any] = {}
    gpu_value = values.get("GPU models and configuration")
    gpus = []
    if gpu_value is not None:
        lines = [gpu_value, *extra.get("GPU models and configuration", [])]
        for line in (part for text in lines for part in re.split(r"\s+(?=GPU \d+:)", text)):
            m = _GPU_LINE.match(re.sub(r"(\s+>)+\s*$", "", line.strip()))
            if m:
                gpu: dict[str, Any] = {"index": int(m.group(1)), "name": m.group(2)}
                cc = compute_capability(m.group(2))
                if cc:
                    gpu["compute_capability"] = cc
                gpus.append(gpu)
        if not gpus and compute_capability(gpu_value.strip()) and len(gpu_value.split()) <= 8:
            # On macOS (and wherever nvidia-smi is missing but CUDA works) collect_env prints
            # torch.cuda.get_device_name() alone: "GeForce GTX 1060 with Max-Q Design" (pytorch#16999).
            gpus.append(named_gpu(gpu_value.strip(), 0))
    topology = [values.get("GPU Topology") or "", *extra.get("GPU Topology", [])]
    if not gpus:
        gpus = _topology_gpus(topology)
    if gpus:
        nvidia["gpus"] = gpus

    driver = values.get("Nvidia driver version")
    driver_m = re.match(r"^(\d+(?:\.\d+)+)(?:\s|$)", driver.strip()) if driver is not None else None
    if driver_m and system != "Darwin":
        nvidia["driver_version"] = driver_m.group(1)
    elif system == "Darwin" and not gpus and not _given(gpu_value) and not _given(driver):
        # macOS has had no NVIDIA driver for years; collect_env prints No CUDA / Could not collect.
        nvidia["driver_version"] = None
        nvidia["gpus"] = []
    # Elsewhere "Could not collect" only says nvidia-smi did not run: leave the driver unknown.
    elif not gpus and not driver_m and _nothing_answered(gpu_value) and _nothing_answered(driver):
        nvidia["smi_found_nothing"] = True
    elif gpu_value is None and driver is None and not gpus and _nothing_answered(" ".join(topology)):
        # vLLM's report without its CUDA section (a torch without CUDA): `nvidia-smi topo -m` did not run either.
        nvidia["smi_found_nothing"] = True
    return nvidia


# A row of `nvidia-smi topo -m`: "GPU0  X  NV18 ... 0-55  0  N/A" (the header row names the columns,
# "GPU0 GPU1 NIC0 CPU Affinity ..."; only a GPU's own row has the "X" of its diagonal).
_TOPO_ROW = re.compile(r"^GPU(\d{1,3})\s.*(?:^|\s)X(?:\s|$)")


def _topology_gpus(lines: list[str]) -> list[dict[str, Any]]:
    """The GPUs by index from the topology matrix vLLM's report prints. Its newer scripts (0.20's; 0.16's did
    not) leave out the whole "CUDA / GPU Info" section when torch has no CUDA, so on a machine with NVIDIA GPUs
    and a CPU torch this matrix is the only trace of them; it names no model, so name and compute
    capability stay unknown."""
    gpus: list[dict[str, Any]] = []
    for line in lines:
        m = _TOPO_ROW.match(re.sub(r"\x1b?\[\d+m", "", line).strip())
        if m and all(g["index"] != int(m.group(1)) for g in gpus):
            gpus.append({"index": int(m.group(1))})
    return gpus


def _nothing_answered(value: str | None) -> bool:
    return value is not None and value.strip().rstrip(".") in ("No CUDA", "Could not collect")


def report_variables(text: str) -> dict[str, str]:
    """The environment variables a report shows (CUDA_MODULE_LOADING, *_ALLOC_CONF). Not put in
    facts.env.variables, which means "all behaviour-changing variables"; see parse()."""
    return _variables(_split(text)[0])


def _variables(values: dict[str, str]) -> dict[str, str]:
    variables: dict[str, str] = {}
    loading = values.get("CUDA_MODULE_LOADING set to")
    if _given(loading):
        variables["CUDA_MODULE_LOADING"] = loading.strip()
    alloc = values.get("Caching allocator config")
    if _given(alloc):
        alloc = alloc.strip()
        if alloc.startswith("{"):  # 2.6+: a dict of the three *_ALLOC_CONF variables
            try:
                parsed = ast.literal_eval(alloc)
            except (ValueError, SyntaxError):
                parsed = None
            if isinstance(parsed, dict):
                variables.update({str(k): str(v) for k, v in parsed.items() if v})
        else:  # older torch read PYTORCH_CUDA_ALLOC_CONF only
            variables["PYTORCH_CUDA_ALLOC_CONF"] = alloc
    return variables
