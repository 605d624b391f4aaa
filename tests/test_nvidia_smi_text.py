"""Pasted `nvidia-smi` tables and `nvidia-smi -q` logs of several driver generations become the same
GPU facts NVML gives live, so the health and process checks decide from a paste too; a list cut by
the paste stays unknown. (The H200 recorded in tests/fixtures/gpu_machine checks both readers against
NVML itself.)"""

from __future__ import annotations

from pathlib import Path

from torchdoctor.cli import env as cli_env
from torchdoctor.runner import run_env_checks

# Driver 418 (2019): no GI/CI columns, no MIG row, ECC N/A on GeForce, a Tesla in exclusive-process mode.
TABLE_418 = """\
Thu Oct 10 14:02:11 2019
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.87.00    Driver Version: 418.87.00    CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  GeForce RTX 208...  Off  | 00000000:01:00.0  On |                  N/A |
| 41%   63C    P2   162W / 250W |   9245MiB / 10986MiB |     87%      Default |
+-------------------------------+----------------------+----------------------+
|   1  Tesla V100-PCIE...  On   | 00000000:02:00.0 Off |                    0 |
| N/A   38C    P0    36W / 250W |   1105MiB / 16130MiB |      0%   E. Process |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                       GPU Memory |
|  GPU       PID   Type   Process name                             Usage      |
|=============================================================================|
|    0      1432      G   /usr/lib/xorg/Xorg                            18MiB |
|    0     27518      C   python                                      9215MiB |
|    1     27519      C   python                                      1093MiB |
+-----------------------------------------------------------------------------+
"""

# Driver 535 (2023): GI/CI columns, the MIG row, one A100 with an uncorrected ECC error.
TABLE_535 = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |
| N/A   31C    P0              62W / 400W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:0F:00.0 Off |                    2 |
| N/A   30C    P0              61W / 400W |  40123MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|    1   N/A  N/A    918273      C   /opt/conda/bin/python                     40110MiB |
+---------------------------------------------------------------------------------------+
"""

# `nvidia-smi -q` of driver 450 on a V100 (2020): "Clocks Throttle Reasons", "Ecc Mode", ECC by bit width.
QUERY_450 = """\

==============NVSMI LOG==============

Timestamp                                 : Mon Aug 10 10:12:40 2020
Driver Version                            : 450.51.06
CUDA Version                              : 11.0

Attached GPUs                             : 1
GPU 00000000:00:1E.0
    Product Name                          : Tesla V100-SXM2-16GB
    Product Brand                         : Tesla
    Display Mode                          : Enabled
    Display Active                        : Disabled
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    GPU UUID                              : GPU-3f4b5c6d-7e8f-9a0b-1c2d-3e4f5a6b7c8d
    PCI
        Bus                               : 0x00
        Device                            : 0x1E
        Domain                            : 0x0000
        Device Id                         : 0x1DB110DE
        Bus Id                            : 00000000:00:1E.0
        Sub System Id                     : 0x121210DE
        GPU Link Info
            PCIe Generation
                Max                       : 3
                Current                   : 3
            Link Width
                Max                       : 16x
                Current                   : 16x
    Performance State                     : P0
    Clocks Throttle Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : Active
            HW Thermal Slowdown           : Active
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    FB Memory Usage
        Total                             : 16160 MiB
        Used                              : 15000 MiB
        Free                              : 1160 MiB
    Compute Mode                          : Default
    Ecc Mode
        Current                           : Enabled
        Pending                           : Enabled
    ECC Errors
        Volatile
            Single Bit
                Device Memory             : 3
                Register File             : 0
                Total                     : 3
            Double Bit
                Device Memory             : 0
                Register File             : 0
                Total                     : 0
    Retired Pages
        Single Bit ECC                    : 0
        Double Bit ECC                    : 0
        Pending Page Blacklist            : No
    Remapped Rows                         : N/A
    Temperature
        GPU Current Temp                  : 88 C
        GPU Shutdown Temp                 : 90 C
    Power Readings
        Power Management                  : Supported
        Power Draw                        : 290.12 W
        Power Limit                       : 300.00 W
    Processes
        Process ID                        : 12345
            Type                          : C
            Name                          : python
            Used GPU Memory               : 14990 MiB

