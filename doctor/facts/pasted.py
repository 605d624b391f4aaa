"""Facts from whatever people paste about their environment, for `torchdoctor env --facts`.

Besides `python -m torch.utils.collect_env` (collect_env_text), issues carry `nvidia-smi`
output, `pip list` / `pip freeze` / `conda list` tables, `python -m sglang.check_env`, Lightning's
bulleted environment, `transformers-cli env` / `diffusers-cli env` / `accelerate env`, and torch's
own warnings. `read(text)` finds each of these in one text (alone
or together), merges what they say into a partial `Facts` JSON dict and names what it read; every
field none of them shows stays unknown, with that list as the reason.

Precedence when two say the same thing: the collect_env report, then nvidia-smi (driver, GPUs),
then the package lists (torch's version and CUDA build from the `torch` row's local tag).
"""

from __future__ import annotations

import re
from typing import Any

from .. import paste
from . import collect_env_text, torch_warnings

# nvidia-smi's banner and its GPU rows, old and new ("|   0  A100-SXM4-40GB   On   | 00000000:04:00.0 Off |").
_SMI_DRIVER = re.compile(r"Driver Version:\s*(\d+(?:\.\d+)+)(?:\s+CUDA Version:\s*(\d+\.\d+))?")
_SMI_GPU = re.compile(r"^\|\s*(\d+)\s+(.+?)\s+(?:On|Off|WDDM|TCC)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d")
# pip list ("torch   2.1.0+cu121"), pip freeze ("torch==2.1.0"), conda list ("pytorch 2.0.1 py3.10_cuda11.8_0 pytorch").
_PIP_HEADER = re.compile(r"^Package\s+Version\b")
_CONDA_HEADER = re.compile(r"^#\s*(?:Name\s+Version\s+Build|packages in environment at)")
_ROW = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s+(\d[\w.+!-]*)(?:\s+(\S+))?(?:\s+(\S+))?\s*$")
_FREEZE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\d[\w.+!-]*)\s*$")
# python -m sglang.check_env, and the same keys in other projects' env dumps.
_KV = {
    "torch": re.compile(r"(?:^|\s)PyTorch:\s*(\d+\.\d+[\w.+]*)"),
    "driver": re.compile(r"CUDA Driver Version:\s*(\d+(?:\.\d+)+)"),
    "available": re.compile(r"(?:^|\s)CUDA available:\s*(True|False)"),
}
_KV_GPU = re.compile(r"(?:^|\s)GPU ((?:\d+,)*\d+):\s*(.+?)(?=\s+GPU (?:\d+,)*\d+ Compute Capability|\s+CUDA_HOME|$)", re.M)
_KV_CC = re.compile(r"GPU ((?:\d+,)*\d+) Compute Capability:\s*(\d+\.\d+)")
# `transformers-cli env`, `diffusers-cli env`, `accelerate env` (what Hugging Face's templates ask for):
# "- PyTorch version (GPU?): 2.1.2+cu121 (True)", "- GPU type: NVIDIA A100-SXM4-80GB", "- Platform: Linux-...".
_HF_TORCH = re.compile(r"^[-*]?\s*PyTorch version \(GPU\?\):\s*(\d+\.\d+[\w.+]*)\s*\((True|False)\)")
_HF_GPU = re.compile(r"^[-*]?\s*GPU type:\s*(\S.*)$", re.I)
_HF_PLATFORM = re.compile(r"^[-*]?\s*Platform:\s*((?:Linux|Windows|macOS|Darwin)-\S+)")
_HF_PYTHON = re.compile(r"^[-*]?\s*Python version:\s*(\d+\.\d+(?:\.\d+)?)\s*$")
# Lightning's bug-report environment ("* CUDA:" / "- GPU:" / "- NVIDIA A100..." / "- torch: 2.1.0").
_LIT_SECTION = re.compile(r"^\*\s*(CUDA|Lightning|Packages|System):\s*$")
_LIT_ITEM = re.compile(r"^-\s*([A-Za-z0-9][\w.-]*):\s*(\S.*)?$")
_LIT_BARE = re.compile(r"^-\s*(\S.*)$")
_TORCH_FAMILY = {"torch", "torchvision", "torchaudio", "pytorch"}


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


def nvidia_smi(lines: list[str]) -> dict[str, Any] | None:
    nvidia: dict[str, Any] = {}
    gpus = []
    for line in lines:
        m = _SMI_DRIVER.search(line)
        if m and "driver_version" not in nvidia:
            nvidia["driver_version"] = m.group(1)
            if m.group(2):
                nvidia["cuda_driver_version"] = m.group(2)
        g = _SMI_GPU.match(line)
        if g:
            name = g.group(2).strip()
            gpu: dict[str, Any] = {"index": int(g.group(1))}
            if not name.endswith("..."):  # nvidia-smi truncates long names
                gpu["name"] = name
                cc = collect_env_text.compute_capability(name)
                if cc:
                    gpu["compute_capability"] = cc
            if not any(x["index"] == gpu["index"] for x in gpus):
                gpus.append(gpu)
    if "driver_version" not in nvidia:
        return None
    if gpus:
        nvidia["gpus"] = gpus
    return nvidia


