from __future__ import annotations

import re

from packaging.version import Version

from torchdoctor.data import load, tables
from torchdoctor.facts.torch_warnings import NUMPY_TOO_OLD
from torchdoctor.model import Fix, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import from_pasted_report, unknown_need
from ._install import NUMPY_ABI, fact, first, no_torch, pip, torch_dist, torch_version, version

_NUMPY_2_MESSAGE = ("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.2 as it may crash. "
                    "To support both 1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy 2.0.")


def _import_said(facts, pattern: re.Pattern[str]) -> str | None:
    """What `pattern` finds in what the import printed (torch's warnings, then its stderr, error message and
    traceback, each on one line)."""
    texts = list(fact(facts, "torch.warnings", []) or [])
    texts += [v for v in (fact(facts, n) for n in ("torch.stderr_tail", "torch.error_message", "torch.traceback"))
              if isinstance(v, str)]
    for text in texts:
        m = pattern.search(" ".join(text.split()))
        if m:
            return m.group(0).strip()
    return None


def _numpy_older_than_built_for(facts, said: str):
    found = torch_version(facts)
    torch_text = found[0] if found else None
    # An upgrade must stay on NumPy 1.x where torch was built against it (torch < 2.3, or torch unknown).
    numpy_2_ok = torch_text is not None and tables.numpy2_supported(torch_text)
    upgrade = f"{pip(facts)} install --upgrade numpy" if numpy_2_ok else f"{pip(facts)} install --upgrade \"numpy<2\""
    evidence = {"import output": said}
    if torch_text:
        evidence["torch"] = torch_text
    return error(f"a module imported with torch was built against a newer NumPy than the one installed: the import "
                 f"printed \"{said}\" (NumPy's C API versions: the module's first, the installed NumPy's second)",
                 fix=Fix("Upgrade NumPy to the release the module was built against"
                         + ("" if numpy_2_ok else " (staying on NumPy 1.x: torch before 2.3 runs only on it)"),
                         (upgrade,)),
                 evidence=evidence, related=("numpy-abi-mismatch",))


def _module_in(text: str) -> str | None:
    """The module whose import failed, from the last 'File .../site-packages/<pkg>/...' frame."""
    frames = re.findall(r"site-packages[/\\]([A-Za-z_][\w]*)[/\\]", text)
    return frames[-1] if frames else None


