"""Building torch_pypi_pythons.json: which Pythons each torch minor has wheels for on PyPI, per OS.

    python -m torchdoctor.data.pypi_pythons_build doctor/data/torch_pypi_pythons.json

A maintainer's tool (it reads PyPI's simple index of torch, file names only; nothing in the checks
or tests runs it). PyTorch's release matrix (the rows' `python` range) says what a release
supports; PyPI's files say what `pip install torch==X` can get. They differ at the edges: torch
1.13 published Linux wheels for Python 3.11 outside its matrix, 1.10.2 for 3.10, 2.5 for 3.13 on
Linux only. Per torch minor: OS -> the CPython versions ("3.11", "3.13t") with a wheel of any patch
release of that minor.
"""

from __future__ import annotations

import json
import re
import sys
import time

from .companion_pins_build import simple_index

_OS = (("linux", "Linux"), ("win", "Windows"), ("macosx", "Darwin"))


def published_pythons(files: list[dict]) -> dict[str, dict[str, list[str]]]:
    """torch minor -> OS -> sorted CPython versions with a wheel, from PyPI's file list."""
    found: dict[str, dict[str, set[str]]] = {}
    for f in files:
        name = f["filename"]
        if not name.endswith(".whl") or f.get("yanked"):
            continue
        parts = name[:-4].split("-")
        release = re.fullmatch(r"(\d+\.\d+)\.\d+", parts[1])
        # The ABI tag says free-threaded: torch-2.6.0-cp313-cp313t-manylinux_2_28_x86_64.whl
        python = re.fullmatch(r"cp(\d)(\d+)(t?)", parts[3] if re.fullmatch(r"cp\d+t", parts[3]) else parts[2])
        system = next((s for key, s in _OS if key in parts[-1]), None)
        if release and python and system:
            found.setdefault(release.group(1), {}).setdefault(system, set()).add(
                f"{python.group(1)}.{python.group(2)}{python.group(3)}")
    order = lambda v: (int(v.split(".")[0]), int(v.split(".")[1].rstrip("t")), v.endswith("t"))  # noqa: E731
    return {minor: {s: sorted(vs, key=order) for s, vs in sorted(by_os.items())} for minor, by_os in found.items()}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    index = simple_index("torch")
    data = {"schema": 1, "source": ["https://pypi.org/simple/torch/"],
            "updated": time.strftime("%Y-%m"),
            "provenance": "python -m torchdoctor.data.pypi_pythons_build OUT.json: the wheel file names of PyPI's "
                          "torch index (the cpXY[t] tags and the platform)",
            "releases": published_pythons(index["files"])}
    with open(argv[0], "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
