"""`torchdoctor dist`: a distributed sanity test that names the rank at fault instead of hanging.

Two ways in:
- under a launcher (`torchrun --nproc_per_node N -m torchdoctor dist`): every process is a rank
  (`rank_main`); rank 0 prints the report;
- `torchdoctor dist --nproc N`: this process starts N ranks itself (`spawn`), each in its own process
  group, collects rank 0's report, adds what it saw (crashes, ranks still running at the deadline),
  and kills every rank's process group before it returns.

Phases of a rank, each bounded by `timeout` seconds:
 1. launch environment (no communication): TR101;
 2. presence: every rank publishes its launch environment and versions in the rendezvous store;
    rank 0 waits for all of them and names the ones that never arrive (TR103), then compares
    (TR102, TR105-TR107) and tells the others to go on or stop;
 3. init_process_group, then monitored_barrier on a gloo group: a rank that does not arrive is
    named (TR104) instead of a hang;
 4. all_reduce / all_gather / broadcast / barrier with known values (TR108, TR109);
 5. bandwidth: nccl-tests' algbw = S/t and busbw = algbw * factor(op, n), S the total buffer size,
    t the slowest rank's mean time (TR111);
 6. every rank publishes its results in the store; rank 0 gathers them and reports.

A watchdog thread ends a rank that outlives all phases, so nothing runs forever even under a
launcher that would wait. Tests make one rank stall with TORCHDOCTOR_DIST_TEST_STALL_RANK=<rank>
(and TORCHDOCTOR_DIST_TEST_STALL_AT=presence|barrier, default barrier).
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..model import Finding, Status, summarize
from . import dist_checks as C

SCHEMA = "torchdoctor.dist/v1"
STALL_RANK = "TORCHDOCTOR_DIST_TEST_STALL_RANK"
STALL_AT = "TORCHDOCTOR_DIST_TEST_STALL_AT"
CRASH_RANK = "TORCHDOCTOR_DIST_TEST_CRASH_RANK"  # tests: this rank raises before it arrives
REPORT_FILE = "TORCHDOCTOR_DIST_REPORT_FILE"  # spawn mode: rank 0 writes its report here
DEFAULT_SIZES = (1 << 10, 1 << 20, 16 << 20)


@dataclass
class Options:
    backend: str | None = None
    timeout: float = 30.0
    sizes: tuple[int, ...] = DEFAULT_SIZES
    iters: int = 5
    warmup: int = 2
    bandwidth: bool = True


@dataclass
class Report:
    backend: str
    world_size: int
    ranks: dict[int, dict[str, Any]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    bandwidth: list[dict[str, Any]] = field(default_factory=list)
    phases: dict[str, str] = field(default_factory=dict)

    def failed(self) -> bool:
        return any(f.status in (Status.ERROR, Status.CRASH) for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "backend": self.backend,
            "world_size": self.world_size,
            "ok": not self.failed(),
            "phases": self.phases,
            "ranks": [dict(rank=r, **info) for r, info in sorted(self.ranks.items())],
            "bandwidth": self.bandwidth,
            "findings": [f.to_json() for f in self.findings],
            "summary": summarize(self.findings),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        from ..model import Fix

        findings = []
        for f in data.get("findings", []):
            fix = f.get("fix")
            findings.append(Finding(code=f["code"], name=f["name"], area=f["area"], status=Status(f["status"]),
                                    title=f["title"], message=f["message"], evidence=f.get("evidence") or {},
                                    fix=Fix(fix["summary"], tuple(fix.get("commands", ()))) if fix else None,
                                    related=tuple(f.get("related", ()))))
        ranks = {int(r.pop("rank")): r for r in (dict(x) for x in data.get("ranks", []))}
        return cls(backend=data.get("backend", "?"), world_size=int(data.get("world_size", 0)), ranks=ranks,
                   findings=findings, bandwidth=list(data.get("bandwidth", [])), phases=dict(data.get("phases", {})))


# --------------------------------------------------------------------------- one rank

def launch_env(environ: dict[str, str] | os._Environ[str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {k: environ[k] for k in C.LAUNCH_ENV if k in environ}


def under_launcher(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    environ = os.environ if environ is None else environ
    return any(k in environ for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "TORCHELASTIC_RUN_ID"))


def rank_info(torch: Any, env: dict[str, str]) -> dict[str, Any]:
    """What a rank publishes: versions, host, device (compared by dist_checks)."""
    import platform

    from .. import __version__

    info: dict[str, Any] = {
        "host": socket.gethostname(), "pid": os.getpid(),
        "torch": torch.__version__, "torch_git": getattr(torch.version, "git_version", None),
        "cuda": torch.version.cuda, "nccl": None, "driver": None,
        "python": platform.python_version(), "torchdoctor": __version__,
        "device": "cpu", "gpu_uuid": None,
        "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "env": env,
    }
    try:
        if torch.cuda.is_available():
            local = int(env.get("LOCAL_RANK", "0")) % max(1, torch.cuda.device_count())
            info["device"] = f"cuda:{local}"
            props = torch.cuda.get_device_properties(local)
            info["gpu_uuid"] = str(getattr(props, "uuid", "")) and f"GPU-{props.uuid}"
            info["gpu_name"] = props.name
            nccl = torch.cuda.nccl.version()
            info["nccl"] = ".".join(map(str, nccl)) if isinstance(nccl, tuple) else str(nccl)
            try:
                import pynvml

                pynvml.nvmlInit()
                drv = pynvml.nvmlSystemGetDriverVersion()
                info["driver"] = drv.decode() if isinstance(drv, bytes) else drv
            except Exception:
                pass
    except Exception as exc:  # a broken CUDA setup is reported, not fatal to the check
        info["cuda_error"] = f"{type(exc).__name__}: {exc}"
    return info


def _stall_here(rank: int, phase: str) -> None:
    if os.environ.get(STALL_RANK) == str(rank) and os.environ.get(STALL_AT, "barrier") == phase:
        time.sleep(10**6)  # ended by the watchdog, the launcher or the spawning parent


def _watchdog(seconds: float, rank: int) -> None:
    def fire() -> None:
        sys.stderr.write(f"torchdoctor dist: rank {rank} gave up after {seconds:g} s\n")
        sys.stderr.flush()
        os._exit(3)

    t = threading.Timer(seconds, fire)
    t.daemon = True
    t.start()


def _wait_keys(store: Any, keys: list[str], deadline: float) -> list[str]:
    """Poll the store until every key exists or the deadline passes; the keys that arrived."""
    while True:
        present = [k for k in keys if store.check([k])]
        if len(present) == len(keys) or time.monotonic() >= deadline:
            return present
        time.sleep(0.05)


def _make_store(torch_dist: Any, env: dict[str, str], rank: int, world: int, timeout: float) -> Any:
    from datetime import timedelta

    addr, port = env["MASTER_ADDR"], int(env["MASTER_PORT"])
    # torchrun hosts the store in its agent (TORCHELASTIC_USE_AGENT_STORE); otherwise rank 0 does.
    agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() in ("1", "true")
    return torch_dist.TCPStore(addr, port, world, is_master=(rank == 0 and not agent),
                               timeout=timedelta(seconds=timeout), wait_for_workers=False)


def rank_main(opts: Options) -> tuple[int, Report | None]:
    """Run one rank. Returns (exit status, the report on rank 0 / None elsewhere)."""
    env = launch_env()
    rank_guess = env.get("RANK")
    problems = C.env_missing(rank_guess, env)
    if problems:
        rep = Report(backend=opts.backend or "?", world_size=int(env["WORLD_SIZE"]) if str(env.get("WORLD_SIZE", "")).isdigit() else 0,
                     findings=problems, phases={"env": "failed"})
        return 1, rep  # every rank that can't start says so itself: there is no rank 0 to tell
    rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
    _watchdog(opts.timeout * 5 + 60 + (30 if opts.bandwidth else 0), rank)

    import torch
    import torch.distributed as dist

    backend = opts.backend or ("nccl" if torch.cuda.is_available() and dist.is_nccl_available() else "gloo")
    rep = Report(backend=backend, world_size=world)
    info = rank_info(torch, env)
    restart = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    from datetime import timedelta

    base = _make_store(dist, env, rank, world, opts.timeout)
    store = dist.PrefixStore(f"torchdoctor/dist/{restart}/", base)

    # -- 2. presence
    _stall_here(rank, "presence")
    if os.environ.get(CRASH_RANK) == str(rank):
        raise RuntimeError(f"{CRASH_RANK}={rank}: this rank crashes on purpose")
    store.set(f"arrive/{rank}", json.dumps(info))
    go_ok = True
    if rank == 0:
        keys = [f"arrive/{r}" for r in range(world)]
        present = _wait_keys(store, keys, time.monotonic() + opts.timeout)
        arrived = sorted(int(k.split("/")[1]) for k in present)
        infos = {r: json.loads(store.get(f"arrive/{r}")) for r in arrived}
        rep.ranks = {r: {k: v for k, v in i.items()} for r, i in infos.items()}
        rep.findings += C.missing_ranks(world, arrived, "presence", opts.timeout)
        envs = {r: dict(i["env"], host=i["host"]) for r, i in infos.items()}
        rep.findings += C.env_consistency(envs, world)
        rep.findings += C.version_mismatch(infos)
        rep.findings += C.gpu_shared(infos, backend)
        go_ok = not rep.failed()
        rep.phases["presence"] = "ok" if go_ok else "failed"
        store.set("go", "1" if go_ok else "0")
    else:
        try:
            store.wait(["go"], timedelta(seconds=opts.timeout * 2))
            go_ok = store.get("go") == b"1"
        except Exception:
            sys.stderr.write(f"torchdoctor dist: rank {rank}: rank 0 did not answer within {opts.timeout * 2:g} s\n")
            return 1, None
    if not go_ok:
        return 1, rep if rank == 0 else None

    # -- 3. init + monitored barrier
    results: dict[str, Any] = {}
    stalled: list[int] = []
    barrier_msg = ""
    try:
        if backend == "nccl":
            torch.cuda.set_device(int(env.get("LOCAL_RANK", "0")))
        dist.init_process_group(backend, store=dist.PrefixStore(f"torchdoctor/pg/{restart}/", base),
                                rank=rank, world_size=world, timeout=timedelta(seconds=opts.timeout))
        rep.phases["init"] = "ok"
    except Exception as exc:
        results["init_process_group"] = {"ok": False, "error": _short(exc)}
        rep.phases["init"] = "failed"
    barrier_ok = False
    if rep.phases.get("init") == "ok":
        group = None if backend == "gloo" else dist.new_group(backend="gloo")
        _stall_here(rank, "barrier")
        try:
            dist.monitored_barrier(group=group, timeout=timedelta(seconds=opts.timeout), wait_all_ranks=True)
            barrier_ok = True
        except Exception as exc:
            barrier_msg = _short(exc)
            stalled = parse_monitored_barrier(barrier_msg)
            # Ranks that did arrive hear only "check rank 0": rank 0 names the culprit.
            if not stalled and "successfully reached monitoredBarrier" not in barrier_msg:
                results["monitored_barrier"] = {"ok": False, "error": barrier_msg}
        rep.phases["barrier"] = "ok" if barrier_ok else "failed"

    # -- 4 + 5. collectives and bandwidth
    if barrier_ok:
        device = torch.device(f"cuda:{torch.cuda.current_device()}") if backend == "nccl" else torch.device("cpu")
        results.update(check_collectives(torch, dist, rank, world, device))
        # One rank has no peer: its collectives copy in place, and the "bandwidth" would be a memory copy's.
        if opts.bandwidth and world > 1 and all(r.get("ok") for r in results.values()):
            try:
                rep.bandwidth = measure_bandwidth(torch, dist, world, device, opts)
            except Exception as exc:
                results["bandwidth"] = {"ok": False, "error": _short(exc)}
        rep.phases["collectives"] = "ok" if all(r.get("ok") for r in results.values()) else "failed"

    # -- 6. gather results through the store (collectives may be what is broken)
    store.set(f"result/{rank}", json.dumps(results))
    if rank != 0:
        _finish(dist)
        return (0 if barrier_ok and all(r.get("ok") for r in results.values()) else 1), None
    waiting = [r for r in range(world) if r not in stalled]
    # Ranks the barrier already named are not waited for again; a short grace for the rest.
    budget = opts.timeout if not stalled else min(opts.timeout, 5.0)
    present = _wait_keys(store, [f"result/{r}" for r in waiting], time.monotonic() + budget)
    reported = sorted(int(k.split("/")[1]) for k in present)
    per_rank = {r: json.loads(store.get(f"result/{r}")) for r in reported}
    rep.findings += C.stalled_at_barrier(stalled, opts.timeout, barrier_msg)
    if not stalled:
        rep.findings += C.missing_ranks(world, reported, "report", budget)
    else:
        late = sorted(set(waiting) - set(reported))
        if late:
            rep.findings += C.missing_ranks(world, [r for r in range(world) if r not in late], "report", budget)
    rep.findings += C.collective_results(per_rank)
    rep.findings += C.bandwidth(rep.bandwidth, world, backend, requested=opts.bandwidth)
    _finish(dist)
    return (1 if rep.failed() else 0), rep


def _finish(dist: Any) -> None:
    try:
        if dist.is_initialized():
            dist.destroy_process_group()
    except Exception:
        pass


def _short(exc: BaseException) -> str:
    from ..text import shorten

    return f"{type(exc).__name__}: {shorten(str(exc), 400)}"


_MB_RANKS = re.compile(r"Ranks? ([\d,\s]+?) failed to pass monitoredBarrier")


def parse_monitored_barrier(message: str) -> list[int]:
    """The ranks gloo's monitored_barrier names ("Ranks 1, 3 failed to pass monitoredBarrier")."""
    m = _MB_RANKS.search(message)
    return sorted({int(x) for x in re.findall(r"\d+", m.group(1))}) if m else []


