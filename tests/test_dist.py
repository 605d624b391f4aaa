"""`torchdoctor dist`: the pure verdicts on recorded rank data, and real gloo runs on CPU
(2-3 local ranks, one of them stalled on purpose)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from torchdoctor.model import Status
from torchdoctor.runtime import dist
from torchdoctor.runtime import dist_checks as C

ENV = {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2",
       "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500"}


def info(rank: int, **over):
    base = {"host": "node0", "torch": "2.13.0", "torch_git": "abc", "cuda": "12.8", "nccl": "2.27.3",
            "python": "3.11.7", "torchdoctor": "0.1.0", "driver": "570.1", "device": f"cuda:{rank}"}
    return {**base, **over}


# ------------------------------------------------------------------ pure verdicts

def test_env_missing_fires_and_near_miss_is_quiet():
    (f,) = C.env_missing("1", {k: v for k, v in ENV.items() if k != "MASTER_PORT"})
    assert f.code == "TR101" and f.status is Status.ERROR and "MASTER_PORT is not set" in f.message
    assert "torchrun" in f.fix.commands[0]
    (g,) = C.env_missing("0", dict(ENV, WORLD_SIZE="two"))
    assert "WORLD_SIZE='two'" in g.message
    assert C.env_missing("0", ENV) == []
    assert C.env_missing("0", {k: v for k, v in ENV.items() if not k.startswith("LOCAL")}) == []  # optional ones


def test_env_consistency():
    envs = {0: dict(ENV, host="a"), 1: dict(ENV, RANK="1", LOCAL_RANK="0", host="a", MASTER_PORT="29501")}
    (f,) = C.env_consistency(envs, 2)
    assert f.code == "TR102"
    assert "MASTER_PORT differs" in f.message and "ranks 0, 1 on a share LOCAL_RANK=0" in f.message
    healthy = {0: dict(ENV, host="a"), 1: dict(ENV, RANK="1", LOCAL_RANK="0", host="b")}  # 2 nodes, 1 GPU each
    assert C.env_consistency(healthy, 2) == []


def test_version_mismatch_names_the_odd_rank_and_host():
    infos = {0: info(0), 1: info(1), 2: info(0, host="node1", torch="2.12.1"), 3: info(1, host="node1")}
    found = C.version_mismatch(infos)
    assert [f.code for f in found] == ["TR105"]
    assert "2.12.1 on rank 2" in found[0].message and "node1" in found[0].fix.summary
    drivers = {0: info(0), 1: info(0, host="node1", driver="535.2")}
    (w,) = C.version_mismatch(drivers)
    assert w.code == "TR106" and w.status is Status.WARNING and "535.2 on node1" in w.message
    assert C.version_mismatch({0: info(0), 1: info(1, host="node1")}) == []


def test_gpu_shared_by_ranks():
    (f,) = C.gpu_shared({0: info(0), 1: info(0, device="cuda:0")})
    assert f.code == "TR107" and "set_device" in f.fix.commands[0]
    assert C.gpu_shared({0: info(0), 1: info(1)}) == []
    assert C.gpu_shared({0: info(0, device="cpu"), 1: info(1, device="cpu")}) == []  # gloo on CPU
    assert C.gpu_shared({0: info(0), 1: info(0, host="node1")}) == []  # same index, other host
    # gloo ranks that see one GPU share it harmlessly: their collectives run on CPU tensors (an H100 run)
    assert C.gpu_shared({0: info(0), 1: info(0, device="cuda:0")}, "gloo") == []


def test_collective_results_and_barrier():
    res = {0: {"all_reduce": {"ok": True}}, 1: {"all_reduce": {"ok": False, "got": [2.0], "expected": [3.0]},
                                                "broadcast": {"ok": False, "error": "RuntimeError: Connection reset"}}}
    codes = sorted(f.code for f in C.collective_results(res))
    assert codes == ["TR108", "TR109"]
    assert C.collective_results({0: {"all_reduce": {"ok": True}}, 1: {"all_reduce": {"ok": True}}}) == []
    (f,) = C.stalled_at_barrier([3, 1], 5.0)
    assert f.code == "TR104" and f.message.startswith("Ranks 1, 3 did not reach the barrier within 5 s")
    assert C.stalled_at_barrier([], 5.0) == []
    assert dist.parse_monitored_barrier("[Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 4000 ms") == [1, 3]
    assert dist.parse_monitored_barrier("Rank 2 successfully reached monitoredBarrier, but received errors") == []
    (m,) = C.missing_ranks(4, [0, 1, 3], "presence", 5)
    assert m.code == "TR103" and m.message.startswith("Rank 2 never arrived within 5 s")
    assert C.missing_ranks(2, [0, 1], "presence", 5) == []


def test_crashed_names_signals():
    (f,) = C.crashed({0: 0, 1: -9, 2: 1})
    assert "rank 1: killed by SIGKILL" in f.message and "rank 2: exit status 1" in f.message
    assert f.related == ("dataloader-worker-killed",)
    assert C.crashed({0: 0, 1: 0}) == []


def test_busbw_factors_are_nccl_tests():
    assert C.busbw_factor("all_reduce", 4) == 1.5
    assert C.busbw_factor("all_gather", 4) == 0.75
    assert C.busbw_factor("broadcast", 4) == 1.0


def test_report_json_round_trip():
    rep = dist.Report(backend="gloo", world_size=2, ranks={0: {"host": "a"}},
                      findings=C.stalled_at_barrier([1], 3.0), phases={"barrier": "failed"})
    data = json.loads(dist.render_json(rep))
    assert data["schema"] == "torchdoctor.dist/v1" and data["ok"] is False
    again = dist.Report.from_json(data)
    assert again.findings[0].code == "TR104" and again.failed() and again.ranks == {0: {"host": "a"}}


# ------------------------------------------------------------------ real gloo runs

def _torchdoctor(*args, env=None, timeout=120):
    full = dict(os.environ, **(env or {}))
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", dist.STALL_RANK, dist.STALL_AT,
              dist.CRASH_RANK):
        if env is None or k not in env:
            full.pop(k, None)
    start = time.monotonic()
    proc = subprocess.run(check=False, args=[sys.executable, "-m", "torchdoctor", *args], capture_output=True, text=True,
                          env=full, timeout=timeout)
    return proc, time.monotonic() - start


def _no_rank_left(report_pids):
    for pid in report_pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        # A zombie is gone for our purposes; anything else is a leak.
        with open(f"/proc/{pid}/stat") as fh:
            assert fh.read().split(")")[-1].split()[0] == "Z", f"rank process {pid} left running"


def test_two_healthy_ranks_json():
    proc, _ = _torchdoctor("dist", "--nproc", "2", "--backend", "gloo", "--timeout", "10", "--sizes", "4K", "--iters", "2", "-f", "json")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    data = json.loads(proc.stdout)
    assert data["schema"] == "torchdoctor.dist/v1" and data["ok"] and data["world_size"] == 2
    assert [r["rank"] for r in data["ranks"]] == [0, 1] and data["ranks"][0]["torch"].startswith("2.")
    assert data["phases"] == {"presence": "ok", "init": "ok", "barrier": "ok", "collectives": "ok"}
    rows = {(r["op"], r["bytes"]) for r in data["bandwidth"]}
    assert rows == {("all_reduce", 4096), ("all_gather", 4096), ("broadcast", 4096)}
    ar = next(r for r in data["bandwidth"] if r["op"] == "all_reduce")
    assert ar["busbw_gbps"] == pytest.approx(ar["algbw_gbps"] * 1.0, rel=0.01)  # 2(n-1)/n = 1 for n=2
    assert [f["code"] for f in data["findings"]] == ["TR111"]
    _no_rank_left([r["pid"] for r in data["ranks"]])


def test_one_rank_measures_no_bandwidth():
    # With no peer, a collective is an in-place copy: an H200 "measured" 13,066 GB/s broadcast that way.
    proc, _ = _torchdoctor("dist", "--nproc", "1", "--backend", "gloo", "--timeout", "10", "--sizes", "4K", "-f", "json")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    data = json.loads(proc.stdout)
    assert data["ok"] and data["bandwidth"] == []
    (f,) = data["findings"]
    assert (f["code"], f["status"]) == ("TR111", "skip") and "single rank has no peer" in f["message"]
    assert "torchdoctor dist --nproc 2" in json.dumps(f["fix"])


def test_a_stalled_rank_is_named_within_the_timeout():
    proc, took = _torchdoctor("dist", "--nproc", "3", "--backend", "gloo", "--timeout", "3", "--no-bandwidth", "-f", "json",
                              env={dist.STALL_RANK: "1"})
    assert proc.returncode == 1, proc.stderr + proc.stdout
    data = json.loads(proc.stdout)
    codes = [f["code"] for f in data["findings"]]
    assert codes == ["TR104"], data["findings"]  # rank 2's "check rank 0" is not a second finding
    assert data["findings"][0]["evidence"]["stalled"] == [1]
    assert "Rank 1 did not reach the barrier within 3 s" in data["findings"][0]["message"]
    assert took < 3 * 4 + 60  # the parent's own deadline; in practice ~import time + 3 s
    _no_rank_left([r["pid"] for r in data["ranks"]])


def test_a_rank_that_never_arrives_text_report():
    proc, _ = _torchdoctor("dist", "--nproc", "2", "--backend", "gloo", "--timeout", "2", "--no-bandwidth",
                           env={dist.STALL_RANK: "1", dist.STALL_AT: "presence"})
    assert proc.returncode == 1
    assert "TR103 Rank 1 never arrived within 2 s" in proc.stdout
    assert "FAILED" in proc.stdout.splitlines()[-1]


def test_a_rank_that_crashes_is_named_with_its_error():
    proc, _ = _torchdoctor("dist", "--nproc", "2", "--backend", "gloo", "--timeout", "2", "--no-bandwidth", "-f", "json",
                           env={dist.CRASH_RANK: "1"})
    assert proc.returncode == 1
    found = {f["code"]: f for f in json.loads(proc.stdout)["findings"]}
    assert sorted(found) == ["TR103", "TR110"]
    assert found["TR103"]["evidence"]["missing"] == [1]
    assert "rank 1: exit status" in found["TR110"]["message"]
    assert "crashes on purpose" in found["TR110"]["evidence"]["rank 1 stderr (tail)"]


def test_usage_errors():
    proc, _ = _torchdoctor("dist")
    assert proc.returncode == 2 and proc.stderr.startswith("torchdoctor: error: not started by a launcher")
    proc, _ = _torchdoctor("dist", "--nproc", "2", "--sizes", "12Q")
    assert proc.returncode == 2 and "--sizes: '12Q' is not a size" in proc.stderr


def test_rank_with_incomplete_env_reports_itself():
    proc, _ = _torchdoctor("dist", "-f", "json", env={"RANK": "0", "WORLD_SIZE": "2"})
    assert proc.returncode == 1
    (f,) = json.loads(proc.stdout)["findings"]
    assert f["code"] == "TR101" and "MASTER_ADDR, MASTER_PORT are not set" in f["message"]


def test_under_torchrun_rank_0_prints_one_report():
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    if not os.path.exists(torchrun):
        pytest.skip("torchrun not installed next to this python")
    env = {k: v for k, v in os.environ.items() if k not in (dist.STALL_RANK, dist.STALL_AT, dist.REPORT_FILE)}
    proc = subprocess.run(check=False, args=[torchrun, "--standalone", "--nproc_per_node", "2", "-m", "torchdoctor",
                                             "dist", "--backend", "gloo", "--timeout", "10", "--no-bandwidth", "-f", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)  # one document: the other rank printed nothing
    assert data["ok"] and [r["rank"] for r in data["ranks"]] == [0, 1]
    assert {r["env"]["MASTER_PORT"] for r in data["ranks"]} == {data["ranks"][0]["env"]["MASTER_PORT"]}