@env_check(
    code="TE104",
    name="numpy-abi-mismatch",
    title="NumPy is one the installed torch was built for",
    area="Python & packages",
    examples=[
        Example("ok", {"packages": {"distributions": [torch_dist("torch", "2.13.0+cpu"), torch_dist("numpy", "2.3.4")]}}),
        Example("ok", {"packages": {"distributions": [torch_dist("torch", "2.2.2"), torch_dist("numpy", "1.26.4")]}},
                "an old torch with NumPy 1"),
        Example("error", {"packages": {"distributions": [torch_dist("torch", "2.2.2+cu121"), torch_dist("numpy", "2.1.2")]}},
                "torch < 2.3 under NumPy 2", contains='"numpy<2"'),
        Example("error", {"packages": {"distributions": [torch_dist("torch", "2.5.1"), torch_dist("numpy", "2.1.2")]},
                          "torch": {"import_status": "ok", "version": "2.5.1", "warnings": [],
                                    "stderr_tail": _NUMPY_2_MESSAGE + "\n\nTraceback (most recent call last):  File "
                                    "\"/home/ada/venv/lib/python3.11/site-packages/torchvision/__init__.py\", line 6"}},
                "another module built for NumPy 1.x", contains="torchvision"),
        Example("skip", {"packages": {"distributions": [torch_dist("torch", "2.13.0+cpu")]},
                       "torch": {"import_status": "ok", "version": "2.13.0+cpu",
                                 "warnings": ["UserWarning: Failed to initialize NumPy: No module named 'numpy'"]}},
                "numpy missing is not an ABI problem"),
        Example("warning", {"packages": {"distributions": [torch_dist("torch", "2.4.0"), torch_dist("numpy", "2.0.1")]},
                            "python": {"system": "Windows"}}, "the 2.4.0 Windows regression", contains="2.4.1"),
        Example("skip", {"packages": {"distributions": [torch_dist("numpy", "2.3.4")], "torch_version_file": None}}),
        Example("error", {"packages": {"distributions": [torch_dist("torch", "1.13.1"), torch_dist("numpy", "1.23.5")]},
                          "torch": {"import_status": "ok", "version": "1.13.1", "warnings": [
                              "UserWarning: Failed to initialize NumPy: module compiled against API version 0x10 but "
                              "this version of numpy is 0xf (Triggered internally at ..\\torch\\csrc\\utils\\"
                              "tensor_numpy.cpp:84.)"]}},
                "NumPy older than the C API a module was built against", contains='--upgrade "numpy<2"'),
        Example("ok", {"packages": {"distributions": [torch_dist("torch", "1.13.1"), torch_dist("numpy", "1.24.4")]},
                       "torch": {"import_status": "ok", "version": "1.13.1", "warnings": []}},
                "the same torch with the NumPy it was built against"),
    ],
)
def numpy_abi_mismatch(facts):
    """
    ## What it checks
    The installed NumPy against the NumPy ABI torch was built for (torch 2.2 and older: NumPy 1.x
    only; NumPy 2 from torch 2.3.0), and the probe's import output for NumPy's own complaint, "A
    module that was compiled using NumPy 1.x cannot be run in NumPy 2.x", which also names other
    modules imported with torch.

    ## Why it matters
    NumPy 2 changed its C ABI. A torch built against NumPy 1.x prints that message, then
    `torch.from_numpy`, `Tensor.numpy()` and DataLoader collation of NumPy arrays fail with
    `RuntimeError: Numpy is not available` or `_ARRAY_API not found` (pytorch#107302, #132179).

    ## How to fix
    Keep NumPy below 2 for torch < 2.3 (`pip install "numpy<2"`), or upgrade torch (with its
    matching torchvision/torchaudio) to 2.3 or later; for another module that was built against
    NumPy 1.x, upgrade that module.
    """
    too_old = _import_said(facts, NUMPY_TOO_OLD)
    if too_old:
        return _numpy_older_than_built_for(facts, too_old)
    gap = unknown_need(facts, "packages.distributions")
    found = None if gap is not None else torch_version(facts)
    if found is None:
        said = _import_said(facts, NUMPY_ABI)
        if not said:
            return skip(no_torch(facts)) if gap is None else gap
        # A pasted import output without a package list, or without torch's version: NumPy's own refusal is the verdict.
        return error(f"a module imported with torch was built against NumPy 1.x and NumPy 2 is installed: the "
                     f"import printed \"{said}\"",
                     fix=Fix("Install NumPy 1.x, or upgrade torch (and the module the traceback names) to a "
                             "release built for NumPy 2",
                             (f"{pip(facts)} install \"numpy<2\"",
                              f"{pip(facts)} install --upgrade torch torchvision torchaudio")),
                     evidence={"import output": said}, related=("numpy-abi-mismatch",))
    torch_text = found[0]
    numpy = first(facts, "numpy")
    numpy_text = fact(facts, "torch.numpy_version") or (numpy.version if numpy else None)
    table = load("torch_releases")["numpy_abi"]
    min_torch = Version(table["numpy2_min_torch"])
    tv, nv = version(torch_text), version(numpy_text)
    old_torch = tv is not None and not tables.numpy2_supported(torch_text)
    evidence = {"torch": torch_text, "numpy": numpy_text or "not installed"}
    pin_numpy = f"{pip(facts)} install \"numpy<2\""
    upgrade_torch = f"{pip(facts)} install --upgrade \"torch>={min_torch}\" torchvision torchaudio"

    said = _import_said(facts, NUMPY_ABI)
    if said:
        evidence["import output"] = said
        blob = "\n".join(str(fact(facts, n) or "") for n in ("torch.stderr_tail", "torch.traceback"))
        module = None if old_torch else _module_in(blob)
        if old_torch or module in (None, "torch"):
            what = f"torch {torch_text} was built against NumPy 1.x" if old_torch else "a module built against NumPy 1.x"
            return error(f"{what} and NumPy {numpy_text or '2.x'} is installed: the import printed \"{said}\"",
                         fix=Fix("Install NumPy 1.x, or upgrade torch to a release built for NumPy 2",
                                 (pin_numpy, upgrade_torch)),
                         evidence=evidence, related=("numpy-abi-mismatch",))
        return error(f"{module} was built against NumPy 1.x and NumPy {numpy_text or '2.x'} is installed: importing "
                     f"it with torch printed \"{said}\"",
                     fix=Fix(f"Upgrade {module} to a release built for NumPy 2, or install NumPy 1.x",
                             (f"{pip(facts)} install --upgrade {module}", pin_numpy)),
                     evidence=evidence, related=("numpy-abi-mismatch",))
    if nv is None:
        if from_pasted_report(facts):
            # A pasted list (`pip show torch`, `pip list | grep torch`, collect_env's few lines)
            # shows what was pasted, not everything installed.
            return skip("NumPy is not named in the pasted text, so the NumPy/torch ABI could not be checked")
        return skip(f"NumPy is not installed (torch {torch_text} works without it; Tensor.numpy() needs it)")
    if old_torch and nv.major >= 2:
        return error(f"torch {torch_text} was built against NumPy 1.x but NumPy {numpy_text} is installed: "
                     "\"A module that was compiled using NumPy 1.x cannot be run in NumPy 2\", and Tensor.numpy() / "
                     "torch.from_numpy() fail",
                     fix=Fix(f"Install NumPy 1.x, or upgrade torch to {min_torch} or later", (pin_numpy, upgrade_torch)),
                     evidence=evidence, related=("numpy-abi-mismatch",))
    system = fact(facts, "python.system")
    for reg in table["regressions"]:
        if tv is not None and tv.base_version == reg["torch"] and system == reg["platform"] and nv.major >= 2:
            return warning(f"torch {torch_text} on {system} has a known NumPy 2 regression ({reg['issue']})",
                           fix=Fix("Upgrade torch to 2.4.1 or later, or install NumPy 1.x",
                                   (f"{pip(facts)} install --upgrade \"torch>=2.4.1\"", pin_numpy)),
                           evidence=evidence, related=("numpy-abi-mismatch",))
    return ok(f"NumPy {numpy_text} works with torch {torch_text}")
