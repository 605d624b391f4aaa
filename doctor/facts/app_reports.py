"""Facts from what other projects print about torch at start-up or when they fail, for `--facts`.

People paste their application's console rather than collect_env, and those lines say a lot:

* xFormers' load warning (xformers/_cpp_lib.py): "xFormers was built for: PyTorch 2.1.2+cu121
  with CUDA 1201 (you have 2.1.0+cpu) / Python 3.10.11 (you have 3.10.11)". The "(you have ...)"
  values are `torch.__version__` and the Python of the running process.
* Ultralytics' device banner (ultralytics/utils/torch_utils.py select_device, and YOLOv5's):
  "Ultralytics YOLOv8.2.54 🚀 Python-3.9.13 torch-2.2.0+cpu CUDA:0 (NVIDIA GeForce RTX 3070, 8192MiB)";
  "CPU (...)" there means the CPU was selected, not that there is no GPU.
* `python -m xformers.info` (xformers/info.py, `"{:<40} {}".format(name + ":", value)`): "xFormers
  0.0.23.post1", "pytorch.version: 2.1.2+cu121", "pytorch.cuda: available", "gpu.name: ...",
  "gpu.compute_capability: 8.6" and, from xFormers 0.0.21 on, "build.torch_version: 2.1.2+cu121"
  (the torch its compiled part was built against).
* `yolo checks` (ultralytics/utils/checks.py collect_system_info): the banner, then `f"{k:<20}{v}"`
  rows (OS, Python, GPU "Tesla T4, 15102MiB", CUDA) and one row per requirement, "torch  ✅ 2.4.1+cu121>=1.8.0".
* ComfyUI's "System Information" (its error report and /system_stats): the device line is
  "Name: cuda:0 NVIDIA GeForce GTX 1080 : cudaMallocAsync" (device, torch's name of the GPU, allocator).
* SD.Next's and kohya_ss's installer log ("Torch 2.1.2+cu118", "Torch backend: nVidia CUDA 11.8 cuDNN 8700",
  "Torch detected GPU: NVIDIA GeForce RTX 3090 VRAM 24576 Arch (8, 6) Cores 82"), and ComfyUI's start-up
  "Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync".
* The `sys.version` banner that A1111/Forge/SD.Next print ("Python 3.11.2 (tags/v3.11.2:878ead1,
  Feb  7 2023, 16:38:35) [MSC v.1934 64 bit (AMD64)]"): MSC is CPython's Windows compiler.
* The line extension builds print before compiling (apex's and flash-attn's setup.py:
  `print("\n\ntorch.__version__  = {}\n\n".format(torch.__version__))`): "torch.__version__  = 2.3.1+cu121".
* apex's setup.py: "Compiling cuda extensions with" + `nvcc -V` + "from <CUDA_HOME>/bin", and its
  refusal "Pytorch binaries were compiled with Cuda 10.2." (torch.version.cuda).
* A launcher's "Could not load torch: <error>" log line (kohya_ss), wrapped over indented lines:
  `import torch` failed with that error.

Each reader returns partial facts sections or None; pasted.read() merges them.
"""

from __future__ import annotations

import re
from typing import Any

from . import collect_env_text

_XF_BUILT = re.compile(
    r"xFormers was built for:\s*PyTorch\s+(?P<built>\S+)(?:\s+with CUDA\s+(?P<cuda>\d+))?\s*\(you have (?P<have>[^)\s]+)\)"
    r"(?:\s*Python\s+(?P<built_py>\d[\w.]*)\s*\(you have (?P<have_py>\d[\w.]*)\))?")
_YOLO = re.compile(r"(?:Ultralytics|YOLO)\S*(?:\s+\S+)*?\s+Python-(?P<py>\d+\.\d+\.\d+)\s+torch-(?P<torch>\d[\w.+]*)"
                   r"(?P<rest>.*)$")
