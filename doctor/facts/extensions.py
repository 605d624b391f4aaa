"""Build locks of torch's JIT C++/CUDA extensions (`torch.utils.cpp_extension.load`).

torch <= 2.13 guards a build with `FileBaton`: it creates `<build_dir>/lock` with O_CREAT|O_EXCL,
keeps the descriptor open while ninja runs in the build directory, and removes the file when done.
A build killed midway (OOM, SIGKILL, Ctrl-C, a cancelled job) leaves the file behind, and every
later build of that extension spins in `baton.wait()` forever.

Build directories are `$TORCH_EXTENSIONS_DIR/<name>` or
`<cache>/torch_extensions/py<XY><abiflags>_<cuXYZ|rocmXY|cpu>/<name>` (older torch: no middle
folder), so two levels below a root hold every lock; nothing deeper is walked.

`holders()` is also what `--fix` calls to re-prove, right before removing a lock, that no live
process is building there.
"""

from __future__ import annotations

import os
import re
import time
from typing import Iterable, Mapping

from .model import ExtensionLock, ExtensionsFacts, PythonFacts, known

LOCK_NAME = "lock"
NINJA_NAME = "build.ninja"  # torch writes it into every build directory it builds in
MAX_DIRS = 5000  # per level; a root this large is not a torch_extensions tree


def build_roots(environ: Mapping[str, str], home: str, system: str | None = None) -> list[str]:
    """Where torch builds extensions for this environment, most specific first.

    TORCH_EXTENSIONS_DIR wins when set; the user cache dir (XDG_CACHE_HOME or ~/.cache, on
    macOS ~/Library/Caches) is examined as well, since another interpreter without the variable
    uses it. Only existing directories are returned.
    """
    candidates = []
    if environ.get("TORCH_EXTENSIONS_DIR"):
        candidates.append(environ["TORCH_EXTENSIONS_DIR"])
    if system == "Darwin":
        candidates.append(os.path.join(home, "Library", "Caches", "torch_extensions"))
    elif system == "Windows":
        local = environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        candidates.append(os.path.join(local, "torch_extensions", "torch_extensions", "Cache"))
    else:
        cache = environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
        candidates.append(os.path.join(cache, "torch_extensions"))
    roots: list[str] = []
    seen: set[str] = set()
    for path in candidates:
        path = os.path.abspath(os.path.expanduser(path))
        real = os.path.realpath(path)
        if real not in seen and os.path.isdir(path):
            seen.add(real)
            roots.append(path)
    return roots


def _subdirs(path: str) -> list[str]:
    out = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                if len(out) >= MAX_DIRS:
                    break
                try:
                    if entry.is_dir(follow_symlinks=False):
                        out.append(entry.path)
                except OSError:
                    continue
    except OSError:
        pass
    return sorted(out)


def _lock_in(build_dir: str) -> os.stat_result | None:
    """The status of the build dir's lock when it is provably torch's: a regular empty file, as
    FileBaton creates it, beside torch's build.ninja. A `lock` anywhere else (a mis-set
    TORCH_EXTENSIONS_DIR pointing at a tree of other programs) is none of torch's business."""
    import stat

    try:
        st = os.lstat(os.path.join(build_dir, LOCK_NAME))
        ninja = os.lstat(os.path.join(build_dir, NINJA_NAME))
    except OSError:
        return None
    if not (stat.S_ISREG(st.st_mode) and st.st_size == 0 and stat.S_ISREG(ninja.st_mode)):
        return None
    return st


def find_build_dirs(roots: Iterable[str]) -> list[str]:
    """root/<name>/ and root/<py.._cu..>/<name>/: every directory that may hold a build lock."""
    dirs: list[str] = []
    for root in roots:
        for first in _subdirs(root):
            dirs.append(first)
            dirs.extend(_subdirs(first))
    return dirs


# --------------------------------------------------------------------------- holders

