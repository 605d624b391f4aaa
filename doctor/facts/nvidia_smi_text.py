"""nvidia-smi's two printouts, as users paste them into issues: the table (`nvidia-smi`) and the full
query log (`nvidia-smi -q`). Each becomes the `nvidia` section of the facts, in the units and
conventions NVML gives the live collector (MiB, watts, the clock-event bitmask), so the same checks
decide from either."""

from __future__ import annotations

import re
from typing import Any

from . import collect_env_text

# The table's banner and GPU rows, old and new ("|   0  A100-SXM4-40GB   On   | 00000000:04:00.0 Off |").
_DRIVER = re.compile(r"Driver Version:\s*(\d+(?:\.\d+)+)(?:\s+CUDA Version:\s*(\d+\.\d+))?")
_GPU_ROW = re.compile(r"^\|\s*(\d+)\s+(.+?)\s+(On|Off|WDDM|TCC)\s*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)")
# The row under it: "| N/A   32C    P0   77W /  700W |   0MiB / 143771MiB |   0%   Default |".
_MEMORY_CELL = re.compile(r"(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
_TEMPERATURE = re.compile(r"(?<![\d.])(\d{1,3})C\b")
_POWER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)W\s*/\s*(\d+(?:\.\d+)?)W\b")
_TABLE_COMPUTE_MODES = {"default": "default", "e. process": "exclusive-process", "e. thread": "exclusive-thread",
                        "prohibited": "prohibited"}
# Process rows, new ("|    0   N/A  N/A   1234   C   python   1000MiB |") and old ("|    0   1234   C   python   1000MiB |").
_PROCESS_ROW = re.compile(r"^\|\s*(\d+)\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?(\d+)\s+(?:C\+G|M\+C|C|G|M)\s+(\S.*?)\s+"
                          r"(?:(\d+)\s*MiB|N/A)\s*\|$")


