"""Shared wording for every renderer: the one-line headline of the machine and the closing line."""

from __future__ import annotations

from ..facts.model import Facts, known
from ..model import Finding, Status, missing_fact_checks
from ..text import plural


def closing_line(findings: list[Finding]) -> str:
    errors = sum(f.status is Status.ERROR for f in findings)
    warnings = sum(f.status is Status.WARNING for f in findings)
    crashes = sum(f.status is Status.CRASH for f in findings)
    parts = []
    if errors:
        parts.append(plural(errors, "error"))
    if warnings:
        parts.append(plural(warnings, "warning"))
    if crashes:
        parts.append(f"{plural(crashes, 'check')} crashed")
    # Partial facts (a pasted report, --quick): never a clean bill of health for what was not
    # looked at; name the checks that lacked facts.
    unseen = missing_fact_checks(findings)
    if unseen:
        gap = (f"{plural(len(unseen), 'check')} not run for missing facts ({', '.join(unseen[:8])}"
               f"{', ...' if len(unseen) > 8 else ''})")
        return f"{', '.join(parts)}; {gap}." if parts else f"No problems in what could be checked; {gap}."
    return ", ".join(parts) if parts else "No problems found."


def headline(facts: Facts) -> str:
    """"torch 2.13.0+cpu (CPU build) · Python 3.11.7 · Linux x86_64 · no NVIDIA driver"."""
    bits = []
    torch, py, nv = facts.torch, facts.python, facts.nvidia
    version = torch.version if known(torch) and known(torch.version) else None
    if version is None and known(facts.packages) and known(facts.packages.torch_version_file) and facts.packages.torch_version_file:
        version = facts.packages.torch_version_file.version
    if version:
        build = ""
        if known(torch) and known(torch.cuda):
            build = f" (CUDA {torch.cuda})" if torch.cuda else (f" (ROCm {torch.hip})" if known(torch.hip) and torch.hip else " (CPU build)")
        bits.append(f"torch {version}{build}")
    elif known(torch) and torch.import_status == "not-installed":
        bits.append("torch not installed")
    if known(py):
        if known(py.version):
            bits.append(f"Python {py.version}")
        if known(py.system) and known(py.machine):
            bits.append(f"{py.system} {py.machine}")
    if known(nv):
        if known(nv.gpus) and nv.gpus:
            names = sorted({g.name for g in nv.gpus if known(g.name)})
            label = names[0] if len(names) == 1 else f"{len(names)} GPU models"
            bits.append(f"{len(nv.gpus)}× {label}")
        if known(nv.driver_version):
            bits.append(f"driver {nv.driver_version}" if nv.driver_version else "no NVIDIA driver")
    return " · ".join(bits)
