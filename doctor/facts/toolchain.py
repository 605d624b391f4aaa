"""The toolchain that builds C++/CUDA extensions, and the CUDA libraries LD_LIBRARY_PATH exposes.

CUDA_HOME is found the way torch.utils.cpp_extension._find_cuda_home finds it (CUDA_HOME or
CUDA_PATH, else two levels above `nvcc` on PATH, else /usr/local/cuda if it exists), and nvcc is
then CUDA_HOME/bin/nvcc, as torch runs it. Everything is read from the target's environment,
not this process's. The host compiler recorded is `$CC` when it names a gcc (torch hands `$CC` to
nvcc as -ccbin), else `gcc` on PATH; torch itself asks `$CXX` or `c++`, which on Linux is
normally a symlink to the same g++.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from typing import Mapping

from ..data.tables import cuda_library
from ._run import run
from .model import LibraryDir, PythonFacts, ToolchainFacts

IS_WINDOWS = os.name == "nt"

DEFAULT_CUDA_HOME = "/usr/local/cuda"  # torch's last guess on Linux
NVCC_TIMEOUT = 6.0
TOOL_TIMEOUT = 4.0


def collect(target, python: PythonFacts | None = None) -> ToolchainFacts:
    env = dict(target.environ)
    path = env.get("PATH", os.defpath)
    cuda_home, source = find_cuda_home(env)
    nvcc_path = None
    nvcc_version = None
    if cuda_home:
        candidate = os.path.join(cuda_home, "bin", "nvcc.exe" if IS_WINDOWS else "nvcc")
        if os.path.exists(candidate):
            nvcc_path = candidate
            nvcc_version = nvcc_release(run([candidate, "--version"], timeout=NVCC_TIMEOUT, env=env).stdout)

    gcc_path = _gcc(env, path)
    gcc_version = None
    if gcc_path:
        gcc_version = gcc_full_version(gcc_path, env)

    ninja_path = shutil.which("ninja", path=path)
    ninja_version = None
    if ninja_path:
        ran = run([ninja_path, "--version"], timeout=TOOL_TIMEOUT, env=env)
        ninja_version = ran.stdout.strip().splitlines()[0] if ran.ok and ran.stdout.strip() else None

    ld_dirs = split_path(env.get("LD_LIBRARY_PATH", ""))
    return ToolchainFacts(
        cuda_home=cuda_home,
        cuda_home_source=source,
        cuda_home_exists=bool(cuda_home) and os.path.isdir(cuda_home),
        nvcc_path=nvcc_path,
        nvcc_version=nvcc_version,
        gcc_path=gcc_path,
        gcc_version=gcc_version,
        ninja_path=ninja_path,
        ninja_version=ninja_version,
        ld_library_path=ld_dirs,
        ld_cuda_lib_dirs=[d for d in (cuda_libraries(p, "LD_LIBRARY_PATH") for p in ld_dirs) if d.libraries],
        compat_libcuda=compat_libcuda(ld_dirs + [d for d in ld_so_conf_dirs() if d not in ld_dirs]),
        # What the loaded libraries' dependencies resolve to is seen directly (torch.loaded_libraries);
        # running ldd here would add nothing, so no ldd output is part of this machine's facts.
        linked=[],
    )


def find_cuda_home(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """torch's _find_cuda_home over `env`: (the directory or None, where it came from)."""
    # Guess 1. As in torch, a variable that is set but empty still stops the search.
    value = env.get("CUDA_HOME") or env.get("CUDA_PATH")
    if value is not None:
        return (value or None), ("CUDA_HOME" if env.get("CUDA_HOME") else "CUDA_PATH")
    # Guess 2.
    nvcc = shutil.which("nvcc", path=env.get("PATH", os.defpath))
    if nvcc is not None:
        return os.path.dirname(os.path.dirname(nvcc)), "nvcc on PATH"
    # Guess 3.
    if IS_WINDOWS:
        homes = glob.glob("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v*.*")
        home = homes[0] if homes else ""
    else:
        home = DEFAULT_CUDA_HOME
    return (home, home) if home and os.path.exists(home) else (None, None)


