"""Facts: plain, frozen, JSON round-trippable data about one machine.

A field holds a value or `Unknown(reason)`: a fact that could not be collected (no NVML, a probe
that timed out, a pasted report that lacks the line). Checks that need an Unknown fact are skipped
by the runner instead of guessing. The JSON form of Unknown is `{"unknown": "<reason>"}`.

This module defines the shape only; the collectors beside it fill it in.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Union


@dataclass(frozen=True)
class Unknown:
    reason: str

    def __bool__(self) -> bool:  # so `if facts.torch.cuda:` treats unknown like absent
        return False

    def __str__(self) -> str:
        return f"unknown ({self.reason})"


def known(value: Any) -> bool:
    return not isinstance(value, Unknown)


class FactsError(ValueError):
    """Facts that cannot be read: wrong schema, wrong types, unknown keys in strict mode."""


# --------------------------------------------------------------------------- sections
# Every section class lists its fields with defaults of Unknown("not collected"), so a collector
# (or a pasted collect_env report) fills in what it knows and the rest stays honestly unknown.

NOT_COLLECTED = Unknown("not collected")


def _u() -> Any:
    return field(default=NOT_COLLECTED)


@dataclass(frozen=True)
class PythonFacts:
    executable: str = _u()
    version: str = _u()  # "3.11.7"
    implementation: str = _u()  # "CPython"
    free_threaded: bool = _u()
    platform: str = _u()  # platform.platform()
    system: str = _u()  # "Linux"
    machine: str = _u()  # "x86_64"
    os_release: str = _u()  # "Debian GNU/Linux 12 (bookworm)"
    glibc: str | None = _u()  # "2.36"; None on musl/macOS/Windows
    container: str | None = _u()  # "docker", "podman", "kubernetes", "container", None
    wsl: bool = _u()
    prefix: str = _u()
    virtual_env: str | None = _u()
    conda_prefix: str | None = _u()
    sys_path: list[str] = _u()
    user_site: str | None = _u()
    user_site_enabled: bool = _u()
    hostname: str = _u()  # kept so --format markdown can redact it
    user: str = _u()


@dataclass(frozen=True)
class Distribution:
    name: str  # normalised: "torch", "nvidia-cudnn-cu12"
    version: str
    location: str  # the sys.path entry it was found in
    metadata_path: str = ""  # the .dist-info / .egg-info directory
    requires: list[str] = field(default_factory=list)  # Requires-Dist lines
    requires_python: str | None = None
    installer: str | None = None  # pip, uv, conda ...
    editable: str | None = None  # project folder of an editable install (direct_url.json), else None
    build: str | None = None  # conda's build string ("py39_cu117", "cpu_py310h..."): the build a conda package is


@dataclass(frozen=True)
class TorchVersionFile:
    """torch/version.py read as text: what the installed wheel says about itself, without importing it."""

    path: str
    version: str | None = None
    cuda: str | None = None
    hip: str | None = None
    git_version: str | None = None
    debug: bool | None = None


@dataclass(frozen=True)
class LibraryDir:
    """A directory holding CUDA libraries, with the versions read from file names."""

    path: str
    libraries: dict[str, str] = field(default_factory=dict)  # "libcudnn.so.9.10.2" -> "9.10.2"
    origin: str = ""  # "pip:nvidia-cudnn-cu12", "LD_LIBRARY_PATH", "ld.so.conf"


@dataclass(frozen=True)
class LinkedLibrary:
    """What `ldd FILE` printed: where the loader finds each library FILE needs, on the machine
    it ran on (LD_LIBRARY_PATH and ld.so.conf included). Read from pasted text only."""

    file: str | None  # None: the output was pasted without its command line
    resolved: dict[str, str | None] = field(default_factory=dict)  # "libnvJitLink.so.12" -> its path; None: "not found"


@dataclass(frozen=True)
class FamilyBuild:
    """How a compiled torch-family package (torchvision, torchaudio) was built, read from its files
    without importing it: the version its version.py states (with the +cpu / +cu130 tag that the
    PyPI metadata leaves out) and the shared objects its compiled extension asks the loader for."""

    name: str  # "torchvision"
    path: str  # the package folder
    version: str | None = None  # version.py __version__, "0.28.0+cu130"
    cuda: str | None = None  # version.py `cuda` when it is a literal ("13.0")
    extension: str | None = None  # the compiled library read, "torchvision/_C.so"
    needed: list[str] = field(default_factory=list)  # its DT_NEEDED entries, "libcudart.so.13"


@dataclass(frozen=True)
class FamilyImport:
    """`import <name>` in the torch probe's child, after torch imported: the ground truth."""

    name: str
    ok: bool
    version: str | None = None  # <name>.__version__ when it imported
    error_type: str | None = None
    error_message: str | None = None


