"""What the Python & packages checks (TE101-TE105) share: which torch is installed and the pip
command of the diagnosed interpreter. The Facts readers come from _cuda, the version arithmetic
from torchdoctor.data.tables. Pure functions of Facts; the leading underscore keeps this module
out of check discovery."""

from __future__ import annotations

import re
from typing import Any

from packaging.version import InvalidVersion, Version

from torchdoctor.data.tables import INDEX_URL, base_version, local_tag, major_minor  # noqa: F401  (re-exported)
from torchdoctor.facts.model import Distribution

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
    """Why a check has no torch to judge: not installed, or not named in a partial pasted list."""
    if fact(facts, "packages.distributions_partial") is True:
        return "torch is not named in the pasted package list, which is partial (cut short or filtered)"
    return "torch is not installed"


def python_cmd(facts: Any) -> str:
    return pip(facts)[: -len(" -m pip")]


def index_url(torch_text: str | None) -> str:
    """The PyTorch index that serves this wheel flavour, as a pip option ('' for PyPI defaults)."""
    tag = flavour(torch_text)
    return f" --index-url {INDEX_URL}/{tag}" if tag else ""


def torch_dist(name: str, version_text: str) -> dict[str, str]:
    """For examples: a dist-info entry in a venv's site-packages."""
    return {"name": name, "version": version_text, "location": SITE,
            "metadata_path": f"{SITE}/{name.replace('-', '_')}-{version_text}.dist-info"}


__all__ = ["NUMPY_ABI", "SITE", "base_version", "dists", "fact", "first", "flavour", "index_url", "major_minor",
           "no_torch", "pip", "python_cmd", "torch_dist", "torch_version", "version"]
