from __future__ import annotations

from typing import Any

from torchdoctor.facts.model import known
from torchdoctor.model import Fix, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

# NVML clock event reasons (nvmlClocksEventReasons; data-tables §6). Only these slow a GPU down
# for a reason worth acting on; GpuIdle (0x1), ApplicationsClocksSetting (0x2), SwPowerCap (0x4,
# running at the power limit under load), SyncBoost (0x10) and DisplayClockSetting (0x100) are
# ordinary operation.
THROTTLE_BITS = {
    0x8: ("HwSlowdown", "the board slowed the GPU down (overheating, power brake or a failing power supply)"),
    0x20: ("SwThermalSlowdown", "the driver lowered clocks to keep the GPU or its memory below its temperature limit"),
    0x40: ("HwThermalSlowdown", "the GPU overheated and the hardware cut its clocks"),
    0x80: ("HwPowerBrakeSlowdown", "an external power brake is asserted (power supply or chassis)"),
}

HEALTHY: dict[str, Any] = {
    "index": 0, "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "00000000:18:00.0",
    "clock_event_reasons": 0x1, "temperature_c": 34, "power_draw_w": 71.5, "power_limit_w": 700.0,
    "ecc_uncorrected_volatile": 0, "retired_pages_pending": None, "remapped_rows_pending": False,
    "remapped_rows_failure": False, "pcie_link_width": 16, "pcie_link_width_max": 16,
}


def _gpu(index: int, **changes: Any) -> dict[str, Any]:
    return {**HEALTHY, "index": index, "pci_bus_id": f"00000000:{0x18 + index:02x}:00.0", **changes}


GEFORCE = {"index": 0, "name": "NVIDIA GeForce RTX 4090", "clock_event_reasons": 0x4, "temperature_c": 71,
           "power_draw_w": 448.0, "power_limit_w": 450.0, "ecc_uncorrected_volatile": None,
           "retired_pages_pending": None, "remapped_rows_pending": None, "remapped_rows_failure": None,
           "pcie_link_width": 16, "pcie_link_width_max": 16}


