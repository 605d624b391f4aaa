"""The verdicts of `torchdoctor dist`: pure functions of what the ranks recorded.

Every function here takes plain data (the launch environment and versions each rank published,
the results of its collectives, what the barrier said) and returns `Finding`s. Nothing here
touches torch, the network or the machine, so each rule is tested with recorded examples.

Codes (TR1xx, "runtime"):
  TR101 launch-env-missing        a rank lacks RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT ...
  TR102 launch-env-inconsistent   ranks disagree on WORLD_SIZE / MASTER_ADDR / MASTER_PORT, or
                                  RANK / LOCAL_RANK values collide or fall out of range
  TR103 rank-missing              a rank never arrived (presence check) or never reported
  TR104 rank-stalled-at-barrier   monitored_barrier named ranks that did not reach it in time
  TR105 version-mismatch          torch / CUDA / NCCL / Python / torchdoctor differ across ranks
  TR106 driver-mismatch           the NVIDIA driver differs across hosts
  TR107 gpu-shared-by-ranks       two NCCL ranks on one host use the same GPU
  TR108 collective-wrong-result   a collective returned wrong values
  TR109 collective-failed         a collective raised (timeout, connection reset, ...)
  TR110 rank-crashed              a rank process exited with an error or a signal
  TR111 bandwidth-measured        informational: the algbw/busbw table was measured
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from ..model import Finding, Fix, Status

AREA = "distributed"
REQUIRED_ENV = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
LAUNCH_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")

# (code, name, title)
CODES: dict[str, tuple[str, str]] = {
    "TR101": ("launch-env-missing", "The launch environment of every rank is complete"),
    "TR102": ("launch-env-inconsistent", "The ranks agree on their launch environment"),
    "TR103": ("rank-missing", "Every rank arrives and reports"),
    "TR104": ("rank-stalled-at-barrier", "Every rank reaches the barrier in time"),
    "TR105": ("version-mismatch", "Every rank runs the same torch, CUDA, NCCL and Python"),
    "TR106": ("driver-mismatch", "Every host runs the same NVIDIA driver"),
    "TR107": ("gpu-shared-by-ranks", "Each rank has its own GPU"),
    "TR108": ("collective-wrong-result", "Collectives return the expected values"),
    "TR109": ("collective-failed", "Collectives complete"),
    "TR110": ("rank-crashed", "Every rank process exits cleanly"),
    "TR111": ("bandwidth-measured", "Collective bandwidth (algbw / busbw)"),
}

# Versions that must agree on every rank (a mismatch is an error), and per host (a warning).
MUST_MATCH = ("torch", "torch_git", "cuda", "nccl", "python", "torchdoctor")
PER_HOST = ("driver",)

VERSION_COMMAND = ("python -c 'import torch; print(torch.__version__, torch.version.cuda, "
                   "torch.cuda.nccl.version() if torch.cuda.is_available() else None)'")


# nccl-tests' bus-bandwidth factors (NVIDIA/nccl-tests doc/PERFORMANCE.md).
def busbw_factor(op: str, n: int) -> float:
    if n <= 1:
        return 1.0 if op in ("broadcast", "reduce") else 0.0
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0  # broadcast, reduce


def finding(code: str, status: Status, message: str, *, evidence: Mapping[str, Any] | None = None,
            fix: Fix | None = None, related: tuple[str, ...] = ()) -> Finding:
    name, title = CODES[code]
    return Finding(code=code, name=name, area=AREA, status=status, title=title, message=message,
                   evidence=dict(evidence or {}), fix=fix, related=related)


def _ranks(rs: Iterable[int]) -> str:
    rs = sorted(rs)
    return ("rank " if len(rs) == 1 else "ranks ") + ", ".join(str(r) for r in rs)


def env_missing(rank: Any, env: Mapping[str, str]) -> list[Finding]:
    """TR101 for one rank's own environment (checked before any communication)."""
    missing = [k for k in REQUIRED_ENV if not env.get(k)]
    bad = [k for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_PORT")
           if env.get(k) and not str(env[k]).strip().isdigit()]
    if not missing and not bad:
        return []
    parts = []
    if missing:
        parts.append(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set")
    if bad:
        parts.append(", ".join(f"{k}={env[k]!r} is not a non-negative integer" for k in bad))
    who = f"rank {rank}" if rank is not None else "this process"
    return [finding("TR101", Status.ERROR, f"The launch environment of {who} is incomplete: {'; '.join(parts)}.",
                    evidence={k: env.get(k, "<unset>") for k in LAUNCH_ENV},
                    fix=Fix("Launch with torchrun (it sets all of them), or let torchdoctor start the ranks",
                            ("torchrun --standalone --nproc_per_node 2 -m torchdoctor dist",
                             "torchdoctor dist --nproc 2")),
                    related=("dist-env-missing",))]


def env_consistency(envs: Mapping[int, Mapping[str, str]], world_size: int) -> list[Finding]:
    """TR102: what the ranks' launch environments say about each other.

    `envs` maps a rank to its environment and, under "host", its hostname."""
    problems: list[str] = []
    evidence: dict[str, Any] = {}
    for key in ("WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        values = defaultdict(list)
        for r, env in envs.items():
            values[env.get(key, "<unset>")].append(r)
        if len(values) > 1:
            problems.append(f"{key} differs across ranks")
            evidence[key] = {v: sorted(rs) for v, rs in values.items()}
    bad_rank = [r for r in envs if not 0 <= r < world_size]
    if bad_rank:
        problems.append(f"RANK {', '.join(map(str, sorted(bad_rank)))} is outside 0..{world_size - 1}")
    by_host = defaultdict(list)
    for r, env in envs.items():
        by_host[env.get("host", "?")].append(r)
    for host, rs in sorted(by_host.items()):
        locals_ = defaultdict(list)
        for r in rs:
            lr = envs[r].get("LOCAL_RANK")
            if lr is not None:
                locals_[lr].append(r)
            lws = envs[r].get("LOCAL_WORLD_SIZE")
            if lr is not None and lws is not None and str(lr).isdigit() and str(lws).isdigit() \
                    and int(lr) >= int(lws):
                problems.append(f"rank {r} on {host} has LOCAL_RANK={lr} but LOCAL_WORLD_SIZE={lws}")
        dup = {lr: sorted(rs2) for lr, rs2 in locals_.items() if len(rs2) > 1}
        if dup:
            for lr, rs2 in sorted(dup.items()):
                problems.append(f"{_ranks(rs2)} on {host} share LOCAL_RANK={lr}")
            evidence[f"LOCAL_RANK on {host}"] = {str(k): v for k, v in sorted(locals_.items())}
    if not problems:
        return []
    return [finding("TR102", Status.ERROR, "The ranks disagree about the job: " + "; ".join(problems) + ".",
                    evidence=evidence,
                    fix=Fix("Start every rank from one launcher so they share one job description "
                            "(the same --nnodes/--nproc_per_node/--rdzv_endpoint on every node)",
                            ("torchrun --nnodes 1 --nproc_per_node 2 -m torchdoctor dist",)),
                    related=("dist-env-missing",))]


def version_mismatch(infos: Mapping[int, Mapping[str, Any]]) -> list[Finding]:
    """TR105 (every rank) and TR106 (per host) from the versions each rank published."""
    out: list[Finding] = []
    diffs: dict[str, dict[str, list[int]]] = {}
    for key in MUST_MATCH:
        values = defaultdict(list)
        for r, info in infos.items():
            values[str(info.get(key))].append(r)
        if len(values) > 1:
            diffs[key] = {v: sorted(rs) for v, rs in sorted(values.items())}
    if diffs:
        desc = "; ".join(f"{k}: " + ", ".join(f"{v} on {_ranks(rs)}" for v, rs in d.items())
                         for k, d in diffs.items())
        odd = min((rs for d in diffs.values() for rs in d.values()), key=len)
        hosts = sorted({str(infos[r].get("host")) for r in odd})
        out.append(finding("TR105", Status.ERROR, f"The ranks run different software: {desc}.",
                           evidence=diffs,
                           fix=Fix(f"Install the same environment on {', '.join(hosts)} as on the other nodes "
                                   "(one container image or one lock file for every node)",
                                   (VERSION_COMMAND,)),
                           related=("nccl-error",)))
    for key in PER_HOST:
        values = defaultdict(set)
        for info in infos.values():
            if info.get(key) is not None:
                values[str(info[key])].add(str(info.get("host")))
        if len(values) > 1:
            out.append(finding("TR106", Status.WARNING,
                               "The hosts run different NVIDIA drivers: "
                               + "; ".join(f"{v} on {', '.join(sorted(h))}" for v, h in sorted(values.items())) + ".",
                               evidence={key: {v: sorted(h) for v, h in values.items()}},
                               fix=Fix("Install the same driver on every node (the newest one supports every CUDA "
                                       "runtime the others do)", ("nvidia-smi --query-gpu=driver_version --format=csv",))))
    return out


def gpu_shared(infos: Mapping[int, Mapping[str, Any]], backend: str = "nccl") -> list[Finding]:
    """TR107: two ranks on one host on the same physical GPU (a forgotten set_device(local_rank)).

    Only for NCCL, which refuses two ranks on one device ("Duplicate GPU detected"); gloo's collectives
    run on CPU tensors here, so gloo ranks may share the GPU they happen to see (found on an H100:
    `dist --nproc 2 --backend gloo` on one GPU was failed for it)."""
    if backend != "nccl":
        return []
    seen = defaultdict(list)
    for r, info in infos.items():
        dev = info.get("gpu_uuid") or info.get("device")
        if dev and str(dev).startswith(("cuda", "GPU-")):
            seen[(info.get("host"), dev)].append(r)
    shared = {k: sorted(v) for k, v in seen.items() if len(v) > 1}
    if not shared:
        return []
    desc = "; ".join(f"{_ranks(rs)} on {host} all use {dev}" for (host, dev), rs in sorted(shared.items(), key=str))
    return [finding("TR107", Status.ERROR, f"Ranks share a GPU: {desc}.",
                    evidence={f"{h} {d}": rs for (h, d), rs in shared.items()},
                    fix=Fix("Select the GPU from LOCAL_RANK before creating tensors or the process group",
                            ("torch.cuda.set_device(int(os.environ['LOCAL_RANK']))",)),
                    related=("nccl-error",))]


def missing_ranks(world_size: int, present: Iterable[int], phase: str, timeout: float) -> list[Finding]:
    """TR103: ranks that did not arrive (presence) or never reported their results."""
    gone = sorted(set(range(world_size)) - set(present))
    if not gone:
        return []
    what = {"presence": "never arrived", "report": "never reported its results",
            "finish": "did not finish"}.get(phase, phase)
    return [finding("TR103", Status.ERROR,
                    f"{_ranks(gone).capitalize()} {what if len(gone) == 1 else what.replace('its', 'their')} "
                    f"within {timeout:g} s (of {world_size} ranks, {_ranks(sorted(set(present))) if present else 'none'} did).",
                    evidence={"missing": gone, "phase": phase, "timeout_s": timeout},
                    fix=Fix("Look at the missing rank's own log (torchrun --log-dir DIR --tee 3 keeps one per rank): it "
                            "crashed, is still importing, or cannot reach MASTER_ADDR:MASTER_PORT",
                            ("torchrun --log-dir /tmp/tdlogs --tee 3 --nproc_per_node 2 -m torchdoctor dist",)),
                    related=("nccl-collective-timeout",))]


def stalled_at_barrier(stalled: Iterable[int], timeout: float, message: str = "") -> list[Finding]:
    """TR104: the ranks monitored_barrier named."""
    stalled = sorted(set(stalled))
    if not stalled:
        return []
    return [finding("TR104", Status.ERROR,
                    f"{_ranks(stalled).capitalize()} did not reach the barrier within {timeout:g} s; "
                    "the other ranks did. In a training job this is a hang: the rank is stuck "
                    "(data loading, a deadlock, a collective under `if rank == 0:`) or slower than the timeout.",
                    evidence={"stalled": stalled, "timeout_s": timeout, **({"barrier said": message} if message else {})},
                    fix=Fix("Dump the stuck rank's Python stacks to see where it waits",
                            ("py-spy dump --pid <PID of the stalled rank>",)),
                    related=("collective-under-rank-guard", "nccl-collective-timeout"))]


def collective_results(results: Mapping[int, Mapping[str, Any]]) -> list[Finding]:
    """TR108 / TR109 from each rank's record {op: {"ok": bool, "error": str, "got": ..., "expected": ...}}."""
    wrong: dict[str, dict[int, Any]] = defaultdict(dict)
    failed: dict[str, dict[int, str]] = defaultdict(dict)
    for r, ops in results.items():
        for op, rec in ops.items():
            if rec.get("error"):
                failed[op][r] = rec["error"]
            elif not rec.get("ok"):
                wrong[op][r] = {"got": rec.get("got"), "expected": rec.get("expected")}
    out = []
    for op, per_rank in wrong.items():
        out.append(finding("TR108", Status.ERROR,
                           f"{op} returned wrong values on {_ranks(per_rank)}.",
                           evidence={f"rank {r}": v for r, v in sorted(per_rank.items())},
                           fix=Fix("Run the NCCL tests on this node to separate hardware/driver from software "
                                   "(and NCCL_P2P_DISABLE=1 / NCCL_IB_DISABLE=1 to isolate the transport)",
                                   ("NCCL_DEBUG=INFO NCCL_P2P_DISABLE=1 torchrun --nproc_per_node 2 -m torchdoctor dist",)),
                           related=("nccl-error",)))
    for op, per_rank in failed.items():
        first = next(iter(per_rank.values()))
        out.append(finding("TR109", Status.ERROR, f"{op} failed on {_ranks(per_rank)}: {first}",
                           evidence={f"rank {r}": e for r, e in sorted(per_rank.items())},
                           fix=Fix("Rerun with transport logging to see which link fails",
                                   ("NCCL_DEBUG=INFO TORCH_DISTRIBUTED_DEBUG=INFO torchrun --nproc_per_node 2 -m torchdoctor dist",)),
                           related=("nccl-error", "nccl-collective-timeout")))
    return out


def crashed(exits: Mapping[int, int], tails: Mapping[int, str] | None = None) -> list[Finding]:
    """TR110: rank processes that exited non-zero (a negative status is a signal)."""
    bad = {r: c for r, c in exits.items() if c != 0}
    if not bad:
        return []
    import signal as _signal

    def describe(c: int) -> str:
        if c < 0:
            try:
                return f"killed by {_signal.Signals(-c).name}"
            except ValueError:
                return f"killed by signal {-c}"
        return f"exit status {c}"

    desc = "; ".join(f"rank {r}: {describe(c)}" for r, c in sorted(bad.items()))
    evidence: dict[str, Any] = {f"rank {r}": describe(c) for r, c in sorted(bad.items())}
    for r, tail in sorted((tails or {}).items()):
        if r in bad and tail.strip():
            evidence[f"rank {r} stderr (tail)"] = tail.strip()[-800:]
    return [finding("TR110", Status.ERROR, f"Rank processes failed: {desc}.", evidence=evidence,
                    fix=Fix("Read the failing rank's own error above; `torchdoctor explain` explains a saved log",
                            ("torchdoctor explain --file rank.log",)),
                    related=("dataloader-worker-killed",) if any(c == -9 for c in bad.values()) else ())]


def bandwidth(rows: list[Mapping[str, Any]], world_size: int, backend: str, *, requested: bool = True) -> list[Finding]:
    """TR111: informational, the measured table (no thresholds on CPU/gloo: loopback TCP says nothing)."""
    if requested and world_size == 1:
        return [finding("TR111", Status.SKIP,
                        "Bandwidth not measured: a single rank has no peer, so its collectives move no data between "
                        "devices (the figures would be a local copy's).",
                        fix=Fix("Measure between GPUs with two or more ranks", ("torchdoctor dist --nproc 2",)))]
    if not rows:
        return []
    best = max(rows, key=lambda r: r["busbw_gbps"])
    return [finding("TR111", Status.OK,
                    f"Measured {len(rows)} collective timings over {world_size} ranks ({backend}); best busbw "
                    f"{best['busbw_gbps']:.3f} GB/s ({best['op']}, {best['bytes']} B).",
                    evidence={"best": dict(best)})]
