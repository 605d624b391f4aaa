"""Knowledge-base fix commands, filled from the user's facts.

A fix in knowledge/*.toml never pins a version: where a command needs one it says so with a
placeholder (`torch==<torch-version>`, `--index-url https://download.pytorch.org/whl/<cuda-tag>`).
With facts (`explain --env`) the placeholders this machine can answer are filled in; the others
stay as they are, visibly not something to paste unchanged (a shell refuses `<...>` as input
redirection rather than doing the wrong thing). Pure functions; torch is never imported.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

# Every placeholder a fix may use, with what it stands for.
PLACEHOLDERS = {
    "torch-version": "the installed torch release, e.g. 2.13.0",
    "torch-major-minor": "the installed torch's major.minor, e.g. 2.13",
    "cuda-tag": "the wheel flavour of the installed torch: cpu, cu126, cu130 ...",
    "cuda-tag-for-this-machine": "the CUDA build this driver and GPU support: cu118, cu126, cu128, cu130 ...",
    "cuda-version": "the CUDA version torch was built with (torch.version.cuda), e.g. 12.6",
    "torchvision-requirement": "the torchvision release that pairs with the installed torch, e.g. torchvision==0.28.*",
    "torchaudio-requirement": "the torchaudio release that pairs with the installed torch, e.g. torchaudio>=2.11.0",
}
# A string: re compiles it (0.2 ms) only when a fix is filled in, not on every `explain`.
_PLACEHOLDER = r"<(" + "|".join(re.escape(k) for k in PLACEHOLDERS) + r")>"


def values_from_facts(facts: Any) -> dict[str, str]:
    """The placeholders these facts answer (nothing for unknown facts: a guess is worse than a blank)."""
    from ..data.tables import base_version, family_requirement, local_tag, suggest_build, torch_minor
    from ..facts.model import known

    def get(dotted: str) -> Any:
        try:
            value = facts.get(dotted)
        except (KeyError, AttributeError):
            return None
        return value if known(value) else None

    version = get("torch.version") if get("torch.import_status") == "ok" else None
    vf = get("packages.torch_version_file")
    if version is None and vf is not None:
        version = vf.version
    if version is None:
        version = next((d.version for d in get("packages.distributions") or [] if d.name == "torch"), None)
    out: dict[str, str] = {}
    if not version:
        return out
    release = base_version(version)
    if release and re.fullmatch(r"\d+(\.\d+)*", release):
        out["torch-version"] = release
        minor = torch_minor(release)
        if minor:
            out["torch-major-minor"] = minor
        for name in ("torchvision", "torchaudio"):
            requirement = family_requirement(name, release)
            if requirement:
                out[f"{name}-requirement"] = requirement
    tag = local_tag(version)
    cuda = get("torch.cuda") or (vf.cuda if vf is not None else None)
    if cuda:
        out["cuda-version"] = str(cuda)
    if tag and re.fullmatch(r"cpu|cu\d+|rocm[\d.]+|xpu", tag):
        out["cuda-tag"] = tag
    elif cuda:
        out["cuda-tag"] = "cu" + "".join(str(cuda).split(".")[:2])
    elif get("torch.import_status") == "ok" and get("torch.hip") is None and known(facts.get("torch.cuda")):
        out["cuda-tag"] = "cpu"  # torch.version.cuda is None: a CPU build from PyPI (macOS, Windows)
    gpus = get("nvidia.gpus") or []
    driver = get("nvidia.driver_version")
    if driver or gpus:
        ccs = [g.compute_capability for g in gpus if isinstance(getattr(g, "compute_capability", None), str)]
        suggestion = suggest_build(version, driver=driver, ccs=ccs, system=get("python.system") or "Linux",
                                   python=get("python.version"))
        if suggestion is not None and suggestion.version == release:  # a build of this same release
            out["cuda-tag-for-this-machine"] = suggestion.tag
    return out


def fill(text: str, values: Mapping[str, str] | None) -> str:
    """`text` with every placeholder that `values` answers replaced; the rest left visible."""
    if not values:
        return text
    return re.sub(_PLACEHOLDER, lambda m: values.get(m.group(1), m.group(0)), text)


def placeholders(text: str) -> list[str]:
    return re.findall(_PLACEHOLDER, text)
