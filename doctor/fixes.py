"""`torchdoctor env --fix`: apply the actions that checks proposed, each one re-proved first.

A finding is a statement about the machine at collection time; by the time the fix runs a build
may have started, or the lock may have been replaced. So each action is proved again, from
scratch, immediately before it is applied, and refused with the reason when the proof fails.

remove-stale-lock: the file is still a regular file named `lock` (not a symlink), provably
torch's (empty, as FileBaton creates it, beside the `build.ninja` torch writes into every build
directory: a file that merely is named `lock` under a mis-set TORCH_EXTENSIONS_DIR is not), it has
the inode and mtime recorded when it was proved stale, its directory has seen no other change in
the last ACTIVITY_WINDOW_S seconds (a build on another machine sharing the directory), and no live
process on this machine uses the build directory. A builder in another PID namespace (a container
sharing the cache) is in no process table torchdoctor can read, so the kernel is asked directly:
a write lease (F_SETLEASE) is granted only when no process anywhere on this machine has the file
open, and FileBaton keeps its descriptor open for the whole build. Where that cannot be asked (no
leases on this OS or filesystem, e.g. NFS), the lock counts as live. Then that one file is
unlinked, under the lease, through a descriptor of its directory so the file that was examined is
the one removed. The build directory itself is never touched.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from typing import Any, Iterable

from .facts.extensions import LOCK_NAME, NINJA_NAME, holders
from .model import Action, Finding

# A file in the build dir changed this recently means someone may be building there, maybe from
# another host that shares the directory (an NFS home), where no process table can show it.
ACTIVITY_WINDOW_S = 120.0
_MAX_ENTRIES = 10_000


@dataclass(frozen=True)
class Applied:
    code: str  # the finding that proposed the action
    action: Action
    outcome: str  # "removed", "would-remove" (dry run), "refused", "unsupported"
    detail: str  # what was removed, or why not

    @property
    def done(self) -> bool:
        return self.outcome == "removed"

    def describe(self) -> str:
        verb = {"removed": "removed", "would-remove": "would remove", "refused": "did not remove",
                "unsupported": "cannot apply"}[self.outcome]
        return f"{self.code}: {verb} {self.action.path}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "action": self.action.to_json(), "outcome": self.outcome,
                "detail": self.detail}


class Refused(Exception):
    pass


def apply(findings: Iterable[Finding], *, dry_run: bool = False) -> list[Applied]:
    """Apply every action of every finding's fix, at most once per (kind, path)."""
    done: set[tuple[str, str]] = set()
    results = []
    for finding in findings:
        for action in (finding.fix.actions if finding.fix else ()):
            key = (action.kind, os.path.abspath(action.path))
            if key in done:
                continue
            done.add(key)
            handler = _HANDLERS.get(action.kind)
            if handler is None:
                results.append(Applied(finding.code, action, "unsupported", f"unknown action kind {action.kind!r}"))
                continue
            try:
                detail = handler(action, dry_run)
            except Refused as exc:
                results.append(Applied(finding.code, action, "refused", str(exc)))
            except OSError as exc:  # the premise could not be re-proved: that is a refusal too
                results.append(Applied(finding.code, action, "refused", f"could not examine it: {exc}"))
            else:
                results.append(Applied(finding.code, action, "would-remove" if dry_run else "removed", detail))
    return results


# --------------------------------------------------------------------------- remove-stale-lock

def _recent_activity(dir_fd: int, now: float) -> tuple[str, float] | None:
    """The most recently changed entry of the build dir other than the lock, if within the window."""
    newest: tuple[str, float] | None = None
    with os.scandir(dir_fd) as it:
        for i, entry in enumerate(it):
            if i >= _MAX_ENTRIES:
                break
            if entry.name == LOCK_NAME:
                continue
            try:
                mtime = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            if newest is None or mtime > newest[1]:
                newest = (entry.name, mtime)
    if newest and now - newest[1] < ACTIVITY_WINDOW_S:
        return newest
    return None


