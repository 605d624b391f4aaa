import os
import shlex

from packaging.version import InvalidVersion, Version

from torchdoctor.facts.model import known
from torchdoctor.model import Action, Fix, error, ok, warning
from torchdoctor.registry import Example, env_check

# A lock younger than this with no visible holder may be a build that is just starting.
YOUNG_S = 60.0
# torch replaced FileBaton's spin-on-a-file with an OS flock (pytorch#190543): the lock is released
# when its holder dies, so a leftover file no longer blocks anything.
FLOCK_FROM = (2, 14)

_DIR = "/home/u/.cache/torch_extensions/py311_cu128"


def _lock(name, age, holders=(), inode=1234567, open_elsewhere=False):
    return {"path": f"{_DIR}/{name}/lock", "age_s": age, "mtime": 1.7e9, "inode": inode, "holders": list(holders),
            "open_elsewhere": open_elsewhere}


def _ext(*locks):
    return {"roots": ["/home/u/.cache/torch_extensions"], "build_dirs": 3, "locks": list(locks)}


@env_check(
    code="TE401",
    name="stale-extension-lock",
    title="No stale build lock in the torch extensions cache",
    area="CUDA toolkit & extensions",
    needs=("extensions.locks",),
    examples=[
        Example("error", {"extensions": _ext(_lock("fused_adam", 86400.0))},
                "a lock left by a killed build", contains="baton.wait()"),
        Example("error", {"extensions": _ext(_lock("fused_adam", 86400.0))},
                "the fix names the file to remove", contains=f"rm {_DIR}/fused_adam/lock"),
        Example("error", {"extensions": _ext(_lock("fused_adam", 900.0)), "torch": {"version": "2.13.0+cu128"}},
                "torch 2.13 still spins on the file"),
        Example("ok", {"extensions": _ext(_lock("fused_adam", 900.0, holders=[4242]))},
                "a build is running: never proposes removal", contains="pid 4242"),
        Example("ok", {"extensions": _ext(_lock("fused_adam", 86400.0, open_elsewhere=True))},
                "held open by a builder in another container: never proposes removal", contains="cannot see"),
        Example("warning", {"extensions": _ext(_lock("fused_adam", 5.0))},
                "a young lock may be a build that is starting", contains="may be starting"),
        Example("ok", {"extensions": _ext(_lock("fused_adam", 900.0)), "torch": {"version": "2.14.0+cu130"}},
                "torch >= 2.14 locks with flock: a leftover file is harmless", contains="flock"),
        Example("ok", {"extensions": _ext()}, "no locks"),
    ],
)
def stale_extension_lock(facts):
    """
    ## What it checks
    The `lock` files in torch's JIT extension build directories (`$TORCH_EXTENSIONS_DIR`, or
    `~/.cache/torch_extensions/py<XY>_<cuXYZ>/<name>/`), and whether a live process on this
    machine is building there (working directory or an open file in the build directory, or a
    command line naming it). A builder in another PID namespace (a container sharing the cache) is
    in no process table torchdoctor can read; the kernel still knows it has the lock open, and
    such a lock counts as held.

    ## Why it matters
    Up to torch 2.13, `torch.utils.cpp_extension.load()` guards a build with `FileBaton`: it
    creates `<build_dir>/lock` and deletes it when the build ends. A build that is killed (OOM,
    Ctrl-C, SIGKILL, a cancelled job) leaves the file behind, and every later `load()` of that
    extension waits in `baton.wait()` forever, printing nothing (pytorch#59146, pytorch#189245).
    torch 2.14 locks with `flock` instead (pytorch#190543), so a leftover file is harmless there.

    ## How to fix
    Remove the lock file, not the build directory: the next `load()` rebuilds what is missing.
    `torchdoctor env --fix` does it after proving again that the file is unchanged and that no
    process uses the directory. A lock that a running build holds is reported, never removed.
    """
    locks = facts.extensions.locks
    if not locks:
        return ok("no extension build locks")
    held = [lk for lk in locks if lk.holders or lk.open_elsewhere]
    free = [lk for lk in locks if not (lk.holders or lk.open_elsewhere)]
    stale = [lk for lk in free if lk.age_s >= YOUNG_S]
    young = [lk for lk in free if lk.age_s < YOUNG_S]
    running = "; ".join(f"{_name(lk)}: a build is running (pid {', '.join(map(str, lk.holders))})" if lk.holders else
                        f"{_name(lk)}: a process torchdoctor cannot see has the lock open (a build in another PID "
                        "namespace, e.g. a container sharing this cache)" for lk in held)

    if not free:
        return ok(running, locks=[lk.path for lk in held])

    flock = _torch_uses_flock(facts)
    if flock:
        return ok(f"{len(free)} leftover extension lock file(s), harmless: torch {flock} locks builds with flock, "
                  "which the kernel releases when a build dies",
                  locks=[lk.path for lk in free])

    evidence = {lk.path: _describe(lk) for lk in locks}
    if stale:
        names = ", ".join(_name(lk) for lk in stale)
        actions = tuple(
            Action("remove-stale-lock", lk.path,
                   f"no process on this machine has used {os.path.dirname(lk.path)} for {_age(lk.age_s)}",
                   {"inode": lk.inode, "mtime": lk.mtime})
            for lk in stale)
        commands = ("torchdoctor env --fix  # removes only the lock files it proves stale",
                    *(f"rm {shlex.quote(lk.path)}" for lk in stale))
        message = (f"stale build lock for {names}: no process on this machine is building it "
                   f"(oldest {_age(max(lk.age_s for lk in stale))}); the next build of "
                   f"{names} hangs forever in baton.wait()")
        if running:
            message += f" ({running})"
        return error(message, evidence=evidence, related=("extension-stale-lock",),
                     fix=Fix("Remove the stale lock file (the build directory stays); make sure no build of it runs "
                             "on another machine that shares this directory", commands, actions))
    names = ", ".join(_name(lk) for lk in young)
    return warning(f"build lock for {names} is {_age(min(lk.age_s for lk in young))} old and no process on this "
                   "machine uses it yet: a build may be starting",
                   evidence=evidence, related=("extension-stale-lock",),
                   fix=Fix("Wait a minute and run torchdoctor again; if the lock is still there with no build "
                           "running, it is stale and `torchdoctor env --fix` removes it",
                           ("torchdoctor env TE401",)))


def _name(lock) -> str:
    return os.path.basename(os.path.dirname(lock.path))


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def _describe(lock) -> str:
    who = (f"held by pid {', '.join(map(str, lock.holders))}" if lock.holders else
           "open in a process torchdoctor cannot see" if lock.open_elsewhere else "no holder")
    return f"{_age(lock.age_s)} old, {who}"


def _torch_uses_flock(facts) -> str | None:
    """The torch version when it is known to lock extension builds with flock, else None."""
    for dotted in ("torch.version", "packages.torch_version_file"):
        value = facts.get(dotted)
        if dotted.endswith("torch_version_file"):
            value = value.version if known(value) and value is not None else None
        if not known(value) or not value:
            continue
        try:
            v = Version(value)
        except InvalidVersion:
            continue
        # Nightlies of 2.14 from before the change still spin on the file: only releases and
        # release candidates count.
        if v.release[:2] >= FLOCK_FROM and not v.is_devrelease:
            return value
        return None
    return None

