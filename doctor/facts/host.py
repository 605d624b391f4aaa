"""The host around the interpreter: shared memory, resource limits, memory, CPUs.

The limits read here are those of torchdoctor's own process, which inherits them from the shell
it was started in: the same shell the user trains from. File paths hang off `root` so tests can
point the collector at a fake tree.
"""

from __future__ import annotations

import os
import resource
import sys

from .model import HostFacts, PythonFacts

# cgroup v1 writes "no limit" as the largest page-aligned 64-bit value (9223372036854771712);
# anything this large is no limit in practice.
_UNLIMITED_FLOOR = 1 << 60


def shm(root: str = "/") -> tuple[int | None, int | None]:
    """(total, free) bytes of /dev/shm; (None, None) when there is none."""
    path = os.path.join(root, "dev", "shm")
    if not os.path.isdir(path):
        return None, None
    try:
        st = os.statvfs(path)
    except OSError:
        return None, None
    return st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize


def _limit(which: int) -> tuple[int | None, int | None]:
    soft, hard = resource.getrlimit(which)
    unlimited = resource.RLIM_INFINITY
    return (None if soft == unlimited else soft), (None if hard == unlimited else hard)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def _parse_limit(text: str | None) -> int | None:
    if text is None or text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return None if value >= _UNLIMITED_FLOOR else value


def cgroup_memory_limit(root: str = "/") -> int | None:
    """The memory limit of this process's cgroup (the tightest one up the tree); None: no limit.

    cgroup v2: `memory.max` of the cgroup named by /proc/self/cgroup's `0::` line and of each
    ancestor ("max" is no limit). cgroup v1: `memory.limit_in_bytes` of the memory controller's
    cgroup (a huge number is no limit). Inside a container the cgroup namespace makes the
    container's own cgroup "/", whose file sits at the top of /sys/fs/cgroup.
    """
    fs = os.path.join(root, "sys", "fs", "cgroup")
    lines = (_read(os.path.join(root, "proc", "self", "cgroup")) or "").splitlines()
    v2_path, v1_path = None, None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":
            v2_path = path
        elif "memory" in controllers.split(","):
            v1_path = path

    def tightest(base: str, rel: str | None, filename: str) -> int | None:
        limits = []
        rel_parts = [p for p in (rel or "/").split("/") if p and p != ".."]
        for depth in range(len(rel_parts), -1, -1):
            value = _parse_limit(_read(os.path.join(base, *rel_parts[:depth], filename)))
            if value is not None:
                limits.append(value)
        return min(limits) if limits else None

    if os.path.exists(os.path.join(fs, "cgroup.controllers")):  # the unified (v2) hierarchy
        return tightest(fs, v2_path, "memory.max")
    memory = os.path.join(fs, "memory")
    if os.path.isdir(memory):
        return tightest(memory, v1_path, "memory.limit_in_bytes")
    return None


def memory_total() -> int:
    import psutil

    return int(psutil.virtual_memory().total)


def collect(target, python: PythonFacts, *, root: str = "/") -> HostFacts:
    shm_total, shm_free = shm(root)
    nofile_soft, nofile_hard = _limit(resource.RLIMIT_NOFILE)
    memlock_soft, _ = _limit(resource.RLIMIT_MEMLOCK)
    return HostFacts(
        shm_total_bytes=shm_total,
        shm_free_bytes=shm_free,
        # RLIMIT_NOFILE cannot be unlimited on Linux; macOS reports an unlimited hard limit.
        nofile_soft=sys.maxsize if nofile_soft is None else nofile_soft,
        nofile_hard=sys.maxsize if nofile_hard is None else nofile_hard,
        memlock_soft=memlock_soft,
        memory_total_bytes=memory_total(),
        cgroup_memory_limit_bytes=cgroup_memory_limit(root),
        cpu_count=os.cpu_count() or 1,
    )