def _remove_stale_lock(action: Action, dry_run: bool) -> str:
    path = os.path.abspath(action.path)
    build_dir, name = os.path.split(path)
    if name != LOCK_NAME:
        raise Refused(f"not a build lock (the file must be named {LOCK_NAME!r})")
    try:
        expect_inode, expect_mtime = int(action.expect["inode"]), float(action.expect["mtime"])
    except (KeyError, TypeError, ValueError):
        raise Refused("the action does not record the lock's inode and mtime, so staleness cannot be re-proved") from None

    if os.path.islink(build_dir):
        raise Refused("the build directory is a symbolic link; torchdoctor never follows links out of a build directory")
    try:
        dir_fd = os.open(build_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise Refused(f"cannot open the build directory: {exc.strerror}") from None
    try:
        try:
            st = os.stat(LOCK_NAME, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            raise Refused("the lock is gone already (a build finished or someone removed it)") from None
        except OSError as exc:
            raise Refused(f"cannot examine the lock: {exc.strerror}") from None
        if stat.S_ISLNK(st.st_mode):
            raise Refused("the lock is a symbolic link; torchdoctor never follows links out of a build directory")
        if not stat.S_ISREG(st.st_mode):
            raise Refused("the lock is not a regular file")
        if st.st_size != 0:
            raise Refused("the file is not empty, so it is not a torch build lock (FileBaton creates an empty one)")
        try:
            ninja = os.stat(NINJA_NAME, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            ninja = None
        if ninja is None or not stat.S_ISREG(ninja.st_mode):
            raise Refused(f"there is no {NINJA_NAME} beside it, so this is not provably a torch extension build "
                          "directory (is TORCH_EXTENSIONS_DIR set to the right place?)")
        if st.st_ino != expect_inode:
            raise Refused("the lock was replaced since it was examined (another inode): a new build took it")
        if abs(st.st_mtime - expect_mtime) > 1e-6:
            raise Refused("the lock was modified since it was examined")
        now = time.time()
        recent = _recent_activity(dir_fd, now)
        if recent:
            raise Refused(f"{recent[0]} in the build directory changed {now - recent[1]:.0f}s ago: "
                          "a build may be running, perhaps on another machine sharing this directory")
        live = holders(build_dir)
        if live:
            raise Refused(f"a live process uses the build directory (pid {', '.join(map(str, live))}): "
                          "a build is running")
        lease_fd = _lease_unopened(dir_fd, st)
        try:
            if dry_run:
                return (f"it is stale (inode {st.st_ino}, unchanged for {now - st.st_mtime:.0f}s, no process uses its "
                        "directory or has it open)")
            # The last check: the name still refers to the file examined above.
            try:
                if os.stat(LOCK_NAME, dir_fd=dir_fd, follow_symlinks=False).st_ino != st.st_ino:
                    raise Refused("the lock was replaced while it was being examined")
                os.unlink(LOCK_NAME, dir_fd=dir_fd)
            except FileNotFoundError:
                raise Refused("the lock disappeared while it was being examined (a build finished)") from None
            except OSError as exc:
                raise Refused(f"could not remove the lock: {exc.strerror}") from None
        finally:
            _release_lease(lease_fd)
        return f"it was stale (inode {st.st_ino}, unchanged for {now - st.st_mtime:.0f}s); the build directory is kept"
    finally:
        os.close(dir_fd)


def _lease_unopened(dir_fd: int, st: os.stat_result) -> int:
    """A descriptor of the lock holding a write lease: proof that no process on this machine, in
    any PID namespace, has the file open. Refused when it is open, or when that cannot be known."""
    import errno

    try:
        import fcntl
    except ImportError:  # Windows
        fcntl = None  # type: ignore[assignment]
    set_lease = getattr(fcntl, "F_SETLEASE", None) if fcntl is not None else None
    if set_lease is None:
        raise Refused("this system cannot tell whether another process (in a container, say) has the lock open, "
                      "so it is treated as held; remove it by hand once you are sure no build runs")
    try:
        fd = os.open(LOCK_NAME, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
                     dir_fd=dir_fd)
    except OSError as exc:
        raise Refused(f"cannot open the lock to examine it: {exc.strerror}") from None
    try:
        if os.fstat(fd).st_ino != st.st_ino:
            raise Refused("the lock was replaced while it was being examined")
        # Someone opening the file breaks the lease and the kernel signals us, by default with
        # SIGIO, which would end torchdoctor: SIGURG is ignored unless handled. The opener waits the
        # few microseconds until the lease is released.
        import signal

        if hasattr(fcntl, "F_SETSIG") and hasattr(signal, "SIGURG"):
            fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, set_lease, fcntl.F_WRLCK)
    except Refused:
        os.close(fd)
        raise
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EBUSY):
            raise Refused("another process has the lock open — one this machine's process table does not show (a "
                          "build in another PID namespace, e.g. a container sharing this cache): a build holds it") from None
        raise Refused(f"cannot tell whether another process (in a container, say) has the lock open ({exc.strerror}), "
                      "so it is treated as held; remove it by hand once you are sure no build runs") from None
    return fd


def _release_lease(fd: int) -> None:
    import fcntl

    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    except OSError:
        pass
    os.close(fd)


_HANDLERS = {"remove-stale-lock": _remove_stale_lock}