# nvidia-smi failing: NVML could not reach a loaded driver (NVML_ERROR_DRIVER_NOT_LOADED, what the live
# collector reads as "no driver"), or the kernel module and the user-space library are of two releases.
_NOT_LOADED = re.compile(r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver")
_MISMATCH = re.compile(r"Failed to initialize NVML: (Driver/library version mismatch)")


def failure(lines: list[str]) -> dict[str, Any] | None:
    """The nvidia facts of nvidia-smi's own failure message, as the live collector records NVML failing
    to start: no driver reachable (driver None, no GPUs), or a mismatch (driver unknown, the error kept)."""
    for i, line in enumerate(lines):
        if _NOT_LOADED.search(line):
            return {"driver_version": None, "cuda_driver_version": None, "gpus": [],
                    "nvml_error": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"}
        m = _MISMATCH.search(line)
        if m:
            # Drivers from about R535 add the user-space library's version on the next line.
            library = re.match(r"^NVML library version:\s*(\d+\.\d+(?:\.\d+)?)$", lines[i + 1] if i + 1 < len(lines) else "")
            return {"nvml_error": m.group(1) + (f" (NVML library version: {library.group(1)})" if library else "")}
    return None


def table(lines: list[str]) -> dict[str, Any] | None:
    """The nvidia facts of a pasted `nvidia-smi` table (lines already stripped of quote marks), or None."""
    nvidia: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    mig_row = any("MIG M." in line for line in lines)
    in_processes = listed = complete = False
    processes: dict[int, list[dict[str, Any]]] = {}
    for i, line in enumerate(lines):
        m = _DRIVER.search(line)
        if m and "driver_version" not in nvidia:
            nvidia["driver_version"] = m.group(1)
            if m.group(2):
                nvidia["cuda_driver_version"] = m.group(2)
        g = _GPU_ROW.match(line)
        if g:
            gpu = _table_gpu(g, lines[i + 1:i + 3], mig_row)
            if not any(x["index"] == gpu["index"] for x in gpus):
                gpus.append(gpu)
            continue
        if re.match(r"^\|\s*Processes:", line):
            in_processes = True
            continue
        if not in_processes:
            continue
        p = _PROCESS_ROW.match(line)
        if p:
            listed = True
            processes.setdefault(int(p.group(1)), []).append(
                {"pid": int(p.group(2)), "name": p.group(3),
                 "used_memory_mib": int(p.group(4)) if p.group(4) else None, "alive": None})
        elif "No running processes found" in line:
            listed = True
        elif line.startswith("+-") and listed:
            in_processes, complete = False, True  # the closing border: a list cut by the paste stays unknown
    if complete:
        for gpu in gpus:
            gpu["processes"] = processes.get(gpu["index"], [])
    if "driver_version" not in nvidia:
        return None
    if gpus:
        nvidia["gpus"] = gpus
    return nvidia


def _table_gpu(row: re.Match[str], below: list[str], mig_row: bool) -> dict[str, Any]:
    name, index = row.group(2).strip(), int(row.group(1))
    if not name.endswith("..."):  # nvidia-smi truncates long names
        gpu = collect_env_text.named_gpu(name, index)
    else:
        gpu = {"index": index}
        if cc := collect_env_text.truncated_compute_capability(name):
            gpu["compute_capability"] = cc  # "GeForce RTX 208...": a 2080 of some kind, 7.5 all
    if row.group(3) in ("On", "Off"):  # WDDM/TCC: Windows prints the driver model there instead
        gpu["persistence_mode"] = row.group(3) == "On"
    gpu["pci_bus_id"] = row.group(4)
    cells = _cells(row.string)
    if len(cells) >= 3:
        ecc = cells[2].strip()
        if ecc.isdigit():
            gpu["ecc_uncorrected_volatile"] = int(ecc)
        elif ecc in ("N/A", "Off"):
            gpu["ecc_uncorrected_volatile"] = None  # ECC not supported (N/A) or turned off
    second = _cells(below[0]) if below else []
    if len(second) >= 3 and (mem := _MEMORY_CELL.search(second[1])):
        gpu["memory_used_mib"], gpu["memory_total_mib"] = int(mem.group(1)), int(mem.group(2))
        if t := _TEMPERATURE.search(second[0]):
            gpu["temperature_c"] = int(t.group(1))
        if p := _POWER.search(second[0]):
            gpu["power_draw_w"], gpu["power_limit_w"] = float(p.group(1)), float(p.group(2))
        mode = re.sub(r"^\d+%\s*", "", second[2].strip()).lower()
        if mode in _TABLE_COMPUTE_MODES:
            gpu["compute_mode"] = _TABLE_COMPUTE_MODES[mode]
        third = _cells(below[1]) if mig_row and len(below) > 1 else []
        if len(third) >= 3 and third[2].strip() in ("Enabled", "Disabled", "N/A"):
            gpu["mig_mode"] = third[2].strip() == "Enabled"
    return gpu


def _cells(line: str) -> list[str]:
    line = line.strip()
    if not (line.startswith("|") and line.endswith("|")):
        return []
    return line[1:-1].split("|")


# `nvidia-smi -q`: "==============NVSMI LOG==============", then "Key   : value" lines nested by indentation.
# From the start of a run of "=" only: from inside one, =+ would rescan the rest of a long rule at every "=".
_QUERY_BANNER = re.compile(r"(?<!=)=+\s*NVSMI LOG\s*=+")
# The two whitespace runs are tried from a run's start only: the key and value grow one character at a time,
# and from inside a long run of spaces each try would rescan it (quadratic on a line of padding).
_QUERY_LINE = re.compile(r"^(?P<indent> *)(?P<key>\S.*?)(?:(?<!\s)\s+:\s?(?P<value>.*?))?(?<!\s)\s*$")
_QUERY_GPU = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)$")
# NVML's clock-event bits, by the names -q prints (older drivers say "Clocks Throttle Reasons").
_CLOCK_EVENT_BITS = {"idle": 0x1, "applications clocks setting": 0x2, "sw power cap": 0x4, "hw slowdown": 0x8,
                     "sync boost": 0x10, "sw thermal slowdown": 0x20, "hw thermal slowdown": 0x40,
                     "hw power brake slowdown": 0x80, "display clock setting": 0x100}
_QUERY_COMPUTE_MODES = {"default": "default", "exclusive_process": "exclusive-process",
                        "exclusive_thread": "exclusive-thread", "prohibited": "prohibited"}

Node = tuple[str, "str | None", list]  # (key, value, children)


def query(raw_lines: list[str]) -> dict[str, Any] | None:
    """The nvidia facts of a pasted `nvidia-smi -q` log (lines with their indentation), or None."""
    start = next((i for i, line in enumerate(raw_lines) if _QUERY_BANNER.search(line)), None)
    if start is None:
        return None
    top = _tree(raw_lines[start + 1:])
    nvidia: dict[str, Any] = {}
    driver = _value(top, "Driver Version")
    if driver and re.fullmatch(r"\d{3}\.\d+(?:\.\d+)?", driver):
        nvidia["driver_version"] = driver
    cuda = _value(top, "CUDA Version")
    if cuda and re.fullmatch(r"\d+\.\d+", cuda):
        nvidia["cuda_driver_version"] = cuda
    gpus = [_query_gpu(index, key, children)
            for index, (key, _, children) in enumerate(n for n in top if _QUERY_GPU.match(n[0]))]
    if gpus:
        nvidia["gpus"] = gpus
    return nvidia or None


def _tree(lines: list[str]) -> list[Node]:
    """The log as nested (key, value, children); it ends where a line stops looking like the log."""
    root: list[Node] = []
    stack: list[tuple[int, list[Node]]] = [(-1, root)]
    for line in lines:
        line = line.expandtabs(4).rstrip()
        if not line.strip():
            continue
        m = _QUERY_LINE.match(line)
        if m is None:  # indented by other white space than spaces: not the log's own lines
            break
        indent = len(m.group("indent"))
        if indent == 0 and m.group("value") is None and not _QUERY_GPU.match(m.group("key")):
            break  # the paste goes on with something else
        while stack[-1][0] >= indent:
            stack.pop()
        node: Node = (m.group("key"), m.group("value"), [])
        stack[-1][1].append(node)
        stack.append((indent, node[2]))
    return root


def _find(nodes: list[Node], *path: str) -> Node | None:
    for node in nodes:
        if node[0].lower() == path[0].lower():
            return node if len(path) == 1 else _find(node[2], *path[1:])
    return None


def _value(nodes: list[Node], *path: str) -> str | None:
    node = _find(nodes, *path)
    return node[1] if node and node[1] not in (None, "", "N/A", "Unknown Error", "[N/A]") else None


def _number(text: str | None, unit: str = "") -> float | None:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*" + re.escape(unit), text or "")
    return float(m.group(1)) if m else None


def _query_gpu(index: int, header: str, nodes: list[Node]) -> dict[str, Any]:
    gpu: dict[str, Any] = {"index": index, "pci_bus_id": _value(nodes, "PCI", "Bus Id") or _QUERY_GPU.match(header).group(1)}
    name = _value(nodes, "Product Name")
    if name:
        gpu.update(collect_env_text.named_gpu(name, index))
    if uuid := _value(nodes, "GPU UUID"):
        gpu["uuid"] = uuid
    if (persistence := _value(nodes, "Persistence Mode")) in ("Enabled", "Disabled"):
        gpu["persistence_mode"] = persistence == "Enabled"
    mig = _find(nodes, "MIG Mode")
    if mig:
        gpu["mig_mode"] = _value(mig[2], "Current") == "Enabled"  # N/A: a GPU without MIG
    if (mode := (_value(nodes, "Compute Mode") or "").lower()) in _QUERY_COMPUTE_MODES:
        gpu["compute_mode"] = _QUERY_COMPUTE_MODES[mode]
    total, used = _number(_value(nodes, "FB Memory Usage", "Total"), "MiB"), _number(_value(nodes, "FB Memory Usage", "Used"), "MiB")
    if total is not None and used is not None:
        gpu["memory_total_mib"], gpu["memory_used_mib"] = int(total), int(used)
    reasons = _find(nodes, "Clocks Event Reasons") or _find(nodes, "Clocks Throttle Reasons")
    if reasons:
        bits = _clock_bits(reasons[2])
        if bits is not None:
            gpu["clock_event_reasons"] = bits
    temperature = _number(_value(nodes, "Temperature", "GPU Current Temp"), "C")
    if temperature is not None:
        gpu["temperature_c"] = int(temperature)
    power = _find(nodes, "GPU Power Readings") or _find(nodes, "Power Readings")
    if power:
        draw = next((w for key in ("Instantaneous Power Draw", "Power Draw", "Average Power Draw")
                     if (w := _number(_value(power[2], key), "W")) is not None), None)
        limit = next((w for key in ("Enforced Power Limit", "Current Power Limit", "Power Limit")
                      if (w := _number(_value(power[2], key), "W")) is not None), None)
        if draw is not None and limit is not None:
            gpu["power_draw_w"], gpu["power_limit_w"] = draw, limit
    ecc_mode = _value(nodes, "ECC Mode", "Current")
    if ecc_mode == "Enabled":
        volatile = _find(nodes, "ECC Errors", "Volatile")
        count = _uncorrected(volatile[2]) if volatile else None
        if count is not None:
            gpu["ecc_uncorrected_volatile"] = count
    elif ecc_mode in ("Disabled", None) and _find(nodes, "ECC Mode"):
        gpu["ecc_uncorrected_volatile"] = None  # disabled or not supported
    retired = _find(nodes, "Retired Pages")
    if retired:
        pending = _value(retired[2], "Pending Page Blacklist") or _value(retired[2], "Pending Page Retirement") \
            or _value(retired[2], "Pending")
        gpu["retired_pages_pending"] = {"Yes": True, "No": False}.get(pending or "")
    remapped = _find(nodes, "Remapped Rows")
    if remapped:
        gpu["remapped_rows_pending"] = {"Yes": True, "No": False}.get(_value(remapped[2], "Pending") or "")
        gpu["remapped_rows_failure"] = {"Yes": True, "No": False}.get(
            _value(remapped[2], "Remapping Failure Occurred") or "")
    width_now = _number(_value(nodes, "PCI", "GPU Link Info", "Link Width", "Current"), "x")
    width_max = _number(_value(nodes, "PCI", "GPU Link Info", "Link Width", "Max"), "x")
    if width_now is not None and width_max is not None:
        gpu["pcie_link_width"], gpu["pcie_link_width_max"] = int(width_now), int(width_max)
    listed = _find(nodes, "Processes")
    if listed:
        if listed[1] == "None":
            gpu["processes"] = []
        elif listed[2]:
            gpu["processes"] = _query_processes(listed[2])
    return gpu


def _clock_bits(nodes: list[Node]) -> int | None:
    bits, read = 0, False
    for key, value, children in nodes:
        if value in ("Active", "Not Active") and key.lower() in _CLOCK_EVENT_BITS:
            read = True
            if value == "Active":
                bits |= _CLOCK_EVENT_BITS[key.lower()]
        sub = _clock_bits(children)
        if sub is not None:
            read, bits = True, bits | sub
    return bits if read else None


def _uncorrected(nodes: list[Node]) -> int | None:
    """Uncorrected ECC errors since the last reset: "Double Bit > Total" (older drivers), else the sum of
    every "... Uncorrectable ..." counter (DRAM and SRAM, as NVML's total counts them)."""
    double = _find(nodes, "Double Bit")
    if double:
        total = _number(_value(double[2], "Total"))
        return int(total) if total is not None else None
    counts = [_number(value) for key, value, _ in nodes if "uncorrectable" in key.lower()]
    counts = [c for c in counts if c is not None]
    return int(sum(counts)) if counts else None


def _query_processes(nodes: list[Node]) -> list[dict[str, Any]]:
    processes: list[dict[str, Any]] = []
    for key, value, children in nodes:
        if key == "Process ID" and value and value.isdigit():
            memory = _number(_value(children, "Used GPU Memory"), "MiB")
            processes.append({"pid": int(value), "name": _value(children, "Name"),
                              "used_memory_mib": int(memory) if memory is not None else None, "alive": None})
    return processes
