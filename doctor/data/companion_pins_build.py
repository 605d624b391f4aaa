"""Building companion_pins.json: which torch each release of a compiled torch companion was built for.

    python -m torchdoctor.data.companion_pins_build OUT.json [PACKAGE ...]

A maintainer's tool (it reads PyPI; nothing in torchdoctor's checks or tests runs it). A pasted
`pip list` or collect_env report names `xformers==0.0.27.post2` but not what that wheel requires;
on a live machine the installed metadata says it (`Requires-Dist: torch==2.4.0`). For each release
of each package this reads the `Requires-Dist: torch...` lines of the METADATA of its PyPI wheels
with `zipfile` over HTTP range requests: only the zip's directory and that one member (the wheels are
hundreds of MB). Every wheel of a release is read where there are few, else a sample across
platforms: a release whose wheels disagree is left out (what a user has cannot be told from its
version). Releases with no wheel (sdists build against whatever torch is there) are left out too.
"""

from __future__ import annotations

import io
import json
import re
import sys
import time
import urllib.request
import zipfile
from typing import Any

SIMPLE = "https://pypi.org/simple/{name}/"
# Compiled packages whose PyPI wheels pin the torch they were built against.
# torchvision and torchaudio are not read: their release pairing is a rule of torch_releases.json (section 2.4),
# kept at the minor release, which is where their binaries break.
PACKAGES = ("xformers", "torchtext", "torchdata", "torch-tensorrt", "torchao", "fbgemm-gpu", "torchrec",
            "torchcodec", "intel-extension-for-pytorch")
SAMPLE = 3  # wheels read per release: Linux x86_64, Windows, and one more


def _get(url: str, headers: dict[str, str] | None = None) -> bytes:
    for attempt in range(4):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=60) as r:
                return r.read()
        except OSError:
            if attempt == 3:
                raise
            time.sleep(2 ** attempt)
    raise AssertionError


def _range(url: str, start: int, end: int) -> bytes:
    return _get(url, {"Range": f"bytes={start}-{end}"})


def simple_index(name: str) -> dict[str, Any]:
    """PyPI's simple index of a project, in its JSON form: every file with its URL and size."""
    return json.loads(_get(SIMPLE.format(name=name), {"Accept": "application/vnd.pypi.simple.v1+json"}))


class _RemoteFile(io.RawIOBase):
    """A remote file read by HTTP range requests, seekable, so that `zipfile` reads only the zip's
    directory and the members asked for."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.at = url, size, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self.at = offset if whence == io.SEEK_SET else self.at + offset if whence == io.SEEK_CUR else self.size + offset
        return self.at

    def readinto(self, buffer: Any) -> int:
        end = min(self.size, self.at + len(buffer))
        data = _range(self.url, self.at, end - 1) if end > self.at else b""
        buffer[:len(data)] = data
        self.at += len(data)
        return len(data)


def wheel_metadata(url: str, size: int) -> str:
    """The METADATA member of a remote wheel."""
    with zipfile.ZipFile(io.BufferedReader(_RemoteFile(url, size), buffer_size=65536)) as zf:
        name = next((n for n in zf.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1), None)
        if name is None:
            raise ValueError("no METADATA")
        return zf.read(name).decode("utf-8", "replace")


def torch_requirements(metadata: str) -> list[str]:
    """The `Requires-Dist: torch...` lines a plain install applies (not an extra's)."""
    out = []
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:"):
            if not line.strip():
                break  # the headers end at the first blank line
            continue
        req = line.split(":", 1)[1].strip()
        if re.match(r"torch\s*(\(|[<>=!~;]|$)", req) and "extra ==" not in req:
            out.append(req.replace("(", "").replace(")", "").replace(" ", ""))
    return sorted(out)


def _platform_rank(filename: str) -> int:
    return 0 if "manylinux" in filename and "x86_64" in filename else 1 if "win" in filename else 2


def package_pins(name: str) -> dict[str, str]:
    """release -> its wheels' torch requirement (";"-joined), for the releases whose wheels agree."""
    index = simple_index(name)
    wheels: dict[str, list[dict[str, Any]]] = {}
    for f in index["files"]:
        if f["filename"].endswith(".whl") and not f.get("yanked"):
            wheels.setdefault(f["filename"].split("-")[1], []).append(f)
    pins: dict[str, str] = {}
    for release, files in sorted(wheels.items()):
        if re.search(r"(dev|rc|a|b)\d*$", release.split("+")[0]):
            continue  # pre-releases and nightlies: their pins are other nightlies
        files.sort(key=lambda f: (_platform_rank(f["filename"]), f["filename"]))
        picked = files[:1] + [f for f in files[1:] if _platform_rank(f["filename"]) != _platform_rank(files[0]["filename"])][:SAMPLE - 1]
        seen = set()
        for f in picked:
            try:
                seen.add(";".join(torch_requirements(wheel_metadata(f["url"], f["size"]))))
            except (OSError, ValueError) as exc:
                print(f"  {f['filename']}: {exc}", file=sys.stderr)
        pin = next(iter(seen)) if len(seen) == 1 else ""
        if re.search(r"[<>=~]", pin):  # a bare `torch` says nothing of the build
            pins[release] = pin
        elif len(seen) > 1:
            print(f"  {name} {release}: wheels disagree {sorted(seen)}", file=sys.stderr)
    return pins


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out, names = argv[0], argv[1:] or list(PACKAGES)
    packages = {}
    for name in names:
        packages[name] = package_pins(name)
        print(f"{name}: {len(packages[name])} releases with a torch pin", file=sys.stderr)
    data = {"schema": 1,
            "source": [f"https://pypi.org/simple/{name}/" for name in names],
            "updated": time.strftime("%Y-%m"),
            "provenance": "python -m torchdoctor.data.companion_pins_build OUT.json: the Requires-Dist of each release's "
                          "PyPI wheels (their METADATA, read with HTTP range requests)",
            "packages": packages}
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
