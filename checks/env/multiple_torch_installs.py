from __future__ import annotations

import os

from torchdoctor.model import Fix, Status, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import unknown_need
from ._install import (SITE, base_version, dists, fact, flavour, index_url, no_torch, pip, python_cmd,
                       torch_own_symbol_missing)

USER_SITE = "/home/ada/.local/lib/python3.11/site-packages"


def _same_build(a: str, b: str) -> bool:
    """Versions equal up to the local tag; a local tag only counts when both carry one
    (some builds put '+cu124' in torch/version.py but not in the metadata)."""
    if base_version(a) != base_version(b):
        return False
    la, lb = flavour(a), flavour(b)
    return la is None or lb is None or la == lb


def _package_dir(facts) -> tuple[str, str] | None:
    """(sys.path entry, how we know) of the torch package that `import torch` picks."""
    file = fact(facts, "torch.file")
    if file and fact(facts, "torch.import_status") == "ok":
        return os.path.dirname(os.path.dirname(file)), "import torch"
    vf = fact(facts, "packages.torch_version_file")
    if vf is not None and vf.path:
        return os.path.dirname(os.path.dirname(vf.path)), "torch/version.py"
    return None


def _norm(path: str) -> str:
    return os.path.normpath(path) if path else path


def _owns(d, entry: str) -> bool:
    """Whether distribution d accounts for the torch package found in sys.path entry `entry`."""
    if _norm(d.location) == _norm(entry):
        return True
    project = _norm(d.editable) if d.editable else None
    return bool(project) and (_norm(entry) == project or _norm(entry).startswith(project + os.sep))


def _install(facts, d) -> str:
    if d.editable:
        return f"{pip(facts)} install -e {d.editable}"
    return f"{pip(facts)} install torch=={d.version}{index_url(d.version)}"