def nvcc_release(output: str) -> str | None:
    """ "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0" (torch reads the same field)."""
    m = re.search(r"release (\d+\.\d+)", output or "")
    return m.group(1) if m else None


def gcc_full_version(gcc: str, env: Mapping[str, str]) -> str | None:
    ran = run([gcc, "-dumpfullversion", "-dumpversion"], timeout=TOOL_TIMEOUT, env=dict(env))
    m = re.match(r"\s*(\d+(?:\.\d+)*)", ran.stdout) if ran.ok else None
    return m.group(1) if m else None


def _gcc(env: Mapping[str, str], path: str) -> str | None:
    cc = env.get("CC", "").strip()
    if cc and " " not in cc and re.search(r"(^|[-/])gcc(-[\d.]+)?$", cc):
        found = shutil.which(cc, path=path)
        if found:
            return found
    return shutil.which("gcc", path=path)


def split_path(value: str) -> list[str]:
    """LD_LIBRARY_PATH entries in order, without empty ones and repeats."""
    seen: list[str] = []
    for entry in value.split(os.pathsep):
        if entry and entry not in seen:
            seen.append(entry)
    return seen


def library_version(name: str, path: str | None = None) -> str | None:
    """Version of a CUDA library from its file name ("" when it has none); for a symlink
    ("libnvJitLink.so.12" -> "libnvJitLink.so.12.1.105") the more specific version of its target.
    None: not a CUDA-family library."""
    lib = cuda_library(name)
    if lib is None:
        return None
    version = lib[1]
    if path and os.path.islink(path):
        target = cuda_library(os.path.basename(os.path.realpath(path)))
        if target and target[0] == lib[0] and len(target[1]) > len(version):
            version = target[1]
    return version


def cuda_libraries(directory: str, origin: str) -> LibraryDir:
    """The CUDA-family libraries in one directory (not recursive)."""
    libraries: dict[str, str] = {}
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        names = []
    for name in names:
        version = library_version(name, os.path.join(directory, name))
        if version is not None:
            libraries[name] = version
    return LibraryDir(path=directory, libraries=libraries, origin=origin)


# The dynamic loader's configuration: NGC-style containers put cuda-compat there (an
# /etc/ld.so.conf.d/*.conf line naming /usr/local/cuda/compat, then ldconfig) instead of on
# LD_LIBRARY_PATH.
LD_SO_CONF = "/etc/ld.so.conf"


def ld_so_conf_dirs(path: str | None = None, _depth: int = 0) -> list[str]:
    """The directories ld.so.conf and the files it includes name, in order (ldconfig's search)."""
    path = path or LD_SO_CONF
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    found: list[str] = []
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("include ") and _depth < 4:
            pattern = line.split(None, 1)[1].strip()
            if not os.path.isabs(pattern):
                pattern = os.path.join(os.path.dirname(path), pattern)
            for conf in sorted(glob.glob(pattern)):
                found += [d for d in ld_so_conf_dirs(conf, _depth + 1) if d not in found]
        elif line.startswith("/") and line not in found:
            found.append(line)
    return found


def compat_libcuda(ld_dirs: list[str]) -> list[str]:
    """libcuda.so* from cuda-compat (forward compatibility) directories on LD_LIBRARY_PATH or in
    the loader's configuration: /usr/local/cuda/compat, /usr/local/cuda-12.4/compat/lib, /opt/cuda-compat/..."""
    found: list[str] = []
    for directory in ld_dirs:
        if not any(re.match(r"(cuda-)?compat", part) for part in directory.split(os.sep)):
            continue
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        found += [os.path.join(directory, n) for n in names if n.startswith("libcuda.so")]
    return found