@env_check(
    code="TE207",
    name="gpu-unhealthy",
    title="GPUs healthy: no throttling, memory errors or degraded PCIe link",
    area="NVIDIA driver & GPUs",
    needs=("nvidia.gpus",),
    examples=[
        Example("ok", {"nvidia": {"gpus": [_gpu(i) for i in range(8)]}}, "a healthy, idle 8-GPU server"),
        Example("ok", {"nvidia": {"gpus": [GEFORCE]}},
                "a GeForce at its power cap under load, without ECC or row remapping"),
        Example("skip", {"nvidia": {"gpus": []}}, "no NVIDIA GPU"),
        Example("warning", {"nvidia": {"gpus": [_gpu(0), _gpu(1, clock_event_reasons=0x40 | 0x20, temperature_c=93)]}},
                "an overheating GPU", contains="HwThermalSlowdown"),
        Example("error", {"nvidia": {"gpus": [_gpu(0), _gpu(5, ecc_uncorrected_volatile=2)]}},
                "uncorrected ECC errors", contains="nvidia-smi --gpu-reset -i 5"),
        Example("error", {"nvidia": {"gpus": [_gpu(2, remapped_rows_failure=True)]}},
                "row remapping failed: RMA", contains="replace"),
        Example("warning", {"nvidia": {"gpus": [_gpu(0, remapped_rows_pending=True)]}},
                "a remap waits for a reset", contains="reset"),
        Example("warning", {"nvidia": {"gpus": [_gpu(0, name="Tesla V100-SXM2-32GB", retired_pages_pending=True,
                                                      remapped_rows_pending=None, remapped_rows_failure=None)]}},
                "a retired page waits for a reset (Volta)", contains="retired"),
        Example("warning", {"nvidia": {"gpus": [_gpu(0), _gpu(1, pcie_link_width=8)]}},
                "a link trained at half width", contains="x8 of x16"),
        Example("error", {"nvidia": {"gpus": [_gpu(0, pcie_link_width=8), _gpu(1, ecc_uncorrected_volatile=1)]}},
                "every problem reported together, worst first", contains="GPU 0: PCIe link"),
        Example("skip", {"nvidia": {"gpus": [{"index": 0, "errors": {"nvmlDeviceGetHandleByIndex": "GPU is lost"}}]}},
                "nothing about the GPU could be read"),
    ],
)
def gpu_unhealthy(facts):
    """
    ## What it checks
    Each GPU's health as NVML reports it: clock slowdowns for heat or power (HwSlowdown,
    SwThermalSlowdown, HwThermalSlowdown, HwPowerBrakeSlowdown), uncorrected ECC memory errors
    since the last reset, row remaps or page retirements waiting for a reset, a failed row remap,
    and a PCIe link running narrower than it can (x8 of x16).

    ## Why it matters
    A throttled GPU trains slower than its peers, and in data-parallel training every GPU waits
    for the slowest one. Uncorrected ECC errors corrupt results or crash kernels (Xid 48, 94, 95);
    until the GPU is reset a pending remap leaves the bad memory rows in service. A failed remap
    means the GPU has run out of spare rows and must be replaced. A narrow PCIe link (a badly
    seated card, riser or BIOS setting) halves host-to-GPU bandwidth and slows data loading and
    NCCL over PCIe.

    ## How to fix
    Throttling: check cooling, fans and the power supply; `nvidia-smi -q -d PERFORMANCE` shows
    the active reasons. ECC errors or pending remaps/retirements: drain the GPU and reset it
    (`nvidia-smi --gpu-reset -i N`) or reboot. A failed remap: have the GPU replaced (RMA). A
    narrow link: reseat the card or riser, check the slot's BIOS settings.
    """
    gpus = facts.nvidia.gpus
    if not gpus:
        return skip("no NVIDIA GPU")
    errors: list[tuple[int, str, str]] = []  # (gpu, problem, command)
    warnings: list[tuple[int, str, str]] = []
    evidence: dict[str, Any] = {}
    read = 0
    seen: set[str] = set()  # what could be judged on at least one GPU: a pasted table shows only ECC
    unsupported: set[str] = set()
    for g in gpus:
        signals = {name: getattr(g, attribute) for name, attribute in _SIGNALS.items()}
        # None: the GPU has no such counter (ECC on a GeForce, page retirement on Hopper): nothing to judge.
        present = {name for name, value in signals.items() if known(value) and value is not None}
        unsupported.update(name for name, value in signals.items() if known(value) and value is None)
        if not present:
            continue
        read += 1
        seen.update(present)
        i = g.index
        label = f"GPU {i}" + (f" ({g.name})" if known(g.name) else "")
        if _int(g.ecc_uncorrected_volatile) > 0:
            errors.append((i, f"{g.ecc_uncorrected_volatile} uncorrected ECC error(s) since the last reset",
                           f"sudo nvidia-smi --gpu-reset -i {i}  # after stopping its jobs; or reboot"))
        if g.remapped_rows_failure is True:
            errors.append((i, "row remapping failed: the GPU has no spare memory rows left and needs to be "
                              "replaced (RMA)", f"nvidia-smi -q -d ROW_REMAPPER -i {i}  # include in the RMA request"))
        if g.remapped_rows_pending is True:
            warnings.append((i, "a memory row remap is pending and takes effect only after a GPU reset",
                             f"sudo nvidia-smi --gpu-reset -i {i}  # after stopping its jobs; or reboot"))
        if g.retired_pages_pending is True:
            warnings.append((i, "retired memory pages are pending and take effect only after a GPU reset",
                             f"sudo nvidia-smi --gpu-reset -i {i}  # after stopping its jobs; or reboot"))
        bits = _int(g.clock_event_reasons)
        slow = [(name, why) for bit, (name, why) in THROTTLE_BITS.items() if bits & bit]
        if slow:
            context = ", ".join(x for x in (
                f"{g.temperature_c} °C" if known(g.temperature_c) else "",
                f"{g.power_draw_w:g} W of {g.power_limit_w:g} W" if known(g.power_draw_w) and known(g.power_limit_w) else "",
            ) if x)
            warnings.append((i, "clocks slowed down: " + "; ".join(f"{n} ({w})" for n, w in slow)
                             + (f" at {context}" if context else ""),
                             f"nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i {i}"))
        width, width_max = _int(g.pcie_link_width), _int(g.pcie_link_width_max)
        if 0 < width < width_max:
            bus = f" (bus {g.pci_bus_id})" if known(g.pci_bus_id) else ""
            warnings.append((i, f"PCIe link runs at x{width} of x{width_max}{bus}: reseat the card or riser, check "
                                "the slot in the BIOS",
                             f"sudo lspci -vv -s {_lspci_address(g.pci_bus_id)} | grep -E 'LnkCap|LnkSta'"
                             if known(g.pci_bus_id) else f"nvidia-smi -q -d PCIE -i {i}"))
        found = [p for gi, p, _ in errors + warnings if gi == i]
        if found:
            evidence[label] = found
    if not read:
        return skip("no health information could be read from any GPU")

    problems = sorted(errors, key=lambda x: x[0]) + sorted(warnings, key=lambda x: x[0])
    if not problems:
        checked = [name for name in _SIGNALS if name in seen]
        unread = [name for name in _SIGNALS if name not in seen and name not in unsupported]
        return ok(f"{read} GPU(s) checked: no {_join(checked)}"
                  + (f" ({_join(unread, 'and')} not in the facts)" if unread else ""))
    message = "; ".join(f"GPU {i}: {p}" for i, p, _ in problems)
    commands = tuple(dict.fromkeys(c for _, _, c in problems))
    if errors:
        return error(message, fix=Fix("Drain and reset the affected GPUs (or reboot); replace a GPU whose row "
                                      "remapping failed", commands), evidence=evidence)
    return warning(message, fix=Fix("Fix cooling, power or the PCIe seating of the GPUs named; reset GPUs with "
                                    "pending remaps at the next opportunity", commands), evidence=evidence)


# What the health verdict reads, by the name its messages give it, in the order they list them.
_SIGNALS = {"throttling": "clock_event_reasons", "ECC errors": "ecc_uncorrected_volatile",
            "pending remaps": "remapped_rows_pending", "failed remaps": "remapped_rows_failure",
            "pending page retirements": "retired_pages_pending", "degraded PCIe links": "pcie_link_width"}


def _join(names: list[str], last: str = "or") -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} " + names[-1]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _lspci_address(bus_id: str) -> str:
    """NVML's "00000000:18:00.0" -> lspci's "0000:18:00.0"."""
    domain, _, rest = bus_id.partition(":")
    return f"{domain[-4:]}:{rest}" if rest else bus_id
