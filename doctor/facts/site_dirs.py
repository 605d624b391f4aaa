"""The directories of an interpreter's sys.path and the package metadata in them, read as plain
directory listings. Kept apart from the collectors so that `torchdoctor check` can learn the
installed torch's version without loading the facts model (it must start fast)."""

from __future__ import annotations

import os
import re
from typing import Iterable, Iterator


def _path_entries(sys_path: Iterable[str]) -> Iterator[str]:
    """Each existing directory once, in order. lib64 -> lib symlinks in some venvs put the same
    site-packages on sys.path twice; counting it twice would report every package as duplicated."""
    seen: set[str] = set()
    for entry in sys_path:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real in seen:
            continue
        seen.add(real)
        yield entry


def _metadata_in(entry: str) -> list[str]:
    if entry.endswith(".egg"):  # an unpacked egg on sys.path carries its own EGG-INFO
        info = os.path.join(entry, "EGG-INFO")
        return [info] if os.path.isdir(info) else []
    try:
        names = os.listdir(entry)
    except OSError:
        return []
    return [os.path.join(entry, n) for n in sorted(names) if n.endswith((".dist-info", ".egg-info"))]


_VERSIONED = re.compile(r"^(?P<name>[A-Za-z0-9_.]+)-(?P<version>\d[^-]*?)(?:-py[^-]*)?\.(?:dist|egg)-info$")


def installed_version(name: str, sys_path: Iterable[str]) -> str | None:
    """The version in the metadata folder name of the first `name` on sys.path
    (`torch-2.13.0+cpu.dist-info` -> "2.13.0+cpu"); None when it is not installed. Nothing is imported."""
    for entry in _path_entries(sys_path):
        for meta in _metadata_in(entry):
            m = _VERSIONED.match(os.path.basename(meta))
            if m and m.group("name").lower().replace("-", "_") == name.lower().replace("-", "_"):
                return m.group("version")
    return None