def _inside(path: str | None, directory: str) -> bool:
    if not path:
        return False
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _mentions(arg: str, directory: str) -> bool:
    """`arg` names `directory` or a path inside it (not merely a sibling sharing its prefix)."""
    start = arg.find(directory)
    while start != -1:
        end = start + len(directory)
        if end == len(arg) or arg[end] == os.sep or not (arg[end].isalnum() or arg[end] in "._-"):
            return True
        start = arg.find(directory, start + 1)
    return False


def _open_paths(proc) -> list[str]:
    """Paths of the files a process has open; [] when it cannot be examined.

    On Linux the links in /proc/<pid>/fd are read directly: psutil's open_files() also reads an
    fdinfo file per descriptor, which is slow for processes with many descriptors.
    """
    import psutil

    fd_dir = f"/proc/{proc.pid}/fd"
    if os.path.isdir("/proc/self/fd"):
        paths = []
        try:
            for fd in os.listdir(fd_dir):
                try:
                    target = os.readlink(os.path.join(fd_dir, fd))
                except OSError:
                    continue
                if target.startswith("/"):
                    paths.append(target)
        except OSError:
            return []
        return paths
    try:
        return [f.path for f in proc.open_files()]
    except (psutil.Error, OSError):
        return []


def _uses(spellings: set[str], paths: Iterable[str], cmdline: Iterable[str]) -> bool:
    return any(_inside(p, s) for s in spellings for p in paths) or \
        any(_mentions(arg, s) for s in spellings for arg in cmdline)


def holders_by_dir(build_dirs: Iterable[str]) -> dict[str, list[int]]:
    """Live pids using each build directory, in one pass over the process table.

    A process uses a build directory when its working directory is in it (ninja, nvcc and the
    compilers run there), when it has a file in it open (the python process that created the lock
    keeps its descriptor open until the build ends), or when its command line names it. Processes
    that cannot be examined (another user's, a vanished one) are passed over; zombies are dead, and
    torchdoctor's own process is not a builder.
    """
    import psutil

    wanted: dict[str, set[str]] = {}  # build dir as given -> spellings to match (given, real)
    for d in build_dirs:
        given = os.path.abspath(d)
        wanted[d] = {given, os.path.realpath(given)}
    found: dict[str, set[int]] = {d: set() for d in wanted}
    if not wanted:
        return {}

    me = os.getpid()  # torchdoctor builds nothing; the directory it holds open to examine it is no build
    for proc in psutil.process_iter(["pid", "cwd", "cmdline", "status"]):
        try:
            info = proc.info
            if info["pid"] == me or info.get("status") == psutil.STATUS_ZOMBIE:
                continue
            cwd = [info["cwd"]] if info.get("cwd") else []
            cmdline = info.get("cmdline") or []
            files: list[str] | None = None  # the descriptor table: read once, and only if needed
            for d, spellings in wanted.items():
                if not _uses(spellings, cwd, cmdline):
                    if files is None:
                        files = _open_paths(proc)
                    if not _uses(spellings, files, ()):
                        continue
                found[d].add(info["pid"])
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return {d: sorted(p) for d, p in found.items()}


def open_elsewhere(path: str) -> bool | None:
    """Whether some process on this machine, in any PID namespace, has the file open: True, False,
    or None when that cannot be asked (no file leases on this OS or filesystem, another user's file).

    A write lease (F_SETLEASE) is granted only when no other descriptor of the file is open; it is
    released at once. A lease break while it is held signals SIGURG (ignored), not SIGIO."""
    import errno
    import signal

    try:
        import fcntl
    except ImportError:
        return None
    if not hasattr(fcntl, "F_SETLEASE"):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if hasattr(fcntl, "F_SETSIG") and hasattr(signal, "SIGURG"):
            fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
    except OSError as exc:
        return True if exc.errno in (errno.EAGAIN, errno.EBUSY) else None
    else:
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        except OSError:
            pass
        return False
    finally:
        os.close(fd)


def holders(build_dir: str) -> list[int]:
    """Live pids using one build directory (see `holders_by_dir`)."""
    return holders_by_dir([build_dir]).get(build_dir, [])


# --------------------------------------------------------------------------- collector