_YOLO_CUDA = re.compile(r"CUDA:(?P<idx>\d+)\s+\((?P<name>[^,()]+(?:\([^)]*\)[^,()]*)?),\s*\d+\s*MiB\)")
# Also its start-up line (comfy/model_management.py, and Fooocus' copy): "Device: cuda:0 NVIDIA ... : cudaMallocAsync".
_COMFY_DEVICE = re.compile(r"^(?:[-*]\s*)?(?:Name|Device):\s*cuda:(?P<idx>\d+)\s+(?P<name>.+?)\s*:\s*[\w-]+\s*$")
# SD.Next's and kohya_ss's installers (setup_common.py check_torch): "Torch 2.1.2+cu118", "Torch backend: nVidia
# CUDA 11.8 cuDNN 8700" (printed only when CUDA is available), "Torch detected GPU: NVIDIA ... VRAM 24576 Arch
# (8, 6) Cores 82" (or "VRAM 24576MB Arch 8.6"), after a log prefix ("15:23:12-361817 INFO     ").
_INSTALLER_TORCH = re.compile(r"^(?:.*\bINFO\s+)?Torch (?P<version>\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+[\w.]+)?)$")
# SD.Next's device line (modules/devices.py, 2024-): "Device: device=NVIDIA GeForce RTX 5090 n=1 arch=sm_90
# capability=(12, 0) cuda=12.6 cudnn=90501"; cuda= is torch.version.cuda, arch= the last of torch's arch list.
_SDNEXT_DEVICE = re.compile(r"\bDevice: device=(?P<name>.+?) n=\d+ arch=\S+ capability=\((?P<major>\d+), ?(?P<minor>\d+)\)"
                            r" cuda=(?P<cuda>\d+\.\d+)\b")
_INSTALLER_BACKEND = re.compile(r"(?:^|\s)Torch backend: nVidia CUDA (?P<cuda>\d+\.\d+) cuDNN (?:\d+|N/A)\b")
_INSTALLER_GPU = re.compile(r"(?:^|\s)Torch detected GPU: (?P<name>.+?) VRAM \d+\s*(?:MB)? Arch "
                            r"(?:\((?P<major>\d+), (?P<minor>\d+)\)|(?P<dmajor>\d+)\.(?P<dminor>\d+)) Cores \d+")
# sys.version itself, as a REPL shows its repr or print() shows it, starts at the version ("'3.10.6 | packaged by
# conda-forge | (main, Aug 22 2022, 20:38:29) [Clang 13.0.1 ]'"); conda-forge's and Anaconda's builds put
# "| packaged by ... |" between the version and the build tuple, in the banner too.
_SYS_VERSION = re.compile(r"^(?:Python\s+|['\"])?(?P<py>[23]\.\d+\.\d+)\S*\s+(?:\|[^|\n]{1,60}\|\s+)?"
                          r"\((?:tags/|heads/|main|default|v\d|[\w.:-]+,)[^)]*\)\s*"
                          r"\[(?P<compiler>MSC|GCC|Clang)\b[^\]]*\](?:\s+on\s+(?P<platform>linux|win32|cygwin|darwin)\b)?")
# The interactive interpreter's banner ends with sys.platform: "Python 3.11.14 (main, ...) [GCC 11.4.0] on linux".
_SYS_PLATFORM = {"linux": "Linux", "win32": "Windows", "cygwin": "Windows", "darwin": "Darwin"}
_SETUP_TORCH = re.compile(r"(?<![\w.])torch\.__version__\s+=\s+(?P<version>\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)?"
                          r"(?:\+[\w.]+)?)(?![\w.+])")
_COULD_NOT_LOAD = re.compile(r"Could not load torch:\s*(?P<error>\S.*)$")
_WIN_ERROR = re.compile(r"^\[WinError \d+\]")
_LOG_START = re.compile(r"^\s*(?:\d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}|\[?(?:INFO|WARNING|ERROR|DEBUG)\b)")


def _torch(version: str) -> dict[str, Any]:
    torch: dict[str, Any] = {"version": version, "import_status": "ok"}
    m = re.search(r"\+cu(\d+)(\d)\b", version)
    if m:
        torch["cuda"] = f"{m.group(1)}.{m.group(2)}"
    elif re.search(r"\+cpu\b", version):
        torch["cuda"] = None
    return torch



def xformers_warning(text: str) -> dict[str, Any] | None:
    """The running torch and Python, as xFormers' load warning names them."""
    m = _XF_BUILT.search(text) or _XF_BUILT.search(text.replace("\n", " "))  # also wrapped at a space
    if not m:
        return None
    facts: dict[str, Any] = {"torch": _torch(m.group("have"))}
    if m.group("have_py"):
        facts["python"] = {"version": m.group("have_py")}
    return facts


def ultralytics_banner(lines: list[str]) -> dict[str, Any] | None:
    """Python, torch and the CUDA devices of an Ultralytics/YOLOv5 device banner."""
    for i, line in enumerate(lines):
        # The cheap test first: the banner's pattern backtracks over every word of a long line.
        m = _YOLO.search(line) if "Python-" in line and "torch-" in line else None
        if not m:
            continue
        facts: dict[str, Any] = {"python": {"version": m.group("py")}, "torch": _torch(m.group("torch"))}
        # More GPUs follow on lines of their own, indented under the first.
        rest = " ".join([m.group("rest")] + [x for x in lines[i + 1:i + 8] if x.startswith("CUDA:")])
        gpus = [collect_env_text.named_gpu(g.group("name").strip(), int(g.group("idx")))
                for g in _YOLO_CUDA.finditer(rest)]
        if gpus:
            facts["nvidia"] = {"gpus": gpus}
        return facts
    return None