def check_collectives(torch: Any, dist: Any, rank: int, world: int, device: Any) -> dict[str, Any]:
    """all_reduce / all_gather / broadcast / barrier with values every rank can predict."""
    out: dict[str, Any] = {}

    def record(name: str, fn: Any) -> None:
        try:
            got, expected = fn()
            out[name] = {"ok": got == expected, **({} if got == expected else {"got": got, "expected": expected})}
        except Exception as exc:
            out[name] = {"ok": False, "error": _short(exc)}

    def all_reduce() -> tuple[Any, Any]:
        t = torch.full((8,), float(rank + 1), device=device)
        dist.all_reduce(t)
        return sorted(set(t.cpu().tolist())), [world * (world + 1) / 2]

    def all_gather() -> tuple[Any, Any]:
        mine = torch.arange(3, device=device, dtype=torch.float32) + 10 * rank
        bufs = [torch.zeros(3, device=device) for _ in range(world)]
        dist.all_gather(bufs, mine)
        return [b.cpu().tolist() for b in bufs], [[10.0 * r + i for i in range(3)] for r in range(world)]

    def broadcast() -> tuple[Any, Any]:
        t = (torch.arange(5, device=device, dtype=torch.float32) + 100) if rank == 0 else torch.zeros(5, device=device)
        dist.broadcast(t, src=0)
        return t.cpu().tolist(), [100.0, 101.0, 102.0, 103.0, 104.0]

    def barrier() -> tuple[Any, Any]:
        dist.barrier()
        return True, True

    for name, fn in (("all_reduce", all_reduce), ("all_gather", all_gather), ("broadcast", broadcast),
                     ("barrier", barrier)):
        record(name, fn)
    return out


