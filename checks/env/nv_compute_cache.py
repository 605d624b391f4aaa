import os
import shlex

from torchdoctor.facts.model import known
from torchdoctor.model import Fix, ok, warning
from torchdoctor.registry import Example, env_check

GiB = 1 << 30
LARGE = 1 * GiB  # the driver's default CUDA_CACHE_MAXSIZE is far below this
CUDNN_INIT_FAILED = "CUDNN_STATUS_NOT_INITIALIZED"

_PATH = "/home/u/.nv/ComputeCache"


def _cache(**kw):
    base = {"path": _PATH, "exists": True, "size_bytes": 50 << 20, "size_complete": True, "writable": True,
            "disabled": False}
    return {"nv_cache": {**base, **kw}}


@env_check(
    code="TE210",
    name="nv-compute-cache",
    title="CUDA JIT cache (~/.nv/ComputeCache) usable",
    area="NVIDIA driver & GPUs",
    needs=("nv_cache.path", "nv_cache.exists", "nv_cache.disabled"),
    examples=[
        Example("warning", {**_cache(), "torch": {"error_message": "cuDNN error: CUDNN_STATUS_NOT_INITIALIZED"}},
                "the founding notes' case: a stale cache and cuDNN failing to start", contains="rm -rf /home/u/.nv"),
        Example("warning", _cache(exists=False, size_bytes=None, writable=False),
                "read-only HOME in a container", contains="CUDA_CACHE_PATH"),
        Example("ok", {**_cache(exists=False, size_bytes=None, writable=False), "nvidia": {"driver_version": None}},
                "no NVIDIA driver: the cache is never used"),
        Example("warning", _cache(disabled=True), "caching switched off", contains="unset CUDA_CACHE_DISABLE"),
        Example("warning", _cache(size_bytes=3 * GiB, size_complete=False), "very large", contains="at least 3.0 GiB"),
        Example("ok", _cache(), "a healthy cache"),
        Example("ok", _cache(exists=False, size_bytes=None), "no cache yet"),
    ],
)
def nv_compute_cache(facts):
    """
    ## What it checks
    The CUDA driver's JIT cache, `~/.nv/ComputeCache` (or `$CUDA_CACHE_PATH`): whether it can be
    written, whether caching is switched off (`CUDA_CACHE_DISABLE=1`), its size, and whether cuDNN
    failed to initialise while it exists.

    ## Why it matters
    When a wheel has no native code for the GPU, the driver compiles the PTX at start-up (minutes
    for a large library) and keeps the result in this cache. A cache that cannot be written (a
    read-only HOME in a container) or is switched off means that compilation runs again in every
    process. A cache left over from another driver or library version is a known cause of
    `CUDNN_STATUS_NOT_INITIALIZED`; deleting it is safe, it is rebuilt on demand.

    ## How to fix
    Point `CUDA_CACHE_PATH` at a writable directory, unset `CUDA_CACHE_DISABLE`, or delete the
    cache (`rm -rf ~/.nv`) when cuDNN fails to initialise or it has grown very large.
    """
    cache = facts.nv_cache
    path, exists = cache.path, cache.exists
    writable = cache.writable if known(cache.writable) else None
    size = cache.size_bytes if known(cache.size_bytes) else None
    complete = cache.size_complete if known(cache.size_complete) else True
    evidence = {"cache": path, "exists": exists, "size": _size(size, complete) if exists else None,
                "writable": writable, "CUDA_CACHE_DISABLE": "1" if cache.disabled else None}
    driver = facts.get("nvidia.driver_version")
    if known(driver) and driver is None:
        return ok("no NVIDIA driver: the CUDA JIT cache is not used", **evidence)
    remove = f"rm -rf {shlex.quote(_removal_root(path))}"
    related = ("cudnn-not-initialized",)

    cudnn_text = _cudnn_init_failure(facts)
    if exists and cudnn_text:
        return warning(f"cuDNN failed to initialise ({CUDNN_INIT_FAILED}) and a CUDA JIT cache exists at {path}: "
                       "a cache left by another driver or library version is a known cause",
                       fix=Fix("Delete the cache (it is rebuilt on demand) and run again", (remove,)),
                       evidence={**evidence, "torch reported": cudnn_text}, related=related)
    if writable is False:
        return warning(f"the CUDA JIT cache {path} cannot be written: PTX is compiled again at the start of every "
                       "process (minutes on GPUs the wheel has no native code for)",
                       fix=Fix("Point the cache at a writable directory", (
                           'export CUDA_CACHE_PATH="${TMPDIR:-/tmp}/$USER-nv-cache"',
                           "# in a container: mount a writable volume at ~/.nv")),
                       evidence=evidence)
    if cache.disabled:
        return warning("CUDA_CACHE_DISABLE=1: the driver's JIT cache is off, so PTX is compiled again at the start "
                       "of every process",
                       fix=Fix("Turn the cache back on", ("unset CUDA_CACHE_DISABLE",)), evidence=evidence)
    if exists and size is not None and size > LARGE:
        return warning(f"the CUDA JIT cache {path} holds {_size(size, complete)}",
                       fix=Fix("Delete it; the driver rebuilds what it needs", (remove,)), evidence=evidence)
    if not exists:
        return ok(f"no CUDA JIT cache yet at {path}", **evidence)
    return ok(f"CUDA JIT cache at {path}: {_size(size, complete)}", **evidence)


def _cudnn_init_failure(facts) -> str | None:
    texts = []
    for dotted in ("torch.error_message", "torch.traceback", "torch.stderr_tail"):
        value = facts.get(dotted)
        if known(value) and value:
            texts.append(value)
    warnings = facts.get("torch.warnings")
    if known(warnings):
        texts.extend(warnings)
    for text in texts:
        for line in text.splitlines():
            if CUDNN_INIT_FAILED in line:
                return line.strip()[:200]
    return None


def _removal_root(path: str) -> str:
    """~/.nv for the default location (the founding notes' `rm -rf ~/.nv`), else the cache itself."""
    head, tail = os.path.split(path.rstrip("/"))
    return head if tail == "ComputeCache" and os.path.basename(head) == ".nv" else path


def _size(n, complete=True) -> str:
    if n is None:
        return "unknown size"
    text = f"{n / GiB:.1f} GiB" if n >= GiB else f"{n / (1 << 20):.0f} MiB"
    return text if complete else f"at least {text}"