@dataclass(frozen=True)
class PackagesFacts:
    # torch-family, numpy, triton, nvidia-* / cuda-* wheels and packages that require torch,
    # in sys.path order; a name may appear more than once (that is the TE102 finding).
    distributions: list[Distribution] = _u()
    torch_version_file: TorchVersionFile | None = _u()  # None: no torch package on the path
    pip_cuda_lib_dirs: list[LibraryDir] = _u()  # site-packages/nvidia/*/lib, nvidia/cu13/lib
    family_builds: list[FamilyBuild] = _u()  # torchvision / torchaudio as built, first copy on the path
    # True when `distributions` is only part of what is installed (a pasted list cut short or
    # filtered by grep, `pip show`, a log): a package it lacks may still be installed, so no
    # check may conclude anything from a name's absence. The machine's own scan is whole.
    distributions_partial: bool = False


@dataclass(frozen=True)
class TorchFacts:
    """torch as seen by `import torch` in a child process of the target interpreter."""

    # "ok" | "not-installed" | "import-error" | "crashed" (killed by a signal) | "timeout" | "not-importable"
    # (a pasted collect_env's "PyTorch version: N/A": not installed there, or the import failed; which is not said)
    import_status: str = _u()
    version: str = _u()
    file: str = _u()  # torch.__file__
    cuda: str | None = _u()  # torch.version.cuda
    hip: str | None = _u()
    debug: bool = _u()
    git_version: str = _u()
    cudnn_compiled: str | None = _u()  # "9.10.2"
    cudnn_runtime: str | None = _u()
    nccl: str | None = _u()  # "2.27.5"
    arch_list: list[str] = _u()  # ["sm_75", ..., "compute_120"]; [] for CPU builds
    cxx11_abi: bool = _u()
    # Pasted text only: the CUDA versions it names without saying whose (torch's build, the toolkit's or the
    # driver's), where torch.cuda stays unknown; a check may still judge what every one of them would mean.
    cuda_named: list[str] = _u()
    cuda_available: bool = _u()
    device_count: int = _u()
    numpy_version: str | None = _u()  # numpy as loaded next to torch in the child
    loaded_libraries: list[str] = _u()  # CUDA-family shared objects mapped after import
    family_imports: list[FamilyImport] = _u()  # torchvision / torchaudio imported next to torch
    warnings: list[str] = _u()  # warnings raised while importing / probing
    error_type: str | None = _u()
    error_message: str | None = _u()
    traceback: str | None = _u()
    signal: int | None = _u()
    stderr_tail: str = _u()
    duration_s: float = _u()


@dataclass(frozen=True)
class GpuProcess:
    pid: int
    used_memory_mib: int | None = None
    alive: bool | None = None  # None: cannot tell (another PID namespace)
    name: str | None = None
    state: str | None = None  # "zombie", "running", ...
    user: str | None = None


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str = _u()
    uuid: str = _u()
    pci_bus_id: str = _u()
    compute_capability: str = _u()  # "9.0"
    memory_total_mib: int = _u()
    memory_used_mib: int = _u()
    persistence_mode: bool = _u()
    mig_mode: bool = _u()
    compute_mode: str = _u()  # "default", "exclusive-process", "prohibited"
    clock_event_reasons: int = _u()  # NVML bitmask
    temperature_c: int = _u()
    power_draw_w: float = _u()
    power_limit_w: float = _u()
    ecc_uncorrected_volatile: int | None = _u()  # None: ECC not supported / disabled
    retired_pages_pending: bool | None = _u()
    remapped_rows_pending: bool | None = _u()
    remapped_rows_failure: bool | None = _u()
    pcie_link_width: int = _u()
    pcie_link_width_max: int = _u()
    processes: list[GpuProcess] = _u()
    errors: dict[str, str] = field(default_factory=dict)  # NVML call -> error text