def comfyui_devices(lines: list[str]) -> dict[str, Any] | None:
    """The CUDA devices of ComfyUI's System Information ("Name: cuda:0 NVIDIA ... : cudaMallocAsync")."""
    gpus = []
    for line in lines:
        m = _COMFY_DEVICE.match(line)
        if m and not any(g["index"] == int(m.group("idx")) for g in gpus):
            gpus.append(collect_env_text.named_gpu(m.group("name"), int(m.group("idx"))))
    return {"nvidia": {"gpus": gpus}} if gpus else None


def installer_torch_check(lines: list[str]) -> dict[str, Any] | None:
    """What SD.Next's and kohya_ss's installers log about torch: its version, its CUDA (the line is
    printed only when CUDA is available) and each GPU with its compute capability (SD.Next's later "Device:" line
    says torch's CUDA and the GPU's capability in one)."""
    torch: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    for line in lines:
        m = _INSTALLER_TORCH.search(line)
        if m:
            torch.update({k: v for k, v in _torch(m.group("version")).items() if k not in torch})
            continue
        m = _INSTALLER_BACKEND.search(line)
        if m:
            torch["cuda"], torch["cuda_available"] = m.group("cuda"), True
            continue
        m = _SDNEXT_DEVICE.search(line)
        if m:
            torch["cuda"], torch["cuda_available"] = m.group("cuda"), True
        m = m or _INSTALLER_GPU.search(line)
        if m:
            groups = m.groupdict()
            gpu = collect_env_text.named_gpu(m.group("name").strip(), len(gpus))
            gpu["compute_capability"] = f"{groups['major'] or groups.get('dmajor')}.{groups['minor'] or groups.get('dminor')}"
            gpus.append(gpu)
    if "version" not in torch and not gpus:
        return None
    out: dict[str, Any] = {"torch": torch} if torch else {}
    if gpus:
        out["nvidia"] = {"gpus": gpus}
    return out


def python_banner(lines: list[str]) -> dict[str, Any] | None:
    """The Python version (and Windows, from CPython's MSC build tag; the system, from the "on <sys.platform>"
    the interactive banner adds) of a printed `sys.version`."""
    for i, line in enumerate(lines):
        # Also wrapped at a space: "... [MSC v.1934 64 bit" / "(AMD64)]".
        m = _SYS_VERSION.match(line) or (_SYS_VERSION.match(f"{line} {lines[i + 1]}") if i + 1 < len(lines) else None)
        if m:
            python: dict[str, Any] = {"version": m.group("py")}
            if m.group("compiler") == "MSC":
                python["system"] = "Windows"
            elif m.group("platform"):
                python["system"] = _SYS_PLATFORM[m.group("platform")]
            return {"python": python}
    return None


def could_not_load_torch(raw_lines: list[str]) -> dict[str, Any] | None:
    """A launcher's "Could not load torch: ..." line, with the lines its console wrapped it onto."""
    for i, raw in enumerate(raw_lines):
        m = _COULD_NOT_LOAD.search(raw)
        if not m:
            continue
        message = m.group("error").strip()
        for more in raw_lines[i + 1:i + 6]:
            if not more.strip() or not more[:1].isspace() or _LOG_START.match(more):
                break
            message += " " + more.strip()
        error_type = "OSError" if _WIN_ERROR.match(message) else "ImportError"
        return {"torch": {"import_status": "import-error", "error_type": error_type, "error_message": message}}
    return None


def setup_torch_version(lines: list[str]) -> dict[str, Any] | None:
    """The torch an extension build imported, from the "torch.__version__  = X" line its setup.py printed."""
    for line in lines:
        m = _SETUP_TORCH.search(line)
        if m:
            return {"torch": _torch(m.group("version"))}
    return None


_APEX_FROM = re.compile(r"^from\s+(?P<home>/\S+?|[A-Za-z]:\\\S+?)[/\\]bin[/\\]?$")
_APEX_TORCH_CUDA = re.compile(r"Pytorch binaries were compiled with Cuda (?P<cuda>\d+\.\d+)")


