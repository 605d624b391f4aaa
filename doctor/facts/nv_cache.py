"""The CUDA driver's JIT cache (`~/.nv/ComputeCache`, or `$CUDA_CACHE_PATH`).

The driver compiles PTX for GPUs the wheel has no native code for and keeps the result here. A
cache it cannot write (read-only HOME in a container) means the JIT runs again every process; a
corrupt one is the founding notes' `CUDNN_STATUS_NOT_INITIALIZED` case. The size is summed over at
most MAX_FILES files, so a huge cache costs bounded time and reports a lower bound.
"""

from __future__ import annotations

import os

from .model import NvCacheFacts, PythonFacts

MAX_FILES = 20_000


def cache_path(environ, home: str) -> str:
    return environ.get("CUDA_CACHE_PATH") or os.path.join(home, ".nv", "ComputeCache")


def tree_size(path: str, max_files: int = MAX_FILES) -> tuple[int, bool]:
    """(bytes, complete): the size of the regular files under `path`, symlinks not followed.

    Stops after `max_files` files; `complete` is then False and the size a lower bound.
    """
    total, files = 0, 0
    stack = [path]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for entry in it:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        if files >= max_files:
                            return total, False
                        total += entry.stat(follow_symlinks=False).st_size
                        files += 1
                except OSError:
                    continue
    return total, True


def _nearest_existing(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def collect(target, python: PythonFacts) -> NvCacheFacts:
    path = os.path.abspath(os.path.expanduser(cache_path(target.environ, target.home)))
    exists = os.path.isdir(path)
    size, complete = tree_size(path) if exists else (None, True)
    return NvCacheFacts(
        path=path,
        exists=exists,
        size_bytes=size,
        size_complete=complete,
        # os.access honours read-only mounts (EROFS), which is the container case.
        writable=os.access(_nearest_existing(path), os.W_OK),
        disabled=target.environ.get("CUDA_CACHE_DISABLE", "").strip() == "1",
    )