@dataclass(frozen=True)
class NvidiaFacts:
    driver_version: str | None = _u()  # "580.65.06"; None: no NVIDIA driver
    cuda_driver_version: str | None = _u()  # highest CUDA the driver supports, "13.0"
    # "535" where a pasted text names the driver's branch alone ("驱动 535", "nvidia-driver-535"):
    # it decides against a floor in another branch, never against one in its own.
    driver_branch: str | None = _u()
    kernel_module_version: str | None = _u()  # /proc/driver/nvidia/version
    nvml_error: str | None = _u()
    # True where a pasted collect_env report says its nvidia-smi found neither driver nor GPU ("No CUDA",
    # "Could not collect" on both lines). Not "no GPU": a container without the GPU runtime or an
    # nvidia-smi off PATH reads the same, so nvidia.gpus stays unknown; it only tells that nothing answered.
    smi_found_nothing: bool = _u()
    gpus: list[Gpu] = _u()


@dataclass(frozen=True)
class ToolchainFacts:
    cuda_home: str | None = _u()  # what torch.utils.cpp_extension would pick
    cuda_home_source: str | None = _u()  # "CUDA_HOME", "CUDA_PATH", "nvcc on PATH", "/usr/local/cuda"
    cuda_home_exists: bool = _u()
    nvcc_path: str | None = _u()
    nvcc_version: str | None = _u()  # "13.0"
    gcc_path: str | None = _u()
    gcc_version: str | None = _u()  # "12.2.0"
    ninja_path: str | None = _u()
    ninja_version: str | None = _u()
    ld_library_path: list[str] = _u()
    ld_cuda_lib_dirs: list[LibraryDir] = _u()  # CUDA libraries found via LD_LIBRARY_PATH
    compat_libcuda: list[str] = _u()  # cuda-compat libcuda.so files on LD_LIBRARY_PATH
    linked: list[LinkedLibrary] = _u()  # pasted `ldd` output; [] on this machine, whose probe does not run ldd


@dataclass(frozen=True)
class HostFacts:
    shm_total_bytes: int | None = _u()  # None: no /dev/shm
    shm_free_bytes: int | None = _u()
    nofile_soft: int = _u()
    nofile_hard: int = _u()
    memlock_soft: int | None = _u()  # None: unlimited
    memory_total_bytes: int = _u()
    cgroup_memory_limit_bytes: int | None = _u()  # None: no limit
    cpu_count: int = _u()


@dataclass(frozen=True)
class ExtensionLock:
    path: str
    age_s: float
    mtime: float
    inode: int
    holders: list[int] = field(default_factory=list)  # live pids using the build dir
    # The kernel says a process has the lock open although no process torchdoctor can see uses the
    # build dir: a builder in another PID namespace (a container sharing the cache).
    open_elsewhere: bool = False


@dataclass(frozen=True)
class ExtensionsFacts:
    roots: list[str] = _u()  # build roots examined
    build_dirs: int = _u()
    locks: list[ExtensionLock] = _u()
    # What shows C++/CUDA extensions being built here, or failing to build, one line each: a build
    # lock, TORCH_CUDA_ARCH_LIST set, a build log in a pasted text. [] when nothing shows it.
    build_evidence: list[str] = _u()


@dataclass(frozen=True)
class NvCacheFacts:
    path: str = _u()  # CUDA_CACHE_PATH or ~/.nv/ComputeCache
    exists: bool = _u()
    size_bytes: int | None = _u()
    size_complete: bool = _u()  # False: the walk stopped early and size_bytes is a lower bound
    writable: bool | None = _u()
    disabled: bool = _u()  # CUDA_CACHE_DISABLE=1


@dataclass(frozen=True)
class EnvFacts:
    # Behaviour-changing variables only (CUDA_*, NCCL_*, TORCH_*, PYTORCH_*, LD_*, ...),
    # secrets redacted at collection time.
    variables: dict[str, str] = _u()


@dataclass(frozen=True)
class NetworkInterface:
    name: str
    up: bool
    addresses: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class NetworkFacts:
    interfaces: list[NetworkInterface] = _u()
    master_port: int | None = _u()  # MASTER_PORT, when set to a valid port
    master_port_raw: str | None = _u()  # MASTER_PORT as written, None: unset (set, with no master_port: invalid)
    master_port_in_use: bool | None = _u()
    master_port_holder: str | None = _u()  # "pid 1234 (python)" when visible


