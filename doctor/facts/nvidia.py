"""NVIDIA driver and GPU facts, read through NVML (module `pynvml`, package `nvidia-ml-py`).

NVML is the driver's management library: it answers without creating a CUDA context, so this
collector is safe in the doctor's own process and fast (`--quick` uses it). What it records:

- No NVIDIA driver here (libnvidia-ml.so.1 absent, or the kernel module not loaded): the normal
  laptop / CPU-box case, not an error. `driver_version` and `cuda_driver_version` are None,
  `gpus` is [] and `nvml_error` holds NVML's text ("NVML Shared Library Not Found",
  "Driver Not Loaded").
- NVML present but failing to start (a driver upgraded without reboot, no permission on
  /dev/nvidia*): `nvml_error` holds the text and the GPU facts are Unknown with that reason.
  A kernel module / user-space library mismatch always reads "Driver/library version mismatch",
  the words nvidia-smi prints, whatever the bindings call it.
- Every per-GPU NVML call is guarded on its own: a failing call leaves its field Unknown (or None
  where None means "this GPU has no such feature", e.g. ECC on a GeForce) and records
  `errors[call] = text`. A GPU whose handle cannot be had is still listed, with its error, so one
  broken GPU never hides the others.
- Processes using a GPU are matched with the processes this machine can see. NVML reports pids of
  the host's PID namespace; inside a container with its own PID namespace they name other
  processes or none, so their liveness is recorded as None (cannot tell) rather than guessed.

Tests substitute NVML at its boundary: `collect(..., nvml=fake)` where `fake` offers the few
`nvml*` functions used here and raises `pynvml.NVMLError` subclasses. Nothing else in this module
touches the machine except reading /proc (its root is a parameter too).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Callable

from .model import Gpu, GpuProcess, NvidiaFacts, Unknown

# NVML return codes (nvml.h; stable ABI). Read by value so a fake module need not define them.
NOT_SUPPORTED = 3
DRIVER_NOT_LOADED = 9
LIBRARY_NOT_FOUND = 12
FUNCTION_NOT_FOUND = 13
LIB_RM_VERSION_MISMATCH = 18
NO_DRIVER = (LIBRARY_NOT_FOUND, DRIVER_NOT_LOADED)
LIBRARY_NOT_FOUND_TEXT = "NVML Shared Library Not Found"  # pynvml's text for LIBRARY_NOT_FOUND
MISMATCH_TEXT = "Driver/library version mismatch"  # nvmlErrorString(18), as nvidia-smi prints it

NVML_TEMPERATURE_GPU = 0
NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
NVML_VOLATILE_ECC = 0
COMPUTE_MODES = {0: "default", 1: "exclusive-thread", 2: "prohibited", 3: "exclusive-process"}

# The inode of the initial (host) PID namespace, PROC_PID_INIT_INO in the kernel.
HOST_PID_NAMESPACE = "pid:[4026531836]"
MIB = 1024 * 1024

_KERNEL_MODULE = re.compile(r"Kernel Module(?:\s+for\s+\S+)?\s+(\d+(?:\.\d+)+)")


def collect(target: Any, python: Any, *, nvml: Any = None, proc: str = "/proc",
            host_pids: bool | None = None) -> NvidiaFacts:
    """NVIDIA facts of this machine. `target` is unused (NVML is per machine, not per interpreter).

    nvml: the NVML bindings; None imports `pynvml`. proc: the procfs root. host_pids: whether pids
    NVML reports can be looked up here; None detects it (same PID namespace as the host).
    """
    kernel = kernel_module_version(os.path.join(proc, "driver", "nvidia", "version"))
    if nvml is None:
        if sys.platform.startswith("linux") and not _loadable("libnvidia-ml.so.1"):
            # What pynvml would find too, without the 30 ms its import costs on a machine with no driver.
            return NvidiaFacts(driver_version=None, cuda_driver_version=None, kernel_module_version=kernel,
                               nvml_error=LIBRARY_NOT_FOUND_TEXT, gpus=[])
        try:
            import pynvml as nvml
        except Exception as exc:  # the package missing or shadowed by the old `pynvml` package
            reason = f"the NVML bindings (nvidia-ml-py) cannot be imported: {type(exc).__name__}: {exc}"
            return NvidiaFacts(driver_version=Unknown(reason), cuda_driver_version=Unknown(reason),
                               kernel_module_version=kernel, nvml_error=reason, gpus=Unknown(reason))
    try:
        nvml.nvmlInit()
    except Exception as exc:
        text = error_text(exc)
        if _code(exc) in NO_DRIVER:
            return NvidiaFacts(driver_version=None, cuda_driver_version=None, kernel_module_version=kernel,
                               nvml_error=text, gpus=[])
        unknown = Unknown(f"NVML could not start: {text}")
        return NvidiaFacts(driver_version=unknown, cuda_driver_version=unknown, kernel_module_version=kernel,
                           nvml_error=text, gpus=unknown)
    try:
        return _collect_started(nvml, kernel, proc, host_pids, python)
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:  # nothing to do about a failing shutdown; the facts are already read
            pass


def _collect_started(nvml: Any, kernel: Any, proc: str, host_pids: bool | None, python: Any) -> NvidiaFacts:
    system = _Calls(nvml)
    driver = system.call("nvmlSystemGetDriverVersion", convert=_text)
    cuda = system.first(("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"),
                        convert=decode_cuda_version)
    nvml_error = None
    try:
        count = int(nvml.nvmlDeviceGetCount())
    except Exception as exc:
        nvml_error = f"nvmlDeviceGetCount: {error_text(exc)}"
        gpus: Any = Unknown(nvml_error)
    else:
        if host_pids is None:
            host_pids = pids_visible(proc, python)
        gpus = [_gpu(nvml, index, host_pids) for index in range(count)]
    return NvidiaFacts(driver_version=driver, cuda_driver_version=cuda, kernel_module_version=kernel,
                       nvml_error=nvml_error, gpus=gpus)


# --------------------------------------------------------------------------- one GPU

def _gpu(nvml: Any, index: int, host_pids: bool | None) -> Gpu:
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except Exception as exc:
        text = error_text(exc)
        unknown = Unknown(f"nvmlDeviceGetHandleByIndex failed: {text}")
        fields = {name: unknown for name in Gpu.__dataclass_fields__ if name not in ("index", "errors")}
        return Gpu(index=index, errors={"nvmlDeviceGetHandleByIndex": text}, **fields)

    c = _Calls(nvml)
    memory = c.call("nvmlDeviceGetMemoryInfo", handle)
    ecc_on = c.call("nvmlDeviceGetEccMode", handle, unsupported=None, convert=lambda m: bool(m[0]))
    if ecc_on is True:
        ecc = c.call("nvmlDeviceGetTotalEccErrors", handle, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
                     unsupported=None, convert=int)
    else:  # disabled (False), not supported (None) or unknown
        ecc = None if ecc_on is False or ecc_on is None else ecc_on
    remap = c.call("nvmlDeviceGetRemappedRows", handle, unsupported=None)
    return Gpu(
        index=index,
        name=c.call("nvmlDeviceGetName", handle, convert=_text),
        uuid=c.call("nvmlDeviceGetUUID", handle, convert=_text),
        pci_bus_id=c.call("nvmlDeviceGetPciInfo", handle, convert=lambda p: _text(p.busId)),
        compute_capability=c.call("nvmlDeviceGetCudaComputeCapability", handle, convert=lambda cc: f"{cc[0]}.{cc[1]}"),
        memory_total_mib=_field(memory, lambda m: int(m.total) // MIB),
        memory_used_mib=_field(memory, lambda m: int(m.used) // MIB),
        persistence_mode=c.call("nvmlDeviceGetPersistenceMode", handle, convert=lambda v: v == 1),
        # NOT_SUPPORTED: a GPU that cannot do MIG at all, so MIG is off.
        mig_mode=c.call("nvmlDeviceGetMigMode", handle, unsupported=False, convert=lambda m: m[0] == 1),
        compute_mode=c.call("nvmlDeviceGetComputeMode", handle, convert=lambda v: COMPUTE_MODES.get(v, f"unknown ({v})")),
        clock_event_reasons=c.first(("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"),
                                    handle, convert=int),
        temperature_c=c.call("nvmlDeviceGetTemperature", handle, NVML_TEMPERATURE_GPU, convert=int),
        power_draw_w=c.call("nvmlDeviceGetPowerUsage", handle, convert=lambda mw: round(mw / 1000.0, 1)),
        power_limit_w=c.call("nvmlDeviceGetEnforcedPowerLimit", handle, convert=lambda mw: round(mw / 1000.0, 1)),
        ecc_uncorrected_volatile=ecc,
        retired_pages_pending=c.call("nvmlDeviceGetRetiredPagesPendingStatus", handle, unsupported=None,
                                     convert=lambda v: v == 1),
        remapped_rows_pending=_field(remap, lambda r: bool(r[2])),
        remapped_rows_failure=_field(remap, lambda r: bool(r[3])),
        pcie_link_width=c.call("nvmlDeviceGetCurrPcieLinkWidth", handle, convert=int),
        pcie_link_width_max=c.call("nvmlDeviceGetMaxPcieLinkWidth", handle, convert=int),
        processes=_processes(c, handle, host_pids),
        errors=c.errors,
    )


def _processes(c: "_Calls", handle: Any, host_pids: bool | None) -> Any:
    compute = c.first(("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
                       "nvmlDeviceGetComputeRunningProcesses"), handle, convert=list)
    if isinstance(compute, Unknown):
        return compute  # an incomplete list would read as "nobody is using this GPU"
    graphics = c.first(("nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2",
                        "nvmlDeviceGetGraphicsRunningProcesses"), handle, unsupported=None, convert=list)
    used: dict[int, int | None] = {}
    for proc in compute + (graphics if isinstance(graphics, list) else []):
        pid = int(proc.pid)
        mem = getattr(proc, "usedGpuMemory", None)  # None: not available (WDDM, some containers)
        mib = int(mem) // MIB if mem is not None else None
        if pid not in used or (mib is not None and (used[pid] is None or mib > used[pid])):
            used[pid] = mib  # a pid in both lists: the same memory, reported twice
    return [describe_process(pid, mib, host_pids) for pid, mib in used.items()]


# --------------------------------------------------------------------------- processes

def pids_visible(proc: str = "/proc", python: Any = None) -> bool | None:
    """Whether pids from NVML (host pids) name the same processes here.

    True in the host's PID namespace (a container started with --pid=host included), False in any
    other, None when it cannot be told.
    """
    try:
        return os.readlink(os.path.join(proc, "self", "ns", "pid")) == HOST_PID_NAMESPACE
    except OSError:
        pass
    if sys.platform == "win32":
        return True  # no PID namespaces; NVML and the OS agree
    container = getattr(python, "container", None)
    if isinstance(container, Unknown) or container:
        return None
    return True if python is not None else None


def describe_process(pid: int, used_mib: int | None, host_pids: bool | None) -> GpuProcess:
    if host_pids is not True:
        return GpuProcess(pid=pid, used_memory_mib=used_mib, alive=None)
    import psutil

    try:
        p = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return GpuProcess(pid=pid, used_memory_mib=used_mib, alive=False)
    except Exception:
        return GpuProcess(pid=pid, used_memory_mib=used_mib, alive=None)

    def ask(method: Callable[[], Any]) -> Any:
        try:
            return method()
        except psutil.ZombieProcess:
            return None
        except psutil.NoSuchProcess:
            raise
        except Exception:  # AccessDenied and friends: the pid exists, this detail is hidden
            return None

    try:
        with p.oneshot():
            state = ask(p.status)
            name = ask(p.name)
            user = ask(p.username)
    except psutil.ZombieProcess:
        return GpuProcess(pid=pid, used_memory_mib=used_mib, alive=True, state="zombie")
    except psutil.NoSuchProcess:  # gone between the two questions
        return GpuProcess(pid=pid, used_memory_mib=used_mib, alive=False)
    return GpuProcess(pid=pid, used_memory_mib=used_mib, alive=True, name=name, state=state, user=user)


# --------------------------------------------------------------------------- helpers

def kernel_module_version(path: str) -> str | None | Unknown:
    """"Kernel Module  580.65.06" (proprietary) or "Open Kernel Module for x86_64  580.65.06"."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(4096)
    except FileNotFoundError:
        return None  # no NVIDIA kernel module loaded
    except OSError as exc:
        return Unknown(f"cannot read {path}: {exc.strerror or exc}")
    m = _KERNEL_MODULE.search(text)
    if m:
        return m.group(1)
    return Unknown(f"no 'Kernel Module <version>' in {path}: {text.splitlines()[0][:120] if text else '(empty)'}")