def apex_build_log(lines: list[str]) -> dict[str, Any] | None:
    """The toolkit apex compiles with (CUDA_HOME, printed under its `nvcc -V`) and the CUDA torch was built with."""
    facts: dict[str, Any] = {}
    for i, line in enumerate(lines):
        if line == "Compiling cuda extensions with":
            for after in lines[i + 1:i + 8]:
                m = _APEX_FROM.match(after)
                if m:
                    facts["toolchain"] = {"cuda_home": m.group("home"), "cuda_home_exists": True,
                                          "cuda_home_source": "CUDA_HOME as apex's setup.py printed it"}
                    break
        m = _APEX_TORCH_CUDA.search(line) or (_APEX_TORCH_CUDA.search(f"{line} {lines[i + 1]}") if i + 1 < len(lines) else None)
        if m:  # also wrapped at a space: "... Pytorch binaries" / "were compiled with Cuda 10.2."
            facts.setdefault("torch", {"cuda": m.group("cuda")})
    return facts or None


_XF_INFO_HEAD = re.compile(r"^xFormers\s+(?P<version>\d[\w.+]*)$")
_XF_INFO_ROW = re.compile(r"^(?P<key>pytorch\.version|pytorch\.cuda|gpu\.name|gpu\.compute_capability|build\.torch_version|"
                          r"build\.python_version):\s+(?P<value>\S.*?)\s*$")


def xformers_info(lines: list[str]) -> dict[str, Any] | None:
    """torch, the GPU, and the torch xFormers was built against, from `python -m xformers.info`."""
    head = next((m for m in map(_XF_INFO_HEAD.match, lines) if m), None)
    rows = {m.group("key"): m.group("value") for m in map(_XF_INFO_ROW.match, lines) if m}
    if head is None or "pytorch.version" not in rows:
        return None
    facts: dict[str, Any] = {"torch": _torch(rows["pytorch.version"])}
    if rows.get("pytorch.cuda") in ("available", "not available"):
        facts["torch"]["cuda_available"] = rows["pytorch.cuda"] == "available"
    if "gpu.name" in rows:
        gpu = collect_env_text.named_gpu(rows["gpu.name"], 0)
        if re.fullmatch(r"\d+\.\d+", rows.get("gpu.compute_capability", "")):
            gpu["compute_capability"] = rows["gpu.compute_capability"]
        facts["nvidia"] = {"gpus": [gpu]}  # the current device only: other GPUs are not listed
    xformers: dict[str, Any] = {"name": "xformers", "version": head.group("version"), "location": "python -m xformers.info"}
    built = rows.get("build.torch_version", "")
    if re.match(r"\d+\.\d+", built):
        # The compiled part needs that torch release; the wheel's own metadata pins the same one.
        xformers["requires"] = [f"torch=={built.split('+')[0]}"]
    facts["packages"] = {"distributions": [{"name": "torch", "version": rows["pytorch.version"],
                                            "location": "python -m xformers.info"}, xformers],
                         "distributions_partial": True}
    return facts


_YOLO_ROW = re.compile(r"^(?P<key>OS|Python|GPU|GPU count|CUDA)\s{2,}(?P<value>\S.*?)\s*$")
_YOLO_PACKAGE = re.compile(r"^(?P<name>[A-Za-z][\w.-]*)\s+(?:\u2705|\u274c)\s*(?P<version>\d[\w.+!]*?)(?=[<>=!~]|\s*$)")


def yolo_checks(lines: list[str]) -> dict[str, Any] | None:
    """The system rows and the requirement rows of `yolo checks` (the banner is ultralytics_banner's)."""
    if not any(line.startswith("Setup complete") for line in lines):
        return None
    rows: dict[str, str] = {}
    dists: list[dict[str, Any]] = []
    for line in lines:
        m = _YOLO_ROW.match(line)
        if m:
            rows.setdefault(m.group("key"), m.group("value"))
            continue
        m = _YOLO_PACKAGE.match(line)
        if m:
            dists.append({"name": m.group("name").lower(), "version": m.group("version"), "location": "yolo checks"})
    facts: dict[str, Any] = {}
    python: dict[str, Any] = {}
    if re.fullmatch(r"\d+\.\d+\.\d+", rows.get("Python", "")):
        python["version"] = rows["Python"]
    os_row = rows.get("OS", "")
    system = next((name for prefix, name in (("Linux-", "Linux"), ("Windows-", "Windows"), ("macOS-", "Darwin"))
                   if os_row.startswith(prefix)), None)
    if system:
        python["system"] = system
        python["platform"] = os_row
    if python:
        facts["python"] = python
    gpu = re.match(r"^(?P<name>[^,]+),\s*\d+\s*MiB$", rows.get("GPU", ""))
    if gpu:
        facts["nvidia"] = {"gpus": [collect_env_text.named_gpu(gpu.group("name").strip(), 0)]}
    if dists:
        facts["packages"] = {"distributions": dists, "distributions_partial": True}
    return facts or None