@dataclass(frozen=True)
class Meta:
    schema_version: int = 1
    torchdoctor_version: str = ""
    source: str = "live"  # "live", "json", "collect_env", "paste" (other pasted text), "example"
    collected_at: str = ""
    quick: bool = False
    durations_s: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Facts:
    python: PythonFacts = field(default=NOT_COLLECTED)
    packages: PackagesFacts = field(default=NOT_COLLECTED)
    torch: TorchFacts = field(default=NOT_COLLECTED)
    nvidia: NvidiaFacts = field(default=NOT_COLLECTED)
    toolchain: ToolchainFacts = field(default=NOT_COLLECTED)
    host: HostFacts = field(default=NOT_COLLECTED)
    extensions: ExtensionsFacts = field(default=NOT_COLLECTED)
    nv_cache: NvCacheFacts = field(default=NOT_COLLECTED)
    env: EnvFacts = field(default=NOT_COLLECTED)
    network: NetworkFacts = field(default=NOT_COLLECTED)
    meta: Meta = field(default_factory=Meta)

    # ------------------------------------------------------------------ access
    def get(self, dotted: str) -> Any:
        """`facts.get("torch.cuda")`; an Unknown anywhere on the path is returned as is."""
        value: Any = self
        for part in dotted.split("."):
            if isinstance(value, Unknown):
                return value
            if not hasattr(value, part):
                raise KeyError(f"no fact named {dotted!r}")
            value = getattr(value, part)
        return value

    def to_json(self) -> dict[str, Any]:
        return encode(self)

    @classmethod
    def from_json(cls, data: Any, *, strict: bool = False, default_reason: str = "not recorded") -> "Facts":
        """Rebuild facts from `to_json()` output or a partial dict (examples, parsed reports).

        Fields that are missing become Unknown(default_reason). With strict=True an unknown key
        is an error, so a typo in an example cannot silently turn a check into a skip.
        """
        if not isinstance(data, dict):
            raise FactsError("facts must be a JSON object")
        return decode(cls, data, strict=strict, reason=default_reason, where="facts")

    @classmethod
    def partial(cls, **sections: Any) -> "Facts":
        """Facts holding only the given sections (as dicts); everything else Unknown. For tests."""
        data = dict(sections)
        data.setdefault("meta", {"source": "example"})
        return cls.from_json(data, strict=True, default_reason="not in this example")


# --------------------------------------------------------------------------- codec

def encode(value: Any) -> Any:
    if isinstance(value, Unknown):
        return {"unknown": value.reason}
    if dataclasses.is_dataclass(value):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _is_unknown_json(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"unknown"} and isinstance(value["unknown"], str)


def decode(tp: Any, value: Any, *, strict: bool, reason: str, where: str) -> Any:
    if _is_unknown_json(value):
        return Unknown(value["unknown"])
    if isinstance(value, Unknown):
        return value
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return decode(args[0], value, strict=strict, reason=reason, where=where) if len(args) == 1 else value
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise FactsError(f"{where}: expected an object, got {type(value).__name__}")
        hints = _hints(tp)
        names = {f.name for f in dataclasses.fields(tp)}
        extra = set(value) - names
        if strict and extra:
            raise FactsError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(tp):
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            if f.name in value:
                kwargs[f.name] = decode(hints[f.name], value[f.name], strict=strict, reason=reason,
                                        where=f"{where}.{f.name}")
                if required and isinstance(kwargs[f.name], Unknown):
                    # A record's own identity (a package's name and version, a GPU's index) cannot be
                    # unknown: a check would read it as the value it must be.
                    raise FactsError(f"{where}.{f.name}: a required field cannot be unknown")
            elif f.default is NOT_COLLECTED:
                kwargs[f.name] = Unknown(reason)
            elif required:
                raise FactsError(f"{where}: missing required key {f.name!r}")
        try:
            return tp(**kwargs)
        except TypeError as exc:
            raise FactsError(f"{where}: {exc}") from None
    if origin is list:
        if not isinstance(value, list):
            raise FactsError(f"{where}: expected a list, got {type(value).__name__}")
        (item,) = typing.get_args(tp) or (Any,)
        return [decode(item, v, strict=strict, reason=reason, where=f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise FactsError(f"{where}: expected an object, got {type(value).__name__}")
        _, item = typing.get_args(tp) or (Any, Any)
        return {k: decode(item, v, strict=strict, reason=reason, where=f"{where}.{k}") for k, v in value.items()}
    if tp in (int, float) and isinstance(value, bool):
        raise FactsError(f"{where}: expected a number, got a boolean")
    if tp is float and isinstance(value, int):
        return float(value)
    if tp in (str, int, bool, float) and not isinstance(value, tp):
        raise FactsError(f"{where}: expected {tp.__name__}, got {type(value).__name__}")
    return value