Thanks for any help!
"""


def read(text: str, tmp_path: Path):
    path = tmp_path / "paste.txt"
    path.write_text(text, encoding="utf-8")
    return cli_env.load_facts(path)


def verdicts(text: str, tmp_path: Path) -> dict[str, tuple[str, str]]:
    return {f.code: (f.status.value, f.message) for f in run_env_checks(read(text, tmp_path))}


def test_an_old_table_gives_memory_health_modes_and_processes(tmp_path):
    geforce, tesla = read(TABLE_418, tmp_path).nvidia.gpus
    assert (geforce.compute_capability, geforce.persistence_mode, geforce.pci_bus_id) == ("7.5", False, "00000000:01:00.0")
    assert (geforce.memory_used_mib, geforce.memory_total_mib, geforce.temperature_c) == (9245, 10986, 63)
    assert (geforce.power_draw_w, geforce.power_limit_w, geforce.compute_mode) == (162.0, 250.0, "default")
    assert geforce.ecc_uncorrected_volatile is None  # N/A: a GeForce has no ECC
    assert [(p.pid, p.name, p.used_memory_mib, p.alive) for p in geforce.processes] == [
        (1432, "/usr/lib/xorg/Xorg", 18, None), (27518, "python", 9215, None)]
    assert (tesla.ecc_uncorrected_volatile, tesla.compute_mode, tesla.persistence_mode) == (0, "exclusive-process", True)
    assert [p.pid for p in tesla.processes] == [27519]


def test_a_new_table_with_an_ecc_error_fails_the_health_check(tmp_path):
    first, second = read(TABLE_535, tmp_path).nvidia.gpus
    assert (first.mig_mode, first.processes, second.processes[0].pid) == (False, [], 918273)
    status, message = verdicts(TABLE_535, tmp_path)["TE207"]
    assert status == "error" and "GPU 1: 2 uncorrected ECC error(s)" in message
    healthy = TABLE_535.replace("Off |                    2 |", "Off |                    0 |")
    status, message = verdicts(healthy, tmp_path)["TE207"]
    assert status == "ok" and "no ECC errors" in message and "throttling" in message and "not in the facts" in message


def test_a_process_list_cut_by_the_paste_stays_unknown(tmp_path):
    cut = TABLE_418[:TABLE_418.index("|    1     27519")]
    gpus = read(cut, tmp_path).nvidia.gpus
    assert all(not isinstance(g.processes, list) for g in gpus)
    assert verdicts(cut, tmp_path)["TE206"][0] == "skip"


def test_a_table_of_geforce_cards_alone_gives_no_health_verdict(tmp_path):
    geforce_only = TABLE_418.split("|   1  Tesla")[0]
    status, message = verdicts(geforce_only, tmp_path)["TE207"]
    assert status == "skip" and "no health information" in message


def test_an_old_query_log_reads_throttling_ecc_by_bit_width_and_processes(tmp_path):
    facts = read(QUERY_450, tmp_path)
    assert (facts.nvidia.driver_version, facts.nvidia.cuda_driver_version) == ("450.51.06", "11.0")
    (gpu,) = facts.nvidia.gpus
    assert (gpu.name, gpu.compute_capability, gpu.pci_bus_id) == ("Tesla V100-SXM2-16GB", "7.0", "00000000:00:1E.0")
    assert gpu.clock_event_reasons == 0x8 | 0x40  # HW Slowdown, HW Thermal Slowdown
    assert gpu.ecc_uncorrected_volatile == 0  # single-bit errors are corrected ones
    assert (gpu.retired_pages_pending, gpu.remapped_rows_pending, gpu.mig_mode) == (False, None, False)
    assert (gpu.temperature_c, gpu.power_draw_w, gpu.power_limit_w) == (88, 290.12, 300.0)
    assert (gpu.pcie_link_width, gpu.pcie_link_width_max, gpu.memory_used_mib) == (16, 16, 15000)
    assert [(p.pid, p.name, p.used_memory_mib) for p in gpu.processes] == [(12345, "python", 14990)]
    status, message = verdicts(QUERY_450, tmp_path)["TE207"]
    assert status == "warning" and "HwThermalSlowdown" in message and "88 °C" in message


def test_a_cool_query_log_is_healthy_and_says_all_it_checked(tmp_path):
    cool = QUERY_450.replace("HW Slowdown                       : Active", "HW Slowdown                       : Not Active") \
        .replace("HW Thermal Slowdown           : Active", "HW Thermal Slowdown           : Not Active")
    status, message = verdicts(cool, tmp_path)["TE207"]
    assert status == "ok" and "not in the facts" not in message and "throttling" in message


def test_an_uncorrected_double_bit_error_in_a_query_log_is_an_error(tmp_path):
    broken = QUERY_450.replace("""                Register File             : 0
                Total                     : 0""", """                Register File             : 0
                Total                     : 1""")
    assert read(broken, tmp_path).nvidia.gpus[0].ecc_uncorrected_volatile == 1
    assert verdicts(broken, tmp_path)["TE207"][0] == "error"


def test_processes_in_a_paste_are_not_judged_as_leftovers(tmp_path):
    # A training job and an orphan look the same in a paste: only the machine itself can tell them apart.
    status, message = verdicts(TABLE_418, tmp_path)["TE206"]
    assert status == "skip" and message.startswith("not checked: whether the 3 process(es)") and "10326 MiB" in message
    idle = TABLE_535.split("|    1   N/A  N/A")[0] + "|  No running processes found                                                           |\n" \
        + "+---------------------------------------------------------------------------------------+\n"
    assert verdicts(idle, tmp_path)["TE206"] == ("ok", "no process holds memory on the 2 GPU(s)")