def _bandwidth_call(torch: Any, dist: Any, op: str, numel: int, world: int, device: Any) -> Any:
    """One call of `op` over a buffer of `numel` float32 in all (the buffers are allocated once)."""
    if op == "all_gather":
        inp = torch.ones(numel // world, device=device)
        outs = [torch.empty(numel // world, device=device) for _ in range(world)]
        return lambda: dist.all_gather(outs, inp)
    buf = torch.ones(numel, device=device)
    if op == "all_reduce":
        return lambda: dist.all_reduce(buf)
    return lambda: dist.broadcast(buf, src=0)


def measure_bandwidth(torch: Any, dist: Any, world: int, device: Any, opts: Options) -> list[dict[str, Any]]:
    """nccl-tests style: S = total bytes of the op's buffer, t = slowest rank's mean time."""
    rows = []
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    for op in ("all_reduce", "all_gather", "broadcast"):
        for size in opts.sizes:
            numel = max(world, size // 4)
            numel -= numel % world
            call = _bandwidth_call(torch, dist, op, numel, world, device)
            for _ in range(opts.warmup):
                call()
            sync()
            dist.barrier()
            start = time.perf_counter()
            for _ in range(opts.iters):
                call()
            sync()
            mine = (time.perf_counter() - start) / opts.iters
            t = torch.tensor([mine], dtype=torch.float64, device=device)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            seconds = float(t.item())
            nbytes = numel * 4
            algbw = nbytes / seconds / 1e9
            rows.append({"op": op, "bytes": nbytes, "time_us": round(seconds * 1e6, 1),
                         "algbw_gbps": round(algbw, 4),
                         "busbw_gbps": round(algbw * C.busbw_factor(op, world), 4)})
    return rows


# --------------------------------------------------------------------------- spawning the ranks

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(nproc: int, opts: Options, worker_args: list[str]) -> Report:
    """Start `nproc` ranks of `python -m torchdoctor dist` on this host and build the report."""
    import signal
    import subprocess
    import tempfile

    tmp = tempfile.mkdtemp(prefix="torchdoctor-dist-")
    report_path = os.path.join(tmp, "report.json")
    port = free_port()
    procs: dict[int, subprocess.Popen[bytes]] = {}
    logs = {}
    try:
        for r in range(nproc):
            env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(nproc), LOCAL_RANK=str(r),
                       LOCAL_WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                       **{REPORT_FILE: report_path})
            env.pop("TORCHELASTIC_USE_AGENT_STORE", None)
            logs[r] = open(os.path.join(tmp, f"rank{r}.log"), "w+b")
            procs[r] = subprocess.Popen([sys.executable, "-m", "torchdoctor", "dist", *worker_args],
                                        env=env, stdin=subprocess.DEVNULL, stdout=logs[r], stderr=subprocess.STDOUT,
                                        start_new_session=True)
        # Startup (import torch on every rank) + presence + barrier + results, with room to spare.
        deadline = time.monotonic() + opts.timeout * 4 + 60 + (30 if opts.bandwidth else 0)
        rank0_done_at = None
        while time.monotonic() < deadline:
            codes = {r: p.poll() for r, p in procs.items()}
            if all(c is not None for c in codes.values()):
                break
            if codes[0] is not None:
                rank0_done_at = rank0_done_at or time.monotonic()
                if time.monotonic() - rank0_done_at > 1.0:
                    break  # rank 0 has reported; the rest get a short grace, then the kill
            time.sleep(0.05)
        exits = {r: p.poll() for r, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for p in procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        # A rank's own children (gloo has none; user hooks might) share its process group.
        for p in procs.values():
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    tails = {}
    for r, fh in logs.items():
        fh.seek(0)
        tails[r] = fh.read()[-4000:].decode("utf-8", "replace")
        fh.close()
    report = None
    if os.path.exists(report_path):
        try:
            with open(report_path) as fh:
                report = Report.from_json(json.load(fh))
        except (OSError, ValueError, KeyError):
            report = None
    still_running = sorted(r for r, c in exits.items() if c is None)
    if report is None:
        report = Report(backend=opts.backend or "?", world_size=nproc)
        report.findings += C.missing_ranks(nproc, [r for r in range(nproc) if r not in still_running], "finish",
                                           opts.timeout * 4)
        report.findings += C.crashed({r: c for r, c in exits.items() if c is not None}, tails)
        if not report.findings:
            report.findings += C.crashed({0: exits[0] if exits[0] is not None else 1}, tails)
    else:
        missing = {r for f in report.findings for r in f.evidence.get("missing", [])}
        # Ranks that failed on their own: a rank rank 0 found missing because it died (its output
        # says why), or any failed rank in an otherwise healthy report. Not the ranks that only
        # failed because a peer was already named, nor the ones we killed at the end.
        crashes = {r: c for r, c in exits.items() if c not in (None, 0) and r != 0
                   and (r in missing or not report.failed())}
        report.findings += C.crashed(crashes, tails)
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)
    return report


# --------------------------------------------------------------------------- rendering

def render_text(report: Report, console: Any, *, verbose: bool = False) -> None:
    from rich.text import Text

    from ..render.human import _finding

    from ..text import plural

    def cell(value: Any) -> str:  # a CPU rank has no CUDA or NCCL version: a dash, not "None"
        return "-" if value is None or value == "" else str(value)

    console.print(Text(f"torchdoctor dist: {plural(report.world_size, 'rank')}, backend {report.backend}", style="bold"))
    if report.ranks:
        console.print()
        head = f"  {'rank':>4}  {'host':<20} {'pid':>7}  {'torch':<14} {'cuda':<6} {'nccl':<8} {'python':<8} device"
        console.print(Text(head, style="dim"), soft_wrap=True)
        for r, i in sorted(report.ranks.items()):
            console.print(f"  {r:>4}  {cell(i.get('host'))[:20]:<20} {cell(i.get('pid')):>7}  {cell(i.get('torch')):<14} "
                          f"{cell(i.get('cuda')):<6} {cell(i.get('nccl')):<8} {cell(i.get('python')):<8} "
                          f"{cell(i.get('device'))}".rstrip(), soft_wrap=True, highlight=False)
    shown = [f for f in report.findings if f.status is not Status.OK or verbose]
    if shown:
        console.print()
        for f in shown:
            _finding(f, console, verbose)
    if report.bandwidth:
        console.print()
        console.print(Text(f"  {'op':<11} {'bytes':>11} {'time (us)':>11} {'algbw GB/s':>11} {'busbw GB/s':>11}",
                           style="dim"), soft_wrap=True)
        for row in report.bandwidth:
            console.print(f"  {row['op']:<11} {row['bytes']:>11} {row['time_us']:>11.1f} {row['algbw_gbps']:>11.3f} "
                          f"{row['busbw_gbps']:>11.3f}", soft_wrap=True, highlight=False)
    console.print()
    checks = ", ".join(f"{k} {v}" for k, v in report.phases.items())
    if report.failed():
        errors = sum(f.status is Status.ERROR for f in report.findings)
        console.print(Text(f"torchdoctor dist: FAILED ({errors} error{'s' if errors != 1 else ''}; {checks})",
                           style="bold red"), soft_wrap=True)
    else:
        every = "the only rank" if report.world_size == 1 else f"all {report.world_size} ranks"
        console.print(Text(f"torchdoctor dist: {every} healthy ({checks})", style="bold green"),
                      soft_wrap=True)


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"
