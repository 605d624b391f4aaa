from torchdoctor.facts.model import known
from torchdoctor.model import Fix, error, ok, warning
from torchdoctor.registry import Example, env_check

MiB = 1 << 20
GiB = 1 << 30
MINIMUM = 512 * MiB  # DeepSpeed's ds_report threshold; Docker's default is 64 MiB
MULTI_GPU_MINIMUM = 2 * GiB  # NCCL's shared-memory transport between local ranks
FULL_FRACTION = 0.10

_DOCKER_FIX = ("docker run --shm-size=16g ...  # or --ipc=host",
               "# Kubernetes: mount an emptyDir with medium: Memory at /dev/shm")
_HOST_FIX = ("sudo mount -o remount,size=16G /dev/shm",)


def _shm(total_mib, free_mib=None):
    free = total_mib if free_mib is None else free_mib
    return {"shm_total_bytes": total_mib * MiB, "shm_free_bytes": free * MiB}


@env_check(
    code="TE402",
    name="shm-too-small",
    title="Shared memory (/dev/shm) large enough for DataLoader workers and NCCL",
    area="host & data loading",
    needs=("host.shm_total_bytes",),
    examples=[
        Example("error", {"host": _shm(64), "python": {"container": "docker"}},
                "Docker's default 64 MiB", contains="--shm-size=16g"),
        Example("warning", {"host": _shm(256), "python": {"container": None}},
                "small, outside a container", contains="remount"),
        Example("error", {"host": {"shm_total_bytes": None, "shm_free_bytes": None}, "python": {"system": "Linux"}},
                "no /dev/shm at all", contains="no /dev/shm"),
        Example("ok", {"host": {"shm_total_bytes": None, "shm_free_bytes": None}, "python": {"system": "Darwin"}},
                "macOS has no /dev/shm and does not need one"),
        Example("warning", {"host": _shm(1024), "nvidia": {"gpus": [{"index": 0}, {"index": 1}]}},
                "1 GiB shared by two GPUs' ranks", contains="2 GPUs"),
        Example("ok", {"host": _shm(1024), "nvidia": {"gpus": [{"index": 0}]}}, "1 GiB, one GPU"),
        Example("warning", {"host": _shm(16384, 512)}, "nearly full", contains="ls -la /dev/shm"),
        Example("ok", {"host": _shm(32768, 30000)}, "a healthy host"),
    ],
)
def shm_too_small(facts):
    """
    ## What it checks
    The size and free space of `/dev/shm`, the shared memory that DataLoader workers pass
    batches through and that NCCL uses between ranks on one machine.

    ## Why it matters
    With `num_workers > 0` every batch crosses `/dev/shm`; when it fills, workers die with
    `DataLoader worker (pid N) is killed by signal: Bus error` or `No space left on device`
    (pytorch#5040). NCCL's shared-memory transport fails with `ncclShmOpen` errors or crashes.
    Docker gives a container 64 MiB unless told otherwise. Files left by crashed jobs can fill
    it as well.

    ## How to fix
    Start the container with `--shm-size=16g` (or `--ipc=host`); on Kubernetes mount an
    `emptyDir` with `medium: Memory` at `/dev/shm`. On a host, remount it larger. Meanwhile,
    fewer workers or a smaller `prefetch_factor` need less of it.
    """
    total = facts.host.shm_total_bytes
    free = facts.host.shm_free_bytes
    container = facts.get("python.container")
    container = container if known(container) else None
    system = facts.get("python.system")
    fix_commands = _DOCKER_FIX if container else _HOST_FIX
    related = ("dataloader-shm-exhausted",)

    if total is None:
        if known(system) and system != "Linux":
            return ok(f"no /dev/shm on {system}; it is not used there")
        return error("there is no /dev/shm: DataLoader workers (num_workers > 0) and NCCL cannot share memory",
                     evidence={"/dev/shm": "missing", "container": container},
                     fix=Fix("Mount a tmpfs at /dev/shm" + (" (the container runtime usually does this; "
                             "start it with --ipc=host or --shm-size)" if container else ""),
                             _DOCKER_FIX if container else ("sudo mount -t tmpfs -o size=16G tmpfs /dev/shm",)),
                     related=related)

    evidence = {"/dev/shm size": _size(total), "free": _size(free) if free is not None else "unknown",
                "container": container}
    if total < MINIMUM:
        where = f"in this {container} container" if container else "on this machine"
        message = (f"/dev/shm is {_size(total)} {where} (below {_size(MINIMUM)}): DataLoader workers die with "
                   "'Bus error' and NCCL cannot use shared memory")
        fix = Fix("Give the container more shared memory" if container else "Remount /dev/shm larger",
                  fix_commands)
        if container:
            return error(message, fix=fix, evidence=evidence, related=related)
        return warning(message, fix=fix, evidence=evidence, related=related)

    gpus = facts.get("nvidia.gpus")
    n_gpus = len(gpus) if known(gpus) else 0
    if n_gpus > 1 and total < MULTI_GPU_MINIMUM:
        return warning(f"/dev/shm is {_size(total)} for {n_gpus} GPUs: one process per GPU with DataLoader workers "
                       f"each, and NCCL between them, need more (at least {_size(MULTI_GPU_MINIMUM)})",
                       fix=Fix("Give /dev/shm more room" + (" (container option)" if container else ""), fix_commands),
                       evidence={**evidence, "GPUs": n_gpus}, related=related)

    if free is not None and free < FULL_FRACTION * total:
        return warning(f"/dev/shm is nearly full: {_size(free)} free of {_size(total)}; files left by crashed "
                       "jobs (torch_*, nccl-*, sem.*) may be holding it",
                       fix=Fix("Find what fills it and remove the files of processes that no longer run",
                               ("ls -la /dev/shm",
                                "lsof +D /dev/shm  # files still in use; the others belong to processes that are gone")),
                       evidence=evidence, related=related)

    return ok(f"/dev/shm is {_size(total)} ({_size(free) if free is not None else 'unknown'} free)", **evidence)


def _size(n: int | None) -> str:
    if n is None:
        return "unknown"
    if n >= GiB:
        return f"{n / GiB:.1f} GiB"
    return f"{n / MiB:.0f} MiB"
