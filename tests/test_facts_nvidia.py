"""The NVML collector against a fake NVML: no driver, a broken driver, healthy and odd GPUs, processes.

The fake implements the few `nvml*` functions the collector calls and raises the real
`pynvml.NVMLError` subclasses, so the collector's error handling is exercised as on a machine.
Nothing here needs a GPU or a driver.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Any

import psutil
import pynvml
import pytest

from torchdoctor.facts import nvidia
from torchdoctor.facts.model import Facts, Gpu, NvidiaFacts, Unknown, known
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check

MIB = 1024 * 1024


def nvml_error(code: int) -> pynvml.NVMLError:
    return pynvml.NVMLError(code)  # maps to the subclass: NVMLError_NotSupported, ...


NOT_SUPPORTED = nvml_error(pynvml.NVML_ERROR_NOT_SUPPORTED)
FUNCTION_NOT_FOUND = nvml_error(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)


def proc_info(pid: int, mib: int | None) -> SimpleNamespace:
    return SimpleNamespace(pid=pid, usedGpuMemory=None if mib is None else mib * MIB, gpuInstanceId=0xFFFFFFFF,
                           computeInstanceId=0xFFFFFFFF)


def h100(index: int, **changes: Any) -> dict[str, Any]:
    """What NVML answers for one idle H100 SXM in an HGX server; `changes` replace answers."""
    answers: dict[str, Any] = {
        "nvmlDeviceGetName": "NVIDIA H100 80GB HBM3",
        "nvmlDeviceGetUUID": f"GPU-{index:08x}-1c2d-3e4f-5a6b-7c8d9e0f1a2b",
        "nvmlDeviceGetPciInfo": SimpleNamespace(busId=f"00000000:{0x18 + index * 0x10:02X}:00.0".encode()),
        "nvmlDeviceGetCudaComputeCapability": (9, 0),
        "nvmlDeviceGetMemoryInfo": SimpleNamespace(total=81559 * MIB, used=527 * MIB, free=81032 * MIB),
        "nvmlDeviceGetPersistenceMode": 1,
        "nvmlDeviceGetMigMode": [0, 0],
        "nvmlDeviceGetComputeMode": 0,
        "nvmlDeviceGetCurrentClocksEventReasons": 0x1,  # GpuIdle
        "nvmlDeviceGetTemperature": 31,
        "nvmlDeviceGetPowerUsage": 69_832,
        "nvmlDeviceGetEnforcedPowerLimit": 700_000,
        "nvmlDeviceGetEccMode": [1, 1],
        "nvmlDeviceGetTotalEccErrors": 0,
        "nvmlDeviceGetRetiredPagesPendingStatus": NOT_SUPPORTED,  # Ampere+ remaps rows instead
        "nvmlDeviceGetRemappedRows": (0, 0, 0, 0),
        "nvmlDeviceGetCurrPcieLinkWidth": 16,
        "nvmlDeviceGetMaxPcieLinkWidth": 16,
        "nvmlDeviceGetComputeRunningProcesses_v3": [],
        "nvmlDeviceGetGraphicsRunningProcesses_v3": [],
    }
    answers.update(changes)
    return answers


def geforce(**changes: Any) -> dict[str, Any]:
    """An RTX 4090 on an older driver: no ECC, no row remapper, no MIG, no ClocksEventReasons."""
    answers = h100(0, **{
        "nvmlDeviceGetName": "NVIDIA GeForce RTX 4090",
        "nvmlDeviceGetCudaComputeCapability": (8, 9),
        "nvmlDeviceGetMemoryInfo": SimpleNamespace(total=24564 * MIB, used=1210 * MIB, free=23354 * MIB),
        "nvmlDeviceGetPersistenceMode": 0,
        "nvmlDeviceGetMigMode": NOT_SUPPORTED,
        "nvmlDeviceGetCurrentClocksEventReasons": FUNCTION_NOT_FOUND,
        "nvmlDeviceGetCurrentClocksThrottleReasons": 0x4,  # SwPowerCap
        "nvmlDeviceGetPowerUsage": 447_120,
        "nvmlDeviceGetEnforcedPowerLimit": 450_000,
        "nvmlDeviceGetEccMode": NOT_SUPPORTED,
        "nvmlDeviceGetTotalEccErrors": NOT_SUPPORTED,
        "nvmlDeviceGetRemappedRows": NOT_SUPPORTED,
        "nvmlDeviceGetGraphicsRunningProcesses_v3": [proc_info(2301, None)],
    })
    answers.update(changes)
    return answers


class FakeNVML:
    """The slice of pynvml the collector uses. A GPU is a dict of answers (a value, or an exception to
    raise); a GPU given as an exception fails its handle lookup."""

    NVMLError = pynvml.NVMLError

    def __init__(self, gpus: list[Any] = (), *, init_error: BaseException | None = None, driver: str = "580.65.06",
                 cuda: int = 13000):
        self.gpus = list(gpus)
        self.init_error = init_error
        self.driver = driver
        self.cuda = cuda
        self.inits = 0
        self.shutdowns = 0
        self.calls: list[str] = []

    def nvmlInit(self) -> None:
        if self.init_error is not None:
            raise self.init_error
        self.inits += 1

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlSystemGetDriverVersion(self) -> str:
        return self.driver

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return self.cuda

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any:
        gpu = self.gpus[index]
        if isinstance(gpu, BaseException):
            raise gpu
        return SimpleNamespace(index=index, answers=gpu)

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("nvmlDevice"):
            raise AttributeError(name)

        def call(handle: Any, *args: Any) -> Any:
            self.calls.append(name)
            if name not in handle.answers:
                raise FUNCTION_NOT_FOUND  # what an older libnvidia-ml answers for a newer function
            answer = handle.answers[name]
            if isinstance(answer, BaseException):
                raise answer
            return answer

        return call


def collect(fake: FakeNVML, **kwargs: Any) -> NvidiaFacts:
    kwargs.setdefault("proc", "/nonexistent-proc")
    kwargs.setdefault("host_pids", True)
    return nvidia.collect(None, None, nvml=fake, **kwargs)


def roundtrip(facts: NvidiaFacts) -> NvidiaFacts:
    data = json.loads(json.dumps(Facts(nvidia=facts).to_json()))
    return Facts.from_json(data, strict=True).nvidia


# --------------------------------------------------------------------------- no driver, broken driver

@pytest.mark.parametrize("code,text", [
    (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found"),
    (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"),
])
def test_no_driver_is_a_plain_fact_not_an_error(code, text):
    fake = FakeNVML(init_error=nvml_error(code))
    facts = collect(fake)
    assert facts.driver_version is None and facts.cuda_driver_version is None
    assert facts.gpus == []
    assert facts.nvml_error == text
    assert facts.kernel_module_version is None  # no /proc/driver/nvidia/version
    assert fake.shutdowns == 0  # nothing to shut down after a failed init
    assert roundtrip(facts) == facts


def test_driver_library_mismatch_is_recorded_in_the_drivers_words():
    fake = FakeNVML(init_error=nvml_error(pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH))
    facts = collect(fake)
    assert "Driver/library version mismatch" in facts.nvml_error
    # A driver is there, it just cannot be asked: unknown, never "no driver".
    assert isinstance(facts.driver_version, Unknown) and isinstance(facts.gpus, Unknown)
    assert "Driver/library version mismatch" in facts.gpus.reason
    assert roundtrip(facts) == facts


def test_other_init_failures_leave_the_gpus_unknown():
    facts = collect(FakeNVML(init_error=nvml_error(pynvml.NVML_ERROR_NO_PERMISSION)))
    assert facts.nvml_error == "Insufficient Permissions"
    assert isinstance(facts.gpus, Unknown) and isinstance(facts.cuda_driver_version, Unknown)


def test_without_libnvidia_ml_the_bindings_are_not_even_imported(monkeypatch):
    monkeypatch.setattr(nvidia, "_loadable", lambda soname: False)
    monkeypatch.setattr(nvidia.sys, "platform", "linux")
    monkeypatch.setitem(sys.modules, "pynvml", None)  # importing it now would raise
    start = time.perf_counter()
    facts = nvidia.collect(None, None, proc="/nonexistent-proc")
    assert time.perf_counter() - start < 0.05
    assert facts == NvidiaFacts(driver_version=None, cuda_driver_version=None, kernel_module_version=None,
                                nvml_error="NVML Shared Library Not Found", gpus=[])


def test_bindings_that_cannot_be_imported_make_everything_unknown(monkeypatch):
    monkeypatch.setattr(nvidia, "_loadable", lambda soname: True)
    monkeypatch.setitem(sys.modules, "pynvml", None)
    facts = nvidia.collect(None, None, proc="/nonexistent-proc")
    assert "nvidia-ml-py" in facts.nvml_error
    assert isinstance(facts.driver_version, Unknown) and isinstance(facts.gpus, Unknown)


# --------------------------------------------------------------------------- healthy server

def test_a_healthy_8x_h100_server():
    fake = FakeNVML([h100(i) for i in range(8)])
    facts = collect(fake)
    assert facts.driver_version == "580.65.06"
    assert facts.cuda_driver_version == "13.0"
    assert facts.nvml_error is None
    assert [g.index for g in facts.gpus] == list(range(8))
    g = facts.gpus[3]
    assert g == Gpu(
        index=3, name="NVIDIA H100 80GB HBM3", uuid="GPU-00000003-1c2d-3e4f-5a6b-7c8d9e0f1a2b",
        pci_bus_id="00000000:48:00.0", compute_capability="9.0", memory_total_mib=81559, memory_used_mib=527,
        persistence_mode=True, mig_mode=False, compute_mode="default", clock_event_reasons=1, temperature_c=31,
        power_draw_w=69.8, power_limit_w=700.0, ecc_uncorrected_volatile=0, retired_pages_pending=None,
        remapped_rows_pending=False, remapped_rows_failure=False, pcie_link_width=16, pcie_link_width_max=16,
        processes=[], errors={})
    assert fake.inits == 1 and fake.shutdowns == 1
    assert roundtrip(facts) == facts

    # ... and the checks built on these facts stay quiet.
    full = Facts(nvidia=facts, env=Facts.partial(env={"variables": {"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7"}}).env)
    for code in ("TE205", "TE206", "TE207"):
        finding = run_check(find_env_check(code), full)
        assert finding.status.value == "ok", (code, finding.message)


@pytest.mark.parametrize("encoded,text", [(13000, "13.0"), (12040, "12.4"), (12080, "12.8"), (13020, "13.2"),
                                          (11080, "11.8")])
def test_cuda_driver_version_is_decoded(encoded, text):
    assert collect(FakeNVML(cuda=encoded)).cuda_driver_version == text


def test_an_older_nvml_without_the_v2_cuda_version_call():
    class Old(FakeNVML):
        def nvmlSystemGetCudaDriverVersion_v2(self):
            raise FUNCTION_NOT_FOUND

        def nvmlSystemGetCudaDriverVersion(self):
            return 12020

    assert collect(Old()).cuda_driver_version == "12.2"


# --------------------------------------------------------------------------- unsupported and failing calls

def test_a_geforce_where_some_calls_are_not_supported():
    facts = collect(FakeNVML([geforce()]))
    g = facts.gpus[0]
    assert g.name == "NVIDIA GeForce RTX 4090" and g.compute_capability == "8.9"
    assert g.ecc_uncorrected_volatile is None  # no ECC: None, not Unknown
    assert g.remapped_rows_pending is None and g.remapped_rows_failure is None
    assert g.retired_pages_pending is None
    assert g.mig_mode is False  # cannot do MIG at all
    assert g.persistence_mode is False
    assert g.clock_event_reasons == 0x4  # from the older ...ClocksThrottleReasons
    assert g.processes[0].pid == 2301 and g.processes[0].used_memory_mib is None
    assert g.errors == {}  # "not supported" is an answer, not a failure
    assert roundtrip(facts) == facts
    assert run_check(find_env_check("TE207"), Facts(nvidia=facts)).status.value == "ok"


def test_ecc_disabled_reads_as_none_without_asking_for_counts():
    fake = FakeNVML([h100(0, nvmlDeviceGetEccMode=[0, 0])])
    assert collect(fake).gpus[0].ecc_uncorrected_volatile is None
    assert "nvmlDeviceGetTotalEccErrors" not in fake.calls


def test_a_failing_call_is_recorded_and_leaves_only_its_field_unknown():
    lost = nvml_error(pynvml.NVML_ERROR_UNKNOWN)
    facts = collect(FakeNVML([h100(0, nvmlDeviceGetPowerUsage=lost, nvmlDeviceGetTotalEccErrors=lost)]))
    g = facts.gpus[0]
    assert isinstance(g.power_draw_w, Unknown) and "nvmlDeviceGetPowerUsage" in g.power_draw_w.reason
    assert isinstance(g.ecc_uncorrected_volatile, Unknown)
    assert g.errors == {"nvmlDeviceGetPowerUsage": "Unknown Error", "nvmlDeviceGetTotalEccErrors": "Unknown Error"}
    assert g.power_limit_w == 700.0 and g.temperature_c == 31  # the rest is still read
    assert roundtrip(facts) == facts


def test_a_python_exception_in_one_call_is_contained_and_nvml_still_shut_down():
    fake = FakeNVML([h100(0, nvmlDeviceGetTemperature=RuntimeError("ctypes went wrong"))])
    g = collect(fake).gpus[0]
    assert g.errors == {"nvmlDeviceGetTemperature": "RuntimeError: ctypes went wrong"}
    assert fake.shutdowns == 1


def test_an_answer_of_the_wrong_shape_is_recorded_not_raised():
    g = collect(FakeNVML([h100(0, nvmlDeviceGetCudaComputeCapability=None)])).gpus[0]
    assert isinstance(g.compute_capability, Unknown)
    assert "nvmlDeviceGetCudaComputeCapability" in g.errors


def test_one_gpu_whose_handle_fails_does_not_hide_the_others():
    lost = nvml_error(pynvml.NVML_ERROR_GPU_IS_LOST)
    facts = collect(FakeNVML([h100(0), lost, h100(2)]))
    assert [g.index for g in facts.gpus] == [0, 1, 2]
    broken = facts.gpus[1]
    assert broken.errors == {"nvmlDeviceGetHandleByIndex": "GPU is lost"}
    assert isinstance(broken.name, Unknown) and "GPU is lost" in broken.name.reason
    assert isinstance(broken.processes, Unknown)
    assert facts.gpus[0].name == facts.gpus[2].name == "NVIDIA H100 80GB HBM3"
    assert roundtrip(facts) == facts


def test_a_failing_device_count_leaves_the_gpus_unknown():
    class NoCount(FakeNVML):
        def nvmlDeviceGetCount(self):
            raise nvml_error(pynvml.NVML_ERROR_UNKNOWN)

    fake = NoCount()
    facts = collect(fake)
    assert facts.driver_version == "580.65.06"
    assert isinstance(facts.gpus, Unknown) and facts.nvml_error.startswith("nvmlDeviceGetCount")
    assert fake.shutdowns == 1


def test_an_unreadable_process_list_is_unknown_not_empty():
    g = collect(FakeNVML([h100(0, nvmlDeviceGetComputeRunningProcesses_v3=nvml_error(pynvml.NVML_ERROR_NO_PERMISSION))])).gpus[0]
    assert isinstance(g.processes, Unknown)
    assert g.errors == {"nvmlDeviceGetComputeRunningProcesses_v3": "Insufficient Permissions"}


def test_process_calls_fall_back_to_older_versions():
    g = collect(FakeNVML([h100(0, nvmlDeviceGetComputeRunningProcesses_v3=FUNCTION_NOT_FOUND,
                               nvmlDeviceGetComputeRunningProcesses_v2=[proc_info(os.getpid(), 10)])])).gpus[0]
    assert [p.pid for p in g.processes] == [os.getpid()]


# --------------------------------------------------------------------------- processes

@pytest.fixture
def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: the pid names no process now
    assert not psutil.pid_exists(child.pid)
    return child.pid


@pytest.fixture
def zombie_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:  # exited, not yet reaped
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.01)
    yield child.pid
    child.wait()


def test_processes_dead_alive_and_zombie(dead_pid, zombie_pid):
    me = psutil.Process()
    compute = [proc_info(dead_pid, 30722), proc_info(os.getpid(), 1536), proc_info(zombie_pid, 2048)]
    graphics = [proc_info(os.getpid(), 1536)]  # the same process in both lists counts once
    facts = collect(FakeNVML([h100(0, nvmlDeviceGetComputeRunningProcesses_v3=compute,
                                   nvmlDeviceGetGraphicsRunningProcesses_v3=graphics)]))
    by_pid = {p.pid: p for p in facts.gpus[0].processes}
    assert len(facts.gpus[0].processes) == 3
    dead = by_pid[dead_pid]
    assert dead.alive is False and dead.used_memory_mib == 30722 and dead.name is None
    mine = by_pid[os.getpid()]
    assert mine.alive is True and mine.name == me.name() and mine.user == me.username() and mine.used_memory_mib == 1536
    assert mine.state in ("running", "sleeping")
    zombie = by_pid[zombie_pid]
    assert zombie.alive is True and zombie.state == "zombie"
    assert roundtrip(facts) == facts

    finding = run_check(find_env_check("TE206"), Facts(nvidia=facts))
    assert finding.status.value == "error"
    assert str(dead_pid) in finding.message and str(zombie_pid) in finding.message


def test_pids_from_another_pid_namespace_are_not_guessed(dead_pid):
    facts = collect(FakeNVML([h100(0, nvmlDeviceGetComputeRunningProcesses_v3=[proc_info(dead_pid, 100),
                                                                               proc_info(os.getpid(), 100)])]),
                    host_pids=False)
    assert [(p.alive, p.name, p.user) for p in facts.gpus[0].processes] == [(None, None, None)] * 2


def _proc_root(tmp_path, ns: str | None = None, version: str | None = None):
    if ns is not None:
        (tmp_path / "self" / "ns").mkdir(parents=True)
        (tmp_path / "self" / "ns" / "pid").symlink_to(ns)  # a dangling link reads like /proc's
    if version is not None:
        (tmp_path / "driver" / "nvidia").mkdir(parents=True)
        (tmp_path / "driver" / "nvidia" / "version").write_text(version)
    return str(tmp_path)


@pytest.mark.parametrize("ns,container,expected", [
    ("pid:[4026531836]", None, True),  # the host's namespace
    ("pid:[4026531836]", "docker", True),  # a container started with --pid=host
    ("pid:[4026532513]", "docker", False),  # a container with its own PID namespace
    (None, None, True),  # no /proc/self/ns: trust a host that is not a container
    (None, "docker", None),
    (None, Unknown("not collected"), None),
])
def test_pid_namespace_detection(tmp_path, ns, container, expected):
    python = SimpleNamespace(container=container)
    assert nvidia.pids_visible(_proc_root(tmp_path, ns=ns), python) is expected


def test_detected_namespace_is_used_when_not_given(tmp_path, dead_pid):
    root = _proc_root(tmp_path, ns="pid:[4026532513]")
    fake = FakeNVML([h100(0, nvmlDeviceGetComputeRunningProcesses_v3=[proc_info(dead_pid, 100)])])
    facts = nvidia.collect(None, SimpleNamespace(container="docker"), nvml=fake, proc=root)
    assert facts.gpus[0].processes[0].alive is None


# --------------------------------------------------------------------------- /proc/driver/nvidia/version

@pytest.mark.parametrize("text,version", [
    ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:31 UTC 2025\n"
     "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n", "580.65.06"),
    ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  "
     "(dvs-builder@U16-I3-B03-4-3)  Fri Mar 14 10:18:35 UTC 2025\n", "570.133.20"),
    ("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.183.01  Sun May 12 19:31:35 UTC 2024\n", "535.183.01"),
])
def test_kernel_module_version(tmp_path, text, version):
    facts = collect(FakeNVML(), proc=_proc_root(tmp_path, version=text))
    assert facts.kernel_module_version == version


def test_kernel_module_version_survives_an_nvml_failure(tmp_path):
    root = _proc_root(tmp_path, version="NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27\n")
    facts = collect(FakeNVML(init_error=nvml_error(pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH)), proc=root)
    assert facts.kernel_module_version == "580.65.06"


def test_an_unexpected_version_file_is_unknown_not_wrong(tmp_path):
    facts = collect(FakeNVML(), proc=_proc_root(tmp_path, version="something else entirely\n"))
    assert isinstance(facts.kernel_module_version, Unknown)
    assert "something else" in facts.kernel_module_version.reason


# --------------------------------------------------------------------------- the boundary

def test_with_a_fake_nvml_nothing_else_touches_the_driver(monkeypatch):
    """With nvml given, the collector loads no library and never imports pynvml itself."""
    import ctypes

    def refuse(*args, **kwargs):
        raise AssertionError("the collector loaded a shared library itself")

    monkeypatch.setattr(ctypes, "CDLL", refuse)
    monkeypatch.setattr(nvidia, "_loadable", refuse)
    monkeypatch.setitem(sys.modules, "pynvml", None)
    facts = collect(FakeNVML([h100(0), geforce()]))
    assert len(facts.gpus) == 2 and all(known(g.name) for g in facts.gpus)