def find_locks(roots: Iterable[str], now: float | None = None) -> tuple[int, list[ExtensionLock]]:
    """(number of build dirs examined, the locks found with their holders)."""
    now = time.time() if now is None else now
    build_dirs = find_build_dirs(roots)
    with_lock = [(d, st) for d in build_dirs if (st := _lock_in(d)) is not None]
    users = holders_by_dir([d for d, _ in with_lock])
    locks = [
        ExtensionLock(
            path=os.path.join(d, LOCK_NAME),
            age_s=round(max(0.0, now - st.st_mtime), 1),
            mtime=st.st_mtime,
            inode=st.st_ino,
            holders=users.get(d, []),
            open_elsewhere=not users.get(d) and open_elsewhere(os.path.join(d, LOCK_NAME)) is True,
        )
        for d, st in with_lock
    ]
    return len(build_dirs), locks


# --------------------------------------------------------------------------- build evidence
# Whether extensions are built here decides how much a toolchain that cannot build them matters
# (TE208): it is read here, once, from the machine or from a pasted text, never in a check.

# What torch.utils.cpp_extension, ninja, setuptools and nvcc print while building or failing to
# build, in their own words: cpp_extension's raises and log lines (torch/utils/cpp_extension.py),
# ninja's "build stopped", setuptools' "command '.../nvcc' failed with exit status/code", nvcc's
# "nvcc fatal" and CUDA's host_config.h "#error -- unsupported GNU version!", a ninja step running
# nvcc ("[3/5] /usr/local/cuda/bin/nvcc ..."), and a traceback through cpp_extension.py.
_BUILD_LOG = re.compile(
    r"Error compiling objects for extension"
    r"|Error building extension '[^'\n]{1,100}'"
    r"|Emitting ninja build file"
    r"|as PyTorch extensions root"
    r"|TORCH_CUDA_ARCH_LIST is not set, using TORCH_CUDA_ARCH_LIST="
    r"|Ninja is required to load C\+\+ extensions"
    r"|CUDA_HOME environment variable is not set"
    r"|The detected CUDA version\s*\(\d[\d.]*\)\s+mismatches\s+the\s+version"
    r"|ninja: build stopped: subcommand failed"
    r"|command '[^'\n]*\bnvcc(?:\.exe)?' failed with exit (?:status|code)"
    r"|\bnvcc fatal\s*:"
    r"|#error\s+--\s+unsupported GNU version"
    r"|^\[\d+/\d+\]\s+\S*\bnvcc(?:\.exe)?\s"
    r"|File \"[^\"\n]*[/\\]torch[/\\]utils[/\\]cpp_extension\.py\"",
    re.M)
_LOG_LINES = 3  # evidence lines kept: enough to show what was seen, not the whole log


def build_evidence_in_text(text: str) -> list[str]:
    """The lines of a pasted text that show an extension being built or failing to build."""
    out: list[str] = []
    for m in _BUILD_LOG.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start:end if end != -1 else len(text)].strip()[:200]
        if line and line not in out:
            out.append(f"the pasted text: {line}")
        if len(out) >= _LOG_LINES:
            break
    return out


def build_evidence(locks: Iterable[ExtensionLock], environ: Mapping[str, str]) -> list[str]:
    """What on this machine shows extensions being built: a build lock (a build running, or one
    that died midway), and TORCH_CUDA_ARCH_LIST, which only extension builds read."""
    out = [f"build lock {lock.path} ({'held by pid ' + ', '.join(map(str, lock.holders)) if lock.holders else 'no process holds it'})"
           for lock in locks]
    if environ.get("TORCH_CUDA_ARCH_LIST"):
        out.append(f"TORCH_CUDA_ARCH_LIST={environ['TORCH_CUDA_ARCH_LIST']} is set (only extension builds read it)")
    return out


def collect(target, python: PythonFacts) -> ExtensionsFacts:
    system = python.system if known(python.system) else None
    roots = build_roots(target.environ, target.home, system)
    count, locks = find_locks(roots)
    return ExtensionsFacts(roots=roots, build_dirs=count, locks=locks,
                           build_evidence=build_evidence(locks, target.environ))
