from __future__ import annotations

from typing import Any

from torchdoctor.facts.model import known
from torchdoctor.model import Fix, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import from_pasted_report

# An alive process holding at least this much GPU memory is worth naming; desktops keep a few
# hundred MiB in Xorg and the compositor, which is nobody's problem.
LARGE_MIB = 1024

QUERY = "nvidia-smi --query-compute-apps=gpu_bus_id,pid,process_name,used_memory --format=csv"


def _gpu(index: int, *processes: dict[str, Any]) -> dict[str, Any]:
    return {"index": index, "name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559, "processes": list(processes)}


def _p(pid: int, mib: int | None, alive: bool | None = True, **more: Any) -> dict[str, Any]:
    return {"pid": pid, "used_memory_mib": mib, "alive": alive, **more}


@env_check(
    code="TE206",
    name="gpu-memory-orphaned",
    title="No GPU memory held by dead, zombie or leftover processes",
    area="NVIDIA driver & GPUs",
    needs=("nvidia.gpus",),
    examples=[
        Example("ok", {"nvidia": {"gpus": [_gpu(0), _gpu(1)]}}, "idle GPUs"),
        Example("ok", {"nvidia": {"gpus": [_gpu(0, _p(2301, 310, name="Xorg", state="sleeping", user="root"))]}},
                "a desktop's display server is small and normal"),
        Example("skip", {"nvidia": {"gpus": []}}, "no NVIDIA GPU"),
        Example("error", {"nvidia": {"gpus": [_gpu(0), _gpu(1, _p(48121, 30722, alive=False))]}},
                "memory held for a process that no longer exists", contains="48121"),
        Example("error", {"nvidia": {"gpus": [_gpu(0, _p(5120, 14000, name="python", state="zombie", user="alice"))]}},
                "a zombie: only its parent can reap it", contains="ps -o ppid= -p 5120"),
        Example("warning", {"nvidia": {"gpus": [_gpu(0, _p(7781, 20480, name="pt_data_worker", state="sleeping", user="bob"))]},
                            "python": {"user": "alice"}},
                "another user's process", contains="bob"),
        Example("warning", {"nvidia": {"gpus": [_gpu(3, _p(9001, 40960, name="python3", state="running", user="alice"))]},
                            "python": {"user": "alice"}},
                "one of our own processes, maybe a leftover", contains="9001"),
        Example("warning", {"nvidia": {"gpus": [_gpu(0, _p(1234567, 70000, alive=None))]}},
                "pids from the host, seen from a container", contains="--pid=host"),
        Example("ok", {"nvidia": {"gpus": [_gpu(0, _p(1234567, 200, alive=None))]}},
                "small unknown processes: not worth a warning"),
        Example("skip", {"nvidia": {"gpus": [{"index": 0, "processes": {"unknown": "nvmlDeviceGetComputeRunningProcesses failed"}}]}},
                "the process list could not be read"),
    ],
)
def gpu_memory_orphaned(facts):
    """
    ## What it checks
    Every process NVML says holds memory on a GPU, matched with the processes of this machine:
    pids that no longer exist, zombies, and live processes that hold a large share of a GPU.

    ## Why it matters
    A training run killed uncleanly (Ctrl-C under torchrun, an OOM kill, a crashed DataLoader)
    can leave children that keep their CUDA context, or a context the driver has not released.
    The next run then fails with `CUDA out of memory` on an empty-looking machine, or NCCL hangs
    on a busy GPU. nvidia-smi lists the memory but not whether its owner is still alive.

    ## How to fix
    End leftover processes you own (`kill <pid>`); a zombie goes away only when its parent reaps
    it or ends. When memory is held for a pid that no longer exists, find the processes that
    still have the GPU open (`fuser -v /dev/nvidia*`) and end them; reset the GPU
    (`nvidia-smi --gpu-reset -i N`) only as a last resort. Another user's job: choose a free GPU
    with `CUDA_VISIBLE_DEVICES`. Inside a container, NVML reports host pids: run the doctor with
    `--pid=host` to see them, or check on the host.
    """
    gpus = facts.nvidia.gpus
    if not gpus:
        return skip("no NVIDIA GPU")
    me = facts.python.user if known(facts.python) and known(facts.python.user) else None
    read = [g for g in gpus if isinstance(g.processes, list)]
    if not read:
        return skip("the process list of every GPU is unknown: " + str(gpus[0].processes))

    dead, zombies, busy, hidden = [], [], [], []
    for g in read:
        for p in g.processes:
            row = (g.index, p)
            if p.alive is False:
                dead.append(row)
            elif p.state == "zombie":
                zombies.append(row)
            elif p.alive is None:
                hidden.append(row)
            elif (p.used_memory_mib or 0) >= LARGE_MIB:
                busy.append(row)
    evidence: dict[str, Any] = {}
    for label, rows in (("dead", dead), ("zombie", zombies), ("alive", busy), ("not visible here", hidden)):
        if rows:
            evidence[f"processes ({label})"] = [_describe(i, p) for i, p in rows]
    unread = [g.index for g in gpus if not isinstance(g.processes, list)]
    if unread:
        evidence["GPUs whose processes are unknown"] = unread

    if dead or zombies:
        parts = []
        commands = [QUERY]
        if dead:
            parts.append("GPU memory is held for processes that no longer exist: "
                         + "; ".join(_describe(i, p) for i, p in dead))
            commands += ["sudo fuser -v /dev/nvidia*  # processes that still hold the GPU open: children of the dead one",
                         "kill <pid>  # each leftover listed by fuser (kill -9 if it ignores SIGTERM)"]
        if zombies:
            parts.append("zombie processes are still listed on the GPU: "
                         + "; ".join(_describe(i, p) for i, p in zombies))
            for _, p in zombies[:3]:
                commands.append(f"ps -o ppid= -p {p.pid}  # its parent; end that one (kill -9 <ppid>) unless it is PID 1 "
                                "or your shell")
        devices = sorted({i for i, _ in dead + zombies})
        commands += [f"sudo nvidia-smi --gpu-reset -i {i}  # last resort, with nothing else running on GPU {i}"
                     for i in devices]
        return error("; ".join(parts),
                     fix=Fix("End the processes that still hold the GPU; reset the GPU only if the memory stays held",
                             tuple(commands)),
                     evidence=evidence, related=("cuda-out-of-memory",))

    if busy:
        foreign = [(i, p) for i, p in busy if me is not None and p.user is not None and p.user != me]
        own = [(i, p) for i, p in busy if (i, p) not in foreign]
        parts = []
        commands = [QUERY, "ps -o pid,ppid,user,etime,cmd -p " + ",".join(str(p.pid) for _, p in busy)]
        if own:
            parts.append("; ".join(_describe(i, p) for i, p in own)
                         + " (if that is a leftover of an earlier run, e.g. orphaned DataLoader workers, end it)")
            commands.append("kill " + " ".join(str(p.pid) for _, p in own) + "  # only if it is a leftover of yours")
        if foreign:
            parts.append("other users' processes: " + "; ".join(_describe(i, p) for i, p in foreign))
            free = sorted({g.index for g in gpus} - {i for i, _ in busy})
            if free:
                commands.append(f"export CUDA_VISIBLE_DEVICES={','.join(map(str, free))}  # GPUs nobody is using")
        return warning("GPU memory is already in use: " + "; ".join(parts),
                       fix=Fix("Make sure the GPUs you train on are free: end your own leftovers, pick GPUs other "
                               "users are not on", tuple(commands)),
                       evidence=evidence, related=("cuda-out-of-memory",))

    hidden_mib = sum(p.used_memory_mib or 0 for _, p in hidden)
    if hidden and from_pasted_report(facts):
        # A pasted nvidia-smi lists pids of another machine: a training run there looks the same as a leftover.
        return skip(f"not checked: whether the {len(hidden)} process(es) the pasted nvidia-smi lists ({hidden_mib} MiB) "
                    "are alive is unknown (a leftover and a running job look the same in a paste; `torchdoctor env` "
                    "on that machine tells them apart)", **evidence)
    if hidden_mib >= LARGE_MIB:
        return warning(f"{len(hidden)} process(es) hold {hidden_mib} MiB of GPU memory, and their pids (host pids, "
                       "as NVML reports them) are not visible from this container, so whether they are alive cannot "
                       "be told: " + "; ".join(_describe(i, p) for i, p in hidden),
                       fix=Fix("Look from the host, or give the container the host's PID namespace",
                               ("docker run --pid=host ...  # then run torchdoctor env again", f"{QUERY}  # on the host",
                                "ps -o pid,user,etime,cmd -p <pid>  # on the host")),
                       evidence=evidence)
    total = sum(len(g.processes) for g in read)
    return ok(f"{total} process(es) on {len(read)} GPU(s), none dead, zombie or holding {LARGE_MIB} MiB or more"
              if total else f"no process holds memory on the {len(read)} GPU(s)", **evidence)


def _describe(index: int, p: Any) -> str:
    """"pid 7781 (pt_data_worker, user bob) holds 20480 MiB on GPU 0"."""
    what = [x for x in (p.name, f"user {p.user}" if p.user else None) if x]
    mem = f"{p.used_memory_mib} MiB" if p.used_memory_mib is not None else "memory (amount unknown)"
    return f"pid {p.pid}" + (f" ({', '.join(what)})" if what else "") + f" holds {mem} on GPU {index}"