@env_check(
    code="TE102",
    name="multiple-torch-installs",
    title="One torch install on the path",
    area="Python & packages",
    examples=[
        Example("ok", {"packages": {"distributions": [{"name": "torch", "version": "2.13.0+cpu", "location": SITE}],
                                    "torch_version_file": {"path": f"{SITE}/torch/version.py", "version": "2.13.0+cpu"}}}),
        Example("warning", {"packages": {"distributions": [
            {"name": "torch", "version": "2.8.0", "location": USER_SITE},
            {"name": "torch", "version": "2.6.0", "location": SITE}],
            "torch_version_file": {"path": f"{USER_SITE}/torch/version.py", "version": "2.8.0"}}},
            "a --user install shadows the venv's torch", contains="PYTHONNOUSERSITE=1"),
        Example("error", {"packages": {"distributions": [
            {"name": "torch", "version": "2.6.0", "location": SITE, "metadata_path": f"{SITE}/torch-2.6.0.dist-info"},
            {"name": "torch", "version": "2.8.0", "location": SITE, "metadata_path": f"{SITE}/torch-2.8.0.dist-info"}],
            "torch_version_file": {"path": f"{SITE}/torch/version.py", "version": "2.8.0"}}},
            "two dist-info folders in one site-packages", contains="interrupted"),
        Example("error", {"packages": {"distributions": [{"name": "torch", "version": "2.8.0", "location": SITE}],
                                       "torch_version_file": {"path": f"{SITE}/torch/version.py", "version": "2.6.0"}}},
                "half-upgraded: metadata 2.8.0, files 2.6.0", contains="--force-reinstall torch==2.8.0"),
        Example("warning", {"packages": {"distributions": [{"name": "torch", "version": "2.13.0", "location": SITE}]},
                            "torch": {"import_status": "ok", "file": "/home/ada/src/pytorch/torch/__init__.py"}},
                "a source checkout on PYTHONPATH shadows the installed wheel", contains="/home/ada/src/pytorch"),
        Example("ok", {"packages": {"distributions": [{"name": "torch", "version": "2.5.1", "location": SITE}],
                                    "torch_version_file": {"path": f"{SITE}/torch/version.py", "version": "2.5.1+cu124"}}},
                "local tag in version.py only"),
        Example("error", {"packages": {"distributions": [{"name": "torch", "version": "2.5.1", "location": SITE}],
                                       "torch_version_file": None}},
                "metadata left behind without the package", contains="uninstall -y torch"),
        Example("ok", {"packages": {"distributions": [{"name": "torch", "version": "2.14.0a0+git1234abc", "location": SITE,
                                                       "editable": "/home/ada/src/pytorch"}],
                                    "torch_version_file": {"path": "/home/ada/src/pytorch/torch/version.py",
                                                           "version": "2.14.0a0+git5678def"}}},
                "an editable source install"),
        Example("skip", {"packages": {"distributions": [], "torch_version_file": None}}),
        Example("warning", {"packages": {"distributions": [
            {"name": "torch", "version": "2.6.0", "location": "collect_env report"},
            {"name": "torch", "version": "2.8.0", "location": "collect_env report", "installer": "conda"}]}},
                "a pasted report whose pip and conda lists disagree (pytorch/vision#9174)", contains="2.6.0, 2.8.0"),
        Example("ok", {"packages": {"distributions": [
            {"name": "torch", "version": "2.1.2", "location": "collect_env report"},
            {"name": "torch", "version": "2.1.2", "location": "collect_env report", "installer": "conda"}]}},
                "pip and conda listing the same install"),
        Example("error", {"torch": {"import_status": "import-error", "error_type": "ImportError",
                                    "error_message": "/usr/local/lib/python3.6/dist-packages/torch/lib/libtorch_python.so: "
                                                     "undefined symbol: _ZTIN3c1014WarningHandlerE"}},
                "a pasted import failure: torch's library lacks a c10 symbol (pytorch#29544)", contains="two torch builds"),
        Example("skip", {"torch": {"import_status": "import-error", "error_type": "ImportError",
                                   "error_message": "/x/torch/lib/libtorch_cuda.so: undefined symbol: cudnnGetVersion"}},
                "a CUDA library's symbol is no sign of a second torch"),
    ],
)
def multiple_torch_installs(facts):
    """
    ## What it checks
    Every torch distribution (`torch-*.dist-info`, `torch*.egg-info`) on the interpreter's
    sys.path, in order; whether the torch that `import torch` picks is the one pip manages; and
    whether `torch/version.py` agrees with the metadata beside it.

    ## Why it matters
    A second torch (a `pip install --user` copy in `~/.local`, a source checkout on `PYTHONPATH`,
    a conda and a pip copy) means `pip list` and `import torch` disagree: upgrades do not take
    effect and bug reports name the wrong version (pytorch/vision#9174). Two dist-info folders in
    one site-packages, or metadata that says 2.8 over files that say 2.6, mean an upgrade was
    interrupted and the torch folder holds files of two versions.

    The same mix shows when `import torch` fails because one of torch's own files lacks a symbol
    of torch's own C++ (`libtorch_python.so: undefined symbol: _ZTIN3c1014WarningHandlerE`): that
    is the verdict where no package list was given.

    ## How to fix
    Keep one: uninstall every copy, then install the version you want in this interpreter. Set
    `PYTHONNOUSERSITE=1` to stop the user site from shadowing a virtualenv.
    """
    mixed = torch_own_symbol_missing(facts)
    gap = unknown_need(facts, "packages.distributions")
    if gap is not None:
        return _mixed_files(facts, mixed) if mixed else gap
    result = _judge(facts)
    # The loader's refusal is the ground truth, whatever the metadata seemed to say.
    return _mixed_files(facts, mixed) if mixed and result.status is not Status.ERROR else result


def _mixed_files(facts, mixed: tuple[str, str, str]):
    file, symbol, said = mixed
    torches = dists(facts, "torch")
    evidence = {"import error": said}  # as printed: macOS's loader says "Symbol not found", not "undefined symbol"
    if torches:
        evidence["torch installs"] = [f"{d.version} in {d.location}" for d in torches]
    return error(
        f"import torch fails: {file.rsplit('/', 1)[-1]} lacks {symbol}, a symbol of torch's own C++ that every "
        "library of one torch build defines: files of two torch builds are mixed (a second torch on the path, "
        "a nightly or source build over a release, a libtorch on LD_LIBRARY_PATH, or an interrupted upgrade)",
        fix=Fix("Uninstall torch until pip finds none, check that no other torch or libtorch is on the path, "
                "then install one torch",
                (f"{pip(facts)} uninstall -y torch   # repeat until it says torch is not installed",
                 "echo $LD_LIBRARY_PATH $PYTHONPATH   # no libtorch or other torch folder here",
                 f"{pip(facts)} install torch")),
        evidence=evidence, related=("libtorch-pytorch-mixed",))