def _loadable(soname: str) -> bool:
    import ctypes

    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def decode_cuda_version(value: int) -> str:
    """NVML/CUDA integer encoding: 13000 -> "13.0", 12040 -> "12.4"."""
    value = int(value)
    return f"{value // 1000}.{value % 1000 // 10}"


def error_text(exc: BaseException) -> str:
    code = _code(exc)
    if code is None:
        return f"{type(exc).__name__}: {exc}"
    text = str(exc)
    if code == LIB_RM_VERSION_MISMATCH and MISMATCH_TEXT.lower() not in text.lower():
        # The bindings say "RM has detected an NVML/RM version mismatch."; users search for the
        # driver's own words.
        text = f"{MISMATCH_TEXT} ({text})"
    return text


def _code(exc: BaseException) -> int | None:
    """The NVML return code of an NVMLError (or a subclass); None for any other exception."""
    value = getattr(exc, "value", None)
    is_nvml = any(cls.__name__ == "NVMLError" for cls in type(exc).__mro__)
    return value if is_nvml and isinstance(value, int) else None


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _field(value: Any, convert: Callable[[Any], Any]) -> Any:
    return value if value is None or isinstance(value, Unknown) else convert(value)


_UNKNOWN = object()  # "leave the field Unknown" for a call that is not supported


