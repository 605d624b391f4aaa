"""Building torch_pypi_pythons.json: which Pythons each torch minor has wheels for on PyPI, per OS.

    python -m torchdoctor.data.pypi_pythons_build doctor/data/torch_pypi_pythons.json

A maintainer's tool (it reads PyPI's simple index of torch, file names only; nothing in the checks
or tests runs it). PyTorch's release matrix (the rows' `python` range) says what a release
supports; PyPI's files say what `pip install torch==X` can get. They differ at the edges: torch
1.13 published Linux wheels for Python 3.11 outside its matrix, 1.10.2 for 3.10, 2.5 for 3.13 on
Linux only. Per torch minor: OS -> the CPython versions ("3.11", "3.13t") with a wheel of any patch
release of that minor. Linux and Windows count x86-64 wheels only: ARM wheels are listed apart
("Linux-aarch64", "Windows-arm64"), because 1.10.2's one Python 3.10 wheel is an aarch64 wheel and
says nothing of a PC. macOS keeps both machines together (the Intel-Mac cut is judged elsewhere).
`first_patch` names the patch release a Python first appeared in when it is not the minor's first
(torch 1.7.0 had no Python 3.9 wheel, 1.7.1 had), so `torch==1.7.0` on 3.9 is not taken as published.
"""

from __future__ import annotations

import json
import re
import sys
import time

from .companion_pins_build import simple_index

_OS = (("linux", "Linux"), ("win", "Windows"), ("macosx", "Darwin"))


def _system(platform_tag: str) -> str | None:
    system = next((s for key, s in _OS if key in platform_tag), None)
    if system in ("Linux", "Windows") and ("aarch64" in platform_tag or "arm64" in platform_tag):
        return f"{system}-{'aarch64' if system == 'Linux' else 'arm64'}"
    return system


def _wheels(files: list[dict]):
    """(minor, patch release, system, python) for every non-yanked release wheel in PyPI's file list."""
    for f in files:
        name = f["filename"]
        if not name.endswith(".whl") or f.get("yanked"):
            continue
        parts = name[:-4].split("-")
        release = re.fullmatch(r"(\d+\.\d+)\.\d+", parts[1])
        # The ABI tag says free-threaded: torch-2.6.0-cp313-cp313t-manylinux_2_28_x86_64.whl
        python = re.fullmatch(r"cp(\d)(\d+)(t?)", parts[3] if re.fullmatch(r"cp\d+t", parts[3]) else parts[2])
        system = _system(parts[-1])
        if release and python and system:
            yield release.group(1), parts[1], system, f"{python.group(1)}.{python.group(2)}{python.group(3)}"


def _order(v: str) -> tuple[int, int, bool]:
    return int(v.split(".")[0]), int(v.split(".")[1].rstrip("t")), v.endswith("t")


def _patch(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def published_pythons(files: list[dict]) -> dict[str, dict[str, list[str]]]:
    """torch minor -> OS -> sorted CPython versions with a wheel, from PyPI's file list."""
    found: dict[str, dict[str, set[str]]] = {}
    for minor, _patch_release, system, python in _wheels(files):
        found.setdefault(minor, {}).setdefault(system, set()).add(python)
    return {minor: {s: sorted(vs, key=_order) for s, vs in sorted(by_os.items())} for minor, by_os in found.items()}


def first_patches(files: list[dict]) -> dict[str, dict[str, dict[str, str]]]:
    """torch minor -> OS -> {python: the first patch release with its wheel}, only where that is not the
    minor's first release on that OS."""
    first: dict[tuple[str, str, str], str] = {}
    earliest: dict[tuple[str, str], str] = {}
    for minor, patch, system, python in _wheels(files):
        key = (minor, system, python)
        if key not in first or _patch(patch) < _patch(first[key]):
            first[key] = patch
        if (minor, system) not in earliest or _patch(patch) < _patch(earliest[(minor, system)]):
            earliest[(minor, system)] = patch
    out: dict[str, dict[str, dict[str, str]]] = {}
    for (minor, system, python), patch in sorted(first.items()):
        if patch != earliest[(minor, system)]:
            out.setdefault(minor, {}).setdefault(system, {})[python] = patch
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    index = simple_index("torch")
    data = {"schema": 1, "source": ["https://pypi.org/simple/torch/"],
            "updated": time.strftime("%Y-%m"),
            "provenance": "python -m torchdoctor.data.pypi_pythons_build OUT.json: the wheel file names of PyPI's "
                          "torch index (the cpXY[t] tags and the platform)",
            "releases": published_pythons(index["files"]),
            "first_patch": first_patches(index["files"])}
    with open(argv[0], "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
