"""One real GPU machine, recorded (tests/fixtures/gpu_machine/README.md): an NVIDIA H200 with
torch 2.11.0+cu130. What torchdoctor collected live there must be what it reads from the same
machine's pasted reports, its verdicts on that healthy machine must be clean, and the GPU errors
torch printed there must be explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import torchdoctor
from torchdoctor.cli import env as cli_env
from torchdoctor.facts.model import Facts
from torchdoctor.kb.loader import load
from torchdoctor.kb.matcher import match_parsed
from torchdoctor.kb.parse import parse
from torchdoctor.runner import run_env_checks

MACHINE = Path(__file__).parent / "fixtures" / "gpu_machine"
LIVE = json.loads((MACHINE / "env.json").read_text())
BUSY = json.loads((MACHINE / "m2-busy-env.json").read_text())  # machine 2, another process holding 20 GiB
# Read seconds apart from the live facts: a torch child held a CUDA context during `env`, not during nvidia-smi.
CHANGES_BY_THE_SECOND = {"memory_used_mib", "power_draw_w", "temperature_c"}


def leaves(value, path=""):
    """(dotted path, value) of every known fact; GPUs keyed by their index, other lists whole."""
    if isinstance(value, dict):
        if set(value) == {"unknown"}:
            return
        for key, item in value.items():
            yield from leaves(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list) and value and isinstance(value[0], dict) and "index" in value[0]:
        for item in value:
            yield from leaves(item, f"{path}[{item['index']}]")
    else:
        yield path, value


def pasted(*names: str, tmp_path: Path) -> dict:
    path = tmp_path / "paste.txt"
    path.write_text("\n".join((MACHINE / n).read_text() for n in names))
    return cli_env.load_facts(path).to_json()


def test_the_live_facts_pass_every_check_with_nothing_left_unchecked():
    findings = run_env_checks(Facts.from_json(LIVE["facts"]))
    assert {f.status.value for f in findings} == {"ok"}, [(f.code, f.message) for f in findings if f.status.value != "ok"]
    by_code = {f.code: f.message for f in findings}
    assert "driver 580.159.04 supports CUDA 13.0" in by_code["TE201"]
    assert "GPU 0 (NVIDIA H200, 9.0) runs sm_90 SASS" in by_code["TE202"]
    assert LIVE["summary"]["not_run_missing_facts"] == 0


def test_the_live_facts_match_what_nvidia_smi_and_torch_printed():
    facts = LIVE["facts"]
    (gpu,) = facts["nvidia"]["gpus"]
    # nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,pci.bus_id,uuid --format=csv
    row = (MACHINE / "nvidia-smi-query.csv").read_text().splitlines()[1].split(", ")
    assert [gpu["name"], facts["nvidia"]["driver_version"], gpu["compute_capability"], f"{gpu['memory_total_mib']} MiB",
            gpu["pci_bus_id"], gpu["uuid"]] == row
    report = (MACHINE / "collect_env.txt").read_text()
    assert f"PyTorch version: {facts['torch']['version']}\n" in report
    assert f"CUDA used to build PyTorch: {facts['torch']['cuda']}\n" in report
    assert f"[pip3] nvidia-nccl-cu13=={facts['torch']['nccl']}" in report
    assert f"[pip3] nvidia-cudnn-cu13=={facts['torch']['cudnn_runtime']}." in report  # pip's, not /usr/lib's 9.14


@pytest.mark.parametrize("names", [("collect_env.txt",), ("nvidia-smi.txt",), ("nvidia-smi-q.txt",),
                                   ("nvidia-smi-query.csv",), ("collect_env.txt", "nvidia-smi.txt"),
                                   ("collect_env.txt", "nvidia-smi-q.txt")], ids="+".join)
def test_every_fact_read_from_a_paste_is_the_live_one(names, tmp_path):
    assert compare_with_live(LIVE, names, tmp_path) >= 6


def compare_with_live(live_report: dict, names: tuple[str, ...], tmp_path: Path) -> int:
    """Asserts that every known fact read from the pasted files equals the live one; returns how many were compared."""
    live = dict(leaves(live_report["facts"]))
    compared = 0
    for path, value in leaves(pasted(*names, tmp_path=tmp_path)):
        if path.startswith("meta.") or path == "packages.distributions" or path.rsplit(".", 1)[-1] in CHANGES_BY_THE_SECOND:
            continue
        assert path in live and live[path] == value, (path, value, live.get(path, "<not collected live>"))
        compared += 1
    return compared


@pytest.mark.parametrize("name", ["m2-busy-nvidia-smi.txt", "m2-busy-nvidia-smi-q.txt"])
def test_a_busy_gpu_reads_the_same_from_a_paste_as_live(name, tmp_path):
    live = dict(leaves(BUSY["facts"]))
    read = dict(leaves(pasted(name, tmp_path=tmp_path)))
    for path, value in read.items():
        if path.startswith("meta.") or path.rsplit(".", 1)[-1] in CHANGES_BY_THE_SECOND | {"processes"}:
            continue
        assert live.get(path) == value, (path, value, live.get(path))
    (gpu,) = pasted(name, tmp_path=tmp_path)["nvidia"]["gpus"]
    (busy,) = BUSY["facts"]["nvidia"]["gpus"]
    # The live collector also knows whether the pid is alive and whose it is; a paste cannot.
    assert [(p["pid"], p["name"], p["used_memory_mib"]) for p in gpu["processes"]] == \
        [(p["pid"], p["name"], p["used_memory_mib"]) for p in busy["processes"]] == [(466, "python3", 20998)]


def test_a_gpu_held_by_another_process_is_named_live_but_not_judged_from_a_paste(tmp_path):
    live = {f.code: f for f in run_env_checks(Facts.from_json(BUSY["facts"]))}
    assert live["TE206"].status.value == "warning" and "pid 466 (python3, user root) holds 20998 MiB" in live["TE206"].message
    assert {f.status.value for c, f in live.items() if c != "TE206"} == {"ok"}
    path = tmp_path / "paste.txt"
    path.write_text((MACHINE / "m2-busy-nvidia-smi.txt").read_text())
    (orphans,) = [f for f in run_env_checks(cli_env.load_facts(path)) if f.code == "TE206"]
    assert orphans.status.value == "skip" and "(20998 MiB) are alive is unknown" in orphans.message


H100 = json.loads((MACHINE / "h100-env.json").read_text())  # the other lent kind, capture_h100.sh


@pytest.mark.parametrize("recording", ["h100-env.json", "s10-h100-env.json", "s15-h100-env.json", "s19-h100-env.json"])
def test_the_h100_passes_every_check_too(recording):
    # s10-h100-env.json: another H100, recorded by capture4.sh with later checks than capture_h100.sh's;
    # s15-h100-env.json: a third, by capture6.sh, with the readers and checks as they stood at 8f76b44;
    # s19-h100-env.json: a fourth, by capture8.sh at c599725, after sessions 17-18's reader changes
    findings = run_env_checks(Facts.from_json(json.loads((MACHINE / recording).read_text())["facts"]))
    assert {f.status.value for f in findings} == {"ok"}, [(f.code, f.message) for f in findings if f.status.value != "ok"]
    (gpu,) = H100["facts"]["nvidia"]["gpus"]
    assert (gpu["name"], gpu["compute_capability"], gpu["memory_total_mib"]) == ("NVIDIA H100 80GB HBM3", "9.0", 81559)


def test_the_h200_of_session_17_passes_every_check_with_that_days_code():
    # capture7.sh, at 15d8e1d: the live facts taken with the checks as they stood after sessions 11-16's changes.
    live = json.loads((MACHINE / "s17-h200-env.json").read_text())
    findings = run_env_checks(Facts.from_json(live["facts"]))
    assert {f.status.value for f in findings} == {"ok"}, [(f.code, f.message) for f in findings if f.status.value != "ok"]
    assert live["summary"]["ok"] == len(findings) and live["summary"]["not_run_missing_facts"] == 0
    (gpu,) = live["facts"]["nvidia"]["gpus"]
    assert (gpu["name"], gpu["compute_capability"]) == ("NVIDIA H200", "9.0")
    assert live["facts"]["torch"]["version"] == "2.11.0+cu130"


@pytest.mark.parametrize("names", [("h100-collect_env.txt", "h100-nvidia-smi.txt"), ("h100-nvidia-smi-q.txt",)], ids="+".join)
def test_every_fact_read_from_the_h100_pastes_is_the_live_one(names, tmp_path):
    assert compare_with_live(H100, names, tmp_path) >= 10


@pytest.mark.parametrize("names", [("s15-h100-collect_env.txt", "s15-h100-nvidia-smi.txt"), ("s15-h100-nvidia-smi-q.txt",),
                                   ("s19-h100-collect_env.txt", "s19-h100-nvidia-smi.txt")], ids="+".join)
def test_every_fact_read_from_the_third_h100s_pastes_is_the_live_one(names, tmp_path):
    # Recorded a day and many reader changes after the first H100: the paste readers must still agree with live.
    live = json.loads((MACHINE / f"{names[0][:names[0].index('-h100-')]}-h100-env.json").read_text())
    assert compare_with_live(live, names, tmp_path) >= 10


def test_the_fourth_h100s_own_collect_env_reads_as_the_second_ones_did():
    # env --facts of the machine's own collect_env, on the machine, sessions 10 and 19: what a report
    # holds is judged the same way, and what it does not hold is said to be unchecked, never "ok".
    then, now = (json.loads((MACHINE / f"{p}-h100-facts-collect_env.json").read_text()) for p in ("s10", "s19"))
    assert [(f["code"], f["status"]) for f in now["findings"]] == [(f["code"], f["status"]) for f in then["findings"]]
    assert now["summary"]["warning"] == now["summary"]["error"] == 0 and now["summary"]["not_run_missing_facts"] == 9


@pytest.mark.parametrize("prefix", ["h100-", "s10-h100-", "s15-h100-", "s19-h100-"])
def test_the_h100_ran_nccl_and_a_model_step(prefix):
    dist = json.loads((MACHINE / f"{prefix}dist-nproc1.json").read_text())
    assert dist["ok"] and dist["backend"] == "nccl" and dist["ranks"][0]["gpu_name"] == "NVIDIA H100 80GB HBM3"
    model = json.loads((MACHINE / f"{prefix}model-healthy.json").read_text())
    assert model["summary"]["error"] == 0 and model["summary"]["ok"] == 10


def test_the_full_nvidia_smi_query_log_gives_every_health_signal(tmp_path):
    (gpu,) = pasted("nvidia-smi-q.txt", tmp_path=tmp_path)["nvidia"]["gpus"]
    (live,) = LIVE["facts"]["nvidia"]["gpus"]
    for key in ("clock_event_reasons", "ecc_uncorrected_volatile", "retired_pages_pending", "remapped_rows_pending",
                "remapped_rows_failure", "pcie_link_width", "pcie_link_width_max", "persistence_mode", "mig_mode",
                "compute_mode", "memory_total_mib", "uuid", "processes"):
        assert gpu[key] == live[key], key


def test_the_packages_both_pastes_list_agree_with_the_live_ones(tmp_path):
    live = {(d["name"], d["version"]) for d in LIVE["facts"]["packages"]["distributions"]}
    listed = {(d["name"], d["version"]) for d in pasted("pip-list.txt", tmp_path=tmp_path)["packages"]["distributions"]}
    reported = {(d["name"], d["version"]) for d in pasted("collect_env.txt", tmp_path=tmp_path)["packages"]["distributions"]}
    assert live <= listed and reported <= listed
    assert ("torch", "2.11.0") in reported and ("nvidia-cudnn-cu13", "9.19.0.56") in reported


def test_the_pasted_reports_give_no_verdict_the_live_facts_do_not(tmp_path):
    live = {f.code: f.status.value for f in run_env_checks(Facts.from_json(LIVE["facts"]))}
    for names in (("collect_env.txt", "nvidia-smi.txt"), ("nvidia-smi-q.txt",), ("pip-list.txt",)):
        path = tmp_path / "paste.txt"
        path.write_text("\n".join((MACHINE / n).read_text() for n in names))
        for f in run_env_checks(cli_env.load_facts(path)):
            assert f.status.value in ("ok", "skip") and (f.status.value == "skip" or live[f.code] == "ok"), (names, f.code, f.message)


def test_a_table_alone_says_which_health_signals_it_could_not_see(tmp_path):
    path = tmp_path / "paste.txt"
    path.write_text((MACHINE / "nvidia-smi.txt").read_text())
    (health,) = [f for f in run_env_checks(cli_env.load_facts(path)) if f.code == "TE207"]
    assert health.status.value == "ok" and health.message.startswith("1 GPU(s) checked: no ECC errors (throttling")
    assert "not in the facts" in health.message


def test_hiding_every_gpu_is_named_and_the_arch_check_steps_aside():
    findings = {f.code: f for f in run_env_checks(Facts.from_json(json.loads((MACHINE / "env-cvd-empty.json").read_text())["facts"]))}
    assert findings["TE205"].status.value == "warning" and "CUDA_VISIBLE_DEVICES=''" in findings["TE205"].message
    assert findings["TE202"].status.value == "skip" and findings["TE211"].status.value == "skip"
    assert {f.status.value for c, f in findings.items() if c not in ("TE205", "TE202", "TE211")} == {"ok"}


def test_quick_mode_says_the_import_was_not_checked():
    quick = json.loads((MACHINE / "env-quick.json").read_text())
    findings = {f.code: f for f in run_env_checks(Facts.from_json(quick["facts"]))}
    assert findings["TE101"].status.value == "skip" and "--quick" in findings["TE101"].message
    assert {f.status.value for c, f in findings.items() if c != "TE101"} == {"ok"}


# What torch 2.11 printed on the H200s and an H100, and the entry that explains it first.
RECORDED_ERRORS = {
    "bce_autocast": "bce-unsafe-autocast",
    "ce_target_oob": "cuda-device-side-assert",
    "cuda_tensor_numpy": "tensor-to-numpy-cuda",
    # capture4.sh and capture5.sh, on H100s with the same torch:
    "bce_out_of_range": "bce-input-out-of-range",
    "generator_device": "dataloader-generator-device",
    "legacy_constructor": "legacy-tensor-type-constructor",
    "capture_sync": "cuda-graph-capture-forbidden-op",
    "conv_half_weight": "dtype-mismatch",
    "cudagraph_overwritten": "cudagraph-output-overwritten",
    "ddp_unused_param": "ddp-unused-parameters",
    "load_cuda_on_cpu_only": "cuda-unavailable-on-load",
    "long_matmul": "op-not-implemented-for-integer",
    "pin_cuda_tensor": "pin-memory-cuda-tensor",
    "sdpa_dtype": "dtype-mismatch",
    "sdpa_no_kernel": "sdpa-no-available-kernel",
    "unscale_fp16": "amp-unscale-fp16-params",
    "cudnn_rnn_eval": "cudnn-rnn-backward-eval",
    "device_mismatch": "device-mismatch",
    "embedding_oob": "embedding-index-out-of-range",
    "fork_reinit": "cuda-fork-reinit",
    "half_float_mm": "dtype-mismatch",
    "illegal_memory_access": "cuda-illegal-memory-access",  # a Triton kernel storing far out of bounds (capture3.sh)
    "index_oob": "cuda-device-side-assert",
    "invalid_ordinal": "invalid-device-ordinal",
    "multinomial_nan": "multinomial-invalid-probabilities",
    "no_gpu_visible": "cuda-no-device-visible",
    "oom": "cuda-out-of-memory",
    # capture7.sh, on an H200 with the same torch (session 17):
    "bf16_gradscaler": "amp-unscale-fp16-params",
    "dataparallel_two_ids": "invalid-device-ordinal",
    "ddp_cpu_module_device_ids": "ddp-device-ids-module-placement",
    "deterministic_histc": "deterministic-algorithms-unsupported",
    "gloo_recv_timeout": "nccl-collective-timeout",  # gloo's wording for a rank that never joined
    "load_missing_device": "cuda-unavailable-on-load",
    "lstm_input_cpu": "device-mismatch",
    "memory_fraction_oom": "cuda-out-of-memory",
    "nccl_cpu_tensor": "collective-cpu-tensor",
    # capture8.sh, on an H100 with the same torch (session 19):
    "index_cpu_tensor_cuda_idx": "device-mismatch",
    "embedding_sparse_adamw": "sparse-layout-unsupported-op",
    "ddp_reentrant_checkpoint_twice": "ddp-mark-ready-twice",
    # ... and four that had no answer before the recording, each with the entry written for it:
    "allgather_wrong_size": "all-gather-output-size-mismatch",
    "cuda_tensor_to_numpy_via_np": "numpy-function-on-tensor",  # np.mean of a CUDA tensor
    "fsdp_cpu_sync_module_states": "fsdp-sync-module-states-cpu",
    "nccl_noncontiguous": "collective-tensor-not-contiguous",
}


def test_every_recording_is_listed():
    assert {p.stem for p in (MACHINE / "errors").glob("*.txt")} == set(RECORDED_ERRORS)


@pytest.mark.parametrize("name", sorted(RECORDED_ERRORS))
def test_a_real_gpu_error_is_explained(name):
    matches = torchdoctor.explain((MACHINE / "errors" / f"{name}.txt").read_text())
    assert matches and matches[0].id == RECORDED_ERRORS[name], [m.id for m in matches]
    # gloo's recv timeout is weighed 0.85: a peer that died reads the same, and the entry says both.
    assert matches[0].confidence >= (0.85 if name == "gloo_recv_timeout" else 0.9)


# Warnings a run printed and finished (capture5.sh, capture7.sh): every cause they show is listed, the exit-time one first.
RECORDED_WARNINGS = {
    "amp_deprecated": ["amp-cuda-namespace-deprecated"],
    "nccl_barrier_unknown_device": ["process-group-not-destroyed", "nccl-barrier-device-unknown"],
    # capture7.sh: torch.compile's advice on an H200, and reduce-overhead declining a graph that mutates its input.
    "compile_tf32": ["inductor-tf32-matmul-hint"],
    "cudagraph_mutated_input": ["compile-cudagraphs-skipped"],
    # capture8.sh: GradScaler skipping the first step (inf gradients at a huge initial scale), so the scheduler stepped first.
    "scheduler_before_optimizer_amp": ["lr-scheduler-step-order"],
    # capture8.sh: checkpoint() called without use_reentrant (no answer before the recording).
    "checkpoint_no_use_reentrant": ["checkpoint-use-reentrant-warning"],
}


@pytest.mark.parametrize("name", sorted(RECORDED_WARNINGS))
def test_real_gpu_warnings_list_their_causes(name):
    assert {p.stem for p in (MACHINE / "warnings").glob("*.txt")} == set(RECORDED_WARNINGS)
    listed = [m.id for m in match_parsed(parse((MACHINE / "warnings" / f"{name}.txt").read_text()), load(), 0.0)]
    assert listed[:len(RECORDED_WARNINGS[name])] == RECORDED_WARNINGS[name], listed


def test_the_run_wrapper_explained_the_crash_it_watched():
    text = (MACHINE / "run-device-mismatch.txt").read_text()
    assert "exited with status 1" in text and "[device-mismatch, confidence 0.99]" in text
    assert "The argument on the other device was `mat1` (in `wrapper_CUDA_addmm`)." in text


def test_the_model_probe_ran_a_step_on_the_gpu():
    healthy = json.loads((MACHINE / "model-healthy.json").read_text())
    assert healthy["schema"] == "torchdoctor.model/v1" and healthy["summary"]["error"] == 0
    placed = next(f for f in healthy["findings"] if f["code"] == "TI204")
    assert "on cuda:0" in placed["message"]
    two_heads = json.loads((MACHINE / "model-two_heads.json").read_text())
    unused = next(f for f in two_heads["findings"] if f["code"] == "TI201")
    assert unused["status"] == "error" and "unused" in unused["message"]


def test_one_rank_on_nccl_measures_no_bandwidth():
    data = json.loads((MACHINE / "m2-dist-nproc1.json").read_text())
    assert data["ok"] and data["backend"] == "nccl" and data["bandwidth"] == []
    assert [(f["code"], f["status"]) for f in data["findings"]] == [("TR111", "skip")]


def test_two_nccl_ranks_on_one_gpu_are_refused_with_the_fix():
    data = json.loads((MACHINE / "m2-dist-nproc2-one-gpu.json").read_text())
    assert not data["ok"] and [r["device"] for r in data["ranks"]] == ["cuda:0", "cuda:0"]
    (shared,) = [f for f in data["findings"] if f["code"] == "TR107"]
    assert shared["status"] == "error" and "LOCAL_RANK" in json.dumps(shared["fix"])


def test_the_whole_torchrun_log_is_explained_by_its_kernel_assertion():
    matches = torchdoctor.explain((MACHINE / "m2-torchrun-rank1-assert.txt").read_text())
    assert matches[0].id == "embedding-index-out-of-range"


def test_two_nccl_ranks_on_one_gpu_under_torchrun_are_explained_as_such():
    text = (MACHINE / "m3-torchrun-nccl-same-gpu.txt").read_text()
    assert "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60" in text
    matches = torchdoctor.explain(text)
    assert [m.id for m in matches[:2]] == ["nccl-duplicate-gpu", "nccl-error"]


def test_nccl_ran_on_the_gpu():
    data = json.loads((MACHINE / "dist-nproc1.json").read_text())
    assert data["schema"] == "torchdoctor.dist/v1" and data["ok"] and data["backend"] == "nccl"
    (rank,) = data["ranks"]
    assert (rank["device"], rank["nccl"], rank["cuda"]) == ("cuda:0", "2.28.9", "13.0")


def test_a_report_says_the_loaded_cuda_libraries_were_not_checked(tmp_path):
    # collect_env lists pip's nvidia-* packages and a system cuDNN 9.14, but not which copy torch loaded
    # (pip's 9.19, live): the conflict check cannot decide, and the closing line must count it.
    path = tmp_path / "paste.txt"
    path.write_text((MACHINE / "collect_env.txt").read_text())
    findings = run_env_checks(cli_env.load_facts(path))
    (libs,) = [f for f in findings if f.code == "TE204"]
    assert libs.status.value == "skip" and libs.message.startswith("not checked: which CUDA libraries torch loads")
    from torchdoctor.render.summary import closing_line

    assert "TE204" in closing_line(findings)
    live = {f.code: f for f in run_env_checks(Facts.from_json(LIVE["facts"]))}
    assert live["TE204"].status.value == "ok"