def package_list(lines: list[str]) -> tuple[str, list[dict[str, Any]]] | None:
    """("pip list" | "pip freeze" | "conda list", distributions) of a pasted package table."""
    kind = None
    rows: list[dict[str, Any]] = []
    for line in lines:
        if _PIP_HEADER.match(line):
            kind = kind or "pip list"
            continue
        if _CONDA_HEADER.match(line):
            kind = "conda list"
            continue
        m = _FREEZE.match(line)
        if m:
            rows.append({"name": _norm(m.group(1)), "version": m.group(2), "location": "pip freeze"})
            continue
        if kind:
            m = _ROW.match(line)
            if m:
                name, version, build, channel = m.groups()
                row = {"name": "torch" if name == "pytorch" else _norm(name), "version": version, "location": kind}
                if kind == "conda list" and (channel != "pypi" and build not in ("pypi_0", "<pip>")):
                    row["installer"] = "conda"
                rows.append(row)
    if not rows or not (kind or len(rows) >= 2):
        return None
    return kind or "pip freeze", rows


def check_env(text: str) -> dict[str, Any] | None:
    """`python -m sglang.check_env` keys (also when the paste flattened its lines)."""
    found = {key: m.group(1) for key, pattern in _KV.items() if (m := pattern.search(text))}
    if "torch" not in found and "driver" not in found:
        return None
    facts: dict[str, Any] = {}
    if "torch" in found:
        torch: dict[str, Any] = {"version": found["torch"], "import_status": "ok"}
        cuda = _cuda_from_tag(found["torch"])
        if cuda is not False:
            torch["cuda"] = cuda
        if "available" in found:
            torch["cuda_available"] = found["available"] == "True"
        facts["torch"] = torch
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
                gpus.append(_gpu(bare.group(1).strip(), len(gpus)))
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


def _gpu(name: str, index: int) -> dict[str, Any]:
    """A GPU named in a paste, with its compute capability where the name tells it."""
    gpu: dict[str, Any] = {"index": index, "name": name}
    cc = collect_env_text.compute_capability(name)
    if cc:
        gpu["compute_capability"] = cc
    return gpu


def hf_env(lines: list[str]) -> dict[str, Any] | None:
    """The environment block of `transformers-cli env` / `diffusers-cli env` / `accelerate env`."""
    torch: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    python: dict[str, Any] = {}
    for line in lines:
        m = _HF_TORCH.match(line)
        if m and "version" not in torch:
            torch = {"version": m.group(1), "import_status": "ok", "cuda_available": m.group(2) == "True"}
            cuda = _cuda_from_tag(m.group(1))
            if cuda is not False:
                torch["cuda"] = cuda
            continue
        m = _HF_GPU.match(line)
        if m and m.group(1).strip().lower() not in ("none", "n/a", "cpu"):
            gpus.append(_gpu(m.group(1).strip(), len(gpus)))
            continue
        m = _HF_PLATFORM.match(line)
        if m:
            python["platform"] = m.group(1)
            head = m.group(1).split("-", 1)[0].lower()
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


def _fill(into: dict[str, Any], section: str, values: dict[str, Any]) -> None:
    """Add what `into` lacks; never overwrite what an earlier source said."""
    target = into.setdefault(section, {})
    for key, value in values.items():
        target.setdefault(key, value)


def read(text: str) -> tuple[dict[str, Any], list[str]] | None:
    """(partial facts JSON dict, what was read: ["collect_env report", "nvidia-smi", ...]), or
    None when the text holds none of the known kinds."""
    lines = _lines(text)
    kinds: list[str] = []
    facts: dict[str, Any] = {}
    if collect_env_text.looks_like_collect_env(text):
        facts = collect_env_text.parse(text)
        facts.pop("meta", None)
        kinds.append("collect_env report")

    smi = nvidia_smi(lines)
    if smi:
        kinds.append("nvidia-smi")
        _fill(facts, "nvidia", smi)

    kv = None if kinds and "collect_env report" in kinds else check_env(text)
    if kv:
        kinds.append("check_env")
        for section, values in kv.items():
            _fill(facts, section, values)

    hf = None if "collect_env report" in kinds else hf_env(lines)
    if hf:
        kinds.append("Hugging Face env")
        for section, values in hf.items():
            _fill(facts, section, values)

    lit = lightning(lines)
    if lit:
        kinds.append("Lightning environment")
        for section, values in lit.items():
            _fill(facts, section, values)

    listed = package_list(lines)
    if listed:
        kind, rows = listed
        kinds.append(kind)
        have = facts.setdefault("packages", {}).setdefault("distributions", [])
        names = {d["name"] for d in have}
        have += [r for r in rows if r["name"] not in names]  # the report's own lines first
        torch_row = next((r for r in rows if r["name"] == "torch"), None)
        if torch_row:
            values: dict[str, Any] = {"version": torch_row["version"]}
            cuda = _cuda_from_tag(torch_row["version"])
            if cuda is not False:
                values["cuda"] = cuda
            _fill(facts, "torch", values)

    said = torch_warnings.find("\n".join(lines))
    if said:
        kinds.append("torch warnings")
        torch = facts.setdefault("torch", {})
        torch["warnings"] = said

    if not kinds:
        return None
    facts["meta"] = {"source": collect_env_text.SOURCE if kinds == ["collect_env report"] else "paste"}
    return facts, kinds
