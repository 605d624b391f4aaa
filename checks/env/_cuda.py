"""Reading helpers shared by the CUDA checks (TE2xx). Pure functions of Facts; the module name
starts with an underscore so check discovery skips it."""

from __future__ import annotations

import re
from typing import Any

from torchdoctor.data import tables
from torchdoctor.facts import torch_warnings
from torchdoctor.facts.model import Unknown, known
from torchdoctor.model import skip

# For the examples: a site-packages folder, and a GPU as the nvidia collector records it.
SITE = "/home/ada/venv/lib/python3.11/site-packages"


def example_gpu(name: str, cc: str, index: int = 0) -> dict[str, Any]:
    return {"index": index, "name": name, "compute_capability": cc}


def fact(facts: Any, dotted: str, default: Any = None) -> Any:
    """facts.get(dotted), with `default` for anything unknown."""
    value = facts.get(dotted)
    return value if known(value) else default


def pip(facts: Any) -> str:
    """pip of the diagnosed interpreter: "/venv/bin/python -m pip" ("python -m pip" if unknown)."""
    exe = fact(facts, "python.executable")
    return f"{exe if exe and ' ' not in exe else 'python'} -m pip"


def cuda_torch_install(facts: Any) -> str:
    """Reinstalling torch from a CUDA index, the tag left for the user where the facts cannot choose it."""
    return f"{pip(facts)} install torch --index-url {tables.INDEX_URL}/<cuda-tag-for-this-machine>"


def dists(facts: Any, name: str) -> list[Any]:
    """Installed distributions of that name, in sys.path order."""
    return [d for d in fact(facts, "packages.distributions") or [] if d.name == name]


def system(facts: Any) -> str:
    """The OS the wheels are for; Linux when unknown (the tables' own default)."""
    return fact(facts, "python.system") or "Linux"


def is_linux_x86(facts: Any) -> bool:
    """Whether the Linux x86_64 arch-list table applies (unknown counts as yes). amd64 is the same
    machine: Debian-style kernels put it in the release ("Linux-5.10.0-21-amd64-x86_64-with-glibc2.31")."""
    return system(facts) == "Linux" and (fact(facts, "python.machine") or "x86_64").lower() in ("x86_64", "amd64")


def python_version(facts: Any) -> str | None:
    return fact(facts, "python.version")


def torch_label(facts: Any) -> str:
    """ "torch 2.13.0+cu130", or "torch (CUDA 13.0)" when the version is unknown."""
    version = fact(facts, "torch.version")
    if version:
        return f"torch {version}"
    cuda = fact(facts, "torch.cuda")
    return f"torch (CUDA {cuda})" if cuda else "torch"


def torch_shown(label: str) -> str:
    """torch_label as an evidence value: "torch" alone says nothing beside the key "torch"."""
    return "version unknown" if label == "torch" else label


def gpus(facts: Any) -> list[Any]:
    return list(fact(facts, "nvidia.gpus") or [])


def gpu_cc(gpu: Any) -> str | None:
    """The GPU's compute capability ("8.6"), or None where it is unknown or not one (a hand-edited
    facts file may hold anything: a value no check can read is no fact)."""
    cc = gpu.compute_capability
    return cc if isinstance(cc, str) and _CC.fullmatch(cc.strip()) else None


_CC = re.compile(r"\d{1,2}\.\d")


def gpu_label(gpu: Any, cc: str) -> str:
    """ "GPU 0 (NVIDIA GeForce GTX 1080, 6.1)": the index, the name and the compute capability."""
    name = gpu.name
    return f"GPU {gpu.index} ({cc})" if isinstance(name, Unknown) else f"GPU {gpu.index} ({name}, {cc})"


def gpu_ccs(facts: Any) -> list[str]:
    return sorted({cc for cc in (gpu_cc(g) for g in gpus(facts)) if cc}, key=tables.cc_int)


def suggest(facts: Any, *, exclude_tag: str | None = None, driver: bool = True,
            accept: Any = None, ccs: list[str] | None = None) -> tables.Suggestion | None:
    """The official build to install instead, for this machine's GPUs (or the compute
    capabilities `ccs`), Python and (unless driver=False) driver."""
    version = fact(facts, "torch.version")
    if not version:
        return None
    return tables.suggest_build(
        version,
        driver=driver_or_branch(facts) if driver else None,
        ccs=gpu_ccs(facts) if ccs is None else ccs,
        system=system(facts),
        python=python_version(facts),
        exclude_tag=exclude_tag,
        accept=accept,
    )


def driver_branch(facts: Any) -> int | None:
    """The driver's branch where a text named it alone ("驱动 535"); None where it is unknown or no branch (a
    hand-edited facts file may hold anything)."""
    branch = fact(facts, "nvidia.driver_branch")
    return int(branch) if isinstance(branch, str) and branch.isdigit() else None


def driver_or_branch(facts: Any) -> str | None:
    """The driver's version, or where a text named its branch alone, that branch's first release:
    a build chosen for it runs on any driver of the branch."""
    driver = fact(facts, "nvidia.driver_version")
    branch = driver_branch(facts)
    if driver is None and branch is not None:
        return f"{branch}.0"
    return driver


COMPANIONS = "reinstall torchvision/torchaudio from the same index if you use them"


def from_pasted_report(facts: Any) -> bool:
    """Whether the facts were read from a pasted report (collect_env or any other paste), which shows what its
    writer pasted, not the machine: no pid there can be looked up, no library path read."""
    return facts.meta.source in ("collect_env", "paste")


def unknown_need(facts: Any, *dotted: str) -> Any:
    """The runner's skip for a needed fact that is unknown, for checks that first look at
    torch's own warnings (which need none of those facts) and only then at the facts."""
    for name in dotted:
        value = facts.get(name)
        if isinstance(value, Unknown):
            return skip(f"not checked: {name} is unknown ({value.reason})", **{name: str(value)})
    return None


def torch_said(facts: Any, kind: str) -> list[torch_warnings.Said]:
    """What torch's own warnings (a pasted report's, or the import probe's) say is wrong, of one kind
    (torch_warnings.Said.kind: "driver", "arch", "toolkit", ...)."""
    return [s for s in torch_warnings.interpret(fact(facts, "torch.warnings")) if s.kind == kind]
