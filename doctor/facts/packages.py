"""Installed packages of the target interpreter, read from metadata files only.

Nothing is imported: every entry of the target's sys.path is listed once and its `*.dist-info`
and `*.egg-info` headers are read as text, so a broken torch cannot break this collector and
`torchdoctor env --quick` stays fast. Kept: the torch family, numpy, triton, nvidia-* / cuda-*
wheels and anything that requires torch, in sys.path order. A name may appear more than once (a
second torch in the user site, two dist-info folders left by an interrupted upgrade): that is a
finding (TE102), so duplicates are kept, not merged.
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import replace
from typing import Iterable
from urllib.parse import unquote, urlparse

from . import elf
from .model import (
    Distribution,
    FamilyBuild,
    LibraryDir,
    PackagesFacts,
    PythonFacts,
    TorchVersionFile,
    Unknown,
    known,
)
from .site_dirs import _metadata_in, _path_entries

# Names kept whatever they require (normalised, PEP 503).
FAMILY = frozenset({
    "torch", "torchvision", "torchaudio", "torchtext", "torchdata", "torchao", "torchtune", "torchrec",
    "triton", "xformers", "flash-attn", "deepspeed", "apex", "numpy", "fbgemm-gpu",
})
FAMILY_PREFIXES = ("torch-", "pytorch-triton", "nvidia-", "cuda-")

_NORMALISE = re.compile(r"[-_.]+")
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# "libcudnn.so.9.10.2" -> ("libcudnn.so", "9.10.2"); "libcusparseLt-f8b4a9fb.so.0" -> "0"
_SHARED_OBJECT = re.compile(r"^(lib.+?\.so)(?:\.(\d+(?:\.\d+)*))?$")


def normalise(name: str) -> str:
    return _NORMALISE.sub("-", name).lower()


def requirement_name(line: str) -> str | None:
    m = _REQ_NAME.match(line)
    return normalise(m.group(1)) if m else None


def wanted(name: str, requires: Iterable[str]) -> bool:
    if name in FAMILY or name.startswith(FAMILY_PREFIXES):
        return True
    return any(requirement_name(r) == "torch" and "extra" not in r.partition(";")[2] for r in requires)


# --------------------------------------------------------------------------- metadata files

def _headers(text: str) -> dict[str, list[str]]:
    """RFC 822 style headers up to the first blank line (the body is the long description)."""
    headers: dict[str, list[str]] = {}
    last: str | None = None
    for line in text.splitlines():
        if not line.strip():
            break
        if line[0] in " \t" and last is not None:
            headers[last][-1] += "\n" + line.strip()
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        last = key.strip().lower()
        headers.setdefault(last, []).append(value.strip())
    return headers


def _read_head(path: str, chunk: int = 16384) -> str:
    """A metadata file up to the end of its headers: the long description after them is not needed."""
    parts: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        while True:
            part = fh.read(chunk)
            parts.append(part)
            if not part or "\n\n" in part or "\n\r\n" in part:
                return "".join(parts)


def _egg_requires(egg_dir: str) -> list[str]:
    try:
        with open(os.path.join(egg_dir, "requires.txt"), encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        line = line.strip()
        if line.startswith("["):  # an extra or a marker section: not what a plain install needs
            break
        if line and not line.startswith("#"):
            out.append(line)
    return out


def read_distribution(meta_path: str, location: str) -> Distribution | None:
    """One `.dist-info` / `.egg-info` (folder or file), or None when it cannot be read."""
    is_dir = os.path.isdir(meta_path)
    if meta_path.endswith(".dist-info"):
        file = os.path.join(meta_path, "METADATA")
    elif is_dir:
        file = os.path.join(meta_path, "PKG-INFO")
    else:
        file = meta_path  # a single-file .egg-info is the PKG-INFO itself
    try:
        headers = _headers(_read_head(file))
    except OSError:
        return None
    name = (headers.get("name") or [""])[0]
    version = (headers.get("version") or [""])[0]
    if not name:  # broken metadata: fall back to the folder name, "torch-2.5.1.dist-info"
        stem = os.path.basename(meta_path).rsplit(".", 1)[0]
        name, _, version = stem.partition("-")
        version = version.split("-py")[0]
    requires = headers.get("requires-dist", [])
    if not requires and is_dir and not meta_path.endswith(".dist-info"):
        requires = _egg_requires(meta_path)
    installer = None
    if meta_path.endswith(".dist-info"):
        try:
            with open(os.path.join(meta_path, "INSTALLER"), encoding="utf-8", errors="replace") as fh:
                installer = fh.read().strip() or None
        except OSError:
            pass
    requires_python = (headers.get("requires-python") or [None])[0]
    return Distribution(name=normalise(name), version=version, location=location, metadata_path=meta_path,
                        requires=list(requires), requires_python=requires_python, installer=installer)


def editable_project(meta_path: str) -> str | None:
    """The project folder of a PEP 660 editable install, from the dist-info's direct_url.json."""
    try:
        with open(os.path.join(meta_path, "direct_url.json"), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not (data.get("dir_info") or {}).get("editable"):
        return None
    url = str(data.get("url") or "")
    return unquote(urlparse(url).path) if url.startswith("file:") else None


def distributions(sys_path: Iterable[str]) -> list[Distribution]:
    found = []
    for entry in _path_entries(sys_path):
        for meta in _metadata_in(entry):
            dist = read_distribution(meta, entry)
            if dist is None or not wanted(dist.name, dist.requires):
                continue
            if meta.endswith(".dist-info"):
                project = editable_project(meta)
                if project:
                    dist = replace(dist, editable=project)
            found.append(dist)
    return found


# --------------------------------------------------------------------------- torch/version.py

def find_torch_package(sys_path: Iterable[str]) -> str | None:
    """The torch folder `import torch` would pick: the first sys.path entry holding torch/__init__.py."""
    for entry in _path_entries(sys_path):
        pkg = os.path.join(entry, "torch")
        if os.path.isfile(os.path.join(pkg, "__init__.py")):
            return pkg
    return None


def read_torch_version_file(path: str) -> TorchVersionFile:
    """torch/version.py read as text (never imported): `__version__ = '2.13.0+cpu'`, `cuda: Optional[str] = None`."""
    values: dict[str, object] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            tree = ast.parse(fh.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return TorchVersionFile(path=path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name):
            try:
                values[target.id] = ast.literal_eval(value)
            except ValueError:
                pass

    def text(key: str) -> str | None:
        v = values.get(key)
        return v if isinstance(v, str) else None

    debug = values.get("debug")
    return TorchVersionFile(path=path, version=text("__version__"), cuda=text("cuda"), hip=text("hip"),
                            git_version=text("git_version"), debug=debug if isinstance(debug, bool) else None)


def torch_version_file(sys_path: Iterable[str]) -> TorchVersionFile | None:
    pkg = find_torch_package(sys_path)
    return None if pkg is None else read_torch_version_file(os.path.join(pkg, "version.py"))


# --------------------------------------------------------------------------- pip CUDA libraries

def library_versions(directory: str) -> dict[str, str]:
    """Shared objects in a folder with the version their file name carries ("" when none)."""
    out = {}
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return out
    for n in names:
        m = _SHARED_OBJECT.match(n)
        if m:
            out[n] = m.group(2) or ""
    return out


def pip_cuda_lib_dirs(sys_path: Iterable[str], dists: list[Distribution]) -> list[LibraryDir]:
    """site-packages/nvidia/<lib>/lib (CUDA 12 wheels) and nvidia/cu13/lib (CUDA 13 wheels)."""
    dirs = []
    for entry in _path_entries(sys_path):
        root = os.path.join(entry, "nvidia")
        try:
            subs = sorted(os.listdir(root))
        except OSError:
            continue
        here = [d.name for d in dists if d.location == entry and d.name.startswith("nvidia-")]
        for sub in subs:
            lib = os.path.join(root, sub, "lib")
            if not os.path.isdir(lib):
                continue
            libs = library_versions(lib)
            if not libs:
                continue
            stem = "nvidia-" + normalise(sub)
            owners = [n for n in here if n == stem or n.startswith(stem + "-cu")]
            origin = "pip:" + owners[0] if len(owners) == 1 else f"pip:nvidia/{sub}"
            dirs.append(LibraryDir(path=lib, libraries=libs, origin=origin))
    return dirs


# --------------------------------------------------------------------------- torchvision / torchaudio builds

# Family packages whose compiled library links torch's C++ and CUDA libraries, with where that
# library lives inside the package.
FAMILY_EXTENSIONS = {"torchvision": ("", "_C"), "torchaudio": ("lib", "")}


def _extension_library(pkg: str, sub: str, stem: str) -> str | None:
    folder = os.path.join(pkg, sub) if sub else pkg
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    libs = [n for n in names if n.endswith(".so") or ".so." in n or n.endswith(".pyd")]
    if stem:
        libs = [n for n in libs if n.split(".")[0] == stem]
    # torchaudio: libtorchaudio.so / _torchaudio.so / _torchaudio.abi3.so, never the sox/ffmpeg helpers
    libs = [n for n in libs if stem or "torchaudio" in n and "sox" not in n and "ffmpeg" not in n]
    return os.path.join(folder, libs[0]) if libs else None


def family_builds(sys_path: Iterable[str]) -> list[FamilyBuild]:
    """torchvision / torchaudio as `import` would find them: version.py read as text (never
    imported) and the DT_NEEDED list of the compiled library."""
    entries = list(_path_entries(sys_path))
    out = []
    for name, (sub, stem) in FAMILY_EXTENSIONS.items():
        pkg = next((os.path.join(e, name) for e in entries if os.path.isfile(os.path.join(e, name, "__init__.py"))), None)
        if pkg is None:
            continue
        vf = read_torch_version_file(os.path.join(pkg, "version.py"))
        library = _extension_library(pkg, sub, stem)
        needed = elf.needed(library) if library else None
        out.append(FamilyBuild(name=name, path=pkg, version=vf.version, cuda=vf.cuda,
                               extension=library if needed is not None else None, needed=needed or []))
    return out


# --------------------------------------------------------------------------- collector

def collect(target, python: PythonFacts) -> PackagesFacts:
    if not known(python.sys_path):
        why = Unknown(f"sys.path of the interpreter is unknown ({python.sys_path.reason})")
        return PackagesFacts(distributions=why, torch_version_file=why, pip_cuda_lib_dirs=why, family_builds=why)
    sys_path = python.sys_path
    dists = distributions(sys_path)
    return PackagesFacts(
        distributions=dists,
        torch_version_file=torch_version_file(sys_path),
        pip_cuda_lib_dirs=pip_cuda_lib_dirs(sys_path, dists),
        family_builds=family_builds(sys_path),
    )