def _judge(facts):
    torches = dists(facts, "torch")
    found = _package_dir(facts)
    if not torches and found is None:
        return skip(no_torch(facts))
    evidence = {"torch installs (in sys.path order)": [f"{d.version} in {d.location}" for d in torches]}
    if not all(os.path.isabs(d.location) for d in torches):
        # A pasted report (collect_env) names versions but not folders, and its pip and conda
        # lists often show the same install twice: only differing versions prove two installs.
        versions = sorted({base_version(d.version) for d in torches})
        if len(versions) > 1:
            return warning(
                f"the report lists {len(versions)} torch versions ({', '.join(versions)}): two installs, and "
                "`import torch` may not load the one pip or conda manages",
                fix=Fix("Keep one torch: uninstall every copy, then install the one you want in this interpreter",
                        (f"{pip(facts)} uninstall -y torch", "conda remove pytorch  # if conda installed one",
                         f"{pip(facts)} install torch=={torches[0].version}")),
                evidence=evidence)
        return ok(f"one torch version in the report: {torches[0].version}", **evidence)
    user_site = fact(facts, "python.user_site")
    uninstall_all = tuple(f"{pip(facts)} uninstall -y torch" for _ in torches) or (f"{pip(facts)} uninstall -y torch",)

    locations = [_norm(d.location) for d in torches]
    same_dir = sorted({loc for loc in locations if locations.count(loc) > 1})
    if same_dir:
        here = [d for d in torches if _norm(d.location) == same_dir[0]]
        return error(
            f"{len(here)} torch metadata folders in {same_dir[0]} ({', '.join(d.version for d in here)}): an upgrade "
            "or uninstall was interrupted, and the torch folder may hold files of both versions",
            fix=Fix("Remove every copy, then install one torch", uninstall_all + (_install(facts, here[-1]),)),
            evidence=evidence)

    vf = fact(facts, "packages.torch_version_file")
    imported_from, how = found if found else (None, "")
    owner = next((d for d in torches if imported_from and _owns(d, imported_from)), None)

    if found is None and not any(d.editable for d in torches):
        d = torches[0]
        return error(
            f"torch {d.version} has metadata in {d.location} but no torch package on the path: an install or "
            "uninstall was interrupted",
            fix=Fix("Remove the leftover metadata and install torch again", uninstall_all + (_install(facts, d),)),
            evidence={**evidence, "metadata": d.metadata_path or d.location})

    if (vf is not None and vf.version and owner is not None and not owner.editable
            and not _same_build(owner.version, vf.version)):
        return error(
            f"torch is half-upgraded in {owner.location}: its metadata says {owner.version} but torch/version.py "
            f"says {vf.version}, so the files are a mix of versions (an interrupted pip run)",
            fix=Fix(f"Reinstall torch {owner.version} over the mixed files",
                    (f"{pip(facts)} install --force-reinstall torch=={owner.version}",)),
            evidence={**evidence, "torch/version.py": f"{vf.version} ({vf.path})"})

    if imported_from and owner is None:
        evidence["imported from"] = imported_from
        managed = f"; pip manages torch {torches[0].version} in {torches[0].location}" if torches else ""
        return warning(
            f"`import torch` picks the torch in {imported_from} (found by {how}), which has no package "
            f"metadata{managed}. `pip list` and the torch you run disagree",
            fix=Fix("Remove the unmanaged copy from the path (PYTHONPATH, a .pth file, the current folder), "
                    "or install it properly",
                    ("echo $PYTHONPATH", f"{python_cmd(facts)} -c \"import torch; print(torch.__file__)\"")),
            evidence=evidence)

    if len(torches) > 1:
        winner = owner or torches[0]
        others = [d for d in torches if d is not winner]
        commands = uninstall_all + (_install(facts, winner),)
        if (user_site and any(_norm(d.location) == _norm(user_site) for d in torches)) or \
                any("/.local/" in d.location for d in torches):
            commands += ("export PYTHONNOUSERSITE=1   # or keep ~/.local's copy and stop it shadowing this environment",)
        return warning(
            f"{len(torches)} torch installs on the path: `import torch` gets {winner.version} from "
            f"{winner.location}; also installed: " + ", ".join(f"{d.version} in {d.location}" for d in others),
            fix=Fix("Keep one torch: uninstall every copy, then install the one you want in this interpreter", commands),
            evidence=evidence)

    only = owner or torches[0]
    where = f"editable from {only.editable}" if only.editable else f"in {only.location}"
    return ok(f"one torch on the path: {only.version} {where}")