class _Calls:
    """Guarded NVML calls that record what failed, keyed by the NVML function's name."""

    def __init__(self, nvml: Any):
        self.nvml = nvml
        self.errors: dict[str, str] = {}

    def call(self, name: str, *args: Any, unsupported: Any = _UNKNOWN, convert: Callable[[Any], Any] | None = None) -> Any:
        """The call's (converted) value; on NOT_SUPPORTED `unsupported` (default: Unknown);
        on any other failure Unknown(text), with the text recorded in `errors`."""
        return self.first((name,), *args, unsupported=unsupported, convert=convert)

    def first(self, names: tuple[str, ...], *args: Any, unsupported: Any = _UNKNOWN,
              convert: Callable[[Any], Any] | None = None) -> Any:
        """Like `call`, trying each name in turn while the bindings or the driver lack it."""
        last = names[0]
        for name in names:
            last = name
            func = getattr(self.nvml, name, None)
            if func is None:
                continue
            try:
                value = func(*args)
            except Exception as exc:
                code = _code(exc)
                if code == FUNCTION_NOT_FOUND or type(exc).__name__ == "NVMLLibraryMismatchError":
                    continue  # an older driver: try the older name
                if code == NOT_SUPPORTED:
                    return Unknown("not supported by this GPU") if unsupported is _UNKNOWN else unsupported
                text = error_text(exc)
                self.errors[name] = text
                return Unknown(f"{name} failed: {text}")
            try:
                return convert(value) if convert else value
            except Exception as exc:
                text = f"unexpected value {value!r}: {type(exc).__name__}: {exc}"
                self.errors[name] = text
                return Unknown(f"{name}: {text}")
        self.errors[last] = "not available in this NVML"
        return Unknown(f"{last} is not available in this NVML")


def _main() -> None:  # python -m torchdoctor.facts.nvidia: the raw facts of this machine, as JSON
    import json
    import time

    from .model import encode

    start = time.perf_counter()
    facts = collect(None, None)
    elapsed = time.perf_counter() - start
    print(json.dumps(encode(facts), indent=2))
    print(f"collected in {elapsed * 1000:.1f} ms", file=sys.stderr)


if __name__ == "__main__":
    _main()
