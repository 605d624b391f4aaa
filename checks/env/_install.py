"""What the Python & packages checks (TE101-TE105) share: which torch is installed and the pip
command of the diagnosed interpreter. The Facts readers come from _cuda, the version arithmetic
from torchdoctor.data.tables. Pure functions of Facts; the leading underscore keeps this module
out of check discovery."""

from __future__ import annotations

import re
from typing import Any

from packaging.version import InvalidVersion, Version

from torchdoctor.data.tables import INDEX_URL, base_version, local_tag, major_minor  # noqa: F401  (re-exported)
from torchdoctor.facts.model import Distribution, Unknown

from ._cuda import SITE, dists, fact, pip  # noqa: F401  (re-exported for the TE1xx checks)

# What NumPy and torch print when a module built against NumPy 1.x meets NumPy 2 (whitespace
# collapsed first: NumPy wraps the message). Not "Failed to initialize NumPy: No module named
# 'numpy'": that is NumPy missing, which torch allows.
NUMPY_ABI = re.compile(r"(?:A module that was )?compiled using NumPy 1\.x cannot be run in NumPy [\w.]*\w"
                       r"|_ARRAY_API not found|numpy\.core\.multiarray failed to import"
                       r"|numpy\.dtype size changed, may indicate binary incompatibility")
_FLAVOUR = re.compile(r"cpu|cu\d+|rocm[\d.]+|xpu")


def first(facts: Any, name: str) -> Distribution | None:
    found = dists(facts, name)
    return found[0] if found else None


def version(text: str | None) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


def flavour(text: str | None) -> str | None:
    """The wheel flavour in a local tag: '2.5.1+cu124' -> 'cu124'; None for PyPI default wheels and
    source builds ('2.14.0a0+git1234abc')."""
    tag = local_tag(text) if text else None
    return tag if tag and _FLAVOUR.fullmatch(tag) else None


def torch_version(facts: Any) -> tuple[str, str] | None:
    """(version, where it was read) of the torch that runs: what the import said, else
    torch/version.py, else the first torch metadata on the path."""
    imported = fact(facts, "torch.version")
    if imported and fact(facts, "torch.import_status") == "ok":
        return imported, "import torch"
    vf = fact(facts, "packages.torch_version_file")
    if vf is not None and vf.version:
        return vf.version, vf.path
    d = first(facts, "torch")
    if d is not None:
        return d.version, d.metadata_path or d.location
    return None


def no_torch(facts: Any) -> str:
    """Why a check has no torch to judge: not installed, not named in a partial pasted list, or a pasted
    report that holds neither a package list nor torch's version (which says nothing about torch; collect_env's
    "PyTorch version: N/A" does: torch did not import), or one that states torch's version alone (a sentence, a
    bug template's field: torch is there, but nothing says how it was installed)."""
    listed = facts.get("packages.distributions")
    stated = facts.get("torch.version")
    if isinstance(listed, Unknown) and isinstance(stated, Unknown):
        return f"not checked: packages.distributions is unknown ({listed.reason})"
    if isinstance(listed, Unknown) and isinstance(stated, str):  # a text that states torch's version, and no more
        return (f"not checked: the text states torch {stated} but not how it is installed (packages.distributions is "
                f"unknown: {listed.reason})")
    if fact(facts, "packages.distributions_partial") is True:
        return "torch is not named in the pasted package list, which is partial (cut short or filtered)"
    return "torch is not installed"


def python_cmd(facts: Any) -> str:
    return pip(facts)[: -len(" -m pip")]


def index_url(torch_text: str | None) -> str:
    """The PyTorch index that serves this wheel flavour, as a pip option ('' for PyPI defaults)."""
    tag = flavour(torch_text)
    return f" --index-url {INDEX_URL}/{tag}" if tag else ""


# The loader refusing one of torch's own compiled files (torch/lib/*, torch/_C*, a libtorch's libtorch_cpu.so
# or libc10.so wherever it lies: "torch/lib/libtorch_python.so: undefined symbol:
# _ZTIN3c1014WarningHandlerE"; macOS: "dlopen(.../torch/_C.cpython-39-darwin.so, 2): Symbol not found:
# __ZN3c10...") for a symbol of torch's own C++ namespaces (c10::, at::, torch::, caffe2::, in a name or as
# "typeinfo/vtable for"). One build's libraries always define each other's symbols, so the library that
# lacks it was loaded beside another build's: files of two torch installs (or versions) are mixed.
# The path starts where its token does: searched from every character of one long token, the leading \S*
# would rescan the rest of it each time (quadratic on a paste's blob).
_TORCH_OWN_FILE = (r"(?<!\S)(?:\S*[/\\])?(?:torch[/\\](?:lib[/\\][\w.+-]+|_C[\w.+-]*)|lib(?:torch|c10|caffe2)(?:_\w+)?|libshm)"
                   r"\.(?:so|dylib)[\w.]*")
_TORCH_OWN_REFUSAL = re.compile(r"(?P<file>" + _TORCH_OWN_FILE + r")(?:,[^)\n]*\))?:\s*(?:undefined symbol|Symbol not found):\s*"
                                r"_?(?P<symbol>_Z(?:T[IVS])?N[KVR]*(?:3c10|2at|5torch|6caffe2)\w*)")


def torch_own_symbol_missing(facts: Any) -> tuple[str, str, str] | None:
    """(torch's file, the torch C++ symbol it lacks, the loader's words as printed) when `import torch` failed
    that way, else None."""
    if fact(facts, "torch.import_status") != "import-error":
        return None
    for part in ("torch.error_message", "torch.traceback", "torch.stderr_tail"):
        text = fact(facts, part)
        m = _TORCH_OWN_REFUSAL.search(text) if isinstance(text, str) else None
        if m:
            return m.group("file").removeprefix("dlopen("), m.group("symbol"), m.group(0)
    return None


def torch_dist(name: str, version_text: str) -> dict[str, str]:
    """For examples: a dist-info entry in a venv's site-packages."""
    return {"name": name, "version": version_text, "location": SITE,
            "metadata_path": f"{SITE}/{name.replace('-', '_')}-{version_text}.dist-info"}


__all__ = ["NUMPY_ABI", "SITE", "base_version", "dists", "fact", "first", "flavour", "index_url", "major_minor",
           "no_torch", "pip", "python_cmd", "torch_dist", "torch_own_symbol_missing", "torch_version", "version"]
