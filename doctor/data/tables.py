"""Small pure helpers over the reference tables (cuda_driver.json, torch_releases.json).

Versions: torch and CUDA versions parse with `packaging.version`; NVIDIA driver strings compare
as tuples of ints ("580.65.06" -> (580, 65, 6)); compute capabilities are ints, major*10 + minor
("8.9" -> 89, "12.0" -> 120), the way torch encodes them. Nothing here touches the machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from . import load

INDEX_URL = "https://download.pytorch.org/whl"

# --------------------------------------------------------------------------- parsing


def driver_tuple(version: str) -> tuple[int, ...]:
    """ "580.65.06" -> (580, 65, 6); "570.26" -> (570, 26). Trailing junk ("-beta") is ignored."""
    parts = []
    for piece in str(version).strip().split("."):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
    if not parts:
        raise ValueError(f"not a driver version: {version!r}")
    return tuple(parts)


def driver_at_least(have: str, need: str) -> bool:
    return driver_tuple(have) >= driver_tuple(need)


def _version(text: str) -> Version | None:
    try:
        return Version(str(text))
    except InvalidVersion:
        return None


def major_minor(version: str) -> tuple[int, int] | None:
    """ "12.8" / "12.8.1" / "2.13.0+cu130" -> (12, 8) / (12, 8) / (2, 13)."""
    v = _version(version)
    if v is None:
        return None
    release = v.release + (0,)
    return release[0], release[1]


def torch_minor(version: str) -> str | None:
    """ "2.13.0+cu130" -> "2.13"."""
    mm = major_minor(version)
    return f"{mm[0]}.{mm[1]}" if mm else None


def family_requirement(name: str, torch_version: str) -> str | None:
    """The torchvision / torchaudio release that goes with this torch, as a pip requirement:
    torchvision 0.(n+15) with torch 2.n, torchaudio 2.n with torch 2.n up to 2.10, the stable-ABI
    torchaudio 2.11 and torchvision 0.29.1+ for every later torch (torch_releases.json, section 2.4)."""
    mm = major_minor(torch_version)
    if mm is None:
        return None
    major, n = mm
    table = load("torch_releases")["domain_libraries"]
    if name == "torchvision":
        floor = table["torchvision_min_pin_from"]
        if major == 2:
            return f"torchvision>={floor}" if n >= major_minor(floor)[1] - 15 else f"torchvision==0.{n + 15}.*"
        if major != 1:
            return None
        # torch 1.1 -> 0.3, 1.2 -> 0.4.0, 1.3 -> 0.4.2, 1.0 and older -> 0.2.2; then 0.(n+1).
        return {1: "torchvision==0.3.*", 2: "torchvision==0.4.0", 3: "torchvision==0.4.2"}.get(n) or (
            f"torchvision==0.{n + 1}.*" if n >= 4 else "torchvision==0.2.2")
    if name == "torchaudio":
        stable = table["torchaudio_stable_abi_from"]
        if major == 2:
            return f"torchaudio>={stable}" if n >= major_minor(stable)[1] else f"torchaudio=={major}.{n}.*"
        return f"torchaudio==0.{n}.*" if major == 1 else None
    return _companion_for(name, torch_version)


def _companion_for(name: str, torch_version: str) -> str | None:
    """The newest release of a compiled companion whose PyPI wheels accept this torch, as a pin."""
    have = _version(base_version(torch_version))
    pins = load("companion_pins")["packages"].get(name) or {}
    fitting = []
    for release, pin in pins.items():
        try:
            spec = SpecifierSet(pin.split(";")[0].removeprefix("torch"))
        except InvalidSpecifier:
            continue
        if have is not None and spec.contains(have, prereleases=True) and (v := _version(release)) is not None:
            fitting.append((v, release))
    return f"{name}=={max(fitting)[1]}" if fitting else None


def companion_pin(name: str, version: str) -> str | None:
    """The torch requirement the PyPI wheels of this release of a compiled companion declare
    ("xformers", "0.0.27.post2" -> "torch==2.4.0"), for a pasted package list that names the release
    but not its metadata (companion_pins.json, read from PyPI by companion_pins_build). None where the
    release is not in the table: no wheel on PyPI, wheels that disagree, or no pin."""
    pins = load("companion_pins")["packages"].get(name)
    return pins.get(base_version(version)) if pins else None


def pypi_pythons(torch_version: str, system: str | None, machine: str | None = None) -> list[str] | None:
    """The CPython versions ("3.11", "3.13t") PyPI has a wheel of this torch for, on this OS and machine
    (torch_pypi_pythons.json, read from PyPI's file list): per minor, less the Pythons whose first wheel
    came with a later patch than the one asked for; None where the OS or the minor is unknown."""
    minor = torch_minor(torch_version)
    data = load("torch_pypi_pythons")
    by_os = data["releases"].get(minor or "")
    if not by_os or not system:
        return None
    key = system
    if system in ("Linux", "Windows") and machine and machine.lower() in ("aarch64", "arm64", "armv8", "armv8l"):
        key = f"{system}-{'aarch64' if system == 'Linux' else 'arm64'}"
    pythons = by_os.get(key)
    if pythons is None:
        return None
    later = data.get("first_patch", {}).get(minor or "", {}).get(key, {})
    asked = _version(base_version(torch_version))
    if later and asked is not None and len(asked.release) >= 3:
        pythons = [p for p in pythons if p not in later or _version(later[p]) <= asked]
    return pythons


def base_version(version: str) -> str:
    """ "2.13.0+cu130" -> "2.13.0" (the public version, without the local build tag)."""
    v = _version(version)
    return v.public if v is not None else str(version).split("+")[0]


def local_tag(version: str) -> str | None:
    """ "2.13.0+cu130" -> "cu130"; "2.13.0" -> None."""
    v = _version(version)
    return v.local if v is not None else None


def is_release(version: str) -> bool:
    """A published release (not a nightly, pre-release or source build with a git tag)."""
    v = _version(version)
    if v is None or v.is_prerelease or v.is_devrelease:
        return False
    return v.local is None or re.fullmatch(r"cu\d+|cpu|rocm[\d.]+|xpu", v.local) is not None


def cuda_tag(cuda: str) -> str:
    """ "12.8" -> "cu128"; "13.0" -> "cu130"."""
    mm = major_minor(cuda)
    if mm is None:
        raise ValueError(f"not a CUDA version: {cuda!r}")
    return f"cu{mm[0]}{mm[1]}"


def tag_cuda(tag: str) -> str | None:
    """ "cu128" -> "12.8"; "cu102" -> "10.2"; anything else -> None."""
    m = re.fullmatch(r"cu(\d+)(\d)", tag or "")
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def conda_build_flavour(build: str) -> str | None:
    """A conda build string as the wheel flavour it stands for: the pytorch channel's "py3.9_cuda11.7_cudnn8.5.0_0"
    (torch) and "py39_cu117" (torchvision/torchaudio) -> "cu117", conda-forge's "cuda118py310h..." /
    "cuda120_py311h..." -> "cu118" / "cu120"; "py3.9_cpu_0", "py39_cpu", "cpu_py310h...", and the 2018 channel's
    "py37_cuda0.0_cudnn0.0_1" -> "cpu"; None where the string names neither."""
    if re.search(r"(?:^|_)cpu(?:_|$)", build or ""):
        return "cpu"
    m = re.search(r"(?:^|_)cu(?:da)?(\d{1,2})\.?(\d)(?:_|py|\.\d|$)", build or "")
    if m is None:
        return None
    return "cpu" if m.group(1) == "0" else f"cu{m.group(1)}{m.group(2)}"


# PyTorch's own Linux x86_64 wheels (PyPI and download.pytorch.org) were built with the pre-C++11 ABI
# (_GLIBCXX_USE_CXX11_ABI=0, manylinux2014) up to 2.6 and with the C++11 ABI from 2.7 (manylinux_2_28): read from
# each wheel's torch/share/cmake/Torch/TorchConfig.cmake (2.5.1 and 2.6.0 "=0", 2.7.0 "=1"; pytorch/pytorch#123649).
# The pytorch channel's conda builds (to 2.5) used the pre-C++11 ABI too, conda-forge's use the C++11 one, and the
# "+cpu.cxx11.abi" wheels of PyTorch's cpu-cxx11-abi index the C++11 one.
WHEEL_CXX11_ABI_FROM = (2, 7)


def wheel_cxx11_abi(torch_version: str) -> bool | None:
    """Whether PyTorch's own Linux x86_64 wheel of this release uses the C++11 ABI; None for what is not such a
    wheel (a nightly, a source build's "a0+git" version)."""
    v = _version(torch_version)
    if v is None or v.is_prerelease or v.is_devrelease:
        return None
    if v.local and "cxx11" in v.local:
        return True
    if v.local is not None and re.fullmatch(r"cu\d+|cpu", v.local) is None:
        return None  # ROCm's and XPU's wheels: not read
    return v.release[:2] >= WHEEL_CXX11_ABI_FROM


def conda_build_cxx11_abi(build: str) -> bool:
    """Whether a conda build of torch uses the C++11 ABI: conda-forge's ("cuda118py310h6b5...", "cpu_py310h...": a
    hash after the Python tag) do, the pytorch channel's ("py3.9_cuda11.7_cudnn8.5.0_0") do not."""
    return re.search(r"py\d+h[0-9a-f]{6,}", build) is not None


def build_tag(torch_version: str | None, cuda: str | None) -> str | None:
    """The CUDA tag of an installed torch: its local tag when it has one ("+cu126"), else derived
    from torch.version.cuda (the PyPI default wheels carry no local tag)."""
    if not cuda:
        return None
    tag = local_tag(torch_version) if torch_version else None
    if tag and tag.startswith("cu") and tag_cuda(tag):
        return tag
    return cuda_tag(cuda)


def cc_int(cc: str | int) -> int:
    """ "8.9" -> 89, "12.0" -> 120, "10.1" -> 101; an int passes through."""
    if isinstance(cc, int):
        return cc
    major, _, minor = str(cc).strip().partition(".")
    return int(major) * 10 + int(minor or 0)


def cc_str(cc: int) -> str:
    return f"{cc // 10}.{cc % 10}"


# --------------------------------------------------------------------------- CUDA libraries

# The CUDA-family shared objects torch loads (what it preloads from the nvidia-* wheels, plus
# libcuda). Group 1: the library ("libcudnn_ops"); group 2: the version in the file name, if any.
CUDA_LIBRARY = re.compile(
    r"^(lib(?:cudart|cublasLt|cublas|cudnn(?:_[a-z0-9_]+)?|nccl|nvJitLink|cusparseLt|cusparse|"
    r"nvrtc(?:-builtins)?|cufft|curand|cusolver|cupti|nvshmem_host|cufile|cuda))"
    r"\.so(?:\.(\d+(?:\.\d+)*))?$"
)

# Library family -> the pip distribution that ships it (without the -cu11/-cu12/-cu13 suffix,
# which CUDA 13's unsuffixed packages lack). libcuda comes with the driver, never from pip.
PIP_PACKAGE = {
    "cudart": "nvidia-cuda-runtime", "cublas": "nvidia-cublas", "cublasLt": "nvidia-cublas",
    "cudnn": "nvidia-cudnn", "nccl": "nvidia-nccl", "nvJitLink": "nvidia-nvjitlink",
    "cusparse": "nvidia-cusparse", "cusparseLt": "nvidia-cusparselt", "nvrtc": "nvidia-cuda-nvrtc",
    "nvrtc-builtins": "nvidia-cuda-nvrtc", "cufft": "nvidia-cufft", "curand": "nvidia-curand",
    "cusolver": "nvidia-cusolver", "cupti": "nvidia-cuda-cupti", "nvshmem_host": "nvidia-nvshmem",
    "cufile": "nvidia-cufile", "nvToolsExt": "nvidia-nvtx",
}


def cuda_library(filename: str) -> tuple[str, str] | None:
    """ "libcudnn_ops.so.9.1.0" -> ("cudnn", "9.1.0"); "libcudart.so" -> ("cudart", ""); a file
    that is not a CUDA-family shared object -> None. cuDNN's sub-libraries count as cudnn."""
    m = CUDA_LIBRARY.match(filename)
    if m is None:
        return None
    family = m.group(1)[3:]
    return ("cudnn" if family.startswith("cudnn") else family), m.group(2) or ""


# --------------------------------------------------------------------------- drivers


def _rows(table: str, section: str) -> list[dict[str, Any]]:
    return load(table)[section]["rows"]


def toolkit_driver(cuda: str, system: str = "Linux") -> str | None:
    """Minimum driver of a CUDA toolkit release (data-tables 1.1). "12.8" is the GA release;
    "12.8.1" is Update 1. None where the table has no number (Windows for 13.x) or no row."""
    mm = major_minor(cuda)
    if mm is None:
        return None
    rows = [r for r in _rows("cuda_driver", "toolkit_drivers") if major_minor(r["cuda"]) == mm]
    if not rows:
        return None
    key = "windows" if system == "Windows" else "linux"
    parts = str(cuda).split(".")
    if len(parts) >= 3:
        wanted = Version(cuda)
        exact = [r for r in rows if Version(r["version"]) == wanted]
        older = [r for r in rows if Version(r["version"]) <= wanted and not r.get("prerelease")]
        if exact or older:
            row = exact[0] if exact else max(older, key=lambda r: Version(r["version"]))
            return row[key]
    ga = [r for r in rows if not r.get("prerelease")]
    return min(ga, key=lambda r: Version(r["version"]))[key] if ga else None


def family_floor(cuda: str, system: str = "Linux") -> str | None:
    """Lowest driver that runs any build of CUDA `cuda`'s major through minor-version
    compatibility (data-tables 1.2); before CUDA 11, the toolkit's own driver. On Windows for
    13.x, where NVIDIA publishes no number, the branch ("580")."""
    mm = major_minor(cuda)
    if mm is None:
        return None
    for row in _rows("cuda_driver", "family_floors"):
        if row["family"] == mm[0]:
            if system == "Windows":
                return row["windows"] or str(row["branch"])
            return row["linux"]
    return toolkit_driver(cuda, system)


def min_driver_for_cuda(cuda: str, system: str = "Linux") -> tuple[str | None, str | None]:
    """(family floor, toolkit driver) for a CUDA version: `min_driver_for_cuda("12.8")` ->
    ("525.60.13", "570.26")."""
    return family_floor(cuda, system), toolkit_driver(cuda, system)


def wheel_driver(tag: str, system: str = "Linux") -> tuple[str | None, str | None]:
    """(family floor, toolkit driver) for a PyTorch wheel tag (data-tables 1.3): the toolkit
    driver is that of the update the wheels are built with ("cu128" -> 12.8.1 -> 570.124.06).
    Falls back to `min_driver_for_cuda` for tags the table lacks."""
    for row in _rows("cuda_driver", "wheel_tags"):
        if row["tag"] == tag:
            if system == "Windows":
                return (row["windows_floor"] or family_floor(row["cuda"], system),
                        toolkit_driver(row["toolkit"], system))
            return row["floor"], row["toolkit_driver"]
    cuda = tag_cuda(tag)
    return min_driver_for_cuda(cuda, system) if cuda else (None, None)


# --------------------------------------------------------------------------- releases


def releases() -> list[dict[str, Any]]:
    """Every torch minor in the table, oldest first."""
    return _rows("torch_releases", "releases")


def release(torch_version: str) -> dict[str, Any] | None:
    minor = torch_minor(torch_version)
    return next((r for r in releases() if r["torch"] == minor), None)


def builds(torch_version: str) -> list[dict[str, Any]]:
    """The CUDA builds of a torch minor: [{"tag": "cu126", "cuda": "12.6", "cudnn": ...}, ...]."""
    row = release(torch_version)
    return list(row["cuda_builds"]) if row else []


def build(torch_version: str, tag: str) -> dict[str, Any] | None:
    return next((b for b in builds(torch_version) if b["tag"] == tag), None)


def pypi_default_cuda(torch_version: str) -> str | None:
    row = release(torch_version)
    return row["pypi_default_cuda"] if row else None


def numpy2_supported(torch_version: str) -> bool:
    """torch < 2.3 was built against numpy 1.x and breaks under numpy 2."""
    return Version(base_version(torch_version)) >= Version(load("torch_releases")["numpy_abi"]["numpy2_min_torch"])


def cxx_standard(torch_version: str) -> tuple[str, str]:
    """(C++ standard extensions compile with, the oldest gcc that accepts its -std flag)."""
    rows = load("torch_releases")["extension_toolchain"]["cxx_standard"]["rows"]
    mm = major_minor(torch_version) or (0, 0)
    chosen = rows[0]
    for row in rows:
        if mm >= major_minor(row["from_torch"]):
            chosen = row
    return chosen["standard"], chosen["min_gcc"]


def gcc_range_for_nvcc(nvcc: str) -> tuple[str, str] | None:
    """Host gcc range [min, max_exclusive) torch accepts with this nvcc: "12.4" -> ("6.0", "14").
    None when torch has no bounds for it (13.1, 13.2: torch only warns)."""
    mm = major_minor(nvcc)
    if mm is None:
        return None
    bounds = load("torch_releases")["extension_toolchain"]["cuda_gcc_versions"].get(f"{mm[0]}.{mm[1]}")
    return (bounds[0], bounds[1]) if bounds else None


# --------------------------------------------------------------------------- architectures


def arch_entries(archs: Iterable[str]) -> list[str]:
    """TORCH_CUDA_ARCH_LIST syntax -> torch.cuda.get_arch_list() syntax:
    ["8.6", "12.0+PTX"] -> ["sm_86", "sm_120", "compute_120"]."""
    out: list[str] = []
    for arch in archs:
        number, ptx = (arch[:-4], True) if arch.endswith("+PTX") else (arch, False)
        cc = cc_int(number)
        out.append(f"sm_{cc}")
        if ptx:
            out.append(f"compute_{cc}")
    return out


def arch_row(torch_version: str, cuda_or_tag: str, system: str = "Linux") -> dict[str, Any] | None:
    """The arch-list row of a torch build: the row of its own patch release where the build script
    changed between patches, else the minor's row (its latest patch)."""
    rows = _arch_rows(torch_version, cuda_or_tag, system)
    patch = base_version(torch_version)
    return next((r for r in rows if r.get("patch") == patch), None) or next((r for r in rows if "patch" not in r), None)


def earlier_patch_arch_lists(torch_version: str, cuda_or_tag: str, system: str = "Linux") -> dict[str, list[str]]:
    """For a version stated without its patch ("1.3"), the arch lists of the patch releases whose build
    script differed from the latest patch's: {"1.3.0": [...]}. Empty when the patch is stated."""
    if re.fullmatch(r"\d+\.\d+\.\d+", base_version(torch_version)):
        return {}
    return {r["patch"]: arch_entries(r["archs"]) for r in _arch_rows(torch_version, cuda_or_tag, system) if "patch" in r}


def _arch_rows(torch_version: str, cuda_or_tag: str, system: str) -> list[dict[str, Any]]:
    minor = torch_minor(torch_version)
    tag = cuda_or_tag if cuda_or_tag.startswith("cu") else cuda_tag(cuda_or_tag)
    section = "arch_lists_windows" if system == "Windows" else "arch_lists"
    return [r for r in _rows("torch_releases", section) if r["torch"] == minor and r["tag"] == tag]


def arch_list_for(torch_version: str, cuda_or_tag: str, system: str = "Linux") -> list[str] | None:
    """Default arch list of the official x86_64 wheel (Linux, or Windows up to 2.5), as
    get_arch_list() prints it: arch_list_for("2.7.0", "12.8") -> ["sm_75", ..., "sm_120",
    "compute_120"]. None if unknown."""
    row = arch_row(torch_version, cuda_or_tag, system)
    return arch_entries(row["archs"]) if row else None


def parse_arch(entry: str) -> tuple[str, int] | None:
    """ "sm_86" -> ("sm", 86); "compute_120" -> ("compute", 120); "sm_90a" -> ("sm", 90) (torch
    drops the a/f suffix too); anything else -> None."""
    m = re.fullmatch(r"(sm|compute)_(\d+)[a-z]?", entry.strip())
    return (m.group(1), int(m.group(2))) if m else None


def _requirement() -> tuple[set[int], dict[int, set[int]]]:
    req = load("torch_releases")["device_requirement"]
    igpu = {cc_int(c) for c in req["igpu_only_own"]}
    extra = {cc_int(k): {cc_int(c) for c in v} for k, v in req["extra_devices"].items()}
    return igpu, extra


def sass_runs_on(code: str | int, device: str | int) -> bool:
    """torch's DEVICE_REQUIREMENT: sm_XY runs on the same major with minor >= Y; the iGPU
    variants (5.3, 6.2, 7.2, 8.7, 10.1) run only their own code; sm_101 also runs on 11.0."""
    code, device = cc_int(code), cc_int(device)
    igpu, extra = _requirement()
    if device in extra.get(code, ()):
        return True
    if code in igpu or device in igpu:
        return code == device
    return code // 10 == device // 10 and device >= code


def is_igpu(cc: str | int) -> bool:
    """An integrated (Jetson/Tegra) GPU, which runs only code built for it."""
    return cc_int(cc) in _requirement()[0]


def ptx_runs_on(code: str | int, device: str | int) -> bool:
    """compute_XY PTX JIT-compiles for any device >= XY (given a new enough driver)."""
    return cc_int(device) >= cc_int(code)


def kernel_for(arch_list: Iterable[str], device: str | int) -> str | None:
    """The arch-list entry that runs on the device: the newest matching SASS, else the newest
    PTX that JIT-compiles for it; None if nothing runs."""
    parsed = ((parse_arch(e), e) for e in arch_list)
    entries = sorted((p + (e,) for p, e in parsed if p), key=lambda t: t[1], reverse=True)
    for wanted, runs in (("sm", sass_runs_on), ("compute", ptx_runs_on)):
        for kind, code, entry in entries:
            if kind != wanted:
                continue
            if _arch_specific(entry):
                # sm_90a / compute_90a use features of that exact GPU: neither the SASS nor the
                # PTX runs on any other compute capability (CUDA C++ Programming Guide, "Feature
                # Availability": architecture-specific features).
                if cc_int(code) == cc_int(device):
                    return entry
                continue
            if runs(code, device):
                return entry
    return None


def _arch_specific(entry: str) -> bool:
    return bool(re.fullmatch(r"(?:sm|compute)_\d+a", entry.strip()))


def covers(arch_list: Iterable[str], device: str | int) -> bool:
    return kernel_for(list(arch_list), device) is not None


def first_toolkit(cc: str | int) -> str | None:
    """The first CUDA toolkit with native support for the device's architecture (cuda_driver.json
    arch_first_toolkit): "8.6" -> "11.1", "12.1" -> "12.8"; None for families the table has no row for."""
    device = cc_int(cc)
    rows = [r for r in load("cuda_driver")["arch_first_toolkit"]["rows"]
            if cc_int(r["cc"]) // 10 == device // 10 and cc_int(r["cc"]) <= device]
    return max(rows, key=lambda r: cc_int(r["cc"]))["cuda"] if rows else None


def family_first_toolkit(cc: str | int) -> str | None:
    """The first CUDA toolkit that builds code any GPU of this major runs: that of the family's oldest
    row ("8.9" -> "11.0": sm_80 code runs on 8.9; "12.0" -> "12.8"). A build with an older CUDA can
    hold no code the GPU runs natively."""
    device = cc_int(cc)
    rows = [r for r in load("cuda_driver")["arch_first_toolkit"]["rows"]
            if cc_int(r["cc"]) // 10 == device // 10 and cc_int(r["cc"]) <= device]
    return min(rows, key=lambda r: cc_int(r["cc"]))["cuda"] if rows else None


def toolkit_min_cc(cuda: str | None) -> str | None:
    """The oldest compute capability a CUDA release still builds for (cuda_driver.json toolkit_min_cc):
    "13.0" -> "7.5", "12.6" -> "5.0"; None when unknown or older than the table."""
    mm = major_minor(cuda) if cuda else None
    if mm is None:
        return None
    rows = [r for r in load("cuda_driver")["toolkit_min_cc"]["rows"] if major_minor(r["cuda"]) <= mm]
    return max(rows, key=lambda r: major_minor(r["cuda"]))["min_cc"] if rows else None


def release_min_cc(torch_version: str, tag: str | None) -> str | None:
    """The oldest compute capability an official build of this torch release and CUDA tag has kernels for,
    by PyTorch's policy on every x86_64 platform (torch_releases.json arch_floors): ("2.8.0", "cu128") -> "7.0";
    None where no policy is recorded."""
    minor = major_minor(torch_version)
    rows = [r for r in _rows("torch_releases", "arch_floors")
            if minor and tag in r["tags"] and minor >= major_minor(r["from_torch"])]
    return max((r["min_cc"] for r in rows), key=cc_int) if rows else None


def ptx_only_predates(entry: str, device: str | int, cuda: str | None) -> str | None:
    """When `entry` (what kernel_for picked) is PTX of another major and the build's CUDA is older
    than the device's architecture, the first CUDA that supports it (torch's own kernels JIT, the
    CUDA libraries of the build have nothing for the device); else None. An unknown CUDA counts as
    older: torch's own verdict then stands."""
    parsed = parse_arch(entry)
    if not parsed or parsed[0] != "compute" or parsed[1] // 10 == cc_int(device) // 10:
        return None
    first = first_toolkit(device)
    if first is None:
        return None
    built = major_minor(cuda) if cuda else None
    return first if built is None or built < major_minor(first) else None


def cudnn_refuses(cudnn: str, cc: str | int) -> bool:
    """cuDNN >= 9.11 refuses GPUs below SM 7.5 (torch raises at cuDNN init)."""
    rule = load("torch_releases")["cudnn_min_sm"]
    mm = major_minor(cudnn)
    return mm is not None and mm >= major_minor(rule["cudnn"]) and cc_int(cc) < cc_int(rule["min_cc"])


# --------------------------------------------------------------------------- suggestions


@dataclass(frozen=True)
class Suggestion:
    """An official build to install instead: torch `minor` (`version` when it is the same
    release as the installed one) with CUDA `tag`."""

    minor: str
    tag: str
    cuda: str
    version: str | None = None  # "2.13.0" when only the CUDA build changes
    # Releases before 1.8 are installed as the pytorch.org previous-versions page says: from
    # torch_stable.html find-links pages, at a definite version (`latest`, the last patch release).
    find_links: bool = False
    latest: str | None = None
    local_tag: bool = True  # False: 1.1 and older name their CUDA wheels without +cuXY
    on_pypi: bool = False  # this build is the one plain `pip install torch==X` gets

    def command(self, pip: str = "pip") -> str:
        """The install command; `pip` may be the diagnosed interpreter's ("/venv/bin/python -m pip")."""
        url = f"{INDEX_URL}/{self.tag}"
        if self.find_links:
            version = self.version or self.latest
            if self.on_pypi:
                # Reinstalled, since another build of the same version satisfies `torch==X`.
                return f"{pip} install --force-reinstall torch=={version}" if self.version else f"{pip} install torch=={version}"
            if self.local_tag:
                return f"{pip} install torch=={version}+{self.tag} -f {INDEX_URL}/torch_stable.html"
            # Same version, same file name as PyPI's wheel of another CUDA: only that folder may be asked.
            return f"{pip} install torch=={version} --no-index -f {url}/torch_stable.html"
        if self.version:
            # The local tag matters: `torch==2.13.0` is already satisfied by 2.13.0+cu130.
            return f"{pip} install torch=={self.version}+{self.tag} --index-url {url}"
        return f'{pip} install "torch=={self.minor}.*" --index-url {url}'

    @property
    def label(self) -> str:
        return f"the CUDA {self.cuda} build" + ("" if self.version else f" of torch {self.minor}")


def _python_fits(row: dict[str, Any], python: str | None) -> bool:
    mm = major_minor(python) if python else None
    if mm is None:
        return True
    lo, hi = row["python"]["min"], row["python"]["max"]
    return mm >= major_minor(lo) and (hi is None or mm <= major_minor(hi))


def build_runs(archs: list[str], cc: str | int, cuda: str) -> bool:
    """A build runs on the device: a kernel for it, and not only PTX of an older architecture
    from a CUDA that predates the device (old wheels' compute_37 PTX JIT-compiles for a Blackwell
    GPU, but their cuBLAS and cuDNN have nothing for it)."""
    entry = kernel_for(archs, cc)
    return entry is not None and ptx_only_predates(entry, cc, cuda) is None


def suggest_build(torch_version: str, *, driver: str | None = None, ccs: Iterable[str | int] = (),
                  system: str = "Linux", python: str | None = None, exclude_tag: str | None = None,
                  accept: Callable[[str, dict[str, Any]], bool] | None = None) -> Suggestion | None:
    """The build to install instead of the current one: a CUDA build of the same torch minor if
    one fits, else of the newest torch minor that has one. A build fits when the driver meets its
    family floor, its arch list (Linux x86_64 table) covers every compute capability in `ccs`, the
    Python version is supported, and `accept(minor, build)` agrees. Within a release the order is:
    builds whose own toolkit driver the driver meets, then stable before experimental, then the
    newest CUDA."""
    ccs = [cc_int(c) for c in ccs]
    current = torch_minor(torch_version)
    rows = sorted(releases(), key=lambda r: Version(r["torch"]), reverse=True)
    rows.sort(key=lambda r: r["torch"] != current)  # the installed minor first, then newest down

    for row in rows:
        same = row["torch"] == current
        if not same and not _python_fits(row, python):
            continue
        def preference(b: dict[str, Any]) -> tuple[bool, bool, Version]:
            toolkit = wheel_driver(b["tag"], system)[1]
            full = driver is None or toolkit is None or driver_at_least(driver, toolkit)
            return full, not b.get("experimental", False), Version(b["cuda"])

        for b in sorted(row["cuda_builds"], key=preference, reverse=True):
            if same and b["tag"] == exclude_tag:
                continue
            if driver:
                floor, _ = wheel_driver(b["tag"], system)
                if floor is None or not driver_at_least(driver, floor):
                    continue
            if ccs:
                archs = arch_list_for(row["torch"], b["tag"])
                if archs is None or not all(build_runs(archs, cc, b["cuda"]) for cc in ccs):
                    continue
            if accept is not None and not accept(row["torch"], b):
                continue
            version = base_version(torch_version) if same and is_release(torch_version) else None
            if row.get("install") == "find-links":
                return Suggestion(row["torch"], b["tag"], b["cuda"], version, find_links=True,
                                  latest=b.get("latest") or row["latest"], local_tag=row["local_tag"],
                                  # PyPI's build of a release without local tags is not on the page: never assumed.
                                  on_pypi=row["local_tag"] and b["tag"] == row["pypi_default_cuda"])
            return Suggestion(row["torch"], b["tag"], b["cuda"], version)
    return None
